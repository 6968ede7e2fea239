package httpapi

import (
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// SignatureHeader carries the payment provider's signature of a callback
// (auth.SignPayment: "sha256=" and the hex HMAC-SHA256 of the raw body).
const SignatureHeader = auth.PaymentSignatureHeader

// Bounds of the lifecycle endpoints' input.
const (
	maxReasonLen   = 500
	maxSuspendDays = 366
)

// paymentAnswer is the answer to an accepted payment callback.
type paymentAnswer struct {
	Payment     booking.Payment     `json:"payment"`
	Appointment booking.Appointment `json:"appointment"`
	// Duplicate says the trade number was known: nothing changed.
	Duplicate bool `json:"duplicate"`
}

// paymentCallback records a payment provider's confirmation. It is
// authenticated by the signature, not a bearer token, and idempotent by the
// provider's trade number: a retried callback gets 200 and changes nothing.
// The signed gateway's provider verifies and parses the raw body
// (payments.Signed); the Service records the payment.
func (s *server) paymentCallback(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyError(err)
	}
	res, err := s.svc.PaymentNotification(r.Context(), service.ProviderSignedCallback, r.Header, body)
	if err != nil {
		return err
	}
	p := res.Payment
	if p == nil {
		return errorf(booking.CodeInvalidRequest, "the callback is not a payment")
	}
	writeJSON(w, http.StatusOK, paymentAnswer{Payment: p.Payment, Appointment: p.Appointment, Duplicate: p.Duplicate})
	return nil
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
