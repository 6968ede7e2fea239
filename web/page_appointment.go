package web

import (
	"context"
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
)

// apptView is an appointment as the patient pages show it.
type apptView struct {
	ID        int64
	Queue     int
	Doctor    string
	DoctorID  int64
	When      string
	Status    string
	Fee       int64
	CanCancel bool
	// Held: the hold's deadline, for the countdown and the pay step.
	Held         bool
	HoldDeadline string // RFC 3339, for the script
	HoldLocal    string // for people without the script
}

// apptViewOf loads what the view needs besides the appointment: its doctor
// and slot (for the fee).
func (s *server) apptViewOf(ctx context.Context, a booking.Appointment) apptView {
	v := apptView{ID: a.ID, Queue: a.QueueNumber, Status: string(a.Status), DoctorID: a.DoctorID, Doctor: "Doctor"}
	loc := time.UTC
	if d, err := s.store.GetDoctor(ctx, a.DoctorID); err == nil {
		v.Doctor, loc = d.Name, zone(d.TimeZone)
	}
	v.When = fmtDateTime(a.StartAt, loc)
	if sl, err := s.store.GetSlot(ctx, a.SlotID); err == nil {
		v.Fee = sl.FeeCents
	}
	now := s.now()
	v.CanCancel = a.Status.Active() && now.Before(a.StartAt)
	if a.Status == booking.StatusHeld && a.HoldExpiresAt != nil && now.Before(*a.HoldExpiresAt) {
		v.Held = true
		v.HoldDeadline = a.HoldExpiresAt.UTC().Format(time.RFC3339)
		v.HoldLocal = fmtClock(*a.HoldExpiresAt, loc)
	}
	return v
}

// handleAppointment is the confirmation page: the queue number, the time,
// and for a HELD appointment the hold's countdown and the pay step.
func (s *server) handleAppointment(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	a, ok := s.ownAppointment(w, r, sess.PatientID)
	if !ok {
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	v := s.apptViewOf(ctx, a)
	p := s.newPage(w, r, "Appointment No. "+itoa(int64(a.QueueNumber)))
	q := r.URL.Query()
	switch {
	case q.Has("booked") && a.Status == booking.StatusHeld:
		p.Notice = "Your place is held. Pay before the timer runs out to confirm it."
	case q.Has("booked"):
		p.Notice = "You are booked."
	case q.Has("replayed"):
		p.Notice = "You were already booked by this button: this is your appointment."
	case q.Has("cancelled"):
		p.Notice = "Your appointment is cancelled."
	case q.Has("moved"):
		p.Notice = "Your appointment is moved."
	case q.Has("paid"):
		p.Notice = "Payment received: you are booked."
	}
	p.Data = v
	s.render(w, r, http.StatusOK, "appointment", p)
}

// handleCancel cancels one of the patient's appointments; repeating it
// changes nothing.
func (s *server) handleCancel(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in"))
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, err := s.svc.Cancel(r.Context(), id, sess.PatientID); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, safeNext(r.PostFormValue("next"), "/appointments/"+itoa(id)+"?cancelled=1"))
}

// ownAppointment loads the appointment of the {id} path value, when it is
// patientID's; otherwise it renders the error page and reports false.
func (s *server) ownAppointment(w http.ResponseWriter, r *http.Request, patientID int64) (booking.Appointment, bool) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return booking.Appointment{}, false
	}
	a, err := s.svc.Appointment(r.Context(), id, patientID)
	if err != nil {
		s.renderError(w, r, err)
		return booking.Appointment{}, false
	}
	return a, true
}
