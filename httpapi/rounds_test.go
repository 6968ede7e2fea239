package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// The rounds' clock: applications are taken from opensAt (an hour after
// t0) to closesAt (a day later); the term starts a week after t0.
var (
	roundOpens  = t0.Add(time.Hour)
	roundCloses = t0.Add(25 * time.Hour)
	termStart   = t0.Add(7 * 24 * time.Hour)
	termEnd     = t0.Add(120 * 24 * time.Hour)
)

// roundBody is a valid POST /api/admin/rounds body.
func roundBody(name string, quota int) map[string]any {
	b := map[string]any{"name": name, "opensAt": roundOpens, "closesAt": roundCloses, "termStart": termStart, "termEnd": termEnd}
	if quota > 0 {
		b["quota"] = quota
	}
	return b
}

// apply is a POST /api/rounds/{id}/applications; async adds Prefer:
// respond-async.
func apply(tok string, roundID int64, key string, slotID int64, async bool) call {
	h := map[string]string{}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	if async {
		h["Prefer"] = "respond-async"
	}
	return call{method: "POST", path: fmt.Sprintf("/api/rounds/%d/applications", roundID), token: tok, body: slotBody(slotID), header: h}
}

// makeRoom creates a room through the admin endpoint.
func (e *env) makeRoom(name, building string, floor int, nearDoor bool, beds int) booking.Room {
	e.t.Helper()
	var r booking.Room
	e.do(call{method: "POST", path: "/api/admin/rooms", token: e.admin, body: map[string]any{
		"name": name, "timezone": "Europe/Berlin", "building": building, "floor": floor, "nearDoor": nearDoor, "beds": beds,
	}}).expect(e.t, 201).decode(e.t, &r)
	return r
}

// makeRound creates a round offering the rooms and, when open, publishes it.
func (e *env) makeRound(name string, quota int, open bool, rooms ...booking.Room) (roundView, []roundSlotView) {
	e.t.Helper()
	var rd roundView
	e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: roundBody(name, quota)}).expect(e.t, 201).decode(e.t, &rd)
	ids := make([]int64, len(rooms))
	for i, r := range rooms {
		ids[i] = r.ID
	}
	var added struct {
		Slots []roundSlotView `json:"slots"`
	}
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/slots", rd.ID), token: e.admin, body: map[string]any{"roomIds": ids}}).
		expect(e.t, 201).decode(e.t, &added)
	if len(added.Slots) != len(rooms) {
		e.t.Fatalf("added %d slots for %d rooms", len(added.Slots), len(rooms))
	}
	if open {
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/open", rd.ID), token: e.admin}).expect(e.t, 200).decode(e.t, &rd)
	}
	return rd, added.Slots
}

// poll waits until the application at path is decided.
func (e *env) poll(tok, path string) applicationView {
	e.t.Helper()
	var a applicationView
	testkit.Eventually(e.t, path+" decided (not PENDING)", 10*time.Second, func() bool {
		a = applicationView{}
		e.do(call{method: "GET", path: path, token: tok}).expect(e.t, 200).decode(e.t, &a)
		return a.Status != string(booking.ApplicationPending)
	})
	return a
}

