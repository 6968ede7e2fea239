package web

import (
	"context"
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
)

// CalendarLinks manages a patient's private calendar subscription URL
// (ical.Handler implements it; cmd/slotd wires it). Only a hash of the
// URL's token is kept, so the URL can be shown only when it is made.
type CalendarLinks interface {
	// Subscribe makes a new URL under base, revoking the old one.
	Subscribe(ctx context.Context, patientID int64, base string) (string, error)
	// Revoke ends the patient's URL.
	Revoke(ctx context.Context, patientID int64) error
	// Subscribed tells whether the patient has a URL and since when.
	Subscribed(ctx context.Context, patientID int64) (time.Time, bool, error)
}

// calendarView is what the calendar page shows.
type calendarView struct {
	Active bool
	Since  string
	// URL is shown once, right after it was made.
	URL string
}

// handleCalendar shows the signed-in patient's subscription state.
func (s *server) handleCalendar(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	s.renderCalendar(w, r, sess.PatientID, "")
}

func (s *server) renderCalendar(w http.ResponseWriter, r *http.Request, patientID int64, url string) {
	if s.calendar == nil {
		s.renderError(w, r, booking.NotFound("page"))
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	since, active, err := s.calendar.Subscribed(ctx, patientID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	v := calendarView{Active: active, URL: url}
	p := s.newPage(w, r, "Calendar subscription")
	if active {
		v.Since = p.pr.DateTime(since.In(s.clinicZone)) + " (" + s.clinicZone.String() + ")"
	}
	if r.URL.Query().Has("revoked") {
		p.Notice = p.T("Your calendar link no longer works.")
	}
	if url != "" {
		// The page carries a secret: keep it out of caches and history.
		w.Header().Set("Cache-Control", "no-store")
		p.Notice = p.T("Your new calendar link is below; any older link no longer works.")
	}
	p.Data = v
	s.render(w, r, http.StatusOK, "calendar", p)
}

// handleCalendarSubscribe makes a new link and shows it once.
func (s *server) handleCalendarSubscribe(w http.ResponseWriter, r *http.Request) {
	if s.calendar == nil {
		s.renderError(w, r, booking.NotFound("page"))
		return
	}
	if !s.postForm(w, r) {
		return
	}
	sess, ok := s.requirePatient(w, r, "/calendar")
	if !ok {
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	url, err := s.calendar.Subscribe(ctx, sess.PatientID, requestOrigin(r))
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	s.renderCalendar(w, r, sess.PatientID, url)
}

// handleCalendarRevoke ends the link.
func (s *server) handleCalendarRevoke(w http.ResponseWriter, r *http.Request) {
	if s.calendar == nil {
		s.renderError(w, r, booking.NotFound("page"))
		return
	}
	if !s.postForm(w, r) {
		return
	}
	sess, ok := s.requirePatient(w, r, "/calendar")
	if !ok {
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	if err := s.calendar.Revoke(ctx, sess.PatientID); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/calendar?revoked=1")
}

// requestOrigin is the scheme and host the browser reached.
func requestOrigin(r *http.Request) string {
	if edge.Secure(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}
