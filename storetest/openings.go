package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// An opening's clock: announced at now, opening at openingAt, its slots
// starting a day later.
var openingAt = now.Add(time.Hour)

// admissionTokens sign the suite's admissions.
var admissionTokens = booking.NewAdmissionTokens([]byte("storetest admission key"))

// opening makes a schedule with slots of the given capacities opening at
// openingAt and announces that opening with the given seed.
func (f *fixture) opening(seed byte, capacities ...int) (booking.Opening, []booking.Slot) {
	f.t.Helper()
	sc, err := f.s.CreateSchedule(f.ctx, booking.Schedule{DoctorID: f.doctor2.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(f.t, err)
	var sls []booking.Slot
	for _, c := range capacities {
		sls = append(sls, f.slot(c, onDoctor(f.doctor2.ID), opensAt(openingAt), func(sl *booking.Slot) { sl.ScheduleID = sc.ID }))
	}
	o, err := f.s.CreateOpening(f.ctx, booking.Opening{ScheduleID: sc.ID, OpensAt: openingAt,
		Seed: slices.Repeat([]byte{seed}, booking.SeedSize)}, now)
	must(f.t, err)
	return o, sls
}

// admissionTTL is the suite's admissions' life.
const admissionTTL = 10 * time.Second

// admit is one admission tick of opening id at at, within budget.
func admit(id int64, budget int, at time.Time) booking.AdmitRequest {
	return booking.AdmitRequest{OpeningID: id, Budget: budget, TTL: admissionTTL, Now: at}
}

func testOpeningQueue(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o, _ := f.opening(9, 10)
	seed := slices.Repeat([]byte{9}, booking.SeedSize)
	if o.ID == 0 || o.Commitment != booking.Commit(seed) || !o.OpensAt.Equal(openingAt) || o.DrawnAt != nil || o.Queued != 0 {
		t.Fatalf("announced %+v", o)
	}
	mk := func(sched int64, at time.Time) booking.Opening {
		return booking.Opening{ScheduleID: sched, OpensAt: at, Seed: seed}
	}
	if _, err := s.CreateOpening(f.ctx, mk(o.ScheduleID, openingAt), now); booking.ErrorCode(err) != booking.CodeConflict {
		t.Fatalf("announced twice: %v", err)
	}
	if _, err := s.CreateOpening(f.ctx, mk(o.ScheduleID, openingAt.Add(time.Minute)), now); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("an opening of no slot: %v", err)
	}
	if _, err := s.CreateOpening(f.ctx, mk(o.ScheduleID+1000, openingAt), now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("an opening of no schedule: %v", err)
	}
	if _, err := s.GetOpening(f.ctx, o.ID+1000); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("an unknown opening: %v", err)
	}
	if _, _, _, err := s.JoinOpening(f.ctx, o.ID+1000, f.patient().ID, now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("joining an unknown opening: %v", err)
	}

	// Five people before the opening: no position yet, a retry is the
	// same entry and changes nothing.
	ps := f.patients(7)
	var pre []int64
	for i, p := range ps[:5] {
		e, got, existed, err := s.JoinOpening(f.ctx, o.ID, p.ID, now.Add(time.Duration(i)*time.Minute))
		must(t, err)
		if existed || e.Position != 0 || got.Queued != i+1 || !e.PreQueue(got) {
			t.Fatalf("join %d: %+v existed=%v opening %+v", i, e, existed, got)
		}
		pre = append(pre, e.ID)
	}
	again, _, existed, err := s.JoinOpening(f.ctx, o.ID, ps[0].ID, now.Add(50*time.Minute))
	must(t, err)
	if !existed || again.ID != pre[0] || !again.JoinedAt.Equal(now) {
		t.Fatalf("a retry: %+v existed=%v", again, existed)
	}
	if _, _, err := s.OpeningEntry(f.ctx, o.ID, ps[6].ID); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the entry of nobody: %v", err)
	}
	if _, err := s.OpeningDraw(f.ctx, o.ID); booking.ErrorCode(err) != booking.CodeNotOpenYet {
		t.Fatalf("the draw before it ran: %v", err)
	}
	if _, drew, err := s.DrawOpening(f.ctx, o.ID, openingAt.Add(-time.Second)); err != nil || drew {
		t.Fatalf("drawn before the opening: %v %v", drew, err)
	}
	if due, err := s.OpeningsDue(f.ctx, openingAt.Add(-time.Second)); err != nil || len(due) != 0 {
		t.Fatalf("due before the opening: %v %v", due, err)
	}
	if due, err := s.OpeningsDue(f.ctx, openingAt); err != nil || !slices.Equal(due, []int64{o.ID}) {
		t.Fatalf("due at the opening: %v %v", due, err)
	}
	// Nobody is admitted before the draw.
	if got, err := s.AdmitOpening(f.ctx, admit(o.ID, 10, openingAt)); err != nil || got.AdmittedThrough != 0 {
		t.Fatalf("admitted before the draw: %+v %v", got, err)
	}

	// One more comes at the opening second: after the pre-queue, which the
	// draw orders once.
	late, _, _, err := s.JoinOpening(f.ctx, o.ID, ps[5].ID, openingAt)
	must(t, err)
	if late.Position != 6 {
		// The join ran the draw (it was due) of the pre-queue's five; its
		// place is right after them.
		t.Fatalf("the first arrival at the opening: %+v", late)
	}
	drawn, drew, err := s.DrawOpening(f.ctx, o.ID, openingAt.Add(time.Second))
	must(t, err)
	if drew || drawn.DrawnAt == nil || !drawn.DrawnAt.Equal(openingAt) || drawn.Queued != 6 {
		t.Fatalf("the draw ran twice or not at the opening: %v %+v", drew, drawn)
	}
	want := booking.DrawOrder(seed, pre)
	for pos, id := range want {
		var p booking.Patient
		for i := range pre {
			if pre[i] == id {
				p = ps[i]
			}
		}
		e, _, err := s.OpeningEntry(f.ctx, o.ID, p.ID)
		must(t, err)
		if e.Position != pos+1 {
			t.Fatalf("entry %d at %d, want %d (order %v)", id, e.Position, pos+1, want)
		}
	}
	// Published: the pre-queue alone, as verify-draw recomputes it.
	d, err := s.OpeningDraw(f.ctx, o.ID)
	must(t, err)
	if !slices.Equal(d.Order, want) || d.OpeningID != o.ID || booking.VerifyDraw(d, o.Commitment) != nil {
		t.Fatalf("published draw %+v, want order %v: %v", d, want, booking.VerifyDraw(d, o.Commitment))
	}
	after, got, _, err := s.JoinOpening(f.ctx, o.ID, ps[6].ID, openingAt.Add(time.Minute))
	must(t, err)
	if after.Position != 7 || got.Queued != 7 {
		t.Fatalf("after the draw: %+v, %+v", after, got)
	}

	// Admission moves the front, at most once a tick, never past the queue.
	a1, err := s.AdmitOpening(f.ctx, admit(o.ID, 3, openingAt.Add(time.Second)))
	must(t, err)
	a2, err := s.AdmitOpening(f.ctx, admit(o.ID, 3, openingAt.Add(time.Second+booking.AdmitTick/2)))
	must(t, err)
	a3, err := s.AdmitOpening(f.ctx, admit(o.ID, 30, openingAt.Add(2*time.Second)))
	must(t, err)
	if a1.AdmittedThrough != 3 || a2.AdmittedThrough != 3 || a3.AdmittedThrough != 7 {
		t.Fatalf("admitted through %d, %d, %d; want 3, 3, 7", a1.AdmittedThrough, a2.AdmittedThrough, a3.AdmittedThrough)
	}
	if due, err := s.OpeningsDue(f.ctx, openingAt.Add(3*time.Second)); err != nil || len(due) != 0 {
		t.Fatalf("due when everyone is admitted: %v %v", due, err)
	}
	list, err := s.ListOpenings(f.ctx, 0, 10)
	must(t, err)
	if len(list) != 1 || list[0].ID != o.ID || list[0].AdmittedThrough != 7 || list[0].Queued != 7 {
		t.Fatalf("list %+v", list)
	}
	if list, err = s.ListOpenings(f.ctx, o.ID, 10); err != nil || len(list) != 0 {
		t.Fatalf("the page after the last: %+v %v", list, err)
	}
}

