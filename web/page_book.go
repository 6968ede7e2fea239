package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// bookRetry is what the error page needs to offer "Try again" with the same
// Idempotency-Key, and a way back to the day.
type bookRetry struct {
	Retry  bool
	SlotID int64
	Key    string
	Back   string
	// For is the person booked for (0: the account); Invite asks for a
	// campaign's invitation code (the refusal was invitation-required).
	For    int64
	Invite bool
	// Group, when a group booking was refused invitation-required, are
	// the people ticked, each asked for their code.
	Group []groupInvite
}

// groupInvite is one person of a group booking asked for an invitation
// code: the one typed before, if any.
type groupInvite struct {
	ID   int64
	Name string
	Code string
}

// invitationField reads a form's invitation code: one longer than any
// code is refused as missing.
func invitationField(r *http.Request, name string) string {
	if v := r.PostFormValue(name); len(v) <= 64 {
		return v
	}
	return ""
}

// handleBook books the slot of a Book button through service.Service.Book,
// exactly as the JSON API does, with the form's Idempotency-Key. A repeat of
// the same form (double click, browser retry, the script's retry) replays
// the original booking. Success redirects to the appointment.
func (s *server) handleBook(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in to book"))
		return
	}
	slotID, err := strconv.ParseInt(r.PostFormValue("slot"), 10, 64)
	key := r.PostFormValue("key")
	if err != nil || slotID <= 0 {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "no slot chosen"))
		return
	}
	if !validKey(key) {
		s.renderError(w, r, booking.Errorf(booking.CodeMissingIdempotencyKey, "no idempotency key"))
		return
	}
	retry := bookRetry{SlotID: slotID, Key: key, Back: s.dayURL(r, slotID)}
	// The same budget as the API's: one per patient (Service.AttemptBooking).
	if err := s.svc.AttemptBooking(sess.PatientID).Err(); err != nil {
		retry.Retry = true
		s.renderBookError(w, r, err, retry)
		return
	}
	// "Who is this for?": the account itself (absent or its id) or a
	// person it manages; any other id is not found (Service.ActFor).
	var named int64
	if v := r.PostFormValue("for"); v != "" {
		if named, err = strconv.ParseInt(v, 10, 64); err != nil || named <= 0 {
			s.renderBookError(w, r, booking.NotFound("patient"), retry)
			return
		}
	}
	retry.For = named
	acting, err := s.svc.ActFor(r.Context(), sess.actor(), named)
	if err != nil {
		s.renderBookError(w, r, err, retry)
		return
	}
	acting.Admission = admissionOf(r) // a waiting room's (page_opening.go)
	acting.Invitation = invitationField(r, "invitation")
	// "What for?": a service booked from this time (a longer visit), or
	// the time alone.
	var res booking.BookResult
	if v := r.PostFormValue("service"); v != "" {
		svc, err := strconv.ParseInt(v, 10, 64)
		if err != nil || svc <= 0 {
			s.renderBookError(w, r, booking.NotFound("service"), retry)
			return
		}
		res = s.svc.BookVisitFor(r.Context(), acting, booking.Visit{SlotID: slotID, ServiceID: svc}, key)
	} else {
		res = s.svc.BookFor(r.Context(), acting, slotID, key)
	}
	if res.Err != nil {
		retry.Retry = retryable(errorCode(res.Err))
		retry.Invite = errorCode(res.Err) == booking.CodeInvitationRequired
		s.renderBookError(w, r, res.Err, retry)
		return
	}
	to := "/appointments/" + itoa(res.Appointment.ID) + "?booked=1"
	if res.Replayed {
		to = "/appointments/" + itoa(res.Appointment.ID) + "?replayed=1"
	}
	redirect(w, r, to)
}

func (s *server) renderBookError(w http.ResponseWriter, r *http.Request, err error, retry bookRetry) {
	v, status := s.explain(r, err)
	p := s.newPage(w, r, v.Title)
	p.Problem = v
	p.Data = retry
	var be *booking.Error
	if asError(err, &be) && be.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((be.RetryAfter+time.Second-1)/time.Second)))
	}
	s.render(w, r, status, "error", p)
}

// dayURL is the day page of a slot, or "" when it cannot be found.
func (s *server) dayURL(r *http.Request, slotID int64) string {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	sl, err := s.store.GetSlot(ctx, slotID)
	if err != nil {
		return ""
	}
	d, err := s.store.GetDoctor(ctx, sl.DoctorID)
	if err != nil {
		return ""
	}
	return "/doctors/" + itoa(d.ID) + "/days/" + schedule.DateOf(sl.StartAt, zone(d.TimeZone)).String()
}
