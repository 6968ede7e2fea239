package web

import (
	"net/http"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// dayAppt is one appointment in the staff's day view.
type dayAppt struct {
	ID      int64
	Queue   int
	Patient string
	Status  string
	Booked  bool // complete / no-show apply
	// Offer is the local deadline of a waitlist offer this HELD place is.
	Offer string
}

// daySlot is one slot with who holds its places.
type daySlot struct {
	Time     string
	Capacity int
	Booked   int
	Status   string
	Appts    []dayAppt
}

// handleStaffDay is a doctor's day: every slot and who holds which place,
// with buttons to mark a booked appointment completed or a no-show.
// The date may be "today".
func (s *server) handleStaffDay(w http.ResponseWriter, r *http.Request, _ session) {
	doc, loc, err := s.doctor(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	day := schedule.DateOf(s.now(), loc)
	if v := r.PathValue("date"); v != "today" {
		if day, err = schedule.ParseDate(v); err != nil {
			s.renderError(w, r, booking.NotFound("day"))
			return
		}
	}
	from, to := schedule.DayBounds(day, loc)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	slots, err := s.store.ListSlots(ctx, doc.ID, from, to)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	appts, err := s.accounts.DoctorAppointments(ctx, doc.ID, from, to)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	offers := map[int64]string{}
	if es, err := s.store.ListOffers(ctx, doc.ID, from, to); err == nil {
		for _, e := range es {
			if e.OfferExpiresAt != nil {
				offers[e.AppointmentID] = fmtClock(*e.OfferExpiresAt, loc)
			}
		}
	}
	names := map[int64]string{}
	bySlot := map[int64][]dayAppt{}
	for _, a := range appts {
		name, ok := names[a.PatientID]
		if !ok {
			name = "Patient " + itoa(a.PatientID)
			if p, err := s.store.GetPatient(ctx, a.PatientID); err == nil {
				name = p.Name
			}
			names[a.PatientID] = name
		}
		bySlot[a.SlotID] = append(bySlot[a.SlotID], dayAppt{ID: a.ID, Queue: a.QueueNumber, Patient: name,
			Status: string(a.Status), Booked: a.Status == booking.StatusBooked, Offer: offers[a.ID]})
	}
	rows := make([]daySlot, 0, len(slots))
	for _, sl := range slots {
		rows = append(rows, daySlot{Time: fmtClock(sl.StartAt, loc) + "–" + fmtClock(sl.EndAt, loc), Capacity: sl.Capacity,
			Booked: sl.BookedCount, Status: sl.Status, Appts: bySlot[sl.ID]})
	}
	p := s.newPage(w, r, doc.Name+", "+dayTitle(day))
	if r.URL.Query().Has("done") {
		p.Notice = "Appointment updated."
	}
	p.Data = struct {
		Doctor     booking.Doctor
		Day        string
		Date       string
		Prev, Next string
		Slots      []daySlot
		Self       string
	}{doc, dayTitle(day), day.String(), day.AddDays(-1).String(), day.AddDays(1).String(), rows,
		"/staff/doctors/" + itoa(doc.ID) + "/days/" + day.String()}
	s.render(w, r, http.StatusOK, "staff_day", p)
}

// handleStaffTransition marks an appointment COMPLETED or NO_SHOW.
func (s *server) handleStaffTransition(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	to := booking.Status(r.PostFormValue("to"))
	if to != booking.StatusCompleted && to != booking.StatusNoShow {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "status"))
		return
	}
	if _, err := s.svc.Transition(r.Context(), id, to); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, safeNext(r.PostFormValue("next"), "/staff")+"?done=1")
}