// testOpeningJoinRace: many people joining at once, each several times,
// before the opening and after its draw: one entry per person, whatever
// the retries, and the positions 1..n each given once.
func testOpeningJoinRace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o, _ := f.opening(5, 1)
	const tries = 3
	join := func(ps []booking.Patient, at time.Time) map[int64]map[int64]bool {
		var mu sync.Mutex
		ids := map[int64]map[int64]bool{}
		fresh := map[int64]int{}
		release(len(ps)*tries, func(i int) {
			p := ps[i%len(ps)]
			e, _, existed, err := s.JoinOpening(f.ctx, o.ID, p.ID, at)
			must(t, err)
			mu.Lock()
			defer mu.Unlock()
			if ids[p.ID] == nil {
				ids[p.ID] = map[int64]bool{}
			}
			ids[p.ID][e.ID] = true
			if !existed {
				fresh[p.ID]++
			}
		})
		for _, p := range ps {
			if len(ids[p.ID]) != 1 || fresh[p.ID] != 1 {
				t.Fatalf("patient %d: entries %v, %d answered as new", p.ID, ids[p.ID], fresh[p.ID])
			}
		}
		return ids
	}
	early, late := f.patients(40), f.patients(30)
	join(early, now)
	join(late, openingAt.Add(time.Second)) // the first of them draws
	got, err := s.GetOpening(f.ctx, o.ID)
	must(t, err)
	if got.Queued != 70 || got.DrawnAt == nil {
		t.Fatalf("opening after the rush: %+v", got)
	}
	positions := map[int]bool{}
	for k, p := range append(early, late...) {
		e, _, err := s.OpeningEntry(f.ctx, o.ID, p.ID)
		must(t, err)
		if e.Position < 1 || e.Position > 70 || positions[e.Position] {
			t.Fatalf("entry %+v: position out of 1..70 or taken twice", e)
		}
		// The pre-queue is ahead of everyone who came after the opening.
		if (k < 40) != (e.Position <= 40) {
			t.Fatalf("patient %d (early %v) at position %d", p.ID, k < 40, e.Position)
		}
		positions[e.Position] = true
	}
}