func TestRoundAdmin(t *testing.T) {
	e := newEnv(t)
	pt := e.patientToken(e.patient().ID)

	// Rooms: created by admins only, validated.
	r1 := e.makeRoom("A-101", "A", 1, true, 2)
	if r1.ID == 0 || r1.Building != "A" || r1.Floor != 1 || !r1.NearDoor || r1.Beds != 2 || r1.TimeZone != "Europe/Berlin" {
		t.Fatalf("%+v", r1)
	}
	roomOK := map[string]any{"name": "x", "timezone": "Europe/Berlin", "building": "B", "beds": 1}
	e.do(call{method: "POST", path: "/api/admin/rooms", body: roomOK}).expect(t, 401, booking.CodeUnauthorized)
	e.do(call{method: "POST", path: "/api/admin/rooms", token: pt, body: roomOK}).expect(t, 403, booking.CodeForbidden)
	for _, bad := range []map[string]any{
		{"name": "x", "timezone": "Europe/Berlin", "building": "B", "beds": 0},
		{"name": "x", "timezone": "Mars/Olympus", "building": "B", "beds": 1},
		{"name": "x", "timezone": "Europe/Berlin", "building": "B", "beds": 1, "floor": 9999},
		{"name": "x", "timezone": "Europe/Berlin", "beds": 1},
		{"name": "x", "timezone": "Europe/Berlin", "building": "B", "beds": 1, "color": "red"},
	} {
		e.do(call{method: "POST", path: "/api/admin/rooms", token: e.admin, body: bad, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	r2 := e.makeRoom("B-201", "B", 2, false, 1)

	// Rounds: created DRAFT with the default quota.
	var rd roundView
	a := e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: roundBody("Autumn", 0)}).expect(t, 201)
	a.decode(t, &rd)
	if rd.Status != booking.RoundDraft || rd.Accepting || rd.Quota != 1 || !rd.OpensAt.Equal(roundOpens) {
		t.Fatalf("%+v", rd)
	}
	roundPath := "/api/rounds/" + strconv.FormatInt(rd.ID, 10)
	if a.header.Get("Location") != roundPath {
		t.Fatalf("Location %q", a.header.Get("Location"))
	}
	e.do(call{method: "POST", path: "/api/admin/rounds", token: pt, body: roundBody("x", 0)}).expect(t, 403, booking.CodeForbidden)
	for _, mod := range []func(map[string]any){
		func(b map[string]any) { b["closesAt"] = roundOpens },                   // closes when it opens
		func(b map[string]any) { b["termStart"] = roundCloses.Add(-time.Hour) }, // term before the close
		func(b map[string]any) { b["termEnd"] = termStart },                     // empty term
		func(b map[string]any) { b["quota"] = 0 },
		func(b map[string]any) { delete(b, "opensAt") },
		func(b map[string]any) { b["opensAt"] = "tomorrow" },
	} {
		b := roundBody("bad", 0)
		mod(b)
		e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: b, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	past := roundBody("past", 0)
	past["opensAt"], past["closesAt"] = t0.Add(-2*time.Hour), t0.Add(-time.Hour)
	e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: past}).expect(t, 400, booking.CodeInvalidRequest)

	// Slots: one per room, capacity = beds; a room twice is refused.
	slotsPath := fmt.Sprintf("/api/admin/rounds/%d/slots", rd.ID)
	var added struct {
		Slots []roundSlotView `json:"slots"`
	}
	e.do(call{method: "POST", path: slotsPath, token: e.admin, body: map[string]any{"roomIds": []int64{r1.ID, r2.ID}}}).expect(t, 201).decode(t, &added)
	if len(added.Slots) != 2 || added.Slots[0].Capacity != 2 || added.Slots[0].Room.ID != r1.ID || added.Slots[0].RoundID != rd.ID ||
		!added.Slots[0].StartAt.Equal(termStart) || added.Slots[1].Capacity != 1 || added.Slots[1].Remaining != 1 {
		t.Fatalf("%+v", added)
	}
	e.do(call{method: "POST", path: slotsPath, token: e.admin, body: map[string]any{"roomIds": []int64{r1.ID}}}).expect(t, 409, booking.CodeConflict)
	e.do(call{method: "POST", path: slotsPath, token: e.admin, body: map[string]any{"roomIds": []int64{}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: slotsPath, token: e.admin, body: map[string]any{"roomIds": []int64{5, 5}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: slotsPath, token: e.admin, body: map[string]any{"roomIds": []int64{424242}}}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "POST", path: "/api/admin/rounds/424242/slots", token: e.admin, body: map[string]any{"roomIds": []int64{r1.ID}}}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "POST", path: slotsPath, token: pt, body: map[string]any{"roomIds": []int64{r1.ID}}}).expect(t, 403, booking.CodeForbidden)

	// A DRAFT round is visible but refuses applications.
	e.do(call{method: "GET", path: roundPath}).expect(t, 200).decode(t, &rd)
	if rd.Status != booking.RoundDraft || rd.Accepting {
		t.Fatalf("%+v", rd)
	}
	s1 := added.Slots[0].ID
	p := e.do(apply(pt, rd.ID, "d1", s1, false)).expect(t, 409, booking.CodeNotOpenYet).problem(t)
	if p.OpensAt == "" {
		t.Fatalf("%+v", p)
	}
	e.do(apply(pt, rd.ID, "d2", s1, true)).expect(t, 409, booking.CodeNotOpenYet)

	// Opening publishes; the clock still gates until opensAt.
	openPath := fmt.Sprintf("/api/admin/rounds/%d/open", rd.ID)
	e.do(call{method: "POST", path: openPath, token: pt}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: "/api/admin/rounds/424242/open", token: e.admin}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "POST", path: openPath, token: e.admin}).expect(t, 200).decode(t, &rd)
	if rd.Status != booking.RoundOpen || rd.Accepting {
		t.Fatalf("%+v", rd)
	}
	e.do(call{method: "POST", path: openPath, token: e.admin}).expect(t, 200) // again: no-op
	e.do(call{method: "POST", path: slotsPath, token: e.admin, body: map[string]any{"roomIds": []int64{e.makeRoom("C", "C", 0, false, 1).ID}}}).
		expect(t, 409, booking.CodeInvalidTransition)
	p = e.do(apply(pt, rd.ID, "o1", s1, false)).expect(t, 409, booking.CodeNotOpenYet).problem(t)
	if p.OpensAt != roundOpens.Format(time.RFC3339) {
		t.Fatalf("%+v", p)
	}
	e.clock.set(roundOpens)
	e.do(call{method: "GET", path: roundPath}).expect(t, 200).decode(t, &rd)
	if rd.Status != booking.RoundOpen || !rd.Accepting {
		t.Fatalf("%+v", rd)
	}

	// Closing: applications refused, reopening is not a thing.
	closePath := fmt.Sprintf("/api/admin/rounds/%d/close", rd.ID)
	e.do(call{method: "POST", path: closePath, token: e.admin}).expect(t, 200).decode(t, &rd)
	if rd.Status != booking.RoundClosed || rd.Accepting {
		t.Fatalf("%+v", rd)
	}
	e.do(apply(pt, rd.ID, "c1", s1, false)).expect(t, 409, booking.CodeSlotClosed)
	e.do(apply(pt, rd.ID, "c2", s1, true)).expect(t, 409, booking.CodeSlotClosed)
	e.do(call{method: "POST", path: openPath, token: e.admin}).expect(t, 409, booking.CodeInvalidTransition)

	// Public reads: unknown and malformed ids.
	e.do(call{method: "GET", path: "/api/rounds/424242"}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: "/api/rounds/abc", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: roundPath + "?x=1", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
}

