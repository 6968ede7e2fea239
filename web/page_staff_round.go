package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// An admin's round pages (docs/web.md, rounds): create a round, add its
// rooms while it is a draft, open and close it, and see its results. Every
// change goes through the Service, which the stores audit.

// staffRoomsPage bounds the rooms offered to a draft round on one page,
// staffRefusalsPage the refusals listed at once.
const (
	staffRoomsPage    = 200
	staffRefusalsPage = 50
)

// handleStaffNewRound is the form that creates a round.
func (s *server) handleStaffNewRound(w http.ResponseWriter, r *http.Request, _ session) {
	p := s.newPage(w, r, "New round")
	s.render(w, r, http.StatusOK, "staff_round_new", p)
}

// handleStaffCreateRound creates a DRAFT round (with a lottery when asked)
// from the form; times are the clinic's local times.
func (s *server) handleStaffCreateRound(w http.ResponseWriter, r *http.Request, _ session) {
	at := func(name string) (time.Time, error) {
		t, err := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue(name), s.clinicZone)
		if err != nil {
			return t, booking.Errorf(booking.CodeInvalidRequest, "%s must be a date and time", name)
		}
		return t, nil
	}
	num := func(name string, def int) (int, error) {
		v := strings.TrimSpace(r.PostFormValue(name))
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, booking.Errorf(booking.CodeInvalidRequest, "%s must be a number", name)
		}
		return n, nil
	}
	var errs []error
	keep := func(t time.Time, err error) time.Time { errs = append(errs, err); return t }
	keepN := func(n int, err error) int { errs = append(errs, err); return n }
	round := booking.Round{Name: strings.TrimSpace(r.PostFormValue("name")),
		OpensAt: keep(at("opens")), ClosesAt: keep(at("closes")), TermStart: keep(at("termStart")), TermEnd: keep(at("termEnd")),
		Quota: keepN(num("quota", booking.DefaultRoundQuota))}
	if r.PostFormValue("lottery") == "1" {
		round.Lottery = &booking.Lottery{RegistrationOpensAt: keep(at("regOpens")), RegistrationClosesAt: keep(at("regCloses")),
			SelectionMinutes: keepN(num("selectionMinutes", 2)), SelectionGroup: keepN(num("selectionGroup", 1)),
			WindowMinutes: keepN(num("windowMinutes", 0))}
	}
	for _, err := range errs {
		if err != nil {
			s.renderError(w, r, err)
			return
		}
	}
	if len(round.Name) > 200 {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "a round's name is at most 200 characters"))
		return
	}
	created, err := s.svc.CreateRound(r.Context(), round)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/rounds/"+itoa(created.ID))
}

// handleStaffRoundRooms adds the checked rooms to a draft round.
func (s *server) handleStaffRoundRooms(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	vals := r.PostForm["room"]
	if len(vals) == 0 || len(vals) > staffRoomsPage {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "choose 1 to %d rooms", staffRoomsPage))
		return
	}
	ids := make([]int64, 0, len(vals))
	for _, v := range vals {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "choose 1 to %d rooms", staffRoomsPage))
			return
		}
		ids = append(ids, n)
	}
	if _, err := s.svc.AddRoundSlots(r.Context(), id, ids); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/rounds/"+itoa(id))
}

// handleStaffRoundState opens or closes a round (state=OPEN or CLOSED).
func (s *server) handleStaffRoundState(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	state := r.PostFormValue("state")
	if state != booking.RoundOpen && state != booking.RoundClosed {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "a round can be opened or closed"))
		return
	}
	if _, err := s.svc.SetRoundState(r.Context(), id, state); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/rounds/"+itoa(id))
}

// staffRoundView is the rounds part of the staff's round page: its rooms,
// the rooms a draft may still take, and the allocations.
type staffRoundView struct {
	Rooms       []roomRow
	Addable     []booking.Room
	Allocations []allocationRow
	Refusals    []refusalRow
	// RefusedAfter is the cursor of the next page of refusals (0: none).
	RefusedAfter int64
}

// refusalRow is one refused application in the results.
type refusalRow struct {
	ID, PatientID int64
	Room, Reason  string
	At            string
}

// allocationRow is one allocation in the results.
type allocationRow struct {
	booking.Allocation
	At string
}

func (s *server) staffRoundOf(r *http.Request, p *page, round booking.Round) (staffRoundView, error) {
	var after int64
	if a := r.URL.Query().Get("refusedAfter"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 0 {
			return staffRoundView{}, booking.Errorf(booking.CodeInvalidRequest, "refusedAfter must be an application id")
		}
		after = n
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	var v staffRoundView
	rs, err := s.store.ListRoundSlots(ctx, round.ID, booking.RoomFilter{})
	if err != nil {
		return v, err
	}
	in, names := map[int64]bool{}, map[int64]string{}
	for _, x := range rs {
		in[x.Room.ID], names[x.Slot.ID] = true, x.Room.Name
		v.Rooms = append(v.Rooms, roomRowOf(x))
	}
	if round.State == booking.RoundDraft {
		all, err := s.store.ListRooms(ctx, booking.RoomFilter{})
		if err != nil {
			return v, err
		}
		for _, room := range all {
			if !in[room.ID] && len(v.Addable) < staffRoomsPage {
				v.Addable = append(v.Addable, room)
			}
		}
	}
	allocs, err := s.store.RoundResults(ctx, round.ID)
	if err != nil {
		return v, err
	}
	for _, a := range allocs {
		v.Allocations = append(v.Allocations, allocationRow{a, p.pr.DateTime(a.AllocatedAt.In(s.clinicZone))})
	}
	refused, err := s.store.ListApplications(ctx, booking.ApplicationQuery{RoundID: round.ID, Status: booking.ApplicationRejected,
		AfterID: after, Limit: staffRefusalsPage + 1})
	if err != nil {
		return v, err
	}
	if len(refused) > staffRefusalsPage {
		refused = refused[:staffRefusalsPage]
		v.RefusedAfter = refused[len(refused)-1].ID
	}
	for _, a := range refused {
		row := refusalRow{ID: a.ID, PatientID: a.PatientID, Room: names[a.SlotID], Reason: p.T(problemOf(a.Reason).Title)}
		if a.DecidedAt != nil {
			row.At = p.pr.DateTime(a.DecidedAt.In(s.clinicZone))
		}
		v.Refusals = append(v.Refusals, row)
	}
	return v, nil
}
