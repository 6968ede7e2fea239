package web

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
)

// A student on a 390 px phone opens a lottery round's page during their
// turn, sees their selection window, narrows the rooms to building A near
// the door, chooses one, and watches the queued answer turn into the room;
// choosing a second room past the quota shows the refusal. axe finds
// nothing serious on any of these pages, in English and Chinese; with
// SLOTD_SCREENSHOTS=1 they go to docs/screenshots/round-*.png.
func TestE2EStudentChoosesARoom(t *testing.T) {
	axe := axeSource(t)
	b := browser(t)
	s := newSite(t)
	bg := context.Background()
	now := time.Now().UTC()
	var rooms []int64
	for _, rm := range []booking.Room{{Name: "A-101", Building: "A", Floor: 1, NearDoor: true, Beds: 2},
		{Name: "A-102", Building: "A", Floor: 1, Beds: 2}, {Name: "A-201", Building: "A", Floor: 2, NearDoor: true, Beds: 1},
		{Name: "B-101", Building: "B", Floor: 1, Beds: 3}} {
		created, err := s.svc.CreateRoom(bg, rm)
		must(t, err)
		rooms = append(rooms, created.ID)
	}
	r, err := s.svc.CreateRound(bg, booking.Round{Name: "Dormitory rooms 2027", OpensAt: now.Add(-30 * time.Minute),
		ClosesAt: now.Add(48 * time.Hour), TermStart: now.Add(72 * time.Hour), TermEnd: now.Add(900 * time.Hour), Quota: 1,
		Lottery: &booking.Lottery{RegistrationOpensAt: now.Add(-3 * time.Hour), RegistrationClosesAt: now.Add(-time.Hour),
			SelectionMinutes: 2, SelectionGroup: 10, WindowMinutes: 60, Seed: slices.Repeat([]byte{3}, booking.SeedSize)}})
	must(t, err)
	slots, err := s.svc.AddRoundSlots(bg, r.ID, rooms)
	must(t, err)
	_, err = s.svc.SetRoundState(bg, r.ID, booking.RoundOpen)
	must(t, err)
	// Registered in the window and drawn at its close (the store, at those
	// times): the first group's turn runs from the opening for an hour.
	for _, p := range s.patients[:2] {
		_, _, err = s.store.Register(bg, r.ID, p.ID, now.Add(-2*time.Hour))
		must(t, err)
	}
	_, _, err = s.store.DrawLottery(bg, r.ID, now.Add(-time.Hour))
	must(t, err)

	for i, lang := range []string{"en", "zh-Hans"} {
		p := s.patients[i]
		ctx := tabFor(t, b, 3*time.Minute)
		path := fmt.Sprintf("/rounds/%d", r.ID)
		check := func(name string) {
			t.Helper()
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true"))
			must(t, err)
			do(t, ctx, chromedp.EmulateViewport(390, 844))
			for _, v := range runAxe(t, ctx) {
				t.Errorf("%s in %s at 390px: %s %s: %s %+v", name, lang, v.Impact, v.ID, v.Help, v.Nodes)
			}
			phoneShot(t, ctx, "round-"+lang+"-"+name)
		}
		do(t, ctx, chromedp.Navigate(s.url+"/lang?to="+url.QueryEscape(lang)+"&next=/"), chromedp.WaitReady(chromedp.CSS("main")))
		s.signIn(t, ctx, p, path, false)
		do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.url+path), chromedp.WaitVisible(chromedp.CSS("[data-turn]")))
		if n := count(t, ctx, "[data-room]"); n != 4 {
			t.Fatalf("%s: %d rooms listed, want 4", lang, n)
		}
		check("rooms")
		do(t, ctx,
			chromedp.SetValue(chromedp.CSS("#f-building"), "A"),
			chromedp.Click(chromedp.CSS("#f-door")),
			chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#f-door[checked]`)), // the new page, not the click
		)
		if n := count(t, ctx, "[data-room]"); n != 2 {
			t.Fatalf("%s: building A near the door lists %d rooms, want 2", lang, n)
		}
		check("filtered")
		do(t, ctx,
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-room="%d"] button[type=submit]`, slots[0].ID))),
			chromedp.WaitVisible(chromedp.CSS("[data-status]")),
		)
		// The processor decides it (woken by the submission), usually before
		// the first screenshot could show "queued"; the page's live region
		// shows the answer without a reload.
		do(t, ctx, chromedp.WaitVisible(chromedp.CSS("[data-allocated]")))
		check("allocated")
		// A second room is past the round's quota: the refusal.
		do(t, ctx, chromedp.Navigate(s.url+path+"?building=B"), chromedp.WaitVisible(chromedp.CSS("[data-room]")),
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-room="%d"] button[type=submit]`, slots[3].ID))),
			chromedp.WaitVisible(chromedp.CSS(`[data-refused="quota-exceeded"]`)),
		)
		check("refused")
	}
	allocs, err := s.store.RoundResults(bg, r.ID)
	must(t, err)
	if len(allocs) != 2 || allocs[0].SlotID != slots[0].ID || allocs[1].SlotID != slots[0].ID {
		t.Fatalf("allocations %+v: both students in A-101", allocs)
	}
}