// testOpeningBooking: a slot of an announced opening books a patient only
// with its admission; staff book for a caller; the schedule's slots that
// open at another time, and other schedules', are not behind the room.
func testOpeningBooking(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o, sls := f.opening(2, 3)
	sl := sls[0]
	other := f.slot(3, onDoctor(f.doctor2.ID), opensAt(now.Add(-time.Hour)), func(x *booking.Slot) { x.ScheduleID = o.ScheduleID })
	ps := f.patients(5)
	at := openingAt.Add(time.Minute)
	r := req(ps[0], sl.ID, "no-admission")
	if res := f.bookAt(sl.ID, r, at); booking.ErrorCode(res.Err) != booking.CodeNotAdmitted {
		t.Fatalf("without admission: %+v", res)
	}
	r = req(ps[0], sl.ID, "another-opening")
	r.Admission = o.ID + 1
	if res := f.bookAt(sl.ID, r, at); booking.ErrorCode(res.Err) != booking.CodeNotAdmitted {
		t.Fatalf("another opening's admission: %+v", res)
	}
	r = req(ps[0], sl.ID, "admitted")
	r.Admission = o.ID
	if res := f.bookAt(sl.ID, r, at); res.Err != nil {
		t.Fatalf("admitted: %v", res.Err)
	}
	r = req(ps[1], sl.ID, "staff")
	r.Staff = true
	if res := f.bookAt(sl.ID, r, at); res.Err != nil {
		t.Fatalf("staff for a caller: %v", res.Err)
	}
	if res := f.bookAt(other.ID, req(ps[2], other.ID, "other"), at); res.Err != nil {
		t.Fatalf("the schedule's slot of another opening time: %v", res.Err)
	}
	plain := f.slot(1)
	if res := f.bookAt(plain.ID, req(ps[3], plain.ID, "plain"), at); res.Err != nil {
		t.Fatalf("an ordinary slot: %v", res.Err)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 2 {
		t.Fatalf("booked %d, want 2", got.BookedCount)
	}
	// A visit of a service from the opening's slot is held to the same
	// admission, decided with the same read.
	v := f.service("Visit", int(sl.EndAt.Sub(sl.StartAt)/time.Minute), sl.DoctorID)
	vr := visitReq(ps[4], v, sl.ID, "visit")
	if res, err := s.BookVisit(f.ctx, vr, at); err != nil || booking.ErrorCode(res.Err) != booking.CodeNotAdmitted {
		t.Fatalf("a visit without admission: %+v, %v", res, err)
	}
	vr.Admission = o.ID
	if res, err := s.BookVisit(f.ctx, vr, at); err != nil || res.Err != nil {
		t.Fatalf("an admitted visit: %+v, %v", res, err)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 3 {
		t.Fatalf("booked %d, want 3", got.BookedCount)
	}
}

// testOpeningThroughService: the whole path through the Service: join
// before the opening, the admissions' tick draws and admits, the place
// carries a token, the booking with it succeeds and without it is refused;
// many people joining at once each get one place.
func testOpeningThroughService(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	clock := now
	var mu sync.Mutex
	svc := service.NewService(s, service.Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return clock },
		WaitingRoom: service.WaitingRoomOptions{Tokens: admissionTokens, AdmitPerSecond: 5}})
	set := func(at time.Time) { mu.Lock(); clock = at; mu.Unlock() }
	sc, err := s.CreateSchedule(f.ctx, booking.Schedule{DoctorID: f.doctor2.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	sl := f.slot(100, onDoctor(f.doctor2.ID), opensAt(openingAt), func(x *booking.Slot) { x.ScheduleID = sc.ID })
	if _, err := svc.AnnounceOpening(f.ctx, sc.ID, now.Add(-time.Minute)); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("an opening in the past: %v", err)
	}
	o, err := svc.AnnounceOpening(f.ctx, sc.ID, openingAt)
	must(t, err)
	ps := f.patients(30)
	places := make([]booking.OpeningPlace, len(ps))
	release(len(ps), func(i int) {
		p, _, err := svc.JoinOpening(f.ctx, o.ID, ps[i].ID)
		must(t, err)
		places[i] = p
	})
	for i, p := range places {
		if !p.PreQueue || p.Drawn || p.Admitted || p.Token != "" || p.ExpectedWaitSeconds < 3600 {
			t.Fatalf("place %d before the opening: %+v", i, p)
		}
	}
	set(openingAt.Add(time.Second))
	must(t, svc.AdmitDue(f.ctx))
	var admitted, waiting []int
	for i := range ps {
		p, err := svc.OpeningPlace(f.ctx, o.ID, ps[i].ID)
		must(t, err)
		if !p.Drawn || p.Position == 0 {
			t.Fatalf("place %d after the tick: %+v", i, p)
		}
		if p.Admitted {
			if p.Token == "" || p.TokenExpiresAt == nil || admissionTokens.Verify(p.Token, ps[i].ID, openingAt.Add(time.Second)) != o.ID {
				t.Fatalf("admitted without a good token: %+v", p)
			}
			admitted = append(admitted, i)
			places[i] = p
		} else {
			waiting = append(waiting, i)
		}
	}
	if len(admitted) == 0 || len(waiting) == 0 {
		t.Fatalf("one tick admitted %d of %d: the rate does not bound it", len(admitted), len(ps))
	}
	i := admitted[0]
	if r := svc.BookFor(f.ctx, booking.Acting{PatientID: ps[i].ID, Admission: places[i].Token}, sl.ID, "in"); r.Err != nil {
		t.Fatalf("booking with the admission: %v", r.Err)
	}
	j := waiting[0]
	if r := svc.BookFor(f.ctx, booking.Acting{PatientID: ps[j].ID}, sl.ID, "early"); booking.ErrorCode(r.Err) != booking.CodeNotAdmitted {
		t.Fatalf("booking before admission: %v", r.Err)
	}
	// Someone else's token admits nobody else.
	if r := svc.BookFor(f.ctx, booking.Acting{PatientID: ps[j].ID, Admission: places[i].Token}, sl.ID, "borrowed"); booking.ErrorCode(r.Err) != booking.CodeNotAdmitted {
		t.Fatalf("a borrowed token: %v", r.Err)
	}
	if _, err := svc.OpeningPlace(f.ctx, o.ID, f.patient().ID); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the place of someone not in the queue: %v", err)
	}
	// The report: the database's facts and this instance's requests.
	r, err := svc.OpeningReport(f.ctx, o.ID)
	must(t, err)
	if r.Places != 100 || r.Sold != 1 || r.People != 30 || r.Admitted != len(admitted) || r.ServedFromQueue != 1 ||
		r.FirstSaleSeconds == nil || *r.FirstSaleSeconds != 1 || r.SellOutSeconds != nil || r.Inversions != 0 {
		t.Fatalf("report %+v", r)
	}
	if q := r.Requests; q.Total != 3 || q.Outcomes["created"] != 1 || q.Outcomes[string(booking.CodeNotAdmitted)] != 2 || q.P99Ms <= 0 || q.P50Ms > q.P99Ms {
		t.Fatalf("requests %+v", q)
	}
	if _, err := svc.OpeningReport(f.ctx, o.ID+1000); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the report of no opening: %v", err)
	}
}

