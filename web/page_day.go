package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// slotRow is one slot as the day page shows it.
type slotRow struct {
	ID        int64
	Time      string
	End       string
	Capacity  int
	Remaining int
	Fee       int64
	// State is "open", "full", "closed", "started" or "soon" (not open yet).
	State string
	Note  string
	// Key is this form's Idempotency-Key: one per rendered Book button.
	Key string
	// SignIn is, for a visitor, the sign-in that comes back to this slot.
	SignIn string
}

// handleDay lists a doctor's slots of one local day with a Book button each.
// Each button's form carries its own Idempotency-Key, made here, so pressing
// it twice or the browser resending it books at most once.
func (s *server) handleDay(w http.ResponseWriter, r *http.Request) {
	doc, loc, err := s.doctor(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	day, err := schedule.ParseDate(r.PathValue("date"))
	if err != nil {
		s.renderError(w, r, booking.NotFound("day"))
		return
	}
	from, to := schedule.DayBounds(day, loc)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	slots, err := s.listings.ListSlots(ctx, doc.ID, from, to)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "")
	now := s.now()
	rows := make([]slotRow, 0, len(slots))
	full := false // a day whose upcoming places are all taken offers the waitlist
	for _, sl := range slots {
		row := slotRowOf(p.pr, sl, loc, now)
		full = full || row.State == "full"
		rows = append(rows, row)
	}
	for _, row := range rows {
		if row.State == "open" {
			full = false
		}
	}
	dep := s.departmentName(ctx, doc.DepartmentID, "Department")
	// A day whose slots are not published yet says when booking opens, as
	// the calendar's cell does.
	opens := ""
	if len(rows) == 0 {
		scheds, _ := s.store.ListSchedules(ctx, doc.ID)
		if at := unpublishedOpens(scheds, loc, day, now); !at.IsZero() {
			opens = fmtDateTime(p.pr, at, loc)
		}
	}
	// A visitor's time leads to sign-in and back here with ?slot=, where
	// the signed-in patient reviews that one booking before the tap.
	var review *slotRow
	chosen := r.URL.Query().Get("slot")
	for i := range rows {
		id := itoa(rows[i].ID)
		rows[i].SignIn = "/signin?next=" + url.QueryEscape(r.URL.Path+"?slot="+id)
		if id == chosen && rows[i].State == "open" {
			review = &rows[i]
		}
	}
	// An account with people chooses whom a booking is for on the review:
	// its times lead there instead of booking at one tap.
	var people []booking.Patient
	var services []booking.Service
	if sess := s.sessionOf(r); sess.Patient() {
		s.personalize(r, p.pr, sess.PatientID, rows, loc)
		if people = s.peopleOf(r, sess.PatientID); len(people) < 2 {
			people = nil
		}
		// The services the doctor offers (a longer visit from a time) are
		// chosen on the review too; read only for whom can book.
		services, _ = s.store.ListServices(ctx, booking.ServiceFilter{DoctorID: doc.ID}, booking.Page{Limit: maxDayServices})
	}
	p.Title = doc.Name + ", " + dayTitle(p.pr, day)
	p.Data = struct {
		Doctor     booking.Doctor
		Department string
		Day        string
		Date       string
		Month      string
		Slots      []slotRow
		Self       string
		HasFee     bool
		Full       bool
		WaitKey    string
		Opens      string
		SignIn     string
		Review     *slotRow
		People     []booking.Patient
		// PartySizes are the waitlist's party sizes the account can ask
		// (2 up to its people, at most booking.MaxGroup; none alone).
		PartySizes []int
		Services   []booking.Service
		// Chosen is the service the first-available page chose (?service=).
		Chosen int64
	}{doc, dep, dayTitle(p.pr, day), day.String(), monthParam(day), rows, r.URL.Path, hasFee(rows), full, newIdempotencyKey(), opens,
		"/signin?next=" + url.QueryEscape(r.URL.RequestURI()), review, people, partySizes(len(people)), services, chosenService(r, services)}
	s.render(w, r, http.StatusOK, "day", p)
}

