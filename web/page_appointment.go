package web

import (
	"context"
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// apptView is an appointment as the patient pages show it.
type apptView struct {
	ID    int64
	Queue int
	// ShowQueue: the slot takes several people, so the number tells them
	// their turn; a one-place slot's "No. 1" would say nothing.
	ShowQueue bool
	Doctor    string
	DoctorID  int64
	When      string // date and start–end, in the doctor's zone
	Date      string
	Hours     string // "09:00–09:30"
	Zone      string // the zone, named once on the page
	Dept      string
	Place     string
	MapURL    string // a map of the site, "" when its position is unknown
	ICS       bool   // an "Add to calendar" download exists
	Status    string
	Fee       int64
	CanCancel bool
	// Held: the hold's deadline, for the countdown and the pay step.
	Held         bool
	HoldDeadline string // RFC 3339, for the script
	HoldLocal    string // for people without the script
	// CheckInCode is the code to check in with on the day, while the
	// appointment is BOOKED ("" otherwise, or on a server without codes).
	CheckInCode string
	// Arrived: checked in; QueueLine says where the patient stands in the
	// doctor's queue, refreshed live.
	Arrived   bool
	QueueLine string
	// For names the person of the account it is for, "" for the account.
	For string
}

// apptViewOf loads what the view needs besides the appointment: its doctor
// and slot (for the fee).
func (s *server) apptViewOf(ctx context.Context, pr *i18n.Printer, a booking.Appointment) apptView {
	v := apptView{ID: a.ID, Queue: a.QueueNumber, Status: string(a.Status), DoctorID: a.DoctorID, Doctor: pr.T("Doctor"),
		Place: s.place, ICS: s.ics != nil}
	loc := s.clinicZone
	if d, err := s.store.GetDoctor(ctx, a.DoctorID); err == nil {
		v.Doctor, loc = d.Name, zone(d.TimeZone)
		v.Dept = s.departmentName(ctx, d.DepartmentID, "")
		// The site's address, where it has one; the clinic's otherwise.
		if site, err := s.svc.SiteOfDepartment(ctx, d.DepartmentID); err == nil && site.Address != "" {
			v.Place, v.MapURL = site.Where(), site.MapURL()
		}
	}
	v.Zone = loc.String()
	v.Date = pr.Date(a.StartAt.In(loc))
	v.Hours = fmtClock(pr, a.StartAt, loc) + "–" + fmtClock(pr, a.EndAt, loc)
	v.When = v.Date + ", " + v.Hours
	if sl, err := s.store.GetSlot(ctx, a.SlotID); err == nil {
		v.Fee = sl.FeeCents
		v.ShowQueue = sl.Capacity > 1
	}
	now := s.now()
	v.CanCancel = a.Status.Active() && now.Before(a.StartAt)
	if a.Status == booking.StatusBooked {
		v.CheckInCode = s.svc.CheckInCode(a.ID)
	}
	v.Arrived = a.Status == booking.StatusArrived
	if a.Status == booking.StatusHeld && a.HoldExpiresAt != nil && now.Before(*a.HoldExpiresAt) {
		v.Held = true
		v.HoldDeadline = a.HoldExpiresAt.UTC().Format(time.RFC3339)
		v.HoldLocal = fmtClock(pr, *a.HoldExpiresAt, loc)
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
	p := s.newPage(w, r, "")
	v := s.apptViewOf(ctx, p.pr, a)
	if a.PatientID != sess.PatientID { // a person the account manages
		for _, person := range s.peopleOf(r, sess.PatientID) {
			if person.ID == a.PatientID {
				v.For = person.Name
			}
		}
	}
	if v.Arrived {
		if st, err := s.svc.QueuePosition(r.Context(), sess.actor(), a.ID); err == nil {
			v.QueueLine = queueLine(p, st)
		}
	}
	p.Title = p.T("Your appointment")
	if v.ShowQueue {
		p.Title = p.T("Appointment No. %d", a.QueueNumber)
	}
	q := r.URL.Query()
	switch {
	case q.Has("booked") && a.Status == booking.StatusHeld:
		p.Notice = p.T("Your place is held. Pay before the timer runs out to confirm it.")
	case q.Has("booked"):
		p.Notice = p.T("You are booked.")
	case q.Has("replayed"):
		p.Notice = p.T("You were already booked by this button: this is your appointment.")
	case q.Has("cancelled"):
		p.Notice = p.T("Your appointment is cancelled.")
	case q.Has("moved"):
		p.Notice = p.T("Your appointment is moved.")
	case q.Has("paid") && a.Status == booking.StatusHeld:
		// Back from the provider before its notification arrived.
		p.Notice = p.T("Your payment is being confirmed. This page shows it once the payment provider tells us.")
	case q.Has("paid") && a.Status == booking.StatusExpired:
		p.Notice = p.T("The hold ended before the payment arrived: the place is released, and a payment that still arrives is refunded in full.")
	case q.Has("paid") && a.Status == booking.StatusBooked:
		p.Notice = p.T("Payment received: you are booked.")
	}
	// What was paid back, if anything: amount and state.
	refunds, err := s.svc.AppointmentRefunds(ctx, a.ID, sess.PatientID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Data = struct {
		apptView
		Refunds []booking.Refund
	}{v, refunds}
	s.render(w, r, http.StatusOK, "appointment", p)
}

// handleCancelConfirm is the step before cancelling: what will be
// cancelled, and one button that does it (booking has no such step: one
// tap books during a rush).
func (s *server) handleCancelConfirm(w http.ResponseWriter, r *http.Request) {
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
	p := s.newPage(w, r, "Cancel this appointment?")
	v := s.apptViewOf(ctx, p.pr, a)
	if !v.CanCancel {
		redirect(w, r, "/appointments/"+itoa(a.ID))
		return
	}
	// What the cancel would pay back (the policy's refund rule), before
	// the patient confirms it.
	refund, paid, err := s.svc.RefundQuote(ctx, a.ID, sess.PatientID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Data = struct {
		apptView
		Next         string
		Refund, Paid int64
	}{v, safeNext(r.URL.Query().Get("next"), ""), refund, paid}
	s.render(w, r, http.StatusOK, "cancel", p)
}

// handleAppointmentICS is "Add to calendar": the patient's own appointment
// as the .ics document of package ical.
func (s *server) handleAppointmentICS(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	if s.ics == nil {
		s.handleNotFound(w, r)
		return
	}
	a, ok := s.ownAppointment(w, r, sess.PatientID)
	if !ok {
		return
	}
	if err := s.ics.WriteAppointment(w, r, a); err != nil {
		s.renderError(w, r, err)
	}
}

// AppointmentICS writes one authorized appointment as an .ics document.
type AppointmentICS interface {
	WriteAppointment(w http.ResponseWriter, r *http.Request, a booking.Appointment) error
}

// handleCancel cancels one of the patient's appointments; repeating it
// changes nothing.
func (s *server) handleCancel(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
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
