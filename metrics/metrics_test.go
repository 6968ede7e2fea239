package metrics

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func TestMetricsExposed(t *testing.T) {
	m := New()
	m.Booked("created", false, time.Millisecond)
	m.Booked("slot-full", true, time.Microsecond)
	m.Batch(12, 3*time.Millisecond)
	m.Request("POST /api/appointments", 201, time.Millisecond)
	depth := 7
	m.GaugeFunc("slotd_lane_queue_depth", "queued", func() float64 { return float64(depth) })
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`slotd_bookings_total{gated="false",outcome="created"} 1`,
		`slotd_bookings_total{gated="true",outcome="slot-full"} 1`,
		`slotd_booking_batch_size_sum 12`,
		`slotd_booking_decision_seconds_count 1`,
		`slotd_lane_queue_depth 7`,
		`slotd_http_request_seconds_count{code="201",route="POST /api/appointments"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestWaitlistAndReminderMetrics(t *testing.T) {
	m := New()
	m.Offers("made", 3)
	m.Offers("expired", 1)
	m.Reminders("delivered", 2)
	m.CheckIn("patient", "arrived")
	m.CheckIn("staff", "check-in-too-early")
	m.WalkIn("added")
	m.LeftoverOffers("made", 2)
	fail := false
	m.WaitlistEntries(func() (map[string]int, error) {
		if fail {
			return nil, errors.New("down")
		}
		return map[string]int{"WAITING": 4, "OFFERED": 1}, nil
	})
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		b, _ := io.ReadAll(rec.Body)
		return string(b)
	}
	body := scrape()
	for _, want := range []string{
		`slotd_waitlist_offers_total{outcome="made"} 3`,
		`slotd_waitlist_offers_total{outcome="expired"} 1`,
		`slotd_waitlist_offers_total{outcome="accepted"} 0`, // every outcome exists from the start
		`slotd_reminders_total{outcome="delivered"} 2`,
		`slotd_reminders_total{outcome="passed"} 0`,
		`slotd_checkins_total{by="patient",outcome="arrived"} 1`,
		`slotd_checkins_total{by="staff",outcome="check-in-too-early"} 1`,
		`slotd_checkins_total{by="staff",outcome="bad-check-in-code"} 0`,
		`slotd_walk_ins_total{outcome="added"} 1`,
		`slotd_leftover_offers_total{outcome="made"} 2`,
		`slotd_leftover_offers_total{outcome="expired"} 0`,
		`slotd_walk_ins_total{outcome="walk-in-limit"} 0`,
		`slotd_waitlist_entries{state="WAITING"} 4`,
		`slotd_waitlist_entries{state="OFFERED"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	fail = true
	if body := scrape(); strings.Contains(body, "slotd_waitlist_entries{") {
		t.Error("a failed count is reported as a value")
	}
}

// The kept reconciliation verdict is exported by kind and class, read at
// each scrape; before the first run nothing is.
func TestReconciliationExposed(t *testing.T) {
	m := New()
	var have bool
	m.ReconciliationFrom(func() (Reconciliation, bool) {
		return Reconciliation{At: time.Unix(1700000000, 0), Kinds: map[string]int{"counter_mismatch": 2, "refund_needed": 1},
			Violation: func(k string) bool { return k == "counter_mismatch" }}, have
	})
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body, _ := io.ReadAll(rec.Body)
		return string(body)
	}
	if body := scrape(); strings.Contains(body, "slotd_reconciliation") {
		t.Fatalf("exported before the first run:\n%s", body)
	}
	have = true
	body := scrape()
	for _, want := range []string{
		`slotd_reconciliation_issues{class="violation",kind="counter_mismatch"} 2`,
		`slotd_reconciliation_issues{class="pending",kind="refund_needed"} 1`,
		`slotd_reconciliation_last_success_timestamp_seconds 1.7e+09`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestStaffSignInMetrics(t *testing.T) {
	m := New()
	m.StaffSignIn("refused", false)
	m.StaffSignIn("refused", true)
	m.StaffSignIn("locked", false)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`slotd_staff_signins_total{outcome="refused"} 2`,
		`slotd_staff_signins_total{outcome="locked"} 1`,
		`slotd_staff_signins_total{outcome="accepted"} 0`, // every outcome exists from the start
		`slotd_staff_lockouts_total 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// Refused tokens are counted by reason, both reasons there from the start.
func TestTokensRefused(t *testing.T) {
	m := New()
	m.TokenRefused(booking.CodeUnauthorized)
	m.TokenRefused(booking.CodeUnauthorized)
	m.TokenRefused(booking.CodeBookingBlocked)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{`slotd_tokens_refused_total{reason="revoked"} 2`, `slotd_tokens_refused_total{reason="departed"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	rec = httptest.NewRecorder()
	New().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if b, _ := io.ReadAll(rec.Body); !strings.Contains(string(b), `slotd_tokens_refused_total{reason="departed"} 0`) {
		t.Error("the reasons are not exported before the first refusal")
	}
}

func TestSigninMetrics(t *testing.T) {
	m := New()
	m.SigninCode("sent")
	m.SigninCode("sent")
	m.SigninCode("clinic")
	m.SigninChecked("phone-day")
	m.Signup("created")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`slotd_signin_codes_total{outcome="sent"} 2`,
		`slotd_signin_codes_total{outcome="clinic"} 1`,
		`slotd_signin_checks_total{outcome="phone-day"} 1`,
		`slotd_signups_total{outcome="created"} 1`,
		`slotd_signups_total{outcome="existing"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestRefundMetrics(t *testing.T) {
	m := New()
	m.Refunded("patient-cancel", "succeeded", 1500)
	m.Refunded("patient-cancel", "retry", 0)
	m.Refunded("suspension", "succeeded", 800)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`slotd_refunds_total{outcome="succeeded",reason="patient-cancel"} 1`,
		`slotd_refunds_total{outcome="retry",reason="patient-cancel"} 1`,
		`slotd_refunded_amount_total{reason="patient-cancel"} 1500`,
		`slotd_refunded_amount_total{reason="suspension"} 800`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestPaymentNotificationMetrics(t *testing.T) {
	m := New()
	m.PaymentNotified("stripe", "applied")
	m.PaymentNotified("stripe", "unverified")
	m.PaymentNotified("stripe", "unverified")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`slotd_payment_notifications_total{outcome="applied",provider="stripe"} 1`,
		`slotd_payment_notifications_total{outcome="unverified",provider="stripe"} 2`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestLotteryMetrics(t *testing.T) {
	m := New()
	m.LotteryRegistered("created")
	m.LotteryRegistered("existing")
	m.LotteryRegistered("created")
	m.LotteryDrawn("close", 40)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`slotd_lottery_registrations_total{outcome="created"} 2`,
		`slotd_lottery_registrations_total{outcome="existing"} 1`,
		`slotd_lottery_draws_total{trigger="close"} 1`,
		`slotd_lottery_drawn_registrants_total 40`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestPeopleMetrics(t *testing.T) {
	m := New()
	m.Person("add", "done")
	m.Person("add", "conflict")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`slotd_people_total{action="add",outcome="done"} 1`,
		`slotd_people_total{action="add",outcome="conflict"} 1`,
		`slotd_people_total{action="remove",outcome="done"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s", want)
		}
	}
}

func TestStatementMetrics(t *testing.T) {
	m := New()
	m.StatementChecked(booking.StatementCheck{CheckedAt: time.Unix(1_800_000_000, 0),
		Differences: []booking.StatementDifference{{Kind: booking.StatementUnknown}, {Kind: booking.StatementUnknown}, {Kind: booking.StatementAmount}}})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`slotd_statement_differences{kind="statement_unknown"} 2`,
		`slotd_statement_differences{kind="statement_amount"} 1`,
		`slotd_statement_differences{kind="statement_missing"} 0`,
		`slotd_statement_last_check_timestamp_seconds 1.8e+09`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
