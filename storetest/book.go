package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func testBookBasics(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	p := f.patient()

	res := f.book(sl.ID, req(p, sl.ID, "key-1"))
	a := wantOK(t, res)
	if a.ID == 0 || a.SlotID != sl.ID || a.PatientID != p.ID || a.DoctorID != f.doctor.ID ||
		a.Status != booking.StatusBooked || a.QueueNumber != 1 || a.HoldExpiresAt != nil ||
		!a.StartAt.Equal(sl.StartAt) || !a.EndAt.Equal(sl.EndAt) || !a.CreatedAt.Equal(now) {
		t.Fatalf("appointment = %+v", a)
	}
	if got := f.getSlot(sl.ID).BookedCount; got != 1 {
		t.Fatalf("booked_count = %d, want 1", got)
	}

	// A retry answers the original appointment and takes nothing more.
	again := f.book(sl.ID, req(p, sl.ID, "key-1"))
	if again.Err != nil || !again.Replayed || again.Appointment.ID != a.ID {
		t.Fatalf("retry = %+v", again)
	}
	if got := f.getSlot(sl.ID).BookedCount; got != 1 {
		t.Fatalf("booked_count after retry = %d, want 1", got)
	}
	stored, err := s.GetAppointment(f.ctx, a.ID)
	must(t, err)
	if stored.ID != a.ID || stored.Status != booking.StatusBooked || stored.QueueNumber != 1 || stored.DoctorID != f.doctor.ID {
		t.Fatalf("GetAppointment = %+v", stored)
	}
	_, err = s.GetAppointment(f.ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)

	// A retry after a cancel answers the appointment as it is now.
	_, err = s.Cancel(f.ctx, a.ID, p.ID, now)
	must(t, err)
	again = f.book(sl.ID, req(p, sl.ID, "key-1"))
	if again.Err != nil || !again.Replayed || again.Appointment.Status != booking.StatusCancelled {
		t.Fatalf("retry after cancel = %+v", again)
	}
	if got := f.getSlot(sl.ID).BookedCount; got != 0 {
		t.Fatalf("booked_count after cancel and retry = %d, want 0", got)
	}
}

func testBookRefusals(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	p := f.patient()

	sl := f.slot(1)
	a := f.mustBook(sl.ID, p)

	t.Run("KeyReusedForAnotherSlot", func(t *testing.T) {
		other := f.slot(1)
		res := f.book(other.ID, req(p, other.ID, fmt.Sprintf("k-%d-%d", p.ID, sl.ID)))
		wantCode(t, res.Err, booking.CodeKeyReused)
		if f.getSlot(other.ID).BookedCount != 0 {
			t.Fatal("a reused key took a place")
		}
	})
	t.Run("AlreadyBooked", func(t *testing.T) {
		big := f.slot(5)
		f.mustBook(big.ID, p)
		res := f.book(big.ID, req(p, big.ID, "another-key"))
		wantCode(t, res.Err, booking.CodeAlreadyBooked)
		if got := f.getSlot(big.ID).BookedCount; got != 1 {
			t.Fatalf("booked_count = %d", got)
		}
	})
	t.Run("Full", func(t *testing.T) {
		q := f.patient()
		res := f.book(sl.ID, req(q, sl.ID, "q-1"))
		wantCode(t, res.Err, booking.CodeSlotFull)
		if e := errorsAs(res.Err); e == nil || e.SlotID != sl.ID {
			t.Fatalf("slot-full error should name the slot: %#v", res.Err)
		}
		// A refused attempt does not consume the key: once a place frees the
		// same key books it.
		_, err := s.Cancel(f.ctx, a.ID, p.ID, now)
		must(t, err)
		wantOK(t, f.book(sl.ID, req(q, sl.ID, "q-1")))
	})
	t.Run("NotOpenYet", func(t *testing.T) {
		opens := now.Add(time.Hour)
		later := f.slot(3, opensAt(opens))
		res := f.book(later.ID, req(f.patient(), later.ID, "n-1"))
		wantCode(t, res.Err, booking.CodeNotOpenYet)
		if e := errorsAs(res.Err); e == nil || e.OpensAt == nil || !e.OpensAt.Equal(opens) {
			t.Fatalf("not-open-yet must carry opensAt: %#v", res.Err)
		}
		// At the opening instant it is open.
		wantOK(t, f.bookAt(later.ID, req(f.patient(), later.ID, "n-2"), opens))
	})
	t.Run("Closed", func(t *testing.T) {
		c := f.slot(3, closed())
		wantCode(t, f.book(c.ID, req(f.patient(), c.ID, "c-1")).Err, booking.CodeSlotClosed)
	})
	t.Run("Started", func(t *testing.T) {
		st := f.slot(3)
		wantCode(t, f.bookAt(st.ID, req(f.patient(), st.ID, "s-1"), st.StartAt).Err, booking.CodeSlotClosed)
		wantCode(t, f.bookAt(st.ID, req(f.patient(), st.ID, "s-2"), st.StartAt.Add(time.Minute)).Err, booking.CodeSlotClosed)
		if f.getSlot(st.ID).BookedCount != 0 {
			t.Fatal("refused bookings took places")
		}
	})
	t.Run("NoSuchSlot", func(t *testing.T) {
		wantCode(t, f.book(999999, req(p, 999999, "x-1")).Err, booking.CodeNotFound)
	})
}