// personalize notes, on the open slots of a campaign with a rule, what
// the signed-in patient can take (service.PlacesForPerson, the booking's
// decision): "2 places for you", or why none; a slot they cannot book at
// (not eligible) shows no Book button. Without a rule a slot keeps its note.
func (s *server) personalize(r *http.Request, pr *i18n.Printer, patientID int64, rows []slotRow, loc *time.Location) {
	var ids []int64
	for _, row := range rows {
		if row.State == "open" {
			ids = append(ids, row.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	places, err := s.svc.PlacesForPerson(r.Context(), service.PersonalQuery{Acting: booking.Acting{PatientID: patientID}, SlotIDs: ids})
	if err != nil {
		return // the page stays the anonymous one; the booking still decides
	}
	for i := range rows {
		pp, ok := places[rows[i].ID]
		if !ok || rows[i].State != "open" {
			continue
		}
		switch {
		case pp.Places == 1:
			rows[i].Note = pr.T("1 place for you")
		case pp.Places > 1:
			rows[i].Note = pr.T("%d places for you", pp.Places)
		case pp.Reason == booking.CodeNotEligible:
			rows[i].State, rows[i].Note, rows[i].Key = "reserved", pr.T("Not for you: age or group"), ""
		case pp.Reason == booking.CodeInvitationRequired:
			rows[i].Note = pr.T("Reserved for invited people")
		case pp.Reason == booking.CodePlacesReserved && pp.OpensAt != nil:
			rows[i].Note = pr.T("Reserved until %s", fmtDateTime(pr, *pp.OpensAt, loc)) // an invitation may open it: the booking decides
		}
	}
}

// chosenService is the service of ?service= among services, 0 when none is.
func chosenService(r *http.Request, services []booking.Service) int64 {
	id, _ := strconv.ParseInt(r.URL.Query().Get("service"), 10, 64)
	for _, v := range services {
		if v.ID == id {
			return id
		}
	}
	return 0
}

// maxDayServices bounds the services a day page offers to choose from.
const maxDayServices = 20

func slotRowOf(pr *i18n.Printer, sl booking.Slot, loc *time.Location, now time.Time) slotRow {
	row := slotRow{ID: sl.ID, Time: fmtClock(pr, sl.StartAt, loc), End: fmtClock(pr, sl.EndAt, loc),
		Capacity: sl.Capacity, Remaining: max(sl.Remaining(), 0), Fee: sl.FeeCents, State: "open"}
	switch {
	case sl.Status != booking.SlotOpen:
		row.State, row.Note = "closed", pr.T("Closed")
	case sl.Started(now):
		row.State, row.Note = "closed", pr.T("Already started")
	case row.Remaining == 0:
		row.State, row.Note = "full", pr.T("Full")
	case now.Before(sl.OpensAt):
		row.State, row.Note = "soon", pr.T("Opens on %s", fmtDateTime(pr, sl.OpensAt, loc))
	}
	if row.State == "open" {
		row.Key = newIdempotencyKey()
	}
	if row.Note == "" {
		if row.Capacity > 1 {
			row.Note = pr.T("%d of %d left", row.Remaining, row.Capacity)
		}
	}
	return row
}

func dayTitle(pr *i18n.Printer, d schedule.Date) string {
	return pr.Date(time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC))
}

func hasFee(rows []slotRow) bool {
	for _, r := range rows {
		if r.Fee > 0 {
			return true
		}
	}
	return false
}

// partySizes are the sizes of a waitlist party an account of n people
// (itself included) may ask: 2 to n, at most booking.MaxGroup.
func partySizes(n int) []int {
	var out []int
	for k := 2; k <= min(n, booking.MaxGroup); k++ {
		out = append(out, k)
	}
	return out
}