func TestRoundSlotsFilters(t *testing.T) {
	e := newEnv(t)
	rooms := []booking.Room{
		e.makeRoom("A-001", "A", 0, true, 2),
		e.makeRoom("A-101", "A", 1, false, 2),
		e.makeRoom("A-102", "A", 1, true, 3),
		e.makeRoom("B-101", "B", 1, true, 1),
	}
	rd, _ := e.makeRound("Spring", 1, true, rooms...)
	base := fmt.Sprintf("/api/rounds/%d/slots", rd.ID)
	names := func(q string) string {
		var ss []roundSlotView
		e.do(call{method: "GET", path: base + q}).expect(t, 200).items(t, &ss)
		var n []string
		for _, s := range ss {
			n = append(n, s.Room.Name)
		}
		return strings.Join(n, ",")
	}
	for q, want := range map[string]string{
		"":                                  "A-001,A-101,A-102,B-101",
		"?building=A":                       "A-001,A-101,A-102",
		"?floor=1":                          "A-101,A-102,B-101",
		"?nearDoor=true":                    "A-001,A-102,B-101",
		"?building=A&floor=1&nearDoor=true": "A-102",
		"?nearDoor=false&floor=0":           "",
		"?building=Z":                       "",
	} {
		if got := names(q); got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
	for _, q := range []string{"?floor=one", "?nearDoor=yes", "?floor=99999", "?color=red", "?floor=1&floor=2", "?building="} {
		e.do(call{method: "GET", path: base + q, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "GET", path: "/api/rounds/424242/slots"}).expect(t, 404, booking.CodeNotFound)
}

func TestRoundApplySync(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ordinary := e.slot(f, 5)
	rA, rB := e.makeRoom("A-1", "A", 1, false, 2), e.makeRoom("A-2", "A", 1, false, 1)
	rd, slots := e.makeRound("Autumn", 1, true, rA, rB)
	other, otherSlots := e.makeRound("Other", 1, true, e.makeRoom("O-1", "O", 0, false, 1))
	e.clock.set(roundOpens)
	p1, p2, p3 := e.patient(), e.patient(), e.patient()
	t1, t2, t3 := e.patientToken(p1.ID), e.patientToken(p2.ID), e.patientToken(p3.ID)
	sA, sB := slots[0].ID, slots[1].ID

	// Allocated at once, replayed with the same key.
	var ap booking.Appointment
	a := e.do(apply(t1, rd.ID, "k1", sA, false)).expect(t, 201)
	a.decode(t, &ap)
	if ap.SlotID != sA || ap.PatientID != p1.ID || ap.Status != booking.StatusBooked || ap.RoundID != rd.ID {
		t.Fatalf("%+v", ap)
	}
	if a.header.Get("Location") != "/api/appointments/"+strconv.FormatInt(ap.ID, 10) {
		t.Fatalf("Location %q", a.header.Get("Location"))
	}
	var again booking.Appointment
	e.do(apply(t1, rd.ID, "k1", sA, false)).expect(t, 200).decode(t, &again)
	if again.ID != ap.ID {
		t.Fatalf("replay %d, want %d", again.ID, ap.ID)
	}
	// The same key through POST /api/appointments replays too: one path.
	e.do(book(t1, "k1", slotBody(sA))).expect(t, 200)

	// Quota 1: another room is refused; the same key for it is misuse.
	e.do(apply(t1, rd.ID, "k2", sB, false)).expect(t, 409, booking.CodeQuotaExceeded)
	e.do(apply(t1, rd.ID, "k1", sB, false)).expect(t, 422, booking.CodeKeyReused)

	// Slots outside the round are not found through it. (Each block
	// moves the clock past the rate limit's window: every attempt counts.)
	e.clock.add(11 * time.Second)
	e.do(apply(t2, rd.ID, "x1", ordinary.ID, false)).expect(t, 404, booking.CodeNotFound)
	e.do(apply(t2, rd.ID, "x2", otherSlots[0].ID, false)).expect(t, 404, booking.CodeNotFound)
	e.do(apply(t2, other.ID, "x3", sA, true)).expect(t, 404, booking.CodeNotFound)
	e.do(apply(t2, rd.ID, "x4", 424242, false)).expect(t, 404, booking.CodeNotFound)
	e.do(apply(t2, 424242, "x5", sA, false)).expect(t, 404, booking.CodeNotFound)

	// Input and auth errors, as for POST /api/appointments.
	e.clock.add(11 * time.Second)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/rounds/%d/applications", rd.ID), body: slotBody(sA), header: map[string]string{"Idempotency-Key": "n"}}).
		expect(t, 401, booking.CodeUnauthorized)
	e.do(apply(e.token(auth.RoleDoctor, "1"), rd.ID, "d", sA, false)).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/rounds/%d/applications", rd.ID), token: t2, body: slotBody(sA), invalid: true}).
		expect(t, 400, booking.CodeMissingIdempotencyKey)
	bad := apply(t2, rd.ID, "b", sA, false)
	bad.body, bad.invalid = `{"slotId": "A-1"}`, true
	e.do(bad).expect(t, 400, booking.CodeInvalidRequest)
	bad.body = map[string]any{"slotId": sA, "patientId": p1.ID}
	e.do(bad).expect(t, 404, booking.CodeNotFound) // another account's patient does not exist for them
	e.do(call{method: "POST", path: "/api/rounds/0/applications", token: t2, body: slotBody(sA), header: map[string]string{"Idempotency-Key": "z"}, invalid: true}).
		expect(t, 400, booking.CodeInvalidRequest)

	// An admin applies for a patient.
	e.clock.add(11 * time.Second)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/rounds/%d/applications", rd.ID), token: e.admin,
		body: map[string]any{"slotId": sB, "patientId": p2.ID}, header: map[string]string{"Idempotency-Key": "adm"}}).expect(t, 201)
	// Room A has one bed left, room B none.
	e.do(apply(t3, rd.ID, "f", sB, false)).expect(t, 409, booking.CodeSlotFull)

	// Cancelling gives back the bed and the quota, once.
	e.clock.add(11 * time.Second)
	apPath := "/api/appointments/" + strconv.FormatInt(ap.ID, 10)
	e.do(call{method: "DELETE", path: apPath, token: t1}).expect(t, 200)
	e.do(call{method: "DELETE", path: apPath, token: t1}).expect(t, 200)
	var ss []roundSlotView
	e.do(call{method: "GET", path: fmt.Sprintf("/api/rounds/%d/slots", rd.ID)}).expect(t, 200).items(t, &ss)
	if ss[0].Booked != 0 || ss[0].Remaining != 2 {
		t.Fatalf("%+v", ss[0])
	}
	e.do(apply(t3, rd.ID, "g", sA, false)).expect(t, 201)
	var re booking.Appointment
	e.do(apply(t1, rd.ID, "k3", sA, false)).expect(t, 201).decode(t, &re) // the quota is free again
	e.do(apply(t1, rd.ID, "k4", sB, false)).expect(t, 409)                // …and used again

	// The results: JSON by default, CSV on request.
	resPath := fmt.Sprintf("/api/admin/rounds/%d/results", rd.ID)
	var res struct {
		Round       roundView            `json:"round"`
		Allocations []booking.Allocation `json:"allocations"`
	}
	e.do(call{method: "GET", path: resPath, token: e.admin}).expect(t, 200).decode(t, &res)
	if res.Round.ID != rd.ID || len(res.Allocations) != 3 {
		t.Fatalf("%+v", res)
	}
	holders := map[int64]string{}
	for _, al := range res.Allocations {
		holders[al.PatientID] = al.RoomName
		if al.RoundID != rd.ID || al.Status != booking.StatusBooked || al.PatientName != "Anna" || al.Bed < 1 {
			t.Fatalf("%+v", al)
		}
	}
	if holders[p1.ID] != "A-1" || holders[p2.ID] != "A-2" || holders[p3.ID] != "A-1" {
		t.Fatalf("%v", holders)
	}
	rows := e.resultsCSV(resPath+"?format=csv", nil)
	if len(rows) != 4 || strings.Join(rows[0], ",") != "round,room,building,floor,bed,patient_id,patient_name,appointment_id,status" ||
		rows[1][0] != "Autumn" || rows[1][2] != "A" || rows[1][3] != "1" || rows[1][8] != "BOOKED" {
		t.Fatalf("%q", rows)
	}
	if got := e.resultsCSV(resPath, map[string]string{"Accept": "text/csv"}); len(got) != 4 {
		t.Fatalf("%q", got)
	}
	a = e.do(call{method: "GET", path: resPath, token: e.admin, header: map[string]string{"Accept": "text/csv;q=0.5, application/json"}}).expect(t, 200)
	if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Fatalf("%q", a.header.Get("Content-Type"))
	}
	e.do(call{method: "GET", path: resPath + "?format=xml", token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: resPath, token: t1}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "GET", path: resPath}).expect(t, 401, booking.CodeUnauthorized)
	e.do(call{method: "GET", path: "/api/admin/rounds/424242/results", token: e.admin}).expect(t, 404, booking.CodeNotFound)

	// After the close nothing new; a retry still replays.
	e.clock.set(roundCloses)
	e.do(apply(t2, rd.ID, "late", sA, false)).expect(t, 409, booking.CodeSlotClosed)
	e.do(apply(t1, rd.ID, "k3", sA, false)).expect(t, 200)
}

