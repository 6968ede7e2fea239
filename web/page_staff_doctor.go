package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
)

// staffSlotRow is a slot in the staff's table.
type staffSlotRow struct {
	ID        int64
	Time      string
	Capacity  int
	Booked    int
	Remaining int
	Status    string
	OpensAt   string
	Fee       int64
	Full      bool
}

// scheduleRow is a schedule as listed.
type scheduleRow struct {
	ID       int64
	EndDate  string
	Days     string
	Hours    string
	Minutes  int
	Capacity int
	Fee      int64
	Horizon  int
	Opens    string
}

// weekdayNames are the short day names of the language, Sunday first as
// time.Weekday counts.
func weekdayNames(pr *i18n.Printer) []string {
	mon := pr.Weekdays()
	return append([]string{mon[6]}, mon[:6]...)
}

// handleStaffDoctor shows a doctor's schedules and the slots of one day,
// with forms to create a schedule (generating its slots) and to suspend a
// period.
func (s *server) handleStaffDoctor(w http.ResponseWriter, r *http.Request, sess session) {
	doc, loc, err := s.doctor(r)
	if err == nil {
		// Another site's doctor is not found for staff limited to sites.
		err = s.svc.OnSite(r.Context(), sess.actor(), booking.SiteRef{DoctorID: doc.ID})
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	s.renderStaffDoctor(w, r, doc, loc, http.StatusOK, newScheduleForm())
}

// scheduleForm is the schedule form as typed, with the field in error and
// why, so that a mistake keeps everything else the clerk entered.
type scheduleForm struct {
	Start, End, Minutes, Capacity, Fee, Horizon, Opens, Hold string
	Weekdays                                                 [7]bool
	Error                                                    string // the field's name
	Problem                                                  *problemView
}

func newScheduleForm() scheduleForm {
	return scheduleForm{Start: "08:00", End: "12:00", Minutes: "15", Capacity: "1", Fee: "0", Horizon: "14", Opens: "07:00", Hold: "15",
		Weekdays: [7]bool{false, true, true, true, true, true, false}}
}

func (s *server) renderStaffDoctor(w http.ResponseWriter, r *http.Request, doc booking.Doctor, loc *time.Location, status int, form scheduleForm) {
	q := r.URL.Query()
	day := schedule.DateOf(s.now(), loc)
	if v := q.Get("date"); v != "" {
		if d, err := schedule.ParseDate(v); err == nil {
			day = d
		}
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	scheds, err := s.store.ListSchedules(ctx, doc.ID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	from, to := schedule.DayBounds(day, loc)
	slots, err := s.store.ListSlots(ctx, doc.ID, from, to)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "")
	p.Title = doc.Name
	data := struct {
		Doctor    booking.Doctor
		Date      string
		Day       string
		Schedules []scheduleRow
		Slots     []staffSlotRow
		Weekdays  []string
		Form      scheduleForm
	}{Form: form, Doctor: doc, Date: day.String(), Day: dayTitle(p.pr, day), Weekdays: weekdayNames(p.pr)}
	for _, sc := range scheds {
		var days []string
		for _, wd := range sc.Weekdays {
			days = append(days, data.Weekdays[wd])
		}
		data.Schedules = append(data.Schedules, scheduleRow{ID: sc.ID, EndDate: sc.EndDate, Days: strings.Join(days, " "), Hours: sc.StartTime + "–" + sc.EndTime,
			Minutes: sc.SlotMinutes, Capacity: sc.Capacity, Fee: sc.FeeCents, Horizon: sc.HorizonDays, Opens: sc.OpensAtTime})
	}
	for _, sl := range slots {
		data.Slots = append(data.Slots, staffSlotRow{ID: sl.ID, Time: fmtClock(p.pr, sl.StartAt, loc) + "–" + fmtClock(p.pr, sl.EndAt, loc),
			Capacity: sl.Capacity, Booked: sl.BookedCount, Remaining: max(sl.Remaining(), 0), Status: sl.Status,
			OpensAt: fmtDateTime(p.pr, sl.OpensAt, loc), Fee: sl.FeeCents, Full: sl.Remaining() <= 0})
	}
	switch {
	case q.Has("ended"):
		p.Notice = p.T("Schedule saved: its free slots after the last day are removed; booked ones stay.")
	case q.Has("slots"):
		p.Notice = p.T("Schedule created: %s slots generated. The first day with slots is shown below.", q.Get("slots"))
	case q.Has("suspended"):
		p.Notice = p.T("Period suspended: %s slots closed, %s appointments cancelled, %s patients notified.", q.Get("suspended"), q.Get("cancelled"), q.Get("told"))
	case q.Has("created"):
		p.Notice = p.T("Doctor added. Create a schedule to generate slots.")
	}
	p.Problem = form.Problem
	p.Data = data
	s.render(w, r, status, "staff_doctor", p)
}

// handleStaffCreateSchedule creates a schedule from the form, which
// generates its slots over the booking horizon (Service.CreateSchedule, as
// the API's schedule endpoint).
func (s *server) handleStaffCreateSchedule(w http.ResponseWriter, r *http.Request, _ session) {
	doc, loc, err := s.doctor(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	f := r.PostForm
	form := scheduleForm{Start: f.Get("start"), End: f.Get("end"), Minutes: f.Get("minutes"), Capacity: f.Get("capacity"),
		Fee: f.Get("fee"), Horizon: f.Get("horizon"), Opens: f.Get("opens"), Hold: f.Get("hold")}
	pr := s.printer(r)
	// fail shows the form again as typed, the field marked.
	refuse := func(field string, err error) {
		form.Error = field
		v, status := s.explain(r, err)
		var be *booking.Error
		if asError(err, &be) {
			v.Detail = detail(pr, be)
		}
		form.Problem = v
		s.renderStaffDoctor(w, r, doc, loc, status, form)
	}
	sc := booking.Schedule{DoctorID: doc.ID, StartTime: f.Get("start"), EndTime: f.Get("end"), OpensAtTime: f.Get("opens")}
	for _, v := range f["weekday"] {
		d, err := strconv.Atoi(v)
		if err != nil || d < 0 || d > 6 {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "weekday"))
			return
		}
		form.Weekdays[d] = true
		sc.Weekdays = append(sc.Weekdays, time.Weekday(d))
	}
	ints := []struct {
		name     string
		dst      *int
		min, max int
	}{{"minutes", &sc.SlotMinutes, booking.MinSlotMinutes, booking.MaxSlotMinutes}, {"capacity", &sc.Capacity, booking.MinCapacity, booking.MaxCapacity},
		{"horizon", &sc.HorizonDays, booking.MinHorizonDays, booking.MaxHorizonDays}, {"hold", &sc.HoldMinutes, booking.MinHoldMinutes, booking.MaxHoldMinutes}}
	for _, in := range ints {
		n, err := strconv.Atoi(strings.TrimSpace(f.Get(in.name)))
		if err != nil || n < in.min || n > in.max {
			refuse(in.name, booking.Errorf(booking.CodeInvalidRequest, "%s", pr.T("Enter a whole number from %d to %d.", in.min, in.max)))
			return
		}
		*in.dst = n
	}
	fee, ok := s.currency.ParseAmount(f.Get("fee"))
	if !ok || fee > booking.MaxFeeCents {
		refuse("fee", booking.Errorf(booking.CodeInvalidRequest, "%s", pr.T("Enter an amount in %s with at most %d decimals.", s.currency.Code, s.currency.Digits)))
		return
	}
	if len(sc.Weekdays) == 0 {
		refuse("weekday", booking.Errorf(booking.CodeInvalidRequest, "%s", pr.T("Choose at least one day.")))
		return
	}
	sc.FeeCents = fee
	sc, created, err := s.svc.CreateSchedule(r.Context(), sc)
	if err != nil {
		if booking.ErrorCode(err) == booking.CodeInvalidRequest {
			refuse(scheduleField(err), err)
			return
		}
		s.renderError(w, r, err)
		return
	}
	from, to := schedule.Window(sc, loc, s.now())
	// Show the first day that got slots.
	first := from
	for d := from; !to.Before(d); d = d.AddDays(1) {
		if containsWeekday(sc.Weekdays, d.Weekday()) {
			first = d
			break
		}
	}
	redirect(w, r, fmt.Sprintf("/staff/doctors/%d?slots=%d&date=%s", doc.ID, created, first))
}

// scheduleField names the form field a refused schedule's message is
// about (the Service names the JSON field: startTime, endTime…).
func scheduleField(err error) string {
	msg := err.Error()
	for _, f := range []struct{ json, form string }{{"startTime", "start"}, {"endTime", "end"}, {"opensAtTime", "opens"},
		{"slotMinutes", "minutes"}, {"capacity", "capacity"}, {"horizonDays", "horizon"}, {"holdMinutes", "hold"}, {"fee", "fee"}} {
		if strings.Contains(msg, f.json) {
			return f.form
		}
	}
	return ""
}

func containsWeekday(ds []time.Weekday, d time.Weekday) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// handleStaffSuspend suspends a period of the doctor: its slots close,
// their appointments are cancelled and each patient is told once.
func (s *server) handleStaffSuspend(w http.ResponseWriter, r *http.Request, _ session) {
	doc, loc, err := s.doctor(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	from, err1 := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("from"), loc)
	to, err2 := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("to"), loc)
	reason, ok := cleanName(r.PostFormValue("reason"))
	if err1 != nil || err2 != nil || !ok || !from.Before(to) {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "period"))
		return
	}
	res, err := s.svc.Suspend(r.Context(), booking.Suspension{DoctorID: doc.ID, From: from.UTC(), To: to.UTC(), Reason: reason})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, fmt.Sprintf("/staff/doctors/%d?date=%s&suspended=%d&cancelled=%d&told=%d", doc.ID,
		schedule.DateOf(from, loc), res.SlotsClosed, res.Cancelled, res.PatientsTold))
}
