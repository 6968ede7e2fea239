package storetest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// The rounds' clock: open an hour before the suite's now, closing a day
// after it; the term starts a month later.
var (
	roundOpens     = now.Add(-time.Hour)
	roundCloses    = now.Add(24 * time.Hour)
	roundTermStart = now.Add(30 * 24 * time.Hour)
	roundTermEnd   = now.Add(150 * 24 * time.Hour)
)

// room creates a room.
func (f *fixture) room(name, building string, floor int, nearDoor bool, beds int) booking.Room {
	f.t.Helper()
	r, err := f.s.CreateRoom(f.ctx, booking.Room{Name: name, TimeZone: "Asia/Shanghai", Building: building,
		Floor: floor, NearDoor: nearDoor, Beds: beds})
	must(f.t, err)
	return r
}

// draftRound creates a DRAFT round with one slot per room of beds (one
// room per entry of beds), on the rounds' clock.
func (f *fixture) draftRound(quota int, beds ...int) (booking.Round, []booking.Slot) {
	f.t.Helper()
	r, err := f.s.CreateRound(f.ctx, booking.Round{Name: fmt.Sprintf("round-%d", f.next.Add(1)),
		OpensAt: roundOpens, ClosesAt: roundCloses, TermStart: roundTermStart, TermEnd: roundTermEnd, Quota: quota})
	must(f.t, err)
	if len(beds) == 0 {
		return r, nil
	}
	ids := make([]int64, len(beds))
	for i, b := range beds {
		ids[i] = f.room(fmt.Sprintf("R%d-%03d", r.ID, i), fmt.Sprintf("B%d", i%3), i%5, i%2 == 0, b).ID
	}
	slots, err := f.s.AddRoundSlots(f.ctx, r.ID, ids)
	must(f.t, err)
	if len(slots) != len(beds) {
		f.t.Fatalf("AddRoundSlots made %d slots for %d rooms", len(slots), len(beds))
	}
	return r, slots
}

// openRound is draftRound, published.
func (f *fixture) openRound(quota int, beds ...int) (booking.Round, []booking.Slot) {
	f.t.Helper()
	r, slots := f.draftRound(quota, beds...)
	r, err := f.s.SetRoundState(f.ctx, r.ID, booking.RoundOpen, now)
	must(f.t, err)
	return r, slots
}

