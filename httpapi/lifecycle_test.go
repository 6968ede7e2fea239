package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/service"
)

var paymentSecret = "payment-provider-secret-0123456789"

func withPaymentSecret(secret string) envOpt {
	return withService(func(o *service.Options) { o.Payments = &payments.Signed{Secret: []byte(secret)} })
}

// sign is the provider's signature of body under secret.
func sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// callback is a payment callback whose body is signed with secret (no
// signature header when secret is empty). A map body is sent in the
// clinic's currency (EUR) and signed at the env's clock unless it says
// otherwise; a member set to nil is left out.
func (e *env) callback(secret string, body any) call {
	if m, ok := body.(map[string]any); ok {
		full := map[string]any{"currency": "EUR", "timestamp": e.clock.Now().Unix()}
		for k, v := range m {
			full[k] = v
		}
		for k, v := range full {
			if v == nil {
				delete(full, k)
			}
		}
		body = full
	}
	raw, _ := json.Marshal(body)
	h := map[string]string{}
	if secret != "" {
		h[SignatureHeader] = sign(secret, raw)
	}
	return call{method: "POST", path: "/api/payments/callback", body: raw, header: h}
}

func payment(trade string, apptID, amount int64) map[string]any {
	return map[string]any{"tradeNo": trade, "appointmentId": apptID, "amount": amount}
}

// hold books a paid slot for a new patient and returns the HELD appointment.
func (e *env) hold(f *fixture, fee int64) booking.Appointment {
	e.t.Helper()
	sl := e.slot(f, 2, func(s *booking.Slot) { s.FeeCents = fee })
	p := e.patient()
	var a booking.Appointment
	e.do(book(e.patientToken(p.ID), "hold", slotBody(sl.ID))).expect(e.t, 201).decode(e.t, &a)
	if a.Status != booking.StatusHeld {
		e.t.Fatalf("status %s, want HELD", a.Status)
	}
	return a
}

func TestPaymentCallback(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	f := e.fixture()
	a := e.hold(f, 2500)

	var ans paymentAnswer
	e.do(e.callback(paymentSecret, payment("T-1", a.ID, 2500))).expect(t, 200).decode(t, &ans)
	if ans.Duplicate || ans.Payment.Outcome != booking.PaymentApplied || ans.Appointment.Status != booking.StatusBooked || ans.Appointment.ID != a.ID {
		t.Fatalf("%+v", ans)
	}

	// The provider retries: same answer, nothing changes.
	before := e.snapshot()
	e.do(e.callback(paymentSecret, payment("T-1", a.ID, 2500))).expect(t, 200).decode(t, &ans)
	if !ans.Duplicate || ans.Appointment.Status != booking.StatusBooked || ans.Payment.TradeNo != "T-1" {
		t.Fatalf("duplicate: %+v", ans)
	}
	if e.snapshot() != before {
		t.Fatal("a duplicate callback changed the database")
	}

	// Unknown appointment.
	e.do(e.callback(paymentSecret, payment("T-2", 987654, 2500))).expect(t, 404, booking.CodeNotFound)
	// Malformed input, correctly signed.
	for _, b := range []map[string]any{
		{"tradeNo": "", "appointmentId": a.ID, "amount": 2500},
		{"tradeNo": "T 3", "appointmentId": a.ID, "amount": 2500},
		{"tradeNo": "T-3", "appointmentId": a.ID, "amount": 0},
		{"tradeNo": "T-3", "appointmentId": a.ID, "amount": 2500, "extra": 1},
	} {
		c := e.callback(paymentSecret, b)
		c.invalid = true
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	}
	if e.snapshot() != before {
		t.Fatal("refused callbacks changed the database")
	}
}

func TestPaymentCallbackSignature(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	f := e.fixture()
	a := e.hold(f, 2500)
	body := payment("T-1", a.ID, 2500)
	raw := e.callback("", body).body.([]byte)
	before := e.snapshot()

	for name, c := range map[string]call{
		"missing":      e.callback("", body),
		"other secret": e.callback("not-the-secret", body),
		"not hex":      {method: "POST", path: "/api/payments/callback", body: raw, header: map[string]string{SignatureHeader: "sha256=zz"}},
		"no prefix":    {method: "POST", path: "/api/payments/callback", body: raw, header: map[string]string{SignatureHeader: strings.TrimPrefix(sign(paymentSecret, raw), "sha256=")}},
		"other body": {method: "POST", path: "/api/payments/callback", body: raw,
			header: map[string]string{SignatureHeader: sign(paymentSecret, []byte(strings.Replace(string(raw), "2500", "25", 1)))}},
	} {
		// The document requires the header, so its absence is a request
		// outside the contract; the answer is still checked against it.
		c.invalid = name == "missing"
		a := e.do(c).expect(t, 401, booking.CodeBadSignature)
		if !strings.Contains(a.header.Get("WWW-Authenticate"), "HMAC-SHA256") {
			t.Fatalf("%s: WWW-Authenticate %q", name, a.header.Get("WWW-Authenticate"))
		}
	}
	if e.snapshot() != before {
		t.Fatal("an unsigned callback changed the database")
	}

	// Without a configured secret no callback is accepted, however signed.
	e2 := newEnv(t)
	unsigned := e2.callback("", body)
	unsigned.invalid = true
	e2.do(unsigned).expect(t, 401, booking.CodeBadSignature)
	e2.do(e2.callback(paymentSecret, body)).expect(t, 401, booking.CodeBadSignature)
}

