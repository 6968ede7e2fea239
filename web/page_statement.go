package web

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// handleStaffStatement reconciles a clinic day against the payment
// provider's statement (Service.ReconcileStatement) and shows it on the
// reconciliation page, which keeps the newest check.
func (s *server) handleStaffStatement(w http.ResponseWriter, r *http.Request, _ session) {
	d, err := schedule.ParseDate(r.PostForm.Get("day"))
	if err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "day must be a date YYYY-MM-DD"))
		return
	}
	if _, err := s.svc.ReconcileStatement(r.Context(), time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, s.clinicZone)); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/reconciliation?statement=1#h-statement")
}

// statementView is the newest statement check as the page shows it.
type statementView struct {
	Has       bool
	Check     booking.StatementCheck
	CheckedAt string
	Yesterday string // the form's default day
}

func (s *server) statementViewOf(p *page) statementView {
	c, ok := s.svc.LastStatementCheck()
	v := statementView{Has: ok, Check: c, Yesterday: s.now().In(s.clinicZone).AddDate(0, 0, -1).Format(time.DateOnly)}
	if ok {
		v.CheckedAt = p.pr.DateTime(c.CheckedAt.In(s.clinicZone))
	}
	return v
}

// StatementKind words a statement difference's kind for a page.
func (p *page) StatementKind(kind string) string {
	switch kind {
	case booking.StatementUnknown:
		return p.T("at the provider, unknown to slotd")
	case booking.StatementMissing:
		return p.T("recorded, not on the provider's statement")
	case booking.StatementAmount:
		return p.T("amounts differ")
	}
	return kind
}
