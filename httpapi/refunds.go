package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// listRefunds is GET /api/admin/refunds: the refunds, newest first, only
// those in ?state= when given (the staff's worklist: requested, failed).
func (s *server) listRefunds(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, withPage("state")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	var states []string
	if v, ok := q["state"]; ok {
		st, ok := enumValue(v, booking.RefundRequested, booking.RefundSucceeded, booking.RefundFailed)
		if !ok {
			return paramErrorf("state", "state must be requested, succeeded or failed")
		}
		states = []string{st}
	}
	rs, err := s.svc.Refunds(r.Context(), states, p.store())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, pageOf(rs, p, func(x booking.Refund) int64 { return x.ID }))
	return nil
}

// retryRefund is POST /api/admin/refunds/{id}/retry: a failed refund is
// asked of the provider again (409 invalid-transition for any other).
func (s *server) retryRefund(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	ref, err := s.svc.RetryRefund(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ref)
	return nil
}
