package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// calendarMonths is how many months ahead the calendar can be paged.
const calendarMonths = 3

// calDay is one cell of the calendar.
type calDay struct {
	Date      string
	Day       int
	InMonth   bool
	Today     bool
	Total     int // places in open slots
	Remaining int
	Label     string // for screen readers
	// Opens is when booking opens, for a day not open yet (its slots not
	// published, or published but not open); OpensClock its time alone,
	// the cell's short text on a phone (Label and Aria keep the whole).
	Opens      string
	OpensClock string
	// Aria names the cell's link for screen readers: the day and Label.
	Aria string
}

// Full reports a day with slots but no place left: greyed, not a link.
func (d calDay) Full() bool { return d.Total > 0 && d.Remaining == 0 }

// handleDoctor shows a doctor's calendar: one month, each day with its
// remaining places; full days are greyed.
func (s *server) handleDoctor(w http.ResponseWriter, r *http.Request) {
	doc, loc, err := s.doctor(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	today := schedule.DateOf(s.now(), loc)
	first := schedule.Date{Year: today.Year, Month: today.Month, Day: 1}
	month := first
	if v := r.URL.Query().Get("month"); v != "" {
		if t, err := time.Parse("2006-01", v); err == nil {
			month = schedule.Date{Year: t.Year(), Month: t.Month(), Day: 1}
		}
	}
	last := addMonths(first, calendarMonths-1)
	if month.Before(first) || last.Before(month) {
		month = first
	}
	next := addMonths(month, 1)
	from, _ := schedule.DayBounds(month, loc)
	to, _ := schedule.DayBounds(next, loc)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	slots, err := s.listings.ListSlots(ctx, doc.ID, from, to)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	now := s.now()
	p := s.newPage(w, r, doc.Name)
	// Schedules tell when a day not published yet will open.
	scheds, _ := s.store.ListSchedules(ctx, doc.ID)
	type agg struct {
		total, remaining int
		opens            time.Time
	}
	days := map[schedule.Date]*agg{}
	for _, sl := range slots {
		if sl.Status != booking.SlotOpen || sl.Started(now) {
			continue
		}
		d := schedule.DateOf(sl.StartAt, loc)
		a := days[d]
		if a == nil {
			a = &agg{}
			days[d] = a
		}
		a.total += sl.Capacity
		a.remaining += max(sl.Remaining(), 0)
		if now.Before(sl.OpensAt) && (a.opens.IsZero() || sl.OpensAt.Before(a.opens)) {
			a.opens = sl.OpensAt
		}
	}
	// Weeks start on Monday.
	start := month.AddDays(-((int(month.Weekday()) + 6) % 7))
	var weeks [][]calDay
	for d := start; d.Before(next); {
		var week []calDay
		for i := 0; i < 7; i++ {
			c := calDay{Date: d.String(), Day: d.Day, InMonth: d.Month == month.Month, Today: d == today}
			var opens time.Time
			if a := days[d]; a != nil && c.InMonth {
				c.Total, c.Remaining, opens = a.total, a.remaining, a.opens
			} else if c.InMonth && !d.Before(today) {
				opens = unpublishedOpens(scheds, loc, d, now)
			}
			if !opens.IsZero() {
				c.Opens = p.pr.ShortDate(opens.In(loc)) + " " + p.pr.Clock(opens.In(loc))
				c.OpensClock = p.pr.Clock(opens.In(loc))
			}
			switch {
			case c.Full():
				c.Label = p.T("fully booked")
			case c.Opens != "":
				c.Label = p.T("opens on %s", c.Opens)
			case c.Total > 0:
				c.Label = p.T("%d places left", c.Remaining)
			default:
				c.Label = p.T("no appointments")
			}
			c.Aria = p.T("%s, %s", dayTitle(p.pr, d), c.Label)
			week = append(week, c)
			d = d.AddDays(1)
		}
		weeks = append(weeks, week)
	}
	data := struct {
		Doctor     booking.Doctor
		Services   []booking.Service
		Site       booking.Site
		Department string
		Month      string
		Prev, Next string
		Weeks      [][]calDay
		Weekdays   []string
		Zone       string
	}{Doctor: doc, Month: p.pr.Month(month.Year, month.Month), Weeks: weeks,
		Weekdays: p.pr.Weekdays(), Zone: loc.String()}
	if first.Before(month) {
		data.Prev = monthParam(addMonths(month, -1))
	}
	if next.Before(last) || next == last {
		data.Next = monthParam(next)
	}
	data.Department = s.departmentName(ctx, doc.DepartmentID, "")
	data.Services, _ = s.store.ListServices(ctx, booking.ServiceFilter{DoctorID: doc.ID}, booking.Page{Limit: maxDayServices})
	if data.Site, err = s.svc.SiteOfDepartment(ctx, doc.DepartmentID); err == nil {
		p.atSite(data.Site)
	}
	p.Data = data
	s.render(w, r, http.StatusOK, "doctor", p)
}

func addMonths(d schedule.Date, n int) schedule.Date {
	t := time.Date(d.Year, d.Month+time.Month(n), 1, 12, 0, 0, 0, time.UTC)
	return schedule.Date{Year: t.Year(), Month: t.Month(), Day: 1}
}

func monthParam(d schedule.Date) string { return fmt.Sprintf("%04d-%02d", d.Year, int(d.Month)) }

// doctor loads the doctor of the {id} path value and its zone.
func (s *server) doctor(r *http.Request) (booking.Doctor, *time.Location, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return booking.Doctor{}, nil, err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	d, err := s.store.GetDoctor(ctx, id)
	if err != nil {
		return booking.Doctor{}, nil, err
	}
	return d, zone(d.TimeZone), nil
}

// unpublishedOpens is when booking opens for day d, which has no slots yet:
// the earliest opening of the slots the doctor's schedules will publish
// for it (zero when none will, or it is past).
func unpublishedOpens(scheds []booking.Schedule, loc *time.Location, d schedule.Date, now time.Time) time.Time {
	var first time.Time
	for _, sc := range scheds {
		for _, sl := range schedule.Slots(sc, loc, d, d) {
			if now.Before(sl.OpensAt) && (first.IsZero() || sl.OpensAt.Before(first)) {
				first = sl.OpensAt
			}
		}
	}
	return first
}