func testRooms(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	rooms := []booking.Room{
		f.room("101", "East", 1, true, 2),
		f.room("102", "East", 1, false, 4),
		f.room("201", "East", 2, true, 1),
		f.room("A1", "West", 1, false, 3),
	}
	for _, r := range rooms {
		if r.ID == 0 || r.Beds == 0 || r.Building == "" || r.TimeZone != "Asia/Shanghai" || r.CreatedAt.IsZero() {
			t.Fatalf("created room %+v", r)
		}
	}
	one, yes, no := 1, true, false
	for _, flt := range []booking.RoomFilter{{}, {Building: "East"}, {Floor: &one}, {NearDoor: &yes},
		{NearDoor: &no}, {Building: "East", Floor: &one, NearDoor: &yes}, {Building: "North"}} {
		got, err := s.ListRooms(f.ctx, flt)
		must(t, err)
		var want []booking.Room
		for _, r := range rooms {
			if flt.Match(r) {
				want = append(want, r)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("filter %+v: got %d rooms, want %d", flt, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Name != want[i].Name || got[i].Building != want[i].Building ||
				got[i].Floor != want[i].Floor || got[i].NearDoor != want[i].NearDoor || got[i].Beds != want[i].Beds ||
				got[i].TimeZone != want[i].TimeZone {
				t.Fatalf("filter %+v: room %d = %+v, want %+v", flt, i, got[i], want[i])
			}
		}
	}
	_, err := s.CreateRoom(f.ctx, booking.Room{Name: "no beds", TimeZone: "UTC", Beds: 0})
	wantCode(t, err, booking.CodeInvalidRequest)
}

func testRoundLifecycle(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := f.ctx

	_, err := s.CreateRound(ctx, booking.Round{Name: "bad", OpensAt: roundCloses, ClosesAt: roundOpens,
		TermStart: roundTermStart, TermEnd: roundTermEnd})
	wantCode(t, err, booking.CodeInvalidRequest)
	_, err = s.GetRound(ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)

	r, slots := f.draftRound(0, 2)
	if r.State != booking.RoundDraft || r.Quota != booking.DefaultRoundQuota || r.ID == 0 {
		t.Fatalf("created round %+v", r)
	}
	got, err := s.GetRound(ctx, r.ID)
	must(t, err)
	if !got.OpensAt.Equal(roundOpens) || !got.ClosesAt.Equal(roundCloses) || !got.TermStart.Equal(roundTermStart) ||
		!got.TermEnd.Equal(roundTermEnd) || got.State != booking.RoundDraft || got.Name != r.Name {
		t.Fatalf("GetRound = %+v, created %+v", got, r)
	}
	if got.Status(now) != booking.RoundDraft || got.Accepting(now) {
		t.Fatalf("a draft round: status %s accepting %v", got.Status(now), got.Accepting(now))
	}
	sl := slots[0]
	p := f.patient()

	// DRAFT refuses, although the slot's own window is open.
	res := f.book(sl.ID, req(p, sl.ID, "d"))
	wantCode(t, res.Err, booking.CodeNotOpenYet)
	if e := errorsAs(res.Err); e.OpensAt == nil || !e.OpensAt.Equal(roundOpens) {
		t.Fatalf("not-open-yet of a draft round without its OpensAt: %+v", e)
	}

	r, err = s.SetRoundState(ctx, r.ID, booking.RoundOpen, now)
	must(t, err)
	if r.State != booking.RoundOpen || r.Status(now) != booking.RoundOpen || !r.Accepting(now) {
		t.Fatalf("opened round %+v", r)
	}
	r2, err := s.SetRoundState(ctx, r.ID, booking.RoundOpen, now)
	must(t, err)
	if r2.State != booking.RoundOpen {
		t.Fatalf("re-opening changed the round: %+v", r2)
	}
	_, err = s.SetRoundState(ctx, r.ID, booking.RoundDraft, now)
	wantCode(t, err, booking.CodeInvalidTransition)
	_, err = s.SetRoundState(ctx, 999999, booking.RoundOpen, now)
	wantCode(t, err, booking.CodeNotFound)

	// The clock gates: before OpensAt, at or after ClosesAt.
	res = f.bookAt(sl.ID, req(p, sl.ID, "early"), roundOpens.Add(-time.Minute))
	wantCode(t, res.Err, booking.CodeNotOpenYet)
	if e := errorsAs(res.Err); e.OpensAt == nil || !e.OpensAt.Equal(roundOpens) {
		t.Fatalf("not-open-yet without the round's OpensAt: %+v", e)
	}
	wantCode(t, f.bookAt(sl.ID, req(p, sl.ID, "late"), roundCloses).Err, booking.CodeSlotClosed)
	if r.Status(roundCloses) != booking.RoundClosed || r.Accepting(roundCloses) {
		t.Fatalf("a round past ClosesAt: %s", r.Status(roundCloses))
	}
	a := wantOK(t, f.book(sl.ID, req(p, sl.ID, "ok")))
	if a.RoundID != r.ID || a.Status != booking.StatusBooked || !a.StartAt.Equal(roundTermStart) {
		t.Fatalf("allocation %+v", a)
	}

	// Closed early: refused at once, and for good.
	r, err = s.SetRoundState(ctx, r.ID, booking.RoundClosed, now)
	must(t, err)
	if r.Status(now) != booking.RoundClosed {
		t.Fatalf("closed round status %s", r.Status(now))
	}
	q := f.patient()
	wantCode(t, f.book(sl.ID, req(q, sl.ID, "closed")).Err, booking.CodeSlotClosed)
	// A retry of the allocation still replays.
	if res := f.book(sl.ID, req(p, sl.ID, "ok")); res.Err != nil || !res.Replayed || res.Appointment.ID != a.ID {
		t.Fatalf("replay after close: %+v", res)
	}
	_, err = s.SetRoundState(ctx, r.ID, booking.RoundOpen, now)
	wantCode(t, err, booking.CodeInvalidTransition)

	// DRAFT → CLOSED is allowed.
	r3, _ := f.draftRound(1)
	r3, err = s.SetRoundState(ctx, r3.ID, booking.RoundClosed, now)
	must(t, err)
	if r3.State != booking.RoundClosed {
		t.Fatalf("draft closed: %+v", r3)
	}
	checkInvariants(t, h, s)
}

func testRoundSlots(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := f.ctx
	r, slots := f.draftRound(1, 2, 3, 1)
	rooms, err := s.ListRoundSlots(ctx, r.ID, booking.RoomFilter{})
	must(t, err)
	if len(rooms) != 3 {
		t.Fatalf("ListRoundSlots: %d", len(rooms))
	}
	for i, sl := range slots {
		rs := rooms[i]
		if rs.ID != sl.ID || sl.RoundID != r.ID || rs.RoundID != r.ID || sl.Capacity != rs.Room.Beds ||
			sl.DoctorID != rs.Room.ID || !sl.OpensAt.Equal(r.OpensAt) || !sl.StartAt.Equal(r.TermStart) ||
			!sl.EndAt.Equal(r.TermEnd) || sl.FeeCents != 0 || sl.Status != booking.SlotOpen || sl.BookedCount != 0 {
			t.Fatalf("round slot %d: %+v, listed %+v", i, sl, rs)
		}
		got := f.getSlot(sl.ID)
		if got.RoundID != r.ID || got.Capacity != sl.Capacity {
			t.Fatalf("GetSlot of a round slot: %+v", got)
		}
	}
	// Filters select by the room's attributes.
	yes := true
	near, err := s.ListRoundSlots(ctx, r.ID, booking.RoomFilter{NearDoor: &yes})
	must(t, err)
	for _, rs := range near {
		if !rs.Room.NearDoor {
			t.Fatalf("near-door filter gave %+v", rs.Room)
		}
	}
	if len(near) != 2 {
		t.Fatalf("near-door rooms: %d", len(near))
	}

	// A room twice is a conflict and adds nothing, in one call or two.
	extra := f.room("extra", "B9", 9, false, 2)
	_, err = s.AddRoundSlots(ctx, r.ID, []int64{extra.ID, rooms[0].Room.ID})
	wantCode(t, err, booking.CodeConflict)
	_, err = s.AddRoundSlots(ctx, r.ID, []int64{extra.ID, extra.ID})
	wantCode(t, err, booking.CodeConflict)
	if all, _ := s.ListRoundSlots(ctx, r.ID, booking.RoomFilter{}); len(all) != 3 {
		t.Fatalf("a refused AddRoundSlots added slots: %d", len(all))
	}
	_, err = s.AddRoundSlots(ctx, r.ID, []int64{999999})
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.AddRoundSlots(ctx, 999999, []int64{extra.ID})
	wantCode(t, err, booking.CodeNotFound)
	// A doctor is not a room.
	_, err = s.AddRoundSlots(ctx, r.ID, []int64{f.doctor.ID})
	wantCode(t, err, booking.CodeNotFound)
	// A room's beds for a term are offered once: another round of the same
	// term cannot have it too.
	r2, _ := f.draftRound(1)
	_, err = s.AddRoundSlots(ctx, r2.ID, []int64{rooms[0].Room.ID})
	wantCode(t, err, booking.CodeConflict)

	// Only while DRAFT.
	_, err = s.SetRoundState(ctx, r.ID, booking.RoundOpen, now)
	must(t, err)
	_, err = s.AddRoundSlots(ctx, r.ID, []int64{extra.ID})
	wantCode(t, err, booking.CodeInvalidTransition)
}

// rushCheck verifies a round after a rush: allocations as counted, nobody
// over quota, no bed over capacity, results and reconciliation agreeing.
func rushCheck(t *testing.T, h Harness, s booking.Store, r booking.Round, slots []booking.Slot, o *outcomes, want int) {
	t.Helper()
	if o.n["ok"] != want {
		t.Fatalf("want %d allocations, got %v", want, o.n)
	}
	for code := range o.n {
		switch code {
		case "ok", string(booking.CodeSlotFull), string(booking.CodeQuotaExceeded):
		default:
			t.Fatalf("unexpected outcome %q: %v", code, o.n)
		}
	}
	perPatient := map[int64]int{}
	for _, a := range o.as {
		perPatient[a.PatientID]++
		if perPatient[a.PatientID] > r.Quota {
			t.Fatalf("patient %d holds %d rooms with quota %d", a.PatientID, perPatient[a.PatientID], r.Quota)
		}
	}
	results, err := s.RoundResults(context.Background(), r.ID)
	must(t, err)
	if len(results) != want {
		t.Fatalf("RoundResults: %d allocations, want %d", len(results), want)
	}
	inRound := map[int64]booking.Slot{}
	for _, sl := range slots {
		inRound[sl.ID] = sl
	}
	byAppt := map[int64]booking.Appointment{}
	for _, a := range o.as {
		byAppt[a.ID] = a
	}
	perSlot := map[int64]int{}
	for _, al := range results {
		a, ok := byAppt[al.AppointmentID]
		if !ok || a.PatientID != al.PatientID || a.SlotID != al.SlotID || al.RoundID != r.ID {
			t.Fatalf("RoundResults lists %+v, not an allocation made", al)
		}
		sl := inRound[al.SlotID]
		if al.RoomID != sl.DoctorID || al.RoomName == "" || al.Bed < 1 || al.Bed > sl.Capacity {
			t.Fatalf("allocation %+v of slot %+v", al, sl)
		}
		perSlot[al.SlotID]++
	}
	for id, n := range perSlot {
		if got := inRound[id].Capacity; n > got {
			t.Fatalf("slot %d: %d allocations for %d beds", id, n, got)
		}
	}
	rep, err := s.Reconcile(context.Background(), now, false)
	must(t, err)
	if !rep.Sound() {
		t.Fatalf("reconciliation after the rush: %+v", rep)
	}
	checkInvariants(t, h, s)
}

// testRoundRush releases 300 students at once on 50 rooms of 2 beds, each
// trying two rooms at the same moment: exactly 100 allocations.
func testRoundRush(t *testing.T, h Harness) {
	const rooms, beds, students = 50, 2, 300
	choices := func(i int) [2]int { return [2]int{i % rooms, (i*7 + 3) % rooms} }
	bedsList := make([]int, rooms)
	for i := range bedsList {
		bedsList[i] = beds
	}
	t.Run("ServiceBatched", func(t *testing.T) {
		s := h.New(t)
		f := newFixture(t, s)
		r, slots := f.openRound(1, bedsList...)
		ps := f.patients(students)
		svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Engine: service.EngineBatched, Timeout: time.Minute})
		var o outcomes
		release(2*students, func(i int) {
			st := i / 2
			sl := slots[choices(st)[i%2]]
			if choices(st)[0] == choices(st)[1] && i%2 == 1 {
				sl = slots[(choices(st)[0]+1)%rooms]
			}
			o.add(svc.Book(context.Background(), ps[st].ID, sl.ID, fmt.Sprintf("k%d", i%2)))
		})
		rushCheck(t, h, s, r, slots, &o, rooms*beds)
	})
	t.Run("DirectBatches", func(t *testing.T) {
		s := h.New(t)
		f := newFixture(t, s)
		r, slots := f.openRound(1, bedsList...)
		ps := f.patients(students)
		// Group every application by room, in batches of up to 4, as the
		// lanes of several instances would send them.
		byRoom := make([][]booking.BookRequest, rooms)
		for st := range students {
			c := choices(st)
			if c[0] == c[1] {
				c[1] = (c[1] + 1) % rooms
			}
			for k, room := range c {
				byRoom[room] = append(byRoom[room], req(ps[st], slots[room].ID, fmt.Sprintf("k%d", k)))
			}
		}
		type batch struct {
			slotID int64
			reqs   []booking.BookRequest
		}
		var batches []batch
		for room, reqs := range byRoom {
			for len(reqs) > 0 {
				n := min(4, len(reqs))
				batches = append(batches, batch{slots[room].ID, reqs[:n]})
				reqs = reqs[n:]
			}
		}
		var o outcomes
		release(len(batches), func(i int) {
			res, err := s.Book(context.Background(), batches[i].slotID, batches[i].reqs, now)
			if err != nil {
				t.Errorf("batch: %v", err)
				return
			}
			for _, r := range res {
				o.add(r)
			}
		})
		rushCheck(t, h, s, r, slots, &o, rooms*beds)
	})
}

