package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// maxAvailabilityDays bounds the calendar view so that one request cannot
// make the store read a doctor's whole history.
const maxAvailabilityDays = 62

// defaultAvailabilityDays is the calendar's length without ?to=: the usual
// booking horizon.
const defaultAvailabilityDays = booking.DefaultHorizonDays

// slotView is a slot as the public sees it.
type slotView struct {
	ID        int64     `json:"id"`
	DoctorID  int64     `json:"doctorId"`
	StartAt   time.Time `json:"startAt"`
	EndAt     time.Time `json:"endAt"`
	Capacity  int       `json:"capacity"`
	Booked    int       `json:"booked"`
	Remaining int       `json:"remaining"`
	Status    string    `json:"status"`
	OpensAt   time.Time `json:"opensAt"`
	Fee       int64     `json:"fee"`
	// Bookable is booking.Slot.Bookable at the answer's time: a client need
	// not redo the rule (open, not started, opened, a place left).
	Bookable bool `json:"bookable"`
	// AvailableToYou, in a listing for one person only: how many places
	// that person can take (booking.PlacesFor), and Reason, when the
	// campaign's rule makes it 0, with ReservedUntil for places-reserved.
	AvailableToYou *int         `json:"availableToYou,omitempty"`
	Reason         booking.Code `json:"reason,omitempty"`
	ReservedUntil  *time.Time   `json:"reservedUntil,omitempty"`
}

// personalize fills v's AvailableToYou from what the person can take of
// its slot (p, nil for a slot without a rule: its free places).
func (v *slotView) personalize(p *booking.PersonalPlaces) {
	n := 0
	switch {
	case !v.Bookable:
	case p == nil:
		n = v.Remaining
	default:
		n, v.Reason, v.ReservedUntil = p.Places, p.Reason, p.OpensAt
	}
	v.AvailableToYou = &n
}

func newSlotView(s booking.Slot, now time.Time) slotView {
	return slotView{
		ID: s.ID, DoctorID: s.DoctorID,
		StartAt: s.StartAt.UTC(), EndAt: s.EndAt.UTC(),
		Capacity: s.Capacity, Booked: s.BookedCount, Remaining: max(s.Remaining(), 0),
		Status: s.Status, OpensAt: s.OpensAt.UTC(), Fee: s.FeeCents,
		Bookable: s.Bookable(now) == nil,
	}
}

func (s *server) listDepartments(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.writeDepartments(w, r, false)
}

// listAllDepartments is the staff's list: departments without an active
// doctor too, which patients do not see.
func (s *server) listAllDepartments(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.writeDepartments(w, r, true)
}