// testOpeningAdmissionCap: admission never hands out more than the places
// nobody admitted holds, whatever the budget and however many instances
// tick at once; a booking by an admitted person leaves the cap where it
// is; an admission that expires unused gives its place to the next.
func testOpeningAdmissionCap(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o, sls := f.opening(4, 2, 1) // three places
	ps := f.patients(6)
	for _, p := range ps {
		_, _, _, err := s.JoinOpening(f.ctx, o.ID, p.ID, now)
		must(t, err)
	}
	_, _, err := s.DrawOpening(f.ctx, o.ID, openingAt)
	must(t, err)
	at := openingAt.Add(time.Second)
	release(8, func(int) {
		_, err := s.AdmitOpening(f.ctx, admit(o.ID, 10, at))
		must(t, err)
	})
	byPos := map[int]booking.OpeningEntry{}
	for _, p := range ps {
		e, got, err := s.OpeningEntry(f.ctx, o.ID, p.ID)
		must(t, err)
		if got.AdmittedThrough != 3 {
			t.Fatalf("eight ticks at once admitted through %d, want the 3 places", got.AdmittedThrough)
		}
		if admitted := e.AdmittedAt != nil; admitted != (e.Position <= 3) || (admitted && !e.AdmittedAt.Equal(at)) {
			t.Fatalf("entry at %d admitted at %v", e.Position, e.AdmittedAt)
		}
		byPos[e.Position] = e
	}
	book := func(pos int, sl booking.Slot, at time.Time) {
		t.Helper()
		r := booking.BookRequest{PatientID: byPos[pos].PatientID, IdempotencyKey: "admitted", Fingerprint: booking.Fingerprint(sl.ID), Admission: o.ID}
		if res := f.bookAt(sl.ID, r, at); res.Err != nil {
			t.Fatalf("position %d booking: %v", pos, res.Err)
		}
	}
	// The first admitted books: two places left, two admitted holding them.
	book(1, sls[0], at.Add(time.Second))
	if got, err := s.AdmitOpening(f.ctx, admit(o.ID, 10, at.Add(2*time.Second))); err != nil || got.AdmittedThrough != 3 {
		t.Fatalf("admitted through %d after a booking, want 3: %v", got.AdmittedThrough, err)
	}
	// The other two let their admission expire: their places go on.
	later := at.Add(admissionTTL)
	got, err := s.AdmitOpening(f.ctx, admit(o.ID, 10, later))
	must(t, err)
	if got.AdmittedThrough != 5 {
		t.Fatalf("admitted through %d after two expiries, want 5", got.AdmittedThrough)
	}
	for pos := 4; pos <= 5; pos++ {
		e, _, err := s.OpeningEntry(f.ctx, o.ID, byPos[pos].PatientID)
		must(t, err)
		if e.AdmittedAt == nil || !e.AdmittedAt.Equal(later) {
			t.Fatalf("position %d admitted at %v, want %v", pos, e.AdmittedAt, later)
		}
		byPos[pos] = e
	}
	book(4, sls[0], later.Add(time.Second))
	book(5, sls[1], later.Add(time.Second))
	// Sold out: no longer due, and nobody more is admitted.
	if due, err := s.OpeningsDue(f.ctx, later.Add(time.Minute)); err != nil || slices.Contains(due, o.ID) {
		t.Fatalf("due when sold out: %v %v", due, err)
	}
	if got, err := s.AdmitOpening(f.ctx, admit(o.ID, 10, later.Add(time.Minute))); err != nil || got.AdmittedThrough != 5 {
		t.Fatalf("admitted through %d when sold out, want 5: %v", got.AdmittedThrough, err)
	}
}