// TestPaymentCallbackTimestampAndCurrency: the signed timestamp must lie
// within 5 minutes of the clock either way (401), the signed currency must
// be the clinic's (409), both are required (400), and a currency changed
// after signing fails the signature (401); none of these changes anything.
func TestPaymentCallbackTimestampAndCurrency(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	f := e.fixture()
	a := e.hold(f, 2500)
	now := e.clock.Now()
	before := e.snapshot()
	with := func(k string, v any) map[string]any {
		b := payment("T-1", a.ID, 2500)
		b[k] = v
		return b
	}
	for name, c := range map[string]struct {
		body   map[string]any
		status int
		code   booking.Code
	}{
		"old timestamp":      {with("timestamp", now.Add(-auth.PaymentMaxSkew-time.Second).Unix()), 401, booking.CodeBadSignature},
		"a day old":          {with("timestamp", now.Add(-24*time.Hour).Unix()), 401, booking.CodeBadSignature},
		"future timestamp":   {with("timestamp", now.Add(auth.PaymentMaxSkew+time.Second).Unix()), 401, booking.CodeBadSignature},
		"wrong currency":     {with("currency", "USD"), 409, booking.CodePaymentRejected},
		"missing currency":   {with("currency", nil), 400, booking.CodeInvalidRequest},
		"lower-case":         {with("currency", "eur"), 400, booking.CodeInvalidRequest},
		"missing timestamp":  {with("timestamp", nil), 400, booking.CodeInvalidRequest},
		"zero timestamp":     {with("timestamp", 0), 400, booking.CodeInvalidRequest},
		"timestamp a string": {with("timestamp", now.Format(time.RFC3339)), 400, booking.CodeInvalidRequest},
	} {
		cl := e.callback(paymentSecret, c.body)
		cl.invalid = c.status == 400 // outside the documented schema
		if got := e.do(cl); got.status != c.status || !strings.Contains(string(got.body), string(c.code)) {
			t.Errorf("%s: %d %s, want %d %s", name, got.status, got.body, c.status, c.code)
		}
	}
	// The currency changed in transit: the signature no longer matches.
	cl := e.callback(paymentSecret, payment("T-1", a.ID, 2500))
	cl.body = []byte(strings.Replace(string(cl.body.([]byte)), `"EUR"`, `"USD"`, 1))
	e.do(cl).expect(t, 401, booking.CodeBadSignature)
	// So is the timestamp.
	cl = e.callback(paymentSecret, payment("T-1", a.ID, 2500))
	cl.body = []byte(strings.Replace(string(cl.body.([]byte)), strconv.FormatInt(now.Unix(), 10), strconv.FormatInt(now.Unix()+1, 10), 1))
	e.do(cl).expect(t, 401, booking.CodeBadSignature)
	if e.snapshot() != before {
		t.Fatal("refused callbacks changed the database")
	}
	// Within the window both ways, in the clinic's currency: accepted.
	var ans paymentAnswer
	e.do(e.callback(paymentSecret, with("timestamp", now.Add(-auth.PaymentMaxSkew+time.Second).Unix()))).expect(t, 200).decode(t, &ans)
	if ans.Appointment.Status != booking.StatusBooked {
		t.Fatalf("%+v", ans)
	}
	e.do(e.callback(paymentSecret, with("timestamp", now.Add(auth.PaymentMaxSkew-time.Second).Unix()))).expect(t, 200)
}

