package httpapi

import (
	"encoding/csv"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// Rounds (docs/contracts/rounds.md): rooms offered together, with
// an opening and a closing time and a per-patient quota. Applications are
// bookings of a round's slots: synchronous ones go through the same code as
// POST /api/appointments; with Prefer: respond-async they are stored as
// PENDING, answered 202, and decided in arrival order by the Service's
// round processor.

// Input bounds of the rounds endpoints.
const (
	maxRoomBeds      = 1000
	minRoomFloor     = -20
	maxRoomFloor     = 500
	maxRoundQuota    = 100
	maxRoundSlotsAdd = 1000
	maxTimeZoneLen   = 64
)

// roundView is a round as clients see it: the derived status and whether
// it accepts applications now, rather than the stored state, so that
// nobody has to know that the clock gates a published round.
type roundView struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	Accepting bool      `json:"accepting"`
	OpensAt   time.Time `json:"opensAt"`
	ClosesAt  time.Time `json:"closesAt"`
	TermStart time.Time `json:"termStart"`
	TermEnd   time.Time `json:"termEnd"`
	Quota     int       `json:"quota"`
	CreatedAt time.Time `json:"createdAt"`
	// Mode is "fcfs" (first come, first served) or "lottery"; a lottery
	// round shows its settings and the commitment to its secret seed.
	Mode           string       `json:"mode"`
	Lottery        *lotteryView `json:"lottery,omitempty"`
	SeedCommitment string       `json:"seedCommitment,omitempty"`
}

func newRoundView(r booking.Round, now time.Time) roundView {
	v := roundView{ID: r.ID, Name: r.Name, Status: r.Status(now), Accepting: r.Accepting(now),
		OpensAt: r.OpensAt.UTC(), ClosesAt: r.ClosesAt.UTC(), TermStart: r.TermStart.UTC(), TermEnd: r.TermEnd.UTC(),
		Quota: r.Quota, CreatedAt: r.CreatedAt.UTC(), Mode: "fcfs"}
	if r.Lottery != nil {
		v.Mode = "lottery"
		v.Lottery, v.SeedCommitment = newLotteryView(r, now)
	}
	return v
}

// roundSlotView is one room of a round with its places.
type roundSlotView struct {
	ID        int64        `json:"id"`
	RoundID   int64        `json:"roundId"`
	Room      booking.Room `json:"room"`
	StartAt   time.Time    `json:"startAt"`
	EndAt     time.Time    `json:"endAt"`
	Capacity  int          `json:"capacity"`
	Booked    int          `json:"booked"`
	Remaining int          `json:"remaining"`
	Status    string       `json:"status"`
}

func newRoundSlotView(roundID int64, s booking.Slot, room booking.Room) roundSlotView {
	return roundSlotView{ID: s.ID, RoundID: roundID, Room: room,
		StartAt: s.StartAt.UTC(), EndAt: s.EndAt.UTC(),
		Capacity: s.Capacity, Booked: s.BookedCount, Remaining: max(s.Remaining(), 0), Status: s.Status}
}

