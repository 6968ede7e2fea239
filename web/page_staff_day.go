package web

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
)

// dayAppt is one appointment in the staff's day view.
type dayAppt struct {
	ID      int64
	Queue   int
	Patient string
	Status  string
	// Markable: it may be marked completed or a no-show now (it is booked
	// and has started, booking.StaffTransition); before that the buttons
	// would only answer "not started yet".
	Markable bool
	// CheckIn: it is BOOKED and its check-in window is open now
	// (booking.DecideCheckIn for staff).
	CheckIn bool
	// Offer is the local deadline of a waitlist offer this HELD place is.
	Offer string
	// Active: the front desk may cancel or move it.
	Active bool
	// State is where the person stands on the day (booking.DayState),
	// StateWord the same in the page's language.
	State, StateWord string
	// WalkIn marks a place the front desk added beyond the capacity, for
	// Reason.
	WalkIn bool
	Reason string
}

// daySlot is one slot with who holds its places.
type daySlot struct {
	ID       int64
	Time     string
	Capacity int
	Booked   int
	Status   string
	// Started: an OPEN slot that has begun takes no more bookings.
	Started bool
	// Bookable: it takes a booking now (booking.Slot.Bookable).
	Bookable bool
	// WalkIn: it is full, open and today, before its end, and the clinic
	// takes walk-ins: the front desk may add one (booking.DecideWalkIn
	// decides).
	WalkIn bool
	Appts  []dayAppt
}

// handleStaffDay is a doctor's day: every slot and who holds which place,
// with buttons to mark a booked appointment completed or a no-show.
// The date may be "today".
func (s *server) handleStaffDay(w http.ResponseWriter, r *http.Request, sess session) {
	doc, loc, err := s.doctor(r)
	if err == nil {
		// Another site's doctor is not found for staff limited to sites.
		err = s.svc.OnSite(r.Context(), sess.actor(), booking.SiteRef{DoctorID: doc.ID})
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	s.renderDay(w, r, doc, loc, dayView{Base: "/staff/doctors/" + itoa(doc.ID) + "/days/", Action: "/staff/appointments/", Staff: true,
		Reception: sess.Reception, Desk: s.deskModeOf(r)})
}

// dayView says where a day page's links and forms go: the staff's view of
// any doctor, or a doctor's own (/doctor).
type dayView struct {
	Base   string // the day pages' path, before the date
	Action string // the status forms' path, before the appointment id
	Staff  bool
	// Reception: the front desk's view, without the admin's links and
	// the attendance buttons.
	Reception bool
	// Desk is the front desk's booking or moving (staff views only).
	Desk deskMode
}

// renderDay renders the doctor's day of the {date} path value (or today),
// as the staff_day page, or with ?print=1 the printable day list and with
// ?csv=1 the same list as CSV.
func (s *server) renderDay(w http.ResponseWriter, r *http.Request, doc booking.Doctor, loc *time.Location, v dayView) {
	day := schedule.DateOf(s.now(), loc)
	if d := r.PathValue("date"); d != "today" {
		var err error
		if day, err = schedule.ParseDate(d); err != nil {
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
				offers[e.AppointmentID] = fmtClock(s.printer(r), *e.OfferExpiresAt, loc)
			}
		}
	}
	now := s.now()
	policy, err := s.svc.ClinicPolicy(ctx)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	// On the doctor's today, the queue tells called and in consultation
	// from arrived (booking.DayState); other days have no queue.
	var queue booking.QueueDay
	if day == schedule.DateOf(now, loc) {
		if queue, err = s.svc.DayQueue(ctx, booking.ActorOf(r.Context()), doc.ID); err != nil {
			s.renderError(w, r, err)
			return
		}
	}
	pr := s.printer(r)
	names := map[int64]string{}
	bySlot := map[int64][]dayAppt{}
	var csvRows []csvdata.DayRow
	for _, a := range appts {
		name, ok := names[a.PatientID]
		if !ok {
			name = "Patient " + itoa(a.PatientID)
			if p, err := s.store.GetPatient(ctx, a.PatientID); err == nil {
				name = p.Name
			}
			names[a.PatientID] = name
		}
		state := booking.DayState(a, queue.Entry(a.ID))
		noop, err := booking.StaffTransition(a.Status, booking.StatusCompleted, a.StartAt, now)
		arrived, inErr := booking.DecideCheckIn(a, booking.CheckInRequest{AppointmentID: a.ID}, policy, now)
		bySlot[a.SlotID] = append(bySlot[a.SlotID], dayAppt{ID: a.ID, Queue: a.QueueNumber, Patient: name,
			Status: string(a.Status), Markable: err == nil && !noop && !v.Reception, CheckIn: inErr == nil && !arrived, Offer: offers[a.ID],
			Active: a.Status.Active(), State: state, StateWord: dayStateWord(pr, state), WalkIn: a.WalkIn, Reason: a.WalkInReason})
		csvRows = append(csvRows, csvdata.DayRow{Appointment: a, DoctorName: doc.Name, PatientName: name})
	}
	if r.URL.Query().Has("csv") {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="day-`+day.String()+`.csv"`)
		if err := csvdata.WriteAppointments(w, csvRows, loc); err != nil {
			s.log.Error("web: day CSV", "err", err)
		}
		return
	}
	p := s.newPage(w, r, "")
	rows := make([]daySlot, 0, len(slots))
	today := day == schedule.DateOf(now, loc)
	for _, sl := range slots {
		rows = append(rows, daySlot{ID: sl.ID, Time: fmtClock(p.pr, sl.StartAt, loc) + "–" + fmtClock(p.pr, sl.EndAt, loc), Capacity: sl.Capacity,
			Booked: sl.BookedCount, Status: sl.Status, Started: sl.Status == booking.SlotOpen && sl.Started(now), Bookable: sl.Bookable(now) == nil,
			WalkIn: today && policy.WalkInsPerSlot > 0 && sl.RoundID == 0 && sl.Status == booking.SlotOpen && sl.BookedCount >= sl.Capacity && now.Before(sl.EndAt),
			Appts:  bySlot[sl.ID]})
	}
	p.Title = doc.Name + ", " + dayTitle(p.pr, day)
	if r.URL.Query().Has("done") {
		p.Notice = p.T("Appointment updated.")
	}
	p.Data = struct {
		Doctor     booking.Doctor
		Day        string
		Date       string
		Prev, Next string
		Slots      []daySlot
		Self       string
		View       dayView
	}{doc, dayTitle(p.pr, day), day.String(), day.AddDays(-1).String(), day.AddDays(1).String(), rows,
		v.Base + day.String(), v}
	tmpl := "staff_day"
	if r.URL.Query().Has("print") {
		tmpl = "day_print"
	}
	s.render(w, r, http.StatusOK, tmpl, p)
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

// dayStateWord is a day list's state (booking.DayState) in pr's language.
func dayStateWord(pr *i18n.Printer, state string) string {
	switch state {
	case booking.DayHeld:
		return pr.T("held")
	case booking.DayBooked:
		return pr.T("booked")
	case booking.DayArrived:
		return pr.T("arrived")
	case booking.DayCalled:
		return pr.T("called")
	case booking.DayInConsultation:
		return pr.T("in consultation")
	case booking.DayDone:
		return pr.T("done")
	case booking.DayNoShow:
		return pr.T("no-show")
	case booking.DayCancelled:
		return pr.T("cancelled")
	}
	return pr.T("expired")
}