// TestLatePayment: a payment after the hold's deadline is refused and
// recorded for a refund; the hold expires and its place is free.
func TestLatePayment(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	f := e.fixture()
	a := e.hold(f, 2500)
	e.clock.add(16 * time.Minute) // the hold lasts 15

	e.do(e.callback(paymentSecret, payment("T-late", a.ID, 2500))).expect(t, 409, booking.CodePaymentRejected)
	got, err := e.db.GetAppointment(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != booking.StatusExpired {
		t.Fatalf("status %s, want EXPIRED", got.Status)
	}
	sl, err := e.db.GetSlot(t.Context(), a.SlotID)
	if err != nil || sl.BookedCount != 0 {
		t.Fatalf("booked %d (%v), want the place released", sl.BookedCount, err)
	}
	// A retried late callback is a duplicate of the recorded refund.
	var ans paymentAnswer
	e.do(e.callback(paymentSecret, payment("T-late", a.ID, 2500))).expect(t, 200).decode(t, &ans)
	if !ans.Duplicate || ans.Payment.Outcome != booking.PaymentRefund {
		t.Fatalf("%+v", ans)
	}

	// A wrong amount is refused too, while the hold runs.
	b := e.hold(f, 2500)
	e.do(e.callback(paymentSecret, payment("T-short", b.ID, 100))).expect(t, 409, booking.CodePaymentRejected)

	var rep reconciliationAnswer
	e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.admin}).expect(t, 200).decode(t, &rep)
	// Refunds to pay are pending work: the invariants hold, but the report
	// is not clean until staff record them.
	if len(rep.RefundsNeeded) != 2 || rep.Clean || rep.Violations != 0 || rep.Pending != 2 {
		t.Fatalf("%+v", rep)
	}
	e.do(call{method: "POST", path: "/api/admin/payments/T-short/refund", token: e.admin, body: `{"reference":"RF-1"}`}).expect(t, 200)
	e.do(call{method: "POST", path: "/api/admin/payments/T-late/refund", token: e.admin, body: `{"reference":"RF-2"}`}).expect(t, 200)
	e.do(call{method: "POST", path: "/api/admin/payments/T-late/refund", token: e.admin, body: `{"reference":"RF-3"}`}).expect(t, 409, booking.CodeInvalidTransition)
	e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.admin}).expect(t, 200).decode(t, &rep)
	if len(rep.RefundsNeeded) != 0 || !rep.Clean {
		t.Fatalf("after the refunds: %+v", rep)
	}
}

func TestSuspensions(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	s1, s2, s3 := e.slot(f, 2), e.slot(f, 2), e.slot(f, 2)
	p := e.patient()
	tok := e.patientToken(p.ID)
	var a booking.Appointment
	e.do(book(tok, "k1", slotBody(s1.ID))).expect(t, 201).decode(t, &a)
	path := fmt.Sprintf("/api/admin/doctors/%d/suspensions", f.doctor.ID)
	// s1 and s2, not s3.
	body := map[string]any{"from": s1.StartAt.Format(time.RFC3339), "to": s3.StartAt.Format(time.RFC3339), "reason": "Dr. Weber is ill"}

	var res booking.SuspensionResult
	e.do(call{method: "POST", path: path, token: e.admin, body: body}).expect(t, 201).decode(t, &res)
	if res.Existing || res.SlotsClosed != 2 || res.Cancelled != 1 || res.PatientsTold != 1 || res.Suspension.Reason != "Dr. Weber is ill" || res.Suspension.DoctorID != f.doctor.ID {
		t.Fatalf("%+v", res)
	}
	// Repeating it changes nothing and says so.
	before := e.snapshot()
	var again booking.SuspensionResult
	e.do(call{method: "POST", path: path, token: e.admin, body: body}).expect(t, 200).decode(t, &again)
	if !again.Existing || again.Suspension.ID != res.Suspension.ID || again.Cancelled != 0 {
		t.Fatalf("%+v", again)
	}
	if e.snapshot() != before {
		t.Fatal("a repeated suspension changed the database")
	}

	var got booking.Appointment
	e.do(call{method: "GET", path: "/api/appointments/" + strconv.FormatInt(a.ID, 10), token: tok}).expect(t, 200).decode(t, &got)
	if got.Status != booking.StatusCancelled {
		t.Fatalf("appointment %s, want CANCELLED", got.Status)
	}
	// The closed slots are refused at once; the other is bookable.
	e.do(book(tok, "k2", slotBody(s2.ID))).expect(t, 409, booking.CodeSlotClosed)
	e.do(book(tok, "k3", slotBody(s3.ID))).expect(t, 201)

	// Refusals.
	e.do(call{method: "POST", path: path, token: tok, body: body}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: path, body: body}).expect(t, 401, booking.CodeUnauthorized)
	e.do(call{method: "POST", path: "/api/admin/doctors/999999/suspensions", token: e.admin, body: body}).expect(t, 404, booking.CodeNotFound)
	for name, b := range map[string]map[string]any{
		"backwards": {"from": s3.StartAt.Format(time.RFC3339), "to": s1.StartAt.Format(time.RFC3339), "reason": "x"},
		"no reason": {"from": s1.StartAt.Format(time.RFC3339), "to": s3.StartAt.Format(time.RFC3339), "reason": " "},
		"too long":  {"from": s1.StartAt.Format(time.RFC3339), "to": s1.StartAt.AddDate(2, 0, 0).Format(time.RFC3339), "reason": "x"},
	} {
		a := e.do(call{method: "POST", path: path, token: e.admin, body: b, invalid: name == "no reason"})
		a.expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "POST", path: path, token: e.admin, body: map[string]any{"from": "tomorrow", "to": "x", "reason": "x"}, invalid: true}).
		expect(t, 400, booking.CodeInvalidRequest)
}