// writeDepartments answers a list of departments, of one site with
// ?site=.
func (s *server) writeDepartments(w http.ResponseWriter, r *http.Request, all bool) error {
	q, err := parseQuery(r, withPage("site")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	site, err := siteParam(q)
	if err != nil {
		return err
	}
	if all {
		// The staff's list: a caller limited to sites sees its own.
		if site, err = s.svc.ListingSite(r.Context(), booking.ActorOf(r.Context()), site); err != nil {
			return err
		}
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	ds, err := s.store.ListDepartmentsBy(ctx, booking.DepartmentFilter{SiteID: site, All: all}, p.store())
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, pageOf(ds, p, func(d booking.Department) int64 { return d.ID }))
	return nil
}

func (s *server) listDoctors(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.writeDoctors(w, r, false)
}

// listAllDoctors is the staff's list: deactivated doctors too (with
// active false), so they can be found and reactivated.
func (s *server) listAllDoctors(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.writeDoctors(w, r, true)
}

// writeDoctors answers a list of doctors, of one department with
// ?departmentId= and of one site with ?site=.
func (s *server) writeDoctors(w http.ResponseWriter, r *http.Request, all bool) error {
	q, err := parseQuery(r, withPage("departmentId", "site")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	var dep int64
	if v, ok := q["departmentId"]; ok {
		if dep, err = parseID(v, "departmentId"); err != nil {
			return inParam(err, "departmentId")
		}
	}
	site, err := siteParam(q)
	if err != nil {
		return err
	}
	if all {
		// The desk's list: a caller limited to sites sees its own.
		if site, err = s.svc.ListingSite(r.Context(), booking.ActorOf(r.Context()), site); err != nil {
			return err
		}
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	ds, err := s.store.ListDoctorsBy(ctx, booking.DoctorFilter{DepartmentID: dep, SiteID: site, All: all}, p.store())
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, pageOf(ds, p, func(d booking.Doctor) int64 { return d.ID }))
	return nil
}

func (s *server) getDoctor(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	d, _, err := s.doctor(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// doctor loads the doctor of the {id} path value and its time zone.
func (s *server) doctor(r *http.Request) (booking.Doctor, *time.Location, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return booking.Doctor{}, nil, err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	d, err := s.store.GetDoctor(ctx, id)
	if err != nil {
		return booking.Doctor{}, nil, storeErr(ctx, err)
	}
	loc, err := d.Location()
	if err != nil {
		// A stored zone that no longer loads is our data's fault, not the
		// caller's: report it as internal.
		return booking.Doctor{}, nil, err
	}
	return d, loc, nil
}

func (s *server) getSlot(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	sl, err := s.store.GetSlot(ctx, id)
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, newSlotView(sl, s.now()))
	return nil
}

// slotsAnswer is a doctor's local day of slots.
type slotsAnswer struct {
	DoctorID int64      `json:"doctorId"`
	Date     string     `json:"date"`
	TimeZone string     `json:"timezone"`
	Slots    []slotView `json:"slots"`
}

// listSlotsMaxAge is how long clients and proxies may reuse a slot list: the
// spec allows a few seconds of staleness, and the rush reads it the most.
const listSlotsMaxAge = 2

func (s *server) listSlots(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, "date", "patientId")
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	pq, personal, err := s.personalAsk(r, q)
	if err != nil {
		return err
	}
	rawDate, hasDate := q["date"]
	var day schedule.Date
	if hasDate {
		if day, err = parseDate(rawDate, "date"); err != nil {
			return inParam(err, "date")
		}
	}
	now := s.now()
	e, ok := s.lists.get(id, rawDate, now)
	if !ok {
		if e, err = s.renderSlots(r, day, hasDate); err != nil {
			return err
		}
		s.lists.put(id, rawDate, e, now)
	}
	if personal {
		return s.writeSlotsFor(w, r, pq, e)
	}
	h := w.Header()
	h.Set("ETag", e.etag)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(listSlotsMaxAge))
	if etagMatch(r.Header.Values("If-None-Match"), e.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.body)
	return nil
}

// writeSlotsFor answers the listing e for the person pq asks for.
func (s *server) writeSlotsFor(w http.ResponseWriter, r *http.Request, pq service.PersonalQuery, e listEntry) error {
	var ans slotsAnswer
	if err := json.Unmarshal(e.body, &ans); err != nil {
		return err
	}
	var ids []int64
	for _, v := range ans.Slots {
		if v.Bookable {
			ids = append(ids, v.ID)
		}
	}
	places, err := s.placesFor(r, pq, ids)
	if err != nil {
		return err
	}
	for k := range ans.Slots {
		var p *booking.PersonalPlaces
		if pp, ok := places[ans.Slots[k].ID]; ok {
			p = &pp
		}
		ans.Slots[k].personalize(p)
	}
	return writePersonal(w, ans)
}

// renderSlots reads a doctor's local day of slots (today when no date was
// given) and renders the answer with its ETag.
func (s *server) renderSlots(r *http.Request, day schedule.Date, hasDate bool) (listEntry, error) {
	d, loc, err := s.doctor(r)
	if err != nil {
		return listEntry{}, err
	}
	if !hasDate {
		day = schedule.DateOf(s.now(), loc)
	}
	from, to := schedule.DayBounds(day, loc)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	slots, err := s.listings.ListSlots(ctx, d.ID, from, to)
	if err != nil {
		return listEntry{}, storeErr(ctx, err)
	}
	ans := slotsAnswer{DoctorID: d.ID, Date: day.String(), TimeZone: d.TimeZone, Slots: make([]slotView, 0, len(slots))}
	now := s.now()
	for _, sl := range slots {
		ans.Slots = append(ans.Slots, newSlotView(sl, now))
	}
	body, err := json.Marshal(ans)
	if err != nil {
		return listEntry{}, err
	}
	// A weak validator over the body: cheap revalidation for pollers while
	// the list stays the same.
	sum := sha256.Sum256(body)
	return listEntry{body: append(body, '\n'), etag: `W/"` + hex.EncodeToString(sum[:12]) + `"`}, nil
}

// etagMatch implements If-None-Match's weak comparison.
func etagMatch(header []string, etag string) bool {
	strip := func(t string) string {
		if len(t) > 2 && t[:2] == "W/" {
			return t[2:]
		}
		return t
	}
	for _, h := range header {
		for _, t := range splitComma(h) {
			if t == "*" || strip(t) == strip(etag) {
				return true
			}
		}
	}
	return false
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			t := s[start:i]
			for len(t) > 0 && (t[0] == ' ' || t[0] == '\t') {
				t = t[1:]
			}
			for len(t) > 0 && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
				t = t[:len(t)-1]
			}
			if t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	return out
}

