package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// SignatureHeader carries the payment provider's signature of a callback
// (auth.SignPayment: "sha256=" and the hex HMAC-SHA256 of the raw body).
const SignatureHeader = auth.PaymentSignatureHeader

// Bounds of the lifecycle endpoints' input.
const (
	maxTradeNoLen  = 64
	maxReasonLen   = 500
	maxSuspendDays = 366
	// maxTimestamp is 9999-12-31T23:59:59Z in unix seconds.
	maxTimestamp = 253402300799
)

// paymentAnswer is the answer to an accepted payment callback.
type paymentAnswer struct {
	Payment     booking.Payment     `json:"payment"`
	Appointment booking.Appointment `json:"appointment"`
	// Duplicate says the trade number was known: nothing changed.
	Duplicate bool `json:"duplicate"`
}

// verifySignature checks the callback's signature over the raw body.
func (s *server) verifySignature(r *http.Request, body []byte) error {
	if !auth.VerifyPayment(s.paySecret, body, r.Header.Get(SignatureHeader)) {
		return errorf(booking.CodeBadSignature, "the %s header is missing or does not match the body", SignatureHeader)
	}
	return nil
}

// paymentCallback records a payment provider's confirmation. It is
// authenticated by the signature, not a bearer token, and idempotent by the
// provider's trade number: a retried callback gets 200 and changes nothing.
func (s *server) paymentCallback(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	// The signature covers the raw bytes, so the body is read once and
	// verified before a byte of it is interpreted.
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyError(err)
	}
	if err := s.verifySignature(r, body); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var in struct {
		TradeNo       string `json:"tradeNo"`
		AppointmentID int64  `json:"appointmentId"`
		Amount        int64  `json:"amount"`
		// Currency and Timestamp (unix seconds) are signed with the rest:
		// an amount is only meaningful in its currency, and a callback
		// only while it is fresh (auth.PaymentMaxSkew).
		Currency  string `json:"currency"`
		Timestamp int64  `json:"timestamp"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	switch {
	case !validTradeNo(in.TradeNo):
		return errorf(booking.CodeInvalidRequest, "tradeNo must be 1 to %d visible ASCII characters", maxTradeNoLen)
	case !validID(in.AppointmentID):
		return errorf(booking.CodeInvalidRequest, "appointmentId must be an id 1 to %d", int64(booking.MaxID))
	case in.Amount <= 0 || in.Amount > booking.MaxFeeCents:
		return errorf(booking.CodeInvalidRequest, "amount must be 1 to %d (cents)", booking.MaxFeeCents)
	case !validCurrency(in.Currency):
		return errorf(booking.CodeInvalidRequest, "currency must be an ISO 4217 code of 3 capital letters")
	case in.Timestamp <= 0 || in.Timestamp > maxTimestamp:
		return errorf(booking.CodeInvalidRequest, "timestamp must be the signing time in unix seconds")
	case !auth.PaymentTimely(in.Timestamp, s.now()):
		return errorf(booking.CodeBadSignature, "the callback was signed more than %d minutes from now: a replayed, delayed or misdated callback",
			int(auth.PaymentMaxSkew/time.Minute))
	case in.Currency != s.currency:
		return errorf(booking.CodePaymentRejected, "the payment is in %s, the clinic's fees are in %s", in.Currency, s.currency)
	}
	ctx := booking.WithActor(r.Context(), booking.Actor{Role: booking.ActorProvider, ID: "callback"})
	res, err := s.svc.ConfirmPayment(ctx, booking.Payment{
		TradeNo: in.TradeNo, AppointmentID: in.AppointmentID, AmountCents: in.Amount,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, paymentAnswer{Payment: res.Payment, Appointment: res.Appointment, Duplicate: res.Duplicate})
	return nil
}

// validCurrency accepts the form of an ISO 4217 code: 3 capital letters.
func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

// validTradeNo accepts what an Idempotency-Key accepts: visible ASCII.
func validTradeNo(t string) bool {
	if t == "" || len(t) > maxTradeNoLen {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 0x21 || t[i] > 0x7e {
			return false
		}
	}
	return true
}

// suspend closes a doctor's slots in a period, cancelling their
// appointments (the patients are notified by the jobs). Repeating the same
// period answers 200 with the first suspension and changes nothing.
func (s *server) suspend(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in periodRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	return s.closePeriod(w, r, booking.Suspension{Scope: booking.ScopeDoctor, DoctorID: id}, in)
}

// periodRequest is a suspension's or closure's period and reason.
type periodRequest struct {
	From   instant `json:"from"`
	To     instant `json:"to"`
	Reason string  `json:"reason"`
}

// closePeriod checks the period of sus and suspends it: 201 for a new
// one, 200 with the first for a repeat.
func (s *server) closePeriod(w http.ResponseWriter, r *http.Request, sus booking.Suspension, in periodRequest) error {
	reason := strings.TrimSpace(in.Reason)
	switch {
	case in.From.IsZero() || in.To.IsZero():
		return errorf(booking.CodeInvalidRequest, "from and to are required (RFC 3339)")
	case !in.To.After(in.From.Time):
		return errorf(booking.CodeInvalidRequest, "to must be after from")
	case in.To.Sub(in.From.Time) > maxSuspendDays*24*time.Hour:
		return errorf(booking.CodeInvalidRequest, "a suspension lasts at most %d days", maxSuspendDays)
	case reason == "" || utf8.RuneCountInString(reason) > maxReasonLen || !utf8.ValidString(reason) || strings.ContainsFunc(reason, isControl):
		return errorf(booking.CodeInvalidRequest, "reason must be 1 to %d printable characters", maxReasonLen)
	}
	sus.From, sus.To, sus.Reason = in.From.UTC(), in.To.UTC(), reason
	res, err := s.svc.Suspend(r.Context(), sus)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if !res.Existing {
		status = http.StatusCreated
	}
	writeJSON(w, status, res)
	return nil
}

// complete and noShow record what happened at an appointment (staff).
func (s *server) complete(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.transition(w, r, booking.StatusCompleted)
}

func (s *server) noShow(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.transition(w, r, booking.StatusNoShow)
}

// transition moves an appointment to a final state; repeating it answers
// the appointment unchanged, and a move the state table forbids is 409
// invalid-transition.
func (s *server) transition(w http.ResponseWriter, r *http.Request, to booking.Status) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	a, err := s.svc.Transition(r.Context(), id, to)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// reconciliationAnswer is the invariant report with its verdict.
// Clean is true only when nothing needs doing: Violations counts broken
// invariants, Pending the work to do (refunds, stale holds, conflicts).
type reconciliationAnswer struct {
	booking.Reconciliation
	Clean      bool `json:"clean"`
	Violations int  `json:"violations"`
	Pending    int  `json:"pending"`
}

// reconciliation reports the invariant breaches (docs/reliability.md) without
// repairing: repairs are for `slotd reconcile --repair`, run deliberately.
func (s *server) reconciliation(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	rep, err := s.svc.Reconcile(r.Context(), false)
	if err != nil {
		return err
	}
	// Empty lists, never null: clients iterate them without a check.
	rep.CounterMismatches = orEmpty(rep.CounterMismatches)
	rep.DuplicateActives = orEmpty(rep.DuplicateActives)
	rep.StaleHolds = orEmpty(rep.StaleHolds)
	rep.RefundsNeeded = orEmpty(rep.RefundsNeeded)
	rep.Repaired = orEmpty(rep.Repaired)
	rep.RoundQuotaMismatches = orEmpty(rep.RoundQuotaMismatches)
	rep.PaymentConflicts = orEmpty(rep.PaymentConflicts)
	writeJSON(w, http.StatusOK, reconciliationAnswer{Reconciliation: rep, Clean: rep.Clean(),
		Violations: rep.Violations(), Pending: rep.Pending()})
	return nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