// applicationView is an asynchronous application: PENDING, then ALLOCATED
// with its appointment or REJECTED with the reason (a problem code).
type applicationView struct {
	ID            int64      `json:"id"`
	RoundID       int64      `json:"roundId"`
	SlotID        int64      `json:"slotId"`
	PatientID     int64      `json:"patientId"`
	Status        string     `json:"status"`
	Reason        string     `json:"reason,omitempty"`
	AppointmentID int64      `json:"appointmentId,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	DecidedAt     *time.Time `json:"decidedAt,omitempty"`
}

func newApplicationView(a booking.Application) applicationView {
	v := applicationView{ID: a.ID, RoundID: a.RoundID, SlotID: a.SlotID, PatientID: a.PatientID,
		Status: string(a.Status), Reason: string(a.Reason), AppointmentID: a.AppointmentID, CreatedAt: a.CreatedAt.UTC()}
	if a.DecidedAt != nil {
		d := a.DecidedAt.UTC()
		v.DecidedAt = &d
	}
	return v
}

func applicationPath(roundID, appID int64) string {
	return "/api/rounds/" + strconv.FormatInt(roundID, 10) + "/applications/" + strconv.FormatInt(appID, 10)
}

func (s *server) createRoom(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Name     string `json:"name"`
		TimeZone string `json:"timezone"`
		Building string `json:"building"`
		Floor    int    `json:"floor"`
		NearDoor bool   `json:"nearDoor"`
		Beds     int    `json:"beds"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, err := cleanName(in.Name, "name")
	if err != nil {
		return err
	}
	building, err := cleanName(in.Building, "building")
	if err != nil {
		return err
	}
	// As for doctors: "" and "Local" load but would mean UTC or this
	// machine's zone, never what the dormitory meant.
	if in.TimeZone == "" || in.TimeZone == "Local" || len(in.TimeZone) > maxTimeZoneLen {
		return errorf(booking.CodeInvalidRequest, "timezone must be an IANA time zone such as Europe/Berlin")
	}
	if _, err := time.LoadLocation(in.TimeZone); err != nil {
		return errorf(booking.CodeInvalidRequest, "timezone must be an IANA time zone such as Europe/Berlin")
	}
	switch {
	case in.Floor < minRoomFloor || in.Floor > maxRoomFloor:
		return errorf(booking.CodeInvalidRequest, "floor must be %d to %d", minRoomFloor, maxRoomFloor)
	case in.Beds < 1 || in.Beds > maxRoomBeds:
		return errorf(booking.CodeInvalidRequest, "beds must be 1 to %d", maxRoomBeds)
	}
	room, err := s.svc.CreateRoom(r.Context(), booking.Room{Name: name, TimeZone: in.TimeZone, Building: building,
		Floor: in.Floor, NearDoor: in.NearDoor, Beds: in.Beds})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, room)
	return nil
}

func (s *server) createRound(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Name      string  `json:"name"`
		OpensAt   instant `json:"opensAt"`
		ClosesAt  instant `json:"closesAt"`
		TermStart instant `json:"termStart"`
		TermEnd   instant `json:"termEnd"`
		Quota     *int    `json:"quota"`
		// Lottery, when present, makes a lottery round (docs/clinic.md).
		Lottery *lotteryIn `json:"lottery"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, err := cleanName(in.Name, "name")
	if err != nil {
		return err
	}
	quota := booking.DefaultRoundQuota
	if in.Quota != nil {
		quota = *in.Quota
	}
	switch {
	case in.OpensAt.IsZero() || in.ClosesAt.IsZero() || in.TermStart.IsZero() || in.TermEnd.IsZero():
		return errorf(booking.CodeInvalidRequest, "opensAt, closesAt, termStart and termEnd are required (RFC 3339)")
	case !in.ClosesAt.After(in.OpensAt.Time):
		return errorf(booking.CodeInvalidRequest, "closesAt must be after opensAt")
	case !in.ClosesAt.After(s.now()):
		return errorf(booking.CodeInvalidRequest, "closesAt must be in the future")
	// A round's slots start at termStart, and a slot that has started
	// takes no booking: a term starting before the close would silently
	// cut the round short.
	case in.TermStart.Before(in.ClosesAt.Time):
		return errorf(booking.CodeInvalidRequest, "termStart must not be before closesAt")
	case !in.TermEnd.After(in.TermStart.Time):
		return errorf(booking.CodeInvalidRequest, "termEnd must be after termStart")
	case quota < 1 || quota > maxRoundQuota:
		return errorf(booking.CodeInvalidRequest, "quota must be 1 to %d", maxRoundQuota)
	}
	lottery, err := in.Lottery.lottery(in.OpensAt.UTC())
	if err != nil {
		return err
	}
	round, err := s.svc.CreateRound(r.Context(), booking.Round{Name: name,
		OpensAt: in.OpensAt.UTC(), ClosesAt: in.ClosesAt.UTC(), TermStart: in.TermStart.UTC(), TermEnd: in.TermEnd.UTC(),
		Quota: quota, State: booking.RoundDraft, Lottery: lottery})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/rounds/"+strconv.FormatInt(round.ID, 10))
	writeJSON(w, http.StatusCreated, newRoundView(round, s.now()))
	return nil
}

func (s *server) addRoundSlots(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		RoomIDs []int64 `json:"roomIds"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if len(in.RoomIDs) == 0 || len(in.RoomIDs) > maxRoundSlotsAdd {
		return errorf(booking.CodeInvalidRequest, "roomIds must list 1 to %d rooms", maxRoundSlotsAdd)
	}
	seen := make(map[int64]bool, len(in.RoomIDs))
	for _, id := range in.RoomIDs {
		if !validID(id) {
			return errorf(booking.CodeInvalidRequest, "roomIds must be ids 1 to %d", int64(booking.MaxID))
		}
		if seen[id] {
			return errorf(booking.CodeInvalidRequest, "room %d is listed twice", id)
		}
		seen[id] = true
	}
	if _, err := s.svc.AddRoundSlots(r.Context(), roundID, in.RoomIDs); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	// The answer shows the added slots with their rooms, as applicants
	// will see them.
	all, err := s.store.ListRoundSlots(ctx, roundID, booking.RoomFilter{})
	if err != nil {
		return storeErr(ctx, err)
	}
	out := struct {
		Slots []roundSlotView `json:"slots"`
	}{Slots: []roundSlotView{}}
	for _, rs := range all {
		if seen[rs.Room.ID] {
			out.Slots = append(out.Slots, newRoundSlotView(roundID, rs.Slot, rs.Room))
		}
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (s *server) openRound(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.setRoundState(w, r, booking.RoundOpen)
}

func (s *server) closeRound(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.setRoundState(w, r, booking.RoundClosed)
}

// setRoundState publishes or closes a round; repeating it changes nothing.
// Opening only publishes: applications are taken from OpensAt on.
func (s *server) setRoundState(w http.ResponseWriter, r *http.Request, state string) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	round, err := s.svc.SetRoundState(r.Context(), id, state)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newRoundView(round, s.now()))
	return nil
}