// resultsCSV fetches a CSV export as an admin and parses it.
func (e *env) resultsCSV(path string, header map[string]string) [][]string {
	e.t.Helper()
	a := e.do(call{method: "GET", path: path, token: e.admin, header: header}).expect(e.t, 200)
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		e.t.Fatalf("Content-Type %q", ct)
	}
	if !strings.Contains(a.header.Get("Content-Disposition"), "attachment") {
		e.t.Fatalf("Content-Disposition %q", a.header.Get("Content-Disposition"))
	}
	rows, err := csv.NewReader(bytes.NewReader(a.body)).ReadAll()
	if err != nil {
		e.t.Fatal(err)
	}
	return rows
}

func TestRoundResultsCSVDefusesFormulas(t *testing.T) {
	e := newEnv(t)
	room := e.makeRoom("=cmd", "+B", 0, false, 1)
	rd, slots := e.makeRound("-round", 1, true, room)
	e.clock.set(roundOpens)
	p, err := e.db.CreatePatient(context.Background(), booking.Patient{Name: "=HYPERLINK(\"http://x\")", Phone: "+49 30 1", Email: "x@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	e.do(apply(e.patientToken(p.ID), rd.ID, "k", slots[0].ID, false)).expect(t, 201)
	rows := e.resultsCSV(fmt.Sprintf("/api/admin/rounds/%d/results?format=csv", rd.ID), nil)
	if len(rows) != 2 {
		t.Fatalf("%q", rows)
	}
	for _, i := range []int{0, 1, 2, 6} {
		if !strings.HasPrefix(rows[1][i], "'") {
			t.Errorf("cell %d %q is not defused", i, rows[1][i])
		}
	}
}

// TestRoundRushSync releases 300 applicants together on 50 rooms of 2 beds
// with quota 1: exactly the 100 beds are allocated, everyone else is told
// 409, and the export lists the 100.
func TestRoundRushSync(t *testing.T) {
	e := newEnv(t)
	rooms := make([]booking.Room, 50)
	for i := range rooms {
		rooms[i] = e.makeRoom(fmt.Sprintf("R-%02d", i), fmt.Sprintf("B%d", i%3), i%5, i%2 == 0, 2)
	}
	rd, slots := e.makeRound("Rush", 1, true, rooms...)
	e.clock.set(roundOpens)
	const n = 300
	calls := make([]call, n)
	for i := range calls {
		p := e.patient()
		// Six applicants per room of two beds.
		calls[i] = apply(e.patientToken(p.ID), rd.ID, "rush", slots[i%len(slots)].ID, false)
	}
	answers := e.doConcurrently(calls)
	count := map[int]int{}
	codes := map[booking.Code]int{}
	for _, a := range answers {
		count[a.status]++
		if a.status == 409 {
			codes[a.code(t)]++
		}
	}
	if count[201] != 100 || count[409] != 200 || len(count) != 2 {
		t.Fatalf("answers %v (%v)", count, codes)
	}
	if codes[booking.CodeSlotFull] != 200 {
		t.Fatalf("codes %v", codes)
	}
	// Winners asking for a second room hit the quota.
	var winners []call
	for i, a := range answers {
		if a.status == 201 && len(winners) < 20 {
			c := calls[i]
			c.header = map[string]string{"Idempotency-Key": "second"}
			c.body = slotBody(slots[(i+1)%len(slots)].ID)
			winners = append(winners, c)
		}
	}
	for _, a := range e.doConcurrently(winners) {
		// The other room may be full already; either way no second bed.
		if a.status != 409 || (a.code(t) != booking.CodeQuotaExceeded && a.code(t) != booking.CodeSlotFull) {
			t.Fatalf("second room: %d %s", a.status, a.body)
		}
	}
	rows := e.resultsCSV(fmt.Sprintf("/api/admin/rounds/%d/results?format=csv", rd.ID), nil)
	if len(rows) != 101 {
		t.Fatalf("%d rows", len(rows))
	}
	e.checkRoundDB(rd.ID, 100)
}

// checkRoundDB verifies the database itself: the round's slots hold
// exactly want active appointments, none over capacity, nobody twice.
func (e *env) checkRoundDB(roundID int64, want int) {
	e.t.Helper()
	db := e.db.DB()
	var active, over, twice int
	q := func(sql string, dst *int) {
		if err := db.QueryRow(sql, roundID).Scan(dst); err != nil {
			e.t.Fatal(err)
		}
	}
	q(`SELECT COUNT(*) FROM appointments a JOIN slots s ON s.id = a.slot_id WHERE s.round_id = ? AND a.status IN `+booking.ActiveSQL, &active)
	q(`SELECT COUNT(*) FROM slots s WHERE s.round_id = ? AND s.booked_count > s.capacity`, &over)
	q(`SELECT COUNT(*) FROM (SELECT a.patient_id FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE s.round_id = ? AND a.status IN `+booking.ActiveSQL+` GROUP BY a.patient_id HAVING COUNT(*) > 1)`, &twice)
	if active != want || over != 0 || twice != 0 {
		e.t.Fatalf("database: %d active (want %d), %d slots over capacity, %d patients twice", active, want, over, twice)
	}
}

// doConcurrently sends the calls together (released at once) and returns
// the answers in order, each validated against openapi.json afterwards,
// since t.Fatal may not be called from the senders' goroutines.
func (e *env) doConcurrently(calls []call) []answer {
	e.t.Helper()
	answers := make([]answer, len(calls))
	errs := make([]error, len(calls))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i], errs[i] = e.send(c)
		}()
	}
	close(start)
	wg.Wait()
	for i, c := range calls {
		if errs[i] != nil {
			e.t.Fatalf("%s %s: %v", c.method, c.path, errs[i])
		}
		e.validate(c, answers[i])
	}
	return answers
}