// testOpeningSummary: the public summary of an opening's report is
// published only once the clinic's policy says so (off by default: not
// found), and then counts the opening's places and sales.
func testOpeningSummary(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o, sls := f.opening(4, 2, 1) // three places
	svc := service.NewService(s, service.Options{Now: func() time.Time { return openingAt.Add(time.Minute) }})
	pol, err := svc.ClinicPolicy(f.ctx)
	must(t, err)
	if pol.PublicOpeningSummary {
		t.Fatal("the summaries are public by default")
	}
	_, err = svc.OpeningSummary(f.ctx, o.ID)
	wantCode(t, err, booking.CodeNotFound)
	p := f.patients(1)[0]
	_, _, _, err = s.JoinOpening(f.ctx, o.ID, p.ID, now)
	must(t, err)
	_, _, err = s.DrawOpening(f.ctx, o.ID, openingAt)
	must(t, err)
	_, err = s.AdmitOpening(f.ctx, admit(o.ID, 10, openingAt))
	must(t, err)
	r := booking.BookRequest{PatientID: p.ID, IdempotencyKey: "admitted", Fingerprint: booking.Fingerprint(sls[0].ID), Admission: o.ID}
	if res := f.bookAt(sls[0].ID, r, openingAt.Add(time.Second)); res.Err != nil {
		t.Fatalf("booking: %v", res.Err)
	}
	pol.PublicOpeningSummary = true
	_, err = svc.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	if pol, err = svc.ClinicPolicy(f.ctx); err != nil || !pol.PublicOpeningSummary {
		t.Fatalf("the policy read back %+v (%v)", pol, err)
	}
	sum, err := svc.OpeningSummary(f.ctx, o.ID)
	must(t, err)
	if sum.OpeningID != o.ID || sum.Places != 3 || sum.Sold != 1 || sum.FirstSaleSeconds == nil || sum.SellOutSeconds != nil {
		t.Fatalf("summary %+v", sum)
	}
	_, err = svc.OpeningSummary(f.ctx, o.ID+99)
	wantCode(t, err, booking.CodeNotFound)
}