func (s *server) getRound(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	round, err := s.store.GetRound(ctx, id)
	if err != nil {
		return storeErr(ctx, err)
	}
	// Status and accepting change with the clock alone: never cache.
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, newRoundView(round, s.now()))
	return nil
}

// roomFilter parses ?building=&floor=&nearDoor=.
func roomFilter(q map[string]string) (booking.RoomFilter, error) {
	var f booking.RoomFilter
	if v, ok := q["building"]; ok {
		b, err := cleanName(v, "building")
		if err != nil {
			return f, err
		}
		f.Building = b
	}
	if v, ok := q["floor"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < minRoomFloor || n > maxRoomFloor {
			return f, errorf(booking.CodeInvalidRequest, "floor must be an integer %d to %d", minRoomFloor, maxRoomFloor)
		}
		f.Floor = &n
	}
	if v, ok := q["nearDoor"]; ok {
		var b bool
		switch v {
		case "true":
			b = true
		case "false":
		default:
			return f, errorf(booking.CodeInvalidRequest, "nearDoor must be true or false")
		}
		f.NearDoor = &b
	}
	return f, nil
}

func (s *server) listRoundSlots(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	q, err := parseQuery(r, withPage("building", "floor", "nearDoor")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	f, err := roomFilter(q)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	// An unknown round is a 404, not an empty list.
	if _, err := s.store.GetRound(ctx, id); err != nil {
		return storeErr(ctx, err)
	}
	slots, err := s.store.ListRoundSlots(ctx, id, f)
	if err != nil {
		return storeErr(ctx, err)
	}
	out := make([]roundSlotView, 0, len(slots))
	for _, rs := range slots {
		out = append(out, newRoundSlotView(id, rs.Slot, rs.Room))
	}
	w.Header().Set("Cache-Control", "no-store")
	// A round's slots are read whole (by id, bounded by the round), paged here.
	writeJSON(w, http.StatusOK, pageAfter(out, p, func(v roundSlotView) int64 { return v.ID }, true))
	return nil
}

// respondAsync reports whether the client asked for Prefer: respond-async
// (RFC 7240); other preferences in the same header are ignored.
func respondAsync(r *http.Request) bool {
	for _, v := range r.Header.Values("Prefer") {
		for _, pref := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(pref, ";")
			name, _, _ = strings.Cut(name, "=")
			if strings.EqualFold(strings.TrimSpace(name), "respond-async") {
				return true
			}
		}
	}
	return false
}