// count is how many elements match css.
func count(t *testing.T, ctx context.Context, css string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, css)))
	must(t, err)
	return n
}

// An admin creates a round from the form, adds its rooms, opens it and,
// once a student holds a room, reads the results; axe finds nothing serious
// on the form and the round's page at 1280 and 390 px.
func TestE2EStaffRunsARound(t *testing.T) {
	axe := axeSource(t)
	b := browser(t)
	s := newSite(t)
	bg := context.Background()
	for _, rm := range []booking.Room{{Name: "D-101", Building: "D", Floor: 1, Beds: 2}, {Name: "D-102", Building: "D", Floor: 1, NearDoor: true, Beds: 1}} {
		_, err := s.svc.CreateRoom(bg, rm)
		must(t, err)
	}
	ctx := tabFor(t, b, 3*time.Minute)
	check := func(name string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true"))
		must(t, err)
		for _, w := range [][2]int64{{1280, 900}, {390, 844}} {
			do(t, ctx, chromedp.EmulateViewport(w[0], w[1]))
			for _, v := range runAxe(t, ctx) {
				t.Errorf("%s at %dpx: %s %s: %s %+v", name, w[0], v.Impact, v.ID, v.Help, v.Nodes)
			}
		}
		phoneShot(t, ctx, "round-staff-"+name)
	}
	s.staffSignIn(t, ctx, "admin", "#h-docs")
	do(t, ctx, chromedp.Navigate(s.url+"/staff/rounds/new"), chromedp.WaitVisible(chromedp.CSS("#r-name")))
	check("new")
	local := func(d time.Duration) string {
		return time.Now().Add(d).In(s.pages.clinicZone).Format("2006-01-02T15:04")
	}
	set := func(id, v string) chromedp.Action[chromedp.Void] { return chromedp.SetValue(chromedp.CSS("#"+id), v) }
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#r-name"), "Winter rooms"),
		set("r-opens", local(-time.Minute)), set("r-closes", local(48*time.Hour)),
		set("r-term-start", local(72*time.Hour)), set("r-term-end", local(900*time.Hour)),
		chromedp.Click(chromedp.CSS(`form[action="/staff/rounds"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-state="DRAFT"]`)),
		chromedp.Click(chromedp.CSS(`input[name="room"]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/rooms"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-room]`)),
		chromedp.Click(chromedp.CSS(`button[value="OPEN"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-state="OPEN"]`)),
	)
	loc := location(t, ctx)
	id, err := strconv.ParseInt(loc[strings.LastIndex(loc, "/")+1:], 10, 64)
	must(t, err)
	rs, err := s.store.ListRoundSlots(bg, id, booking.RoomFilter{})
	must(t, err)
	if len(rs) != 1 {
		t.Fatalf("the round's rooms: %+v", rs)
	}
	res := s.svc.Book(bg, s.patients[0].ID, rs[0].Slot.ID, "staff-e2e")
	must(t, res.Err)
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`tr[data-allocation]`)))
	check("results")
	do(t, ctx, chromedp.Click(chromedp.CSS(`button[value="CLOSED"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-state="CLOSED"]`)))
}
