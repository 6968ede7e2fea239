package notify_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/slotd/slotd/notify"
)

// logLines runs the log notifier over msgs and returns what it wrote.
func logLines(t *testing.T, showCodes bool, msgs ...notify.Message) string {
	t.Helper()
	var buf bytes.Buffer
	n := &notify.Log{Logger: slog.New(slog.NewJSONHandler(&buf, nil)), ShowCodes: showCodes}
	for _, m := range msgs {
		if err := n.Notify(t.Context(), m); err != nil {
			t.Fatalf("Log.Notify: %v", err)
		}
	}
	return buf.String()
}

func TestLogOneStructuredLine(t *testing.T) {
	t.Parallel()
	out := logLines(t, false, sampleMessage(notify.KindConfirmation))
	if n := strings.Count(out, "\n"); n != 1 {
		t.Fatalf("want one line, got %d:\n%s", n, out)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for k, want := range map[string]any{
		"msg":            "notification",
		"kind":           "confirmation",
		"appointmentId":  float64(42),
		"patientId":      float64(7),
		"localTime":      "Mon 7 Dec 2026 09:30 (Europe/Paris)",
		"queueNumber":    float64(3),
		"phone":          "+33******78",
		"email":          "j***@example.com",
		"idempotencyKey": "appt-42-confirmation",
	} {
		if rec[k] != want {
			t.Errorf("%s = %v, want %v", k, rec[k], want)
		}
	}
}

// TestLogNeverPrintsContactDataOrCodes is the personal-data guarantee: the
// full phone number, e-mail address and login code never reach the log.
func TestLogNeverPrintsContactDataOrCodes(t *testing.T) {
	t.Parallel()
	var msgs []notify.Message
	for _, kind := range []string{notify.KindConfirmation, notify.KindCancellation, notify.KindExpiry, notify.KindSuspension, notify.KindLoginCode} {
		m := sampleMessage(kind)
		m.Reason = "closed"
		if kind == notify.KindLoginCode {
			m.Code = "918273"
		}
		msgs = append(msgs, m)
	}
	out := logLines(t, false, msgs...)
	for _, secret := range []string{"+33612345678", "612345678", "jane.doe@example.com", "jane.doe", "918273"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "+33******78") || !strings.Contains(out, "j***@example.com") {
		t.Errorf("log lacks the masked contact data:\n%s", out)
	}
}

func TestLogShowCodes(t *testing.T) {
	t.Parallel()
	m := sampleMessage(notify.KindLoginCode)
	m.Code = "918273"
	if out := logLines(t, true, m); !strings.Contains(out, `"code":"918273"`) {
		t.Errorf("ShowCodes: code not logged:\n%s", out)
	}
	// Even in demo mode only login-code messages carry a code to show.
	c := sampleMessage(notify.KindConfirmation)
	c.Code = "555555"
	if out := logLines(t, true, c); strings.Contains(out, "555555") {
		t.Errorf("ShowCodes logged a code of a %s message:\n%s", c.Kind, out)
	}
	// And contact data stay masked in demo mode too.
	if out := logLines(t, true, m); strings.Contains(out, m.Email) || strings.Contains(out, m.Phone) {
		t.Errorf("ShowCodes: contact data logged:\n%s", out)
	}
}

// TestLogNilLoggerUsesDefault swaps the process-wide default logger, so it
// must not run in parallel.
func TestLogNilLoggerUsesDefault(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	if err := (&notify.Log{}).Notify(t.Context(), notify.Message{Kind: notify.KindExpiry, PatientID: 9}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "patientId=9") || !strings.Contains(buf.String(), `subject="Appointment hold expired"`) {
		t.Errorf("default logger got %q", buf.String())
	}
}
