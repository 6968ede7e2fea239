package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// lotteryBody is a POST /api/admin/rounds body of a lottery round:
// registration during [t0-1h, t0+30m), one registrant every 10 minutes from
// roundOpens.
func lotteryBody(name string) map[string]any {
	b := roundBody(name, 0)
	b["lottery"] = map[string]any{"registrationOpensAt": t0.Add(-time.Hour), "registrationClosesAt": t0.Add(30 * time.Minute),
		"selectionMinutes": 10, "selectionGroup": 1}
	return b
}

func TestLotteryThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	room := e.makeRoom("L-1", "L", 1, false, 3)
	var rd roundView
	e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: lotteryBody("Lottery")}).expect(t, 201).decode(t, &rd)
	if rd.Mode != "lottery" || len(rd.SeedCommitment) != 64 || rd.Lottery == nil || rd.Lottery.Registering {
		t.Fatalf("a new lottery round: %+v", rd)
	}
	var added struct {
		Slots []roundSlotView `json:"slots"`
	}
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/slots", rd.ID), token: e.admin,
		body: map[string]any{"roomIds": []int64{room.ID}}}).expect(t, 201).decode(t, &added)
	base := fmt.Sprintf("/api/rounds/%d", rd.ID)
	ps := []booking.Patient{e.patient(), e.patient(), e.patient()}
	tok := func(i int) string { return e.patientToken(ps[i].ID) }

	// DRAFT: not open for registration yet.
	e.do(call{method: "POST", path: base + "/registration", token: tok(0)}).expect(t, 409, booking.CodeNotOpenYet)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/open", rd.ID), token: e.admin}).expect(t, 200)
	var pub roundView
	e.do(call{method: "GET", path: base}).expect(t, 200).decode(t, &pub)
	if pub.SeedCommitment != rd.SeedCommitment || !pub.Lottery.Registering {
		t.Fatalf("the published round: %+v", pub)
	}
	// Registration: once per person, a retry answers the same.
	var first, again registrationView
	e.do(call{method: "POST", path: base + "/registration", token: tok(0)}).expect(t, 201).decode(t, &first)
	e.do(call{method: "POST", path: base + "/registration", token: tok(0)}).expect(t, 200).decode(t, &again)
	if first.ID != again.ID || first.Drawn {
		t.Fatalf("registration %+v, retry %+v", first, again)
	}
	e.do(call{method: "POST", path: base + "/registration", token: tok(1)}).expect(t, 201)
	e.do(call{method: "POST", path: base + "/registration", token: tok(2)}).expect(t, 201)
	// Admins and doctors do not register; an unknown round is not found;
	// a round without lottery is a conflict.
	e.do(call{method: "POST", path: base + "/registration", token: e.admin}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: "/api/rounds/424242/registration", token: tok(0)}).expect(t, 404, booking.CodeNotFound)
	plain, _ := e.makeRound("Plain", 1, true, e.makeRoom("P-1", "P", 1, false, 1))
	e.do(call{method: "POST", path: fmt.Sprintf("/api/rounds/%d/registration", plain.ID), token: tok(0)}).expect(t, 409, booking.CodeConflict)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/rounds/%d/draw", plain.ID)}).expect(t, 409, booking.CodeConflict)
	// Nobody's registration shows before anyone registered: 404.
	e.do(call{method: "GET", path: base + "/registration", token: e.patientToken(e.patient().ID)}).expect(t, 404, booking.CodeNotFound)
	// The seed is not served before the draw, and the draw waits for the close.
	e.do(call{method: "GET", path: base + "/draw"}).expect(t, 409, booking.CodeNotOpenYet)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/draw", rd.ID), token: e.admin}).expect(t, 409, booking.CodeNotOpenYet)

	e.clock.set(t0.Add(30 * time.Minute))
	e.do(call{method: "POST", path: base + "/registration", token: e.patientToken(e.patient().ID)}).expect(t, 409, booking.CodeSlotClosed)
	var d, d2 booking.Draw
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/draw", rd.ID), token: e.admin}).expect(t, 200).decode(t, &d)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/draw", rd.ID), token: e.admin}).expect(t, 200).decode(t, &d2)
	if len(d.Order) != 3 || d.Seed != d2.Seed || fmt.Sprint(d.Order) != fmt.Sprint(d2.Order) || d.Commitment != rd.SeedCommitment {
		t.Fatalf("draw %+v, again %+v", d, d2)
	}
	if err := booking.VerifyDraw(d, rd.SeedCommitment); err != nil {
		t.Fatalf("the published draw does not verify: %v", err)
	}
	var list struct {
		Items []registrationView `json:"items"`
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/rounds/%d/registrations?limit=2", rd.ID), token: e.admin}).expect(t, 200).decode(t, &list)
	if len(list.Items) != 2 || list.Items[0].Position == 0 {
		t.Fatalf("registrations page: %+v", list.Items)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/rounds/%d/registrations?limit=0", rd.ID), token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// Each registrant's turn: position p applies from roundOpens + (p-1)*10m.
	e.clock.set(roundOpens)
	byReg := map[int64]int{}
	for i := range ps {
		var g registrationView
		e.do(call{method: "GET", path: base + "/registration", token: tok(i)}).expect(t, 200).decode(t, &g)
		byReg[g.ID] = i
		if want := roundOpens.Add(time.Duration(g.Position-1) * 10 * time.Minute); g.SelectionAt == nil || !g.SelectionAt.Equal(want) {
			t.Fatalf("registration %+v, want selection at %v", g, want)
		}
	}
	sl := added.Slots[0].ID
	second, last := byReg[d.Order[1]], byReg[d.Order[2]]
	a := e.do(apply(tok(second), rd.ID, "k2", sl, false)).expect(t, 409, booking.CodeNotYourTurn)
	if p := a.problem(t); p.OpensAt != roundOpens.Add(10*time.Minute).Format(time.RFC3339) {
		t.Fatalf("not-your-turn names %q, want the selection time", p.OpensAt)
	}
	e.do(apply(tok(last), rd.ID, "k3", sl, true)).expect(t, 409, booking.CodeNotYourTurn)
	e.do(apply(e.patientToken(e.patient().ID), rd.ID, "k4", sl, false)).expect(t, 409, booking.CodeNotYourTurn)
	e.do(apply(tok(byReg[d.Order[0]]), rd.ID, "k1", sl, false)).expect(t, 201)
	e.clock.set(roundOpens.Add(10 * time.Minute))
	e.do(apply(tok(second), rd.ID, "k2", sl, false)).expect(t, 201)
}

// TestLotteryWindowThroughTheAPI: with selectionWindowMinutes each turn
// lasts that long; a missed one answers 409 turn-passed, synchronous or
// asynchronous, with the turn's end in opensAt.
func TestLotteryWindowThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	room := e.makeRoom("W-1", "W", 1, false, 3)
	body := lotteryBody("Windows")
	body["lottery"].(map[string]any)["selectionWindowMinutes"] = -1
	e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: body, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	body["lottery"].(map[string]any)["selectionWindowMinutes"] = 10
	var rd roundView
	e.do(call{method: "POST", path: "/api/admin/rounds", token: e.admin, body: body}).expect(t, 201).decode(t, &rd)
	if rd.Lottery == nil || rd.Lottery.WindowMinutes != 10 {
		t.Fatalf("a round with windows: %+v", rd.Lottery)
	}
	var added struct {
		Slots []roundSlotView `json:"slots"`
	}
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/slots", rd.ID), token: e.admin,
		body: map[string]any{"roomIds": []int64{room.ID}}}).expect(t, 201).decode(t, &added)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/open", rd.ID), token: e.admin}).expect(t, 200)
	base := fmt.Sprintf("/api/rounds/%d", rd.ID)
	ps := []booking.Patient{e.patient(), e.patient()}
	for _, p := range ps {
		e.do(call{method: "POST", path: base + "/registration", token: e.patientToken(p.ID)}).expect(t, 201)
	}
	e.clock.set(t0.Add(30 * time.Minute))
	var d booking.Draw
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/rounds/%d/draw", rd.ID), token: e.admin}).expect(t, 200).decode(t, &d)
	e.clock.set(roundOpens.Add(10 * time.Minute))
	var first, second string
	for _, p := range ps {
		var g registrationView
		e.do(call{method: "GET", path: base + "/registration", token: e.patientToken(p.ID)}).expect(t, 200).decode(t, &g)
		if g.SelectionAt == nil || g.SelectionEndsAt == nil || !g.SelectionEndsAt.Equal(g.SelectionAt.Add(10*time.Minute)) {
			t.Fatalf("registration %+v: the turn lasts 10 minutes", g)
		}
		if g.Position == 1 {
			first = e.patientToken(p.ID)
		} else {
			second = e.patientToken(p.ID)
		}
	}
	sl := added.Slots[0].ID
	for _, async := range []bool{false, true} {
		a := e.do(apply(first, rd.ID, fmt.Sprintf("late-%v", async), sl, async)).expect(t, 409, booking.CodeTurnPassed)
		if p := a.problem(t); p.OpensAt != roundOpens.Add(10*time.Minute).Format(time.RFC3339) {
			t.Fatalf("turn-passed names %q, want the turn's end", p.OpensAt)
		}
	}
	e.do(apply(second, rd.ID, "in-time", sl, false)).expect(t, 201)
}