// apply is POST /api/rounds/{id}/applications: a booking of one of the
// round's slots. It checks the request exactly as POST /api/appointments
// (rate limit, key, body), then that the slot belongs to the round, and
// either books at once through the same path (201/200 with the
// appointment) or, with Prefer: respond-async, stores the application and
// answers 202 with where to poll.
func (s *server) apply(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	at, err := s.readBooking(w, r, c)
	if err != nil {
		return err
	}
	if at.serviceID != 0 {
		return fieldErrorf("/service", "an application to a round names no service")
	}
	ctx, cancel := s.storeCtx(r.Context())
	sl, err := s.store.GetSlot(ctx, at.slotID)
	err = storeErr(ctx, err)
	cancel()
	if err != nil {
		return err
	}
	if sl.RoundID != roundID {
		// Without this check a round's URL would book any slot, ordinary
		// ones and other rounds' rooms included.
		return &booking.Error{Code: booking.CodeNotFound, Message: "slot not found in this round", SlotID: at.slotID}
	}
	if !respondAsync(r) {
		return s.answerBooking(w, r, at)
	}
	app, _, err := s.svc.SubmitApplication(r.Context(), service.ApplicationRequest{RoundID: roundID, PatientID: at.acting.PatientID, SlotID: at.slotID, Key: at.key})
	if err != nil {
		return err
	}
	w.Header().Set("Preference-Applied", "respond-async")
	if app.Status == booking.ApplicationPending {
		// Durable before it is acknowledged: the row is committed, so the
		// poll URL answers from now on, on any instance.
		w.Header().Set("Location", applicationPath(roundID, app.ID))
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusAccepted, newApplicationView(app))
		return nil
	}
	// A retry of a decided application: its outcome.
	w.Header().Set("Content-Location", applicationPath(roundID, app.ID))
	writeJSON(w, http.StatusOK, newApplicationView(app))
	return nil
}

// getApplication is the poll of an asynchronous application: the
// applicant's own (another's is not found) or any for an admin.
func (s *server) getApplication(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := owner(c)
	if err != nil {
		return err
	}
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	appID, err := pathID(r, "appId")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	app, err := s.svc.Application(r.Context(), appID, patient)
	if err != nil {
		return err
	}
	if app.RoundID != roundID {
		return booking.NotFound("application")
	}
	w.Header().Set("Cache-Control", "no-store")
	if app.Status == booking.ApplicationPending {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, http.StatusOK, newApplicationView(app))
	return nil
}

// resultsFormat picks the export's format: ?format= wins, then the most
// preferred of text/csv and application/json in Accept, then JSON.
func resultsFormat(r *http.Request, q map[string]string) (string, error) {
	if f, ok := q["format"]; ok {
		f, ok := enumValue(f, "csv", "json")
		if !ok {
			return "", paramErrorf("format", "format must be csv or json")
		}
		return f, nil
	}
	best, bestQ := "json", -1.0
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			qv := 1.0
			if s, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					qv = f
				}
			}
			var f string
			switch mt {
			case "text/csv":
				f = "csv"
			case "application/json":
				f = "json"
			default:
				continue
			}
			if qv > 0 && qv > bestQ {
				best, bestQ = f, qv
			}
		}
	}
	return best, nil
}

// csvCell defuses a value that a spreadsheet would run as a formula (a
// patient's name is free text typed by people): CSV exports are opened in
// spreadsheets, and "=HYPERLINK(…)" must stay text there.
func csvCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

func (s *server) roundResults(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	q, err := parseQuery(r, "format")
	if err != nil {
		return err
	}
	format, err := resultsFormat(r, q)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	round, err := s.store.GetRound(ctx, id)
	if err != nil {
		return storeErr(ctx, err)
	}
	allocs, err := s.store.RoundResults(ctx, id)
	if err != nil {
		return storeErr(ctx, err)
	}
	// Personal data of every allocated student: never cached on the way.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Vary", "Accept")
	if format == "json" {
		if allocs == nil {
			allocs = []booking.Allocation{}
		}
		for i := range allocs {
			allocs[i].AllocatedAt = allocs[i].AllocatedAt.UTC()
		}
		writeJSON(w, http.StatusOK, struct {
			Round       roundView            `json:"round"`
			Allocations []booking.Allocation `json:"allocations"`
		}{newRoundView(round, s.now()), allocs})
		return nil
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="round-`+strconv.FormatInt(id, 10)+`-results.csv"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"round", "room", "building", "floor", "bed", "patient_id", "patient_name", "appointment_id", "status"})
	for _, a := range allocs {
		_ = cw.Write([]string{
			csvCell(round.Name), csvCell(a.RoomName), csvCell(a.Building), strconv.Itoa(a.Floor), strconv.Itoa(a.Bed),
			strconv.FormatInt(a.PatientID, 10), csvCell(a.PatientName), strconv.FormatInt(a.AppointmentID, 10), string(a.Status),
		})
	}
	cw.Flush()
	return nil
}