// testRoundQuotaRace: one student applying to two rooms of a quota-1 round
// at once gets exactly one; with quota 2, two of three.
func testRoundQuotaRace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	for i := range 20 {
		_, slots := f.openRound(1, 2, 2)
		p := f.patient()
		var o outcomes
		release(2, func(k int) { o.add(f.book(slots[k].ID, req(p, slots[k].ID, fmt.Sprintf("k%d", k)))) })
		if o.n["ok"] != 1 || o.n[string(booking.CodeQuotaExceeded)] != 1 {
			t.Fatalf("run %d: want 1 ok and 1 quota-exceeded, got %v", i, o.n)
		}
	}
	for i := range 5 {
		_, slots := f.openRound(2, 1, 1, 1)
		p := f.patient()
		var o outcomes
		release(3, func(k int) { o.add(f.book(slots[k].ID, req(p, slots[k].ID, fmt.Sprintf("k%d", k)))) })
		if o.n["ok"] != 2 || o.n[string(booking.CodeQuotaExceeded)] != 1 {
			t.Fatalf("quota 2, run %d: want 2 ok and 1 quota-exceeded, got %v", i, o.n)
		}
	}
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() {
		t.Fatalf("reconciliation: %+v", rep)
	}
	checkInvariants(t, h, s)
}

