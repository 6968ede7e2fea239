package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// refundsPage is how many open refunds the staff refunds page lists at once.
const refundsPage = 50

// openRefunds is the staff refunds page's list: refunds still requested
// (the job is asking the provider) or failed (waiting for a retry), newest
// first, from ?after= on, and the link to the next ones.
type openRefunds struct {
	Items []booking.Refund
	Next  string
}

// openRefundsOf reads the open refunds for the staff refunds page.
func (s *server) openRefundsOf(r *http.Request) (openRefunds, error) {
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	rs, err := s.svc.Refunds(r.Context(), []string{booking.RefundRequested, booking.RefundFailed},
		booking.Page{After: max(after, 0), Limit: refundsPage + 1})
	if err != nil {
		return openRefunds{}, err
	}
	out := openRefunds{Items: rs}
	if len(rs) > refundsPage {
		out.Items = rs[:refundsPage]
		out.Next = fmt.Sprintf("/staff/reconciliation?after=%d#h-open-refunds", out.Items[refundsPage-1].ID)
	}
	return out, nil
}

// handleStaffRetryRefund asks the provider again for a failed refund.
func (s *server) handleStaffRetryRefund(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, err := s.svc.RetryRefund(r.Context(), id); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/reconciliation?retried=1#h-open-refunds")
}

// RefundReason words a refund's reason for a page.
func (p *page) RefundReason(reason string) string {
	switch reason {
	case booking.RefundPatientCancel:
		return p.T("cancelled by the patient")
	case booking.RefundStaffCancel:
		return p.T("cancelled by the clinic")
	case booking.RefundSuspension:
		return p.T("doctor's period suspended")
	case booking.RefundClosure:
		return p.T("clinic or department closed")
	case booking.RefundErasure:
		return p.T("patient's data erased")
	case booking.RefundLatePayment:
		return p.T("paid too late")
	case booking.RefundAmountMismatch:
		return p.T("wrong amount paid")
	}
	return reason
}

// RefundState words a refund's state for a page.
func (p *page) RefundState(state string) string {
	switch state {
	case booking.RefundRequested:
		return p.T("in progress")
	case booking.RefundSucceeded:
		return p.T("refunded")
	case booking.RefundFailed:
		return p.T("failed")
	}
	return state
}