// request builds c's HTTP request as env.do does.
func (e *env) request(c call) (*http.Request, error) {
	var body io.Reader
	if c.body != nil {
		var raw []byte
		switch b := c.body.(type) {
		case string:
			raw = []byte(b)
		default:
			var err error
			if raw, err = json.Marshal(b); err != nil {
				return nil, err
			}
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(c.method, e.srv.URL+c.path, body)
	if err != nil {
		return nil, err
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	return req, nil
}

// send is env.do without the checks, safe from any goroutine.
func (e *env) send(c call) (answer, error) {
	req, err := e.request(c)
	if err != nil {
		return answer{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// validate holds a request sent with send and its answer to openapi.json
// and the universal rules of env.do.
func (e *env) validate(c call, a answer) {
	e.t.Helper()
	req, err := e.request(c)
	if err != nil {
		e.t.Fatal(err)
	}
	route, params, err := e.router.FindRoute(req)
	if err != nil {
		e.t.Fatalf("%s %s: not in openapi.json: %v", c.method, c.path, err)
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		e.t.Fatalf("%s %s: request does not match openapi.json: %v", c.method, c.path, err)
	}
	if in.Request, err = e.request(c); err != nil {
		e.t.Fatal(err)
	}
	if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: a.status, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body)), Options: opts,
	}); err != nil {
		e.t.Fatalf("%s %s: answer %d does not match openapi.json: %v\n%s", c.method, c.path, a.status, err, a.body)
	}
	if a.status >= 500 {
		e.t.Fatalf("%s %s: answered %d: %s", c.method, c.path, a.status, a.body)
	}
	if a.status >= 400 {
		p := a.problem(e.t)
		if spec, ok := problem.Of(booking.Code(strings.TrimPrefix(p.Type, "/problems/"))), problem.Known(booking.Code(strings.TrimPrefix(p.Type, "/problems/"))); !ok || spec.Status != a.status || p.Status != a.status {
			e.t.Fatalf("%s %s: problem %+v on a %d", c.method, c.path, p, a.status)
		}
	}
}

func TestRoundApplyAsync(t *testing.T) {
	e := newEnv(t)
	rA, rB := e.makeRoom("A-1", "A", 1, false, 1), e.makeRoom("A-2", "A", 1, false, 1)
	rd, slots := e.makeRound("Async", 1, true, rA, rB)
	other, _ := e.makeRound("Other", 1, true, e.makeRoom("O", "O", 0, false, 1))
	p1, p2 := e.patient(), e.patient()
	t1, t2 := e.patientToken(p1.ID), e.patientToken(p2.ID)

	// Before the opening: refused at once, nothing stored.
	e.do(apply(t1, rd.ID, "a1", slots[0].ID, true)).expect(t, 409, booking.CodeNotOpenYet)
	var stored int
	if err := e.db.DB().QueryRow(`SELECT COUNT(*) FROM round_applications`).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("%d applications stored before the opening (%v)", stored, err)
	}

	e.clock.set(roundOpens)
	a := e.do(apply(t1, rd.ID, "a1", slots[0].ID, true)).expect(t, 202) // the same key works now
	var app applicationView
	a.decode(t, &app)
	loc := a.header.Get("Location")
	if app.ID == 0 || app.RoundID != rd.ID || app.SlotID != slots[0].ID || app.PatientID != p1.ID ||
		loc != fmt.Sprintf("/api/rounds/%d/applications/%d", rd.ID, app.ID) || a.header.Get("Preference-Applied") != "respond-async" {
		t.Fatalf("%+v %v", app, a.header)
	}
	done := e.poll(t1, loc)
	if done.Status != string(booking.ApplicationAllocated) || done.AppointmentID == 0 || done.DecidedAt == nil {
		t.Fatalf("%+v", done)
	}
	var ap booking.Appointment
	e.do(call{method: "GET", path: "/api/appointments/" + strconv.FormatInt(done.AppointmentID, 10), token: t1}).expect(t, 200).decode(t, &ap)
	if ap.SlotID != slots[0].ID || ap.Status != booking.StatusBooked {
		t.Fatalf("%+v", ap)
	}
	// A retry of a decided application answers its outcome.
	var re applicationView
	e.do(apply(t1, rd.ID, "a1", slots[0].ID, true)).expect(t, 200).decode(t, &re)
	if re.ID != app.ID || re.Status != done.Status || re.AppointmentID != done.AppointmentID {
		t.Fatalf("%+v", re)
	}
	// …and a synchronous retry with that key replays the allocation.
	var syncRe booking.Appointment
	e.do(apply(t1, rd.ID, "a1", slots[0].ID, false)).expect(t, 200).decode(t, &syncRe)
	if syncRe.ID != done.AppointmentID {
		t.Fatalf("%+v", syncRe)
	}
	e.do(apply(t1, rd.ID, "a1", slots[1].ID, true)).expect(t, 422, booking.CodeKeyReused)

	// The poll: own only, admins any, doctors none, within its round.
	e.do(call{method: "GET", path: loc, token: t2}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: loc, token: e.admin}).expect(t, 200)
	e.do(call{method: "GET", path: loc, token: e.token(auth.RoleDoctor, "1")}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "GET", path: loc}).expect(t, 401, booking.CodeUnauthorized)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/rounds/%d/applications/%d", other.ID, app.ID), token: t1}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/rounds/%d/applications/424242", rd.ID), token: t1}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/rounds/%d/applications/x", rd.ID), token: t1, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// Quota: a second room is rejected with the reason. (The clock moves
	// past the rate limit's window: every attempt counts.)
	e.clock.add(11 * time.Second)
	a = e.do(apply(t1, rd.ID, "a2", slots[1].ID, true)).expect(t, 202)
	q := e.poll(t1, a.header.Get("Location"))
	if q.Status != string(booking.ApplicationRejected) || q.Reason != string(booking.CodeQuotaExceeded) || q.AppointmentID != 0 {
		t.Fatalf("%+v", q)
	}
	// A full room: rejected slot-full.
	a = e.do(apply(t2, rd.ID, "b1", slots[0].ID, true)).expect(t, 202)
	if full := e.poll(t2, a.header.Get("Location")); full.Status != string(booking.ApplicationRejected) || full.Reason != string(booking.CodeSlotFull) {
		t.Fatalf("%+v", full)
	}

	// Cancel and re-apply: the bed and the quota come back once.
	e.clock.add(11 * time.Second)
	e.do(call{method: "DELETE", path: "/api/appointments/" + strconv.FormatInt(done.AppointmentID, 10), token: t1}).expect(t, 200)
	a = e.do(apply(t2, rd.ID, "b2", slots[0].ID, true)).expect(t, 202)
	if got := e.poll(t2, a.header.Get("Location")); got.Status != string(booking.ApplicationAllocated) {
		t.Fatalf("%+v", got)
	}
	a = e.do(apply(t1, rd.ID, "a3", slots[1].ID, true)).expect(t, 202)
	if got := e.poll(t1, a.header.Get("Location")); got.Status != string(booking.ApplicationAllocated) {
		t.Fatalf("%+v", got)
	}
	e.checkRoundDB(rd.ID, 2)

	// After the close: new applications refused at once; the allocated
	// one's retry still answers its outcome.
	e.clock.set(roundCloses)
	e.do(apply(t2, rd.ID, "late", slots[1].ID, true)).expect(t, 409, booking.CodeSlotClosed)
	e.do(apply(t1, rd.ID, "a3", slots[1].ID, true)).expect(t, 200)
}