// A batch is answered request by request, in arrival order, with the same
// answers each request would get alone.
func testBatchInOrder(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3)
	ps := f.patients(6)
	first := f.mustBook(sl.ID, ps[0]) // takes queue number 1

	reqs := []booking.BookRequest{
		req(ps[0], sl.ID, fmt.Sprintf("k-%d-%d", ps[0].ID, sl.ID)),      // replay
		req(ps[0], sl.ID+1000, fmt.Sprintf("k-%d-%d", ps[0].ID, sl.ID)), // same key, other body
		req(ps[0], sl.ID, "new-key"),                                    // already booked
		req(ps[1], sl.ID, "b1"),                                         // place 2
		req(ps[1], sl.ID, "b1"),                                         // duplicate inside the batch: replay of the previous
		req(ps[1], sl.ID, "b1-other"),                                   // already booked by the previous request
		req(ps[2], sl.ID, "c1"),                                         // place 3
		req(ps[3], sl.ID, "d1"),                                         // full
		req(ps[4], sl.ID, "e1"),                                         // full
	}
	reqs[1].Fingerprint = booking.Fingerprint(sl.ID + 1000)
	res, err := s.Book(f.ctx, sl.ID, reqs, now)
	must(t, err)
	if len(res) != len(reqs) {
		t.Fatalf("%d results for %d requests", len(res), len(reqs))
	}
	if !res[0].Replayed || res[0].Appointment.ID != first.ID {
		t.Fatalf("0: %+v", res[0])
	}
	wantCode(t, res[1].Err, booking.CodeKeyReused)
	wantCode(t, res[2].Err, booking.CodeAlreadyBooked)
	b := wantOK(t, res[3])
	if !res[4].Replayed || res[4].Appointment.ID != b.ID {
		t.Fatalf("4: %+v", res[4])
	}
	wantCode(t, res[5].Err, booking.CodeAlreadyBooked)
	c := wantOK(t, res[6])
	wantCode(t, res[7].Err, booking.CodeSlotFull)
	wantCode(t, res[8].Err, booking.CodeSlotFull)
	if b.QueueNumber != 2 || c.QueueNumber != 3 {
		t.Fatalf("queue numbers %d, %d; want 2, 3 in arrival order", b.QueueNumber, c.QueueNumber)
	}
	if got := f.getSlot(sl.ID).BookedCount; got != 3 {
		t.Fatalf("booked_count = %d, want 3", got)
	}
	checkInvariants(t, h, s)

	// A whole batch for a missing slot, or a closed one, is refused request by request.
	res, err = s.Book(f.ctx, 999999, reqs[:2], now)
	must(t, err)
	for i, r := range res {
		wantCode(t, r.Err, booking.CodeNotFound)
		_ = i
	}
}

func testHeldWhenFee(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2, withFee(3000))
	p := f.patient()
	a := wantOK(t, f.book(sl.ID, req(p, sl.ID, "pay-1")))
	if a.Status != booking.StatusHeld || a.HoldExpiresAt == nil || !a.HoldExpiresAt.Equal(now.Add(900*time.Second)) {
		t.Fatalf("fee slot must give a HELD appointment expiring at now+hold: %+v", a)
	}
	if f.getSlot(sl.ID).BookedCount != 1 {
		t.Fatal("a HELD appointment occupies a place")
	}
	got, err := s.GetAppointment(f.ctx, a.ID)
	must(t, err)
	if got.HoldExpiresAt == nil || !got.HoldExpiresAt.Equal(*a.HoldExpiresAt) {
		t.Fatalf("stored hold: %+v", got)
	}
}

func testQueueNumbers(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(4)
	ps := f.patients(5)
	var as []booking.Appointment
	for _, p := range ps[:4] {
		as = append(as, f.mustBook(sl.ID, p))
	}
	for i, a := range as {
		if a.QueueNumber != i+1 {
			t.Fatalf("appointment %d has number %d", i, a.QueueNumber)
		}
	}
	_, err := s.Cancel(f.ctx, as[1].ID, 0, now)
	must(t, err)
	a := f.mustBook(sl.ID, ps[4])
	if a.QueueNumber != 2 {
		t.Fatalf("the freed number 2 must be reused, got %d", a.QueueNumber)
	}
	checkInvariants(t, h, s)
}