func TestCompleteAndNoShow(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 3)
	var a1, a2, a3 booking.Appointment
	p1, p2, p3 := e.patient(), e.patient(), e.patient()
	e.do(book(e.patientToken(p1.ID), "k", slotBody(sl.ID))).expect(t, 201).decode(t, &a1)
	e.do(book(e.patientToken(p2.ID), "k", slotBody(sl.ID))).expect(t, 201).decode(t, &a2)
	e.do(book(e.patientToken(p3.ID), "k", slotBody(sl.ID))).expect(t, 201).decode(t, &a3)
	path := func(id int64, what string) string { return fmt.Sprintf("/api/admin/appointments/%d/%s", id, what) }
	e.clock.set(sl.StartAt.Add(40 * time.Minute))

	var got booking.Appointment
	e.do(call{method: "POST", path: path(a1.ID, "complete"), token: e.admin}).expect(t, 200).decode(t, &got)
	if got.Status != booking.StatusCompleted || got.ID != a1.ID {
		t.Fatalf("%+v", got)
	}
	before := e.snapshot()
	e.do(call{method: "POST", path: path(a1.ID, "complete"), token: e.admin}).expect(t, 200).decode(t, &got)
	if got.Status != booking.StatusCompleted || e.snapshot() != before {
		t.Fatal("repeating complete changed something")
	}
	e.do(call{method: "POST", path: path(a1.ID, "no-show"), token: e.admin}).expect(t, 409, booking.CodeInvalidTransition)

	e.do(call{method: "POST", path: path(a2.ID, "no-show"), token: e.admin}).expect(t, 200).decode(t, &got)
	if got.Status != booking.StatusNoShow {
		t.Fatalf("%+v", got)
	}

	// Too late to cancel, and a cancelled one cannot be completed.
	e.do(call{method: "DELETE", path: "/api/appointments/" + strconv.FormatInt(a3.ID, 10), token: e.patientToken(p3.ID)}).
		expect(t, 409, booking.CodeAlreadyStarted)
	e.clock.set(t0)
	e.do(call{method: "DELETE", path: "/api/appointments/" + strconv.FormatInt(a3.ID, 10), token: e.patientToken(p3.ID)}).expect(t, 200)
	e.do(call{method: "POST", path: path(a3.ID, "complete"), token: e.admin}).expect(t, 409, booking.CodeInvalidTransition)

	e.do(call{method: "POST", path: path(999999, "complete"), token: e.admin}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "POST", path: path(a1.ID, "complete"), token: e.patientToken(p1.ID)}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: path(a1.ID, "complete"), token: e.token(auth.RoleDoctor, "1")}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: "/api/admin/appointments/x/no-show", token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
}

func TestReconciliationEndpoint(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 3)
	var rep reconciliationAnswer
	e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.admin}).expect(t, 200).decode(t, &rep)
	if !rep.Clean || rep.CounterMismatches == nil || len(rep.CounterMismatches) != 0 {
		t.Fatalf("%+v", rep)
	}
	// Corrupt a counter behind the store's back.
	if _, err := e.db.DB().Exec(`UPDATE slots SET booked_count = 2 WHERE id = ?`, sl.ID); err != nil {
		t.Fatal(err)
	}
	a := e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.admin}).expect(t, 200)
	a.decode(t, &rep)
	if rep.Clean || len(rep.CounterMismatches) != 1 || rep.CounterMismatches[0].SlotID != sl.ID || rep.CounterMismatches[0].BookedCount != 2 {
		t.Fatalf("%s", a.body)
	}
	if !strings.Contains(string(a.body), `"clean":false`) {
		t.Fatalf("no clean member: %s", a.body)
	}
	// Reporting repairs nothing.
	if got, _ := e.db.GetSlot(t.Context(), sl.ID); got.BookedCount != 2 {
		t.Fatal("the report repaired the counter")
	}
	e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.patientToken(1)}).expect(t, 403, booking.CodeForbidden)
}
