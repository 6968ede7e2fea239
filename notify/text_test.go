package notify_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/notify"
)

func TestLocalTime(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 7, 8, 30, 0, 0, time.UTC) // 09:30 in Paris (CET, UTC+1)
	for _, tc := range []struct {
		tz   string
		at   time.Time
		want string
	}{
		{"Europe/Paris", at, "Mon 7 Dec 2026 09:30 (Europe/Paris)"},
		{"America/New_York", at, "Mon 7 Dec 2026 03:30 (America/New_York)"},
		// Summer time: Paris is UTC+2 in July.
		{"Europe/Paris", time.Date(2026, 7, 6, 7, 0, 0, 0, time.UTC), "Mon 6 Jul 2026 09:00 (Europe/Paris)"},
		{"", at, "Mon 7 Dec 2026 08:30 (UTC)"},
		{"Nowhere/Atlantis", at, "Mon 7 Dec 2026 08:30 (UTC)"},
	} {
		if got := notify.LocalTime(tc.at, tc.tz); got != tc.want {
			t.Errorf("LocalTime(%v, %q) = %q, want %q", tc.at, tc.tz, got, tc.want)
		}
	}
}

func sampleMessage(kind string) notify.Message {
	return notify.Message{
		Kind:           kind,
		AppointmentID:  42,
		PatientID:      7,
		PatientName:    "Jane Doe",
		Phone:          "+33612345678",
		Email:          "jane.doe@example.com",
		DoctorName:     "Dr Amélie Martin",
		StartAt:        time.Date(2026, 12, 7, 8, 30, 0, 0, time.UTC),
		TimeZone:       "Europe/Paris",
		QueueNumber:    3,
		IdempotencyKey: "appt-42-" + kind,
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	const when = "Monday, 7 December 2026, 09:30 (Europe/Paris)"
	for _, tc := range []struct {
		kind    string
		edit    func(*notify.Message)
		subject string
		body    []string
	}{
		{kind: notify.KindConfirmation, subject: "Appointment confirmed: " + when,
			body: []string{"Hello Jane Doe,", "with Dr Amélie Martin on " + when + " is confirmed", "No. 3", "Appointment reference: 42"}},
		{kind: notify.KindConfirmation, edit: func(m *notify.Message) { m.CheckInCode = "K7M2-9QXD" }, subject: "Appointment confirmed: " + when,
			body: []string{"is confirmed", "Check-in code: K7M2-9QXD"}},
		{kind: notify.KindConfirmation, edit: func(m *notify.Message) {
			m.Place, m.MapURL = "Clinique Lumière, 12 Rue de la Santé", "https://www.openstreetmap.org/?mlat=48.83520&mlon=2.34220"
		}, subject: "Appointment confirmed: " + when,
			body: []string{"Where: Clinique Lumière, 12 Rue de la Santé", "Map: https://www.openstreetmap.org/?mlat=48.83520&mlon=2.34220"}},
		{kind: notify.KindRescheduled, edit: func(m *notify.Message) { m.Place = "Clinique Lumière" }, subject: "Appointment moved: " + when,
			body: []string{"Where: Clinique Lumière", "Your previous time is no longer reserved."}},
		{kind: notify.KindReminder, edit: func(m *notify.Message) { m.CheckInCode = "K7M2-9QXD" }, subject: "Appointment reminder: " + when,
			body: []string{"Check-in code: K7M2-9QXD"}},
		{kind: notify.KindCancellation, subject: "Appointment cancelled: " + when,
			body: []string{"on " + when + " has been cancelled", "Queue number: No. 3."}},
		{kind: notify.KindExpiry, subject: "Appointment hold expired: " + when,
			body: []string{"expired before the payment was confirmed", when}},
		{kind: notify.KindSuspension, edit: func(m *notify.Message) { m.Reason = "the doctor is ill" },
			subject: "Appointment cancelled by the clinic: " + when,
			body:    []string{"the clinic has cancelled your appointment with Dr Amélie Martin on " + when, "Reason: the doctor is ill"}},
		{kind: notify.KindRefund, edit: func(m *notify.Message) { m.RefundAmount, m.Currency = 1250, "EUR" },
			subject: "Refund made: " + when,
			body:    []string{"We have refunded € 12.50 for your appointment with Dr Amélie Martin on " + when, "Appointment reference: 42"}},
		{kind: notify.KindQueueAhead, edit: func(m *notify.Message) { m.Ahead = 3 }, subject: "Your turn is coming: " + when,
			body: []string{"3 patients are ahead of you for Dr Amélie Martin.", "Please stay near the room"}},
		{kind: notify.KindLoginCode, edit: func(m *notify.Message) { m.AppointmentID, m.Code = 0, "918273" },
			subject: "Your sign-in code", body: []string{"Your sign-in code is 918273."}},
		{kind: "something-new", subject: "About your appointment", body: []string{when}},
	} {
		m := sampleMessage(tc.kind)
		if tc.edit != nil {
			tc.edit(&m)
		}
		subject, body := notify.Text(m)
		if subject != tc.subject {
			t.Errorf("%s: subject = %q, want %q", tc.kind, subject, tc.subject)
		}
		for _, s := range tc.body {
			if !strings.Contains(body, s) {
				t.Errorf("%s: body lacks %q:\n%s", tc.kind, s, body)
			}
		}
		// Contact data never appear in a text, and codes never in a subject.
		for _, secret := range []string{m.Phone, m.Email} {
			if strings.Contains(subject+body, secret) {
				t.Errorf("%s: text contains %q", tc.kind, secret)
			}
		}
		if m.CheckInCode != "" && (strings.Contains(subject, m.CheckInCode) || !strings.Contains(notify.SMS(m), m.CheckInCode)) {
			t.Errorf("%s: the check-in code is in the subject, or not in the SMS %q", tc.kind, notify.SMS(m))
		}
		if m.Code != "" && strings.Contains(subject, m.Code) {
			t.Errorf("%s: subject contains the code", tc.kind)
		}
	}
}

func TestTextWithoutOptionalFields(t *testing.T) {
	t.Parallel()
	m := sampleMessage(notify.KindConfirmation)
	m.PatientName, m.DoctorName, m.QueueNumber, m.AppointmentID = "", "", 0, 0
	_, body := notify.Text(m)
	for _, s := range []string{"Hello,", "with your doctor on"} {
		if !strings.Contains(body, s) {
			t.Errorf("body lacks %q:\n%s", s, body)
		}
	}
	for _, s := range []string{"No. 0", "reference"} {
		if strings.Contains(body, s) {
			t.Errorf("body contains %q:\n%s", s, body)
		}
	}
}

// TestTextInEveryLanguage renders every kind in every language: the
// catalogs have its sentences (TestNotifyCatalogComplete), the date is the
// language's, and the SMS fits one segment.
func TestTextInEveryLanguage(t *testing.T) {
	t.Parallel()
	kinds := []string{notify.KindConfirmation, notify.KindCancellation, notify.KindExpiry, notify.KindSuspension, notify.KindLoginCode, "reminder", notify.KindRefund}
	want := map[string]string{"en": "December", "zh-Hans": "2026年12月7日", "vi": "tháng 12", "fr": "décembre"}
	for lang, month := range want {
		for _, k := range kinds {
			m := sampleMessage(k)
			m.Language, m.Code, m.Reason = lang, "123456", "grève"
			m.RefundAmount, m.Currency = 1250, "EUR"
			subject, body := notify.Text(m)
			if k != notify.KindLoginCode && (!strings.Contains(subject, month) || !strings.Contains(body, month)) {
				t.Errorf("%s %s: no %q in %q / %q", lang, k, month, subject, body)
			}
			sms := notify.SMS(m)
			if n := len([]rune(sms)); n == 0 || n > notify.SMSMaxRunes(lang) {
				t.Errorf("%s %s: SMS of %d characters: %q", lang, k, n, sms)
			}
		}
	}
	fr := sampleMessage(notify.KindConfirmation)
	fr.Language = "fr"
	if _, body := notify.Text(fr); !strings.Contains(body, "Bonjour Jane Doe") || !strings.Contains(body, "est confirmé") {
		t.Errorf("French confirmation:\n%s", body)
	}
}

// The log notifier logs Text's subject, for every kind and language, with
// or without a time, though it renders only the subject (Subject).
func TestLogLogsTextsSubject(t *testing.T) {
	t.Parallel()
	kinds := []string{notify.KindConfirmation, notify.KindCancellation, notify.KindExpiry, notify.KindSuspension,
		notify.KindLoginCode, notify.KindRescheduled, notify.KindReminder, notify.KindOffer, notify.KindLeftoverOffer,
		notify.KindRefund, notify.KindQueueAhead, "unknown-kind"}
	for _, lang := range []string{"en", "zh-Hans", "vi", "fr"} {
		for _, k := range kinds {
			for _, timed := range []bool{true, false} {
				m := sampleMessage(k)
				m.Language = lang
				if !timed {
					m.StartAt = time.Time{}
				}
				var rec struct{ Subject string }
				if err := json.Unmarshal([]byte(logLines(t, false, m)), &rec); err != nil {
					t.Fatal(err)
				}
				if subject, _ := notify.Text(m); rec.Subject != subject || subject == "" {
					t.Errorf("%s %s (time %v): logged subject %q, Text's %q", lang, k, timed, rec.Subject, subject)
				}
			}
		}
	}
}

// BenchmarkLogSend is the log notifier's cost per confirmation: the
// default notifier, which the rush's delivery runs beside the selling.
func BenchmarkLogSend(b *testing.B) {
	n := &notify.Log{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	m := sampleMessage(notify.KindConfirmation)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := n.Send(b.Context(), m); err != nil {
			b.Fatal(err)
		}
	}
}