// dayAvailability is one local day of the calendar view.
type dayAvailability struct {
	Date      string `json:"date"`
	Total     int    `json:"total"`
	Booked    int    `json:"booked"`
	Remaining int    `json:"remaining"`
}

// availabilityAnswer is the calendar view of a doctor.
type availabilityAnswer struct {
	DoctorID int64             `json:"doctorId"`
	From     string            `json:"from"`
	To       string            `json:"to"`
	TimeZone string            `json:"timezone"`
	Days     []dayAvailability `json:"days"`
}

// availability sums a doctor's OPEN slots per local day: total places,
// booked places and remaining places. Closed slots are left out because
// none of their places can be booked.
func (s *server) availability(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, "from", "to")
	if err != nil {
		return err
	}
	d, loc, err := s.doctor(r)
	if err != nil {
		return err
	}
	from := schedule.DateOf(s.now(), loc)
	if v, ok := q["from"]; ok {
		if from, err = parseDate(v, "from"); err != nil {
			return inParam(err, "from")
		}
	}
	to := from.AddDays(defaultAvailabilityDays - 1)
	if v, ok := q["to"]; ok {
		if to, err = parseDate(v, "to"); err != nil {
			return inParam(err, "to")
		}
	}
	if to.Before(from) {
		return errorf(booking.CodeInvalidRequest, "to must not be before from")
	}
	if from.AddDays(maxAvailabilityDays - 1).Before(to) {
		return errorf(booking.CodeInvalidRequest, "at most %d days can be asked at once", maxAvailabilityDays)
	}
	start, _ := schedule.DayBounds(from, loc)
	_, end := schedule.DayBounds(to, loc)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	slots, err := s.listings.ListSlots(ctx, d.ID, start, end)
	if err != nil {
		return storeErr(ctx, err)
	}
	ans := availabilityAnswer{DoctorID: d.ID, From: from.String(), To: to.String(), TimeZone: d.TimeZone}
	index := map[schedule.Date]int{}
	for day := from; !to.Before(day); day = day.AddDays(1) {
		index[day] = len(ans.Days)
		ans.Days = append(ans.Days, dayAvailability{Date: day.String()})
	}
	for _, sl := range slots {
		if sl.Status != booking.SlotOpen {
			continue
		}
		i, ok := index[schedule.DateOf(sl.StartAt, loc)]
		if !ok {
			continue
		}
		ans.Days[i].Total += sl.Capacity
		ans.Days[i].Booked += sl.BookedCount
		ans.Days[i].Remaining += max(sl.Remaining(), 0)
	}
	writeJSON(w, http.StatusOK, ans)
	return nil
}