// testRoundCancel: a cancel (or any way out of an active state) releases
// the bed and the quota exactly once.
func testRoundCancel(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, slots := f.openRound(1, 1, 1, 1)
	a, b, c := slots[0], slots[1], slots[2]
	p, q := f.patient(), f.patient()

	pa := wantOK(t, f.book(a.ID, req(p, a.ID, "a")))
	wantCode(t, f.book(b.ID, req(p, b.ID, "b")).Err, booking.CodeQuotaExceeded)
	// Round allocations are exempt from the overlap rule: a doctor's
	// appointment inside the term is fine.
	doc := f.slot(1, startsAt(roundTermStart.Add(24*time.Hour)))
	wantOK(t, f.book(doc.ID, req(p, doc.ID, "doc")))

	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.Cancel(f.ctx, pa.ID, p.ID, now)
			if err != nil || got.Status != booking.StatusCancelled {
				t.Errorf("cancel: %+v %v", got, err)
			}
		}()
	}
	wg.Wait()
	if got := f.getSlot(a.ID).BookedCount; got != 0 {
		t.Fatalf("booked_count after cancel = %d", got)
	}
	// The quota is free again, once: one new allocation, not two.
	wantOK(t, f.book(b.ID, req(p, b.ID, "b2")))
	wantCode(t, f.book(c.ID, req(p, c.ID, "c")).Err, booking.CodeQuotaExceeded)
	// The bed is free for another.
	wantOK(t, f.book(a.ID, req(q, a.ID, "a")))

	// A staff transition out of BOOKED releases the quota too.
	qa, err := s.FindByKey(f.ctx, q.ID, "a")
	must(t, err)
	_, err = s.Transition(f.ctx, qa.ID, booking.StatusCompleted, qa.StartAt) // once the term began
	must(t, err)
	wantOK(t, f.book(c.ID, req(q, c.ID, "c")))

	results, err := s.RoundResults(f.ctx, r.ID)
	must(t, err)
	if len(results) != 2 {
		t.Fatalf("RoundResults after cancels: %+v", results)
	}
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() {
		t.Fatalf("reconciliation: %+v", rep)
	}
	checkInvariants(t, h, s)
}

