package web

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// A round's rooms for a student on a phone (docs/web.md, rounds): the
// round's rooms filtered by building, floor and near the door, a page at a
// time, each with a "Choose" button that submits an application (queued,
// decided in arrival order) and leads to its answer.

// roomsPageSize is how many rooms the page lists at once.
const roomsPageSize = 30

// roomRow is one room of the round on its page.
type roomRow struct {
	SlotID   int64
	Name     string
	Building string
	Floor    int
	NearDoor bool
	Free     int
	Beds     int
	Key      string // the Choose form's Idempotency-Key
}

func roomRowOf(rs booking.RoundSlot) roomRow {
	return roomRow{SlotID: rs.Slot.ID, Name: rs.Room.Name, Building: rs.Room.Building, Floor: rs.Room.Floor,
		NearDoor: rs.Room.NearDoor, Beds: rs.Slot.Capacity, Free: max(rs.Slot.Capacity-rs.Slot.BookedCount, 0)}
}

// roomsView is the rooms section of a round's page.
type roomsView struct {
	Building  string
	Floor     string
	NearDoor  bool
	Buildings []string
	Floors    []int
	Rows      []roomRow
	Total     int
	Next      string // the next page's URL, "" on the last
	Accepting bool
}

// roomFilterOf reads ?building=&floor=&nearDoor=1&after= (bad values are a
// 400, never a 500).
func roomFilterOf(q url.Values) (booking.RoomFilter, int64, error) {
	var f booking.RoomFilter
	f.Building = q.Get("building")
	if len(f.Building) > 100 {
		return f, 0, booking.Errorf(booking.CodeInvalidRequest, "building is too long")
	}
	if v := q.Get("floor"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < -100 || n > 1000 {
			return f, 0, booking.Errorf(booking.CodeInvalidRequest, "floor must be a number")
		}
		f.Floor = &n
	}
	if q.Get("nearDoor") == "1" {
		t := true
		f.NearDoor = &t
	}
	var after int64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return f, 0, booking.Errorf(booking.CodeInvalidRequest, "after must be a room's id")
		}
		after = n
	}
	return f, after, nil
}

// roomsOf lists the round's rooms passing the request's filter. The
// round's rooms are read whole (bounded by the round) once: the filter's
// choices come from all of them, the rows from those that pass.
func (s *server) roomsOf(r *http.Request, round booking.Round, patient bool) (roomsView, error) {
	f, after, err := roomFilterOf(r.URL.Query())
	if err != nil {
		return roomsView{}, err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	all, err := s.store.ListRoundSlots(ctx, round.ID, booking.RoomFilter{})
	if err != nil {
		return roomsView{}, err
	}
	v := roomsView{Building: f.Building, NearDoor: f.NearDoor != nil, Accepting: patient && round.Accepting(s.now())}
	if f.Floor != nil {
		v.Floor = strconv.Itoa(*f.Floor)
	}
	for _, rs := range all {
		if !slices.Contains(v.Buildings, rs.Room.Building) {
			v.Buildings = append(v.Buildings, rs.Room.Building)
		}
		if !slices.Contains(v.Floors, rs.Room.Floor) {
			v.Floors = append(v.Floors, rs.Room.Floor)
		}
		if !f.Match(rs.Room) {
			continue
		}
		v.Total++
		if rs.Slot.ID <= after {
			continue
		}
		if len(v.Rows) == roomsPageSize {
			q := r.URL.Query()
			q.Set("after", strconv.FormatInt(v.Rows[len(v.Rows)-1].SlotID, 10))
			v.Next = "/rounds/" + itoa(round.ID) + "?" + q.Encode() + "#rooms"
			continue
		}
		row := roomRowOf(rs)
		if v.Accepting && row.Free > 0 {
			row.Key = newIdempotencyKey()
		}
		v.Rows = append(v.Rows, row)
	}
	slices.Sort(v.Buildings)
	slices.Sort(v.Floors)
	return v, nil
}

// handleRoundApply submits the signed-in student's application for one of
// the round's rooms and shows where its answer will appear.
func (s *server) handleRoundApply(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	slotID, err := strconv.ParseInt(r.PostFormValue("slot"), 10, 64)
	key := r.PostFormValue("key")
	if err != nil || slotID <= 0 || key == "" || len(key) > 64 {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "choose a room"))
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	sl, err := s.store.GetSlot(ctx, slotID)
	cancel()
	if err == nil && sl.RoundID != id {
		err = booking.NotFound("room")
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	app, _, err := s.svc.SubmitApplication(r.Context(), service.ApplicationRequest{RoundID: id, PatientID: sess.PatientID, SlotID: slotID, Key: key})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/rounds/"+itoa(id)+"/applications/"+itoa(app.ID))
}

// applicationView is what round_application.html shows of an application.
type applicationView struct {
	App     booking.Application
	Round   booking.Round
	Room    booking.Room
	Pending bool
	// Reason and Advice are the refusal in the reader's words.
	Reason, Advice string
	Decided        string
	// TermStart and TermEnd bound the stay an allocation gives.
	TermStart, TermEnd string
}

// handleRoundApplication is one of the student's applications: PENDING
// (the page polls ?partial=1 until it changes), then the allocation or the
// refusal with its reason.
func (s *server) handleRoundApplication(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	id, err1 := pathID(r, "id")
	appID, err2 := pathID(r, "appId")
	if err1 != nil || err2 != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "not an application"))
		return
	}
	app, err := s.svc.Application(r.Context(), appID, sess.PatientID)
	if err == nil && app.RoundID != id {
		err = booking.NotFound("application")
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	round, err := s.store.GetRound(ctx, id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	var room booking.Room
	if rs, err := s.store.ListRoundSlots(ctx, id, booking.RoomFilter{}); err == nil {
		for _, x := range rs {
			if x.Slot.ID == app.SlotID {
				room = x.Room
			}
		}
	}
	p := s.newPage(w, r, "Your application")
	v := applicationView{App: app, Round: round, Room: room, Pending: app.Status == booking.ApplicationPending,
		TermStart: p.pr.Date(round.TermStart.In(s.clinicZone)), TermEnd: p.pr.Date(round.TermEnd.In(s.clinicZone))}
	if app.Reason != "" {
		m := problemOf(app.Reason)
		v.Reason, v.Advice = p.T(m.Title), p.T(m.Message)
	}
	if app.DecidedAt != nil {
		v.Decided = p.pr.DateTime(app.DecidedAt.In(s.clinicZone))
	}
	p.Data = v
	if r.URL.Query().Get("partial") == "1" {
		var buf bytes.Buffer
		if err := s.pages["round_application"].ExecuteTemplate(&buf, "answer", p); err != nil {
			s.log.ErrorContext(r.Context(), "web: template failed", "page", "round_application", "err", err)
			http.Error(w, "internal error", problem.Status(booking.CodeInternal))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
		return
	}
	s.render(w, r, http.StatusOK, "round_application", p)
}