// gatedStore holds DecidePending until released, so that applications
// can pile up PENDING before the first decision.
type gatedStore struct {
	booking.Store
	release chan struct{}
}

func (g *gatedStore) DecidePending(ctx context.Context, roundID int64, limit int, now time.Time) ([]booking.Application, error) {
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Store.DecidePending(ctx, roundID, limit, now)
}

// TestRoundArrivalOrder submits 10 applications for a single bed one after
// the other while nothing is decided; the first submitted wins.
func TestRoundArrivalOrder(t *testing.T) {
	gs := &gatedStore{release: make(chan struct{})}
	var svc *service.Service
	e := newEnv(t, withStore(func(s booking.Store) booking.Store { gs.Store = s; return gs }),
		withConfig(func(c *Config) { svc = c.Service }))
	rd, slots := e.makeRound("Single", 1, true, e.makeRoom("Only", "A", 0, true, 1))
	e.clock.set(roundOpens)
	type sub struct {
		tok, loc string
	}
	var subs []sub
	for i := range 10 {
		tok := e.patientToken(e.patient().ID)
		a := e.do(apply(tok, rd.ID, fmt.Sprintf("k%d", i), slots[0].ID, true)).expect(t, 202)
		var app applicationView
		a.decode(t, &app)
		if app.Status != string(booking.ApplicationPending) {
			t.Fatalf("%+v", app)
		}
		// Still pending: the retry is answered 202 again.
		e.do(apply(tok, rd.ID, fmt.Sprintf("k%d", i), slots[0].ID, true)).expect(t, 202)
		subs = append(subs, sub{tok, a.header.Get("Location")})
	}
	close(gs.release)
	// The goroutine woken by the first submission may have given up
	// waiting (the service's timeout); deciding here does not depend on it.
	if _, err := svc.ProcessRound(context.Background(), rd.ID); err != nil {
		t.Fatal(err)
	}
	for i, s := range subs {
		got := e.poll(s.tok, s.loc)
		switch {
		case i == 0 && got.Status != string(booking.ApplicationAllocated):
			t.Fatalf("the first application: %+v", got)
		case i > 0 && (got.Status != string(booking.ApplicationRejected) || got.Reason != string(booking.CodeSlotFull)):
			t.Fatalf("application %d: %+v", i, got)
		}
	}
	e.checkRoundDB(rd.ID, 1)
}