// submit submits an application of p for slot of round r with key.
func (f *fixture) submit(r booking.Round, p booking.Patient, slotID int64, key string) (booking.Application, bool) {
	f.t.Helper()
	a, existed, err := f.s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: p.ID, SlotID: slotID,
		IdempotencyKey: key, Fingerprint: booking.ApplicationFingerprint(r.ID, slotID)}, now)
	must(f.t, err)
	return a, existed
}

// checkDecided fails unless every application is decided and agrees with
// the appointments.
func checkDecided(t *testing.T, s booking.Store, apps []booking.Application) {
	t.Helper()
	for _, a := range apps {
		got, err := s.GetApplication(context.Background(), a.ID)
		must(t, err)
		switch got.Status {
		case booking.ApplicationAllocated:
			ap, err := s.GetAppointment(context.Background(), got.AppointmentID)
			must(t, err)
			if ap.PatientID != got.PatientID || ap.SlotID != got.SlotID || got.Reason != "" || got.DecidedAt == nil {
				t.Fatalf("allocated application %+v, appointment %+v", got, ap)
			}
		case booking.ApplicationRejected:
			if got.Reason == "" || got.AppointmentID != 0 || got.DecidedAt == nil {
				t.Fatalf("rejected application %+v", got)
			}
		default:
			t.Fatalf("application %d still %s", got.ID, got.Status)
		}
	}
}