func testOverlap(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	p := f.patient()
	start := now.Add(72 * time.Hour)
	a := f.slot(1, startsAt(start), lasting(30*time.Minute))
	b := f.slot(1, startsAt(start.Add(15*time.Minute)), onDoctor(f.doctor2.ID))
	adjacent := f.slot(1, startsAt(start.Add(30*time.Minute))) // after a, on a's doctor: b's would overlap b

	f.mustBook(a.ID, p)
	wantCode(t, f.book(b.ID, req(p, b.ID, "b")).Err, booking.CodeOverlapping)
	if f.getSlot(b.ID).BookedCount != 0 {
		t.Fatal("refused overlap took a place")
	}
	f.mustBook(adjacent.ID, p) // [start+30, start+60) touches but does not overlap
	// Another patient is not concerned.
	f.mustBook(b.ID, f.patient())
	// Once cancelled, the time is free again for this patient.
	as, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Status: booking.StatusBooked})
	must(t, err)
	for _, ap := range as {
		if ap.SlotID == a.ID {
			_, err := s.Cancel(f.ctx, ap.ID, p.ID, now)
			must(t, err)
		}
	}
	// A third doctor: a doctor's own slots never overlap (slots_no_overlap).
	d3, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: "Dr. Three", DepartmentID: f.doctor.DepartmentID, TimeZone: "UTC"})
	must(t, err)
	c := f.slot(2, startsAt(start.Add(10*time.Minute)), lasting(10*time.Minute), onDoctor(d3.ID))
	f.mustBook(c.ID, p)
	checkInvariants(t, h, s)
}

func testIdempotencyAcrossPatients(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	p, q := f.patient(), f.patient()
	a := wantOK(t, f.book(sl.ID, req(p, sl.ID, "shared")))
	b := wantOK(t, f.book(sl.ID, req(q, sl.ID, "shared")))
	if a.ID == b.ID || b.PatientID != q.ID {
		t.Fatalf("the same key of two patients must give two appointments: %+v %+v", a, b)
	}
}

func testCancel(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1)
	p, q := f.patient(), f.patient()
	a := f.mustBook(sl.ID, p)

	_, err := s.Cancel(f.ctx, a.ID, q.ID, now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.Cancel(f.ctx, 999999, p.ID, now)
	wantCode(t, err, booking.CodeNotFound)

	c, err := s.Cancel(f.ctx, a.ID, p.ID, now)
	must(t, err)
	if c.Status != booking.StatusCancelled || c.ID != a.ID {
		t.Fatalf("cancelled = %+v", c)
	}
	if f.getSlot(sl.ID).BookedCount != 0 {
		t.Fatal("cancel did not release the place")
	}
	again, err := s.Cancel(f.ctx, a.ID, p.ID, now.Add(time.Minute))
	must(t, err)
	if again.Status != booking.StatusCancelled || !again.UpdatedAt.Equal(c.UpdatedAt) {
		t.Fatalf("repeated cancel changed something: %+v vs %+v", again, c)
	}
	if f.getSlot(sl.ID).BookedCount != 0 {
		t.Fatal("repeated cancel released twice")
	}
	// The place goes to someone else.
	f.mustBook(sl.ID, q)

	// An appointment that has started cannot be cancelled.
	st := f.slot(1)
	b := f.mustBook(st.ID, p)
	_, err = s.Cancel(f.ctx, b.ID, p.ID, st.StartAt)
	wantCode(t, err, booking.CodeAlreadyStarted)
	if f.getSlot(st.ID).BookedCount != 1 {
		t.Fatal("refused cancel released the place")
	}
	// Staff (patient 0) may cancel anyone's.
	_, err = s.Cancel(f.ctx, b.ID, 0, now)
	must(t, err)
	checkInvariants(t, h, s)
}

func testListAppointments(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	p, q := f.patient(), f.patient()
	a1 := f.mustBook(f.slot(1).ID, p)
	a2 := f.mustBook(f.slot(1).ID, p)
	f.mustBook(f.slot(1).ID, q)
	_, err := s.Cancel(f.ctx, a1.ID, p.ID, now)
	must(t, err)

	all, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID})
	must(t, err)
	if len(all) != 2 || all[0].ID != a2.ID || all[1].ID != a1.ID {
		t.Fatalf("want [%d %d] newest first, got %+v", a2.ID, a1.ID, all)
	}
	booked, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Status: booking.StatusBooked})
	must(t, err)
	if len(booked) != 1 || booked[0].ID != a2.ID {
		t.Fatalf("booked = %+v", booked)
	}
	cancelled, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Status: booking.StatusCancelled})
	must(t, err)
	if len(cancelled) != 1 || cancelled[0].ID != a1.ID || cancelled[0].DoctorID != f.doctor.ID {
		t.Fatalf("cancelled = %+v", cancelled)
	}
	none, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: 999999})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("unknown patient has %d appointments", len(none))
	}
}