// TestRoundRushAsync: many applicants at once with respond-async; every 202
// ends ALLOCATED or REJECTED, exactly the beds are allocated, and every
// poll agrees with the database.
func TestRoundRushAsync(t *testing.T) {
	e := newEnv(t)
	rooms := make([]booking.Room, 10)
	for i := range rooms {
		rooms[i] = e.makeRoom(fmt.Sprintf("R-%d", i), "A", i%3, false, 2)
	}
	rd, slots := e.makeRound("AsyncRush", 1, true, rooms...)
	e.clock.set(roundOpens)
	const n = 120
	calls := make([]call, n)
	for i := range calls {
		calls[i] = apply(e.patientToken(e.patient().ID), rd.ID, "async", slots[i%len(slots)].ID, true)
	}
	answers := e.doConcurrently(calls)
	allocated := 0
	for i, a := range answers {
		if a.status != 202 {
			t.Fatalf("%d: %d %s", i, a.status, a.body)
		}
		got := e.poll(calls[i].token, a.header.Get("Location"))
		stored, err := e.db.GetApplication(context.Background(), got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if string(stored.Status) != got.Status || stored.AppointmentID != got.AppointmentID || string(stored.Reason) != got.Reason {
			t.Fatalf("poll %+v, database %+v", got, stored)
		}
		switch got.Status {
		case string(booking.ApplicationAllocated):
			allocated++
			ap, err := e.db.GetAppointment(context.Background(), got.AppointmentID)
			if err != nil || ap.PatientID != got.PatientID || ap.SlotID != got.SlotID || ap.Status != booking.StatusBooked {
				t.Fatalf("%+v %+v %v", got, ap, err)
			}
		case string(booking.ApplicationRejected):
			if got.Reason != string(booking.CodeSlotFull) {
				t.Fatalf("%+v", got)
			}
		default:
			t.Fatalf("%+v", got)
		}
	}
	if allocated != 20 {
		t.Fatalf("%d allocated, want 20", allocated)
	}
	e.checkRoundDB(rd.ID, 20)
}