func testRoundAsync(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := f.ctx
	r, slots := f.openRound(1, 1, 2)
	single, double := slots[0], slots[1]
	ps := f.patients(5)

	var apps []booking.Application
	for i, p := range ps {
		a, existed := f.submit(r, p, single.ID, "s")
		if existed || a.Status != booking.ApplicationPending || a.ID == 0 || a.RoundID != r.ID || a.SlotID != single.ID {
			t.Fatalf("submitted %d: %+v existed=%v", i, a, existed)
		}
		apps = append(apps, a)
	}
	// The same key again is the same application; with another body, reused.
	again, existed := f.submit(r, ps[0], single.ID, "s")
	if !existed || again.ID != apps[0].ID {
		t.Fatalf("resubmitted: %+v existed=%v", again, existed)
	}
	_, _, err := s.SubmitApplication(ctx, booking.Application{RoundID: r.ID, PatientID: ps[0].ID, SlotID: double.ID,
		IdempotencyKey: "s", Fingerprint: booking.ApplicationFingerprint(r.ID, double.ID)}, now)
	wantCode(t, err, booking.CodeKeyReused)
	// A slot of another round, or none, is not found.
	other := f.slot(1)
	_, _, err = s.SubmitApplication(ctx, booking.Application{RoundID: r.ID, PatientID: ps[0].ID, SlotID: other.ID,
		IdempotencyKey: "o", Fingerprint: booking.ApplicationFingerprint(r.ID, other.ID)}, now)
	wantCode(t, err, booking.CodeNotFound)
	if got, err := s.GetApplication(ctx, apps[1].ID); err != nil || got.Status != booking.ApplicationPending {
		t.Fatalf("GetApplication before the decision: %+v %v", got, err)
	}
	_, err = s.GetApplication(ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)
	pending, err := s.PendingRounds(ctx)
	must(t, err)
	if len(pending) != 1 || pending[0] != r.ID {
		t.Fatalf("PendingRounds = %v", pending)
	}

	// The winner's second application (another room) exceeds the quota.
	late, _ := f.submit(r, ps[0], double.ID, "d")
	apps = append(apps, late)

	decided, err := s.DecidePending(ctx, r.ID, 100, now)
	must(t, err)
	if len(decided) != len(apps) {
		t.Fatalf("decided %d of %d", len(decided), len(apps))
	}
	for i, d := range decided {
		if d.ID != apps[i].ID {
			t.Fatalf("decided out of arrival order: %d at %d", d.ID, i)
		}
	}
	if decided[0].Status != booking.ApplicationAllocated || decided[0].AppointmentID == 0 {
		t.Fatalf("the first applicant: %+v", decided[0])
	}
	for _, d := range decided[1:5] {
		if d.Status != booking.ApplicationRejected || d.Reason != booking.CodeSlotFull {
			t.Fatalf("a later applicant for the single bed: %+v", d)
		}
	}
	if d := decided[5]; d.Status != booking.ApplicationRejected || d.Reason != booking.CodeQuotaExceeded {
		t.Fatalf("the winner's second room: %+v", d)
	}
	checkDecided(t, s, apps)
	if more, err := s.DecidePending(ctx, r.ID, 100, now); err != nil || len(more) != 0 {
		t.Fatalf("a second pass decided %d (%v)", len(more), err)
	}
	// The allocation replays to a synchronous retry with the application's key.
	res := f.book(single.ID, req(ps[0], single.ID, "s"))
	if res.Err != nil || !res.Replayed || res.Appointment.ID != decided[0].AppointmentID {
		t.Fatalf("sync retry of an async allocation: %+v", res)
	}
	if pending, _ := s.PendingRounds(ctx); len(pending) != 0 {
		t.Fatalf("PendingRounds after the decision = %v", pending)
	}
	checkInvariants(t, h, s)
}

// testRoundAsyncConcurrent submits many applications at once and decides
// them from several processors at once: each is decided once, and each
// room goes to its earliest applicants.
func testRoundAsyncConcurrent(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	const rooms, students = 10, 60
	beds := make([]int, rooms)
	for i := range beds {
		beds[i] = 1 + i%3
	}
	r, slots := f.openRound(1, beds...)
	ps := f.patients(students)
	apps := make([]booking.Application, students)
	release(students, func(i int) {
		a, _, err := s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: ps[i].ID,
			SlotID: slots[i%rooms].ID, IdempotencyKey: "k", Fingerprint: booking.ApplicationFingerprint(r.ID, slots[i%rooms].ID)}, now)
		if err != nil {
			t.Errorf("submit: %v", err)
		}
		apps[i] = a
	})
	if t.Failed() {
		t.FailNow()
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	release(4, func(int) {
		for {
			d, err := s.DecidePending(f.ctx, r.ID, 7, now)
			if err != nil {
				t.Errorf("DecidePending: %v", err)
				return
			}
			if len(d) == 0 {
				return
			}
			mu.Lock()
			for _, a := range d {
				seen[a.ID]++
			}
			mu.Unlock()
		}
	})
	if len(seen) != students {
		t.Fatalf("decided %d distinct applications of %d", len(seen), students)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("application %d decided %d times", id, n)
		}
	}
	checkDecided(t, s, apps)
	// Per room, the allocations are its earliest applications.
	byRoom := map[int64][]booking.Application{}
	for _, a := range apps {
		got, err := s.GetApplication(f.ctx, a.ID)
		must(t, err)
		byRoom[got.SlotID] = append(byRoom[got.SlotID], got)
	}
	for i, sl := range slots {
		list := byRoom[sl.ID]
		sort.Slice(list, func(a, b int) bool { return list[a].ID < list[b].ID })
		for k, a := range list {
			want := booking.ApplicationAllocated
			if k >= beds[i] {
				want = booking.ApplicationRejected
			}
			if a.Status != want {
				t.Fatalf("room %d: application %d (arrival %d of %d beds) is %s", i, a.ID, k, beds[i], a.Status)
			}
		}
	}
	results, err := s.RoundResults(f.ctx, r.ID)
	must(t, err)
	total := 0
	for _, b := range beds {
		total += b
	}
	if len(results) != total {
		t.Fatalf("RoundResults: %d of %d beds", len(results), total)
	}
	checkInvariants(t, h, s)
}

func testRoundReconcile(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, slots := f.openRound(1, 2)
	p := f.patient()
	wantOK(t, f.book(slots[0].ID, req(p, slots[0].ID, "a")))
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() || len(rep.RoundQuotaMismatches) != 0 {
		t.Fatalf("clean round reported: %+v", rep)
	}
	h.Inspect(t, s).SetRoundQuotaUsed(t, r.ID, p.ID, 0)
	rep, err = s.Reconcile(f.ctx, now, false)
	must(t, err)
	want := booking.RoundQuotaMismatch{RoundID: r.ID, PatientID: p.ID, Used: 0, Active: 1}
	if rep.Sound() || len(rep.RoundQuotaMismatches) != 1 || rep.RoundQuotaMismatches[0] != want {
		t.Fatalf("corrupted quota reported as %+v", rep.RoundQuotaMismatches)
	}
}

// testRoundJudgedAtArrival: an application that arrived while the round
// accepted is decided on its merits even when the decision comes after the
// round closed; one that arrived after the close is refused as it would
// have been then.
func testRoundJudgedAtArrival(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, slots := f.openRound(1, 1, 1)
	ps := f.patients(2)
	inTime, _ := f.submit(r, ps[0], slots[0].ID, "in-time")
	late, _, err := s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: ps[1].ID, SlotID: slots[1].ID,
		IdempotencyKey: "late", Fingerprint: booking.ApplicationFingerprint(r.ID, slots[1].ID)}, roundCloses.Add(time.Second))
	must(t, err)
	decided, err := s.DecidePending(f.ctx, r.ID, 100, roundCloses.Add(time.Minute))
	must(t, err)
	if len(decided) != 2 {
		t.Fatalf("decided %d applications, want 2", len(decided))
	}
	got, err := s.GetApplication(f.ctx, inTime.ID)
	must(t, err)
	if got.Status != booking.ApplicationAllocated {
		t.Fatalf("an application that arrived in time, decided after the close: %+v", got)
	}
	got, err = s.GetApplication(f.ctx, late.ID)
	must(t, err)
	if got.Status != booking.ApplicationRejected || got.Reason != booking.CodeSlotClosed {
		t.Fatalf("an application that arrived after the close: %+v", got)
	}
	checkDecided(t, s, []booking.Application{inTime, late})
}
