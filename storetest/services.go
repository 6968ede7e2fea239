package storetest

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// run creates n consecutive slots of the fixture's doctor, each step
// long and of the given capacity, starting at a fresh hour after now.
func (f *fixture) run(n, capacity int, step time.Duration, opts ...slotOpt) []booking.Slot {
	f.t.Helper()
	k := int64(time.Duration(n)*step/time.Hour) + 2 // whole hours the run may span, and one apart
	start := now.Add(time.Duration(24+f.next.Add(k)-k+1) * time.Hour)
	out := make([]booking.Slot, n)
	for i := range out {
		at := start.Add(time.Duration(i) * step)
		out[i] = f.slot(capacity, append([]slotOpt{startsAt(at), lasting(step)}, opts...)...)
	}
	return out
}

// service creates an active ordinary service of minutes offered by
// doctors.
func (f *fixture) service(name string, minutes int, doctors ...int64) booking.Service {
	f.t.Helper()
	v, err := f.s.CreateService(f.ctx, booking.Service{Name: name, Minutes: minutes, FeeCents: 3000,
		Level: booking.LevelOrdinary, DoctorIDs: doctors, Active: true})
	must(f.t, err)
	return v
}

func visitReq(p booking.Patient, v booking.Service, slotID int64, key string) booking.VisitRequest {
	return booking.VisitRequest{PatientID: p.ID, ServiceID: v.ID, SlotID: slotID, IdempotencyKey: key,
		Fingerprint: booking.VisitFingerprint(slotID, v.ID)}
}

func (f *fixture) visit(r booking.VisitRequest) booking.BookResult {
	f.t.Helper()
	res, err := f.s.BookVisit(f.ctx, r, now)
	must(f.t, err)
	return res
}

func (f *fixture) counters(sls []booking.Slot) []int {
	f.t.Helper()
	out := make([]int, len(sls))
	for i, sl := range sls {
		out[i] = f.getSlot(sl.ID).BookedCount
	}
	return out
}

func wantCounters(t testing.TB, got []int, want ...int) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("booked counts %v, want %v", got, want)
	}
}

// reconciled fails unless the store's reconciliation finds every counter
// right.
func reconciled(t testing.TB, s booking.Store) {
	t.Helper()
	rep, err := s.Reconcile(t.Context(), now, false)
	must(t, err)
	if len(rep.CounterMismatches) > 0 {
		t.Fatalf("reconciliation: %+v", rep.CounterMismatches)
	}
}

// testServices: the catalog of services, its checks and its audit.
func testServices(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	gp := f.service("GP visit", 15, f.doctor.ID, f.doctor2.ID)
	long := f.service("Specialist consultation", 45, f.doctor.ID)
	if gp.ID == 0 || fmt.Sprint(gp.DoctorIDs) != fmt.Sprint([]int64{f.doctor.ID, f.doctor2.ID}) {
		t.Fatalf("created %+v", gp)
	}
	_, err := s.CreateService(f.ctx, booking.Service{Name: "GP visit", Minutes: 15, Level: booking.LevelOrdinary})
	wantCode(t, err, booking.CodeConflict)
	_, err = s.CreateService(f.ctx, booking.Service{Name: "Ghost", Minutes: 15, Level: booking.LevelOrdinary, DoctorIDs: []int64{999999}})
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.CreateService(f.ctx, booking.Service{Name: "Odd", Minutes: 7, Level: booking.LevelOrdinary})
	wantCode(t, err, booking.CodeInvalidRequest)

	list := func(fl booking.ServiceFilter) []int64 {
		t.Helper()
		vs, err := s.ListServices(f.ctx, fl, booking.Page{Limit: 10})
		must(t, err)
		ids := []int64{}
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
		return ids
	}
	if got := list(booking.ServiceFilter{DoctorID: f.doctor2.ID}); fmt.Sprint(got) != fmt.Sprint([]int64{gp.ID}) {
		t.Fatalf("doctor2's services %v", got)
	}
	off, name := false, "Specialist consultation (45 min)"
	changed, err := s.UpdateService(f.ctx, long.ID, booking.ServiceUpdate{Active: &off, Name: &name, DoctorIDs: &[]int64{f.doctor2.ID}})
	must(t, err)
	if changed.Active || changed.Name != name || fmt.Sprint(changed.DoctorIDs) != fmt.Sprint([]int64{f.doctor2.ID}) {
		t.Fatalf("updated %+v", changed)
	}
	if got := list(booking.ServiceFilter{}); fmt.Sprint(got) != fmt.Sprint([]int64{gp.ID}) {
		t.Fatalf("active services %v", got)
	}
	if got := list(booking.ServiceFilter{All: true}); len(got) != 2 {
		t.Fatalf("all services %v", got)
	}
	got, err := s.GetService(f.ctx, long.ID)
	must(t, err)
	if got.Name != name || got.Active {
		t.Fatalf("read back %+v", got)
	}
	_, err = s.UpdateService(f.ctx, 999999, booking.ServiceUpdate{Active: &off})
	wantCode(t, err, booking.CodeNotFound)
	if es := auditOf(t, s, booking.EntityService, long.ID); len(es) != 2 || es[0].Action != "update" {
		t.Fatalf("audit of the service: %+v", es)
	}
}

// testVisit: a 45-minute service takes three 15-minute slots of one
// doctor, all or nothing; cancelling or expiring it gives all three back.
func testVisit(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Consultation", 45, f.doctor.ID)
	sls := f.run(4, 1, 15*time.Minute)
	p, q := f.patient(), f.patient()

	res := f.visit(visitReq(p, v, sls[0].ID, "v1"))
	must(t, res.Err)
	a := res.Appointment
	if a.ServiceID != v.ID || a.SlotID != sls[0].ID || !a.EndAt.Equal(sls[2].EndAt) || a.Status != booking.StatusBooked || a.QueueNumber != 1 {
		t.Fatalf("visit %+v", a)
	}
	wantCounters(t, f.counters(sls), 1, 1, 1, 0)
	if got, err := s.GetAppointment(f.ctx, a.ID); err != nil || got.ServiceID != v.ID || !got.EndAt.Equal(a.EndAt) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	// A retry replays; the key for another request is refused.
	if r := f.visit(visitReq(p, v, sls[0].ID, "v1")); r.Err != nil || !r.Replayed || r.Appointment.ID != a.ID {
		t.Fatalf("retry: %+v", r)
	}
	wantCode(t, f.visit(visitReq(p, v, sls[1].ID, "v1")).Err, booking.CodeKeyReused)
	// Nobody else gets the visit's further slots; its patient overlaps.
	wantCode(t, f.book(sls[1].ID, req(q, sls[1].ID, "q1")).Err, booking.CodeSlotFull)
	wantCode(t, f.book(sls[3].ID, req(q, sls[3].ID, "q2")).Err, "")
	wantCode(t, f.visit(visitReq(q, v, sls[1].ID, "q3")).Err, booking.CodeAlreadyBooked) // q holds the run's last slot
	wantCounters(t, f.counters(sls), 1, 1, 1, 1)
	checkInvariants(t, h, s)
	reconciled(t, s)

	// Cancelling gives every place back.
	_, err := s.Cancel(f.ctx, a.ID, p.ID, now)
	must(t, err)
	wantCounters(t, f.counters(sls), 0, 0, 0, 1)
	checkInvariants(t, h, s)
	reconciled(t, s)

	// All or nothing: the run's last slot full refuses the whole visit,
	// naming it, and takes nothing.
	other := f.run(3, 1, 15*time.Minute)
	f.mustBook(other[2].ID, q)
	r := f.visit(visitReq(p, v, other[0].ID, "v2"))
	wantCode(t, r.Err, booking.CodeSlotFull)
	if e, _ := r.Err.(*booking.Error); e == nil || e.SlotID != other[2].ID {
		t.Fatalf("refusal names %+v, want slot %d", r.Err, other[2].ID)
	}
	wantCounters(t, f.counters(other), 0, 0, 1)
}

// testVisitRefusals: each refusal of DecideVisit, from each store's reads.
func testVisitRefusals(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Consultation", 45, f.doctor.ID)
	p := f.patient()
	sls := f.run(3, 2, 15*time.Minute)
	cases := []struct {
		name string
		r    booking.VisitRequest
		code booking.Code
	}{
		{"unknown service", booking.VisitRequest{PatientID: p.ID, ServiceID: 999999, SlotID: sls[0].ID, IdempotencyKey: "a"}, booking.CodeNotFound},
		{"unknown slot", visitReq(p, v, 999999, "b"), booking.CodeNotFound},
		{"run too short", visitReq(p, v, sls[1].ID, "c"), booking.CodeServiceNotOffered},
		{"unknown patient", visitReq(booking.Patient{ID: 999999}, v, sls[0].ID, "d"), booking.CodeNotFound},
	}
	for _, c := range cases {
		wantCode(t, f.visit(c.r).Err, c.code)
	}
	// Another doctor's slots: they do not offer it.
	sl2 := f.slot(1, onDoctor(f.doctor2.ID), lasting(45*time.Minute))
	wantCode(t, f.visit(visitReq(p, v, sl2.ID, "e")).Err, booking.CodeServiceNotOffered)
	// A gap in the run.
	gap := f.run(3, 1, 15*time.Minute)
	f.slot(1, startsAt(gap[2].EndAt.Add(5*time.Minute)), lasting(10*time.Minute))
	wantCode(t, f.visit(visitReq(p, v, gap[1].ID, "f")).Err, booking.CodeServiceNotOffered)
	// A closed slot in the run.
	cl := f.run(3, 1, 15*time.Minute)
	status := booking.SlotClosed
	_, err := s.UpdateSlot(f.ctx, cl[1].ID, booking.SlotUpdate{Status: &status})
	must(t, err)
	wantCode(t, f.visit(visitReq(p, v, cl[0].ID, "g")).Err, booking.CodeSlotClosed)
	// Holding a place in the run, then overlapping.
	f.mustBook(sls[2].ID, p)
	wantCode(t, f.visit(visitReq(p, v, sls[0].ID, "h")).Err, booking.CodeAlreadyBooked)
	// A withdrawn service.
	off := false
	_, err = s.UpdateService(f.ctx, v.ID, booking.ServiceUpdate{Active: &off})
	must(t, err)
	wantCode(t, f.visit(visitReq(p, v, cl[0].ID, "i")).Err, booking.CodeNotFound)
	wantCounters(t, f.counters(sls), 0, 0, 1)
	checkInvariants(t, h, s)
}

// testVisitHeldExpires: a visit of slots with a fee is HELD; its expiry
// gives every place back.
func testVisitHeldExpires(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Consultation", 30, f.doctor.ID)
	sls := f.run(2, 1, 15*time.Minute, withFee(2500))
	p := f.patient()
	res := f.visit(visitReq(p, v, sls[0].ID, "k"))
	must(t, res.Err)
	if res.Appointment.Status != booking.StatusHeld || res.Appointment.HoldExpiresAt == nil {
		t.Fatalf("visit %+v", res.Appointment)
	}
	wantCounters(t, f.counters(sls), 1, 1)
	exp, err := s.ExpireHolds(f.ctx, now.Add(time.Hour), 100)
	must(t, err)
	if len(exp) != 1 {
		t.Fatalf("expired %d", len(exp))
	}
	wantCounters(t, f.counters(sls), 0, 0)
	checkInvariants(t, h, s)
	reconciled(t, s)
	// A visit moves only where its whole run fits (testVisitReschedule).
	res = f.visit(visitReq(p, v, sls[0].ID, "k2"))
	must(t, res.Err)
	_, err = s.Reschedule(f.ctx, booking.RescheduleRequest{AppointmentID: res.Appointment.ID, SlotID: sls[1].ID,
		IdempotencyKey: "m", Fingerprint: booking.RescheduleFingerprint(res.Appointment.ID, sls[1].ID)}, now)
	wantCode(t, err, booking.CodeServiceNotOffered)
}

// testRaceVisits: patients booking a 45-minute service race others
// booking single 15-minute slots of the same doctor, all released at
// once. Nobody overlaps, no slot is oversold, every counter reconciles.
func testRaceVisits(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Consultation", 45, f.doctor.ID)
	sls := f.run(12, 1, 15*time.Minute)
	const visitors, singles = 16, 24
	ps := f.patients(visitors + singles)
	var wg sync.WaitGroup
	start := make(chan struct{})
	res := make([]booking.BookResult, len(ps))
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var err error
			if i < visitors {
				sl := sls[i%10]
				res[i], err = s.BookVisit(f.ctx, visitReq(p, v, sl.ID, "race"), now)
			} else {
				sl := sls[i%12]
				var rs []booking.BookResult
				if rs, err = s.Book(f.ctx, sl.ID, []booking.BookRequest{req(p, sl.ID, "race")}, now); err == nil {
					res[i] = rs[0]
				}
			}
			if err != nil {
				res[i].Err = err
			}
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for i, r := range res {
		switch booking.ErrorCode(r.Err) {
		case "":
			won++
		case booking.CodeSlotFull, booking.CodeServiceNotOffered:
		default:
			t.Errorf("request %d: unexpected answer %v", i, r.Err)
		}
	}
	ins := h.Inspect(t, s)
	active := ins.ActiveAppointments(t)
	sort.Slice(active, func(i, j int) bool { return active[i].StartAt.Before(active[j].StartAt) })
	for i := 1; i < len(active); i++ {
		if active[i].StartAt.Before(active[i-1].EndAt) {
			t.Fatalf("appointments %d and %d overlap in capacity-1 slots", active[i-1].ID, active[i].ID)
		}
	}
	if won != len(active) || won == 0 {
		t.Fatalf("%d bookings answered, %d active", won, len(active))
	}
	taken := 0
	for _, a := range active {
		taken += int(a.EndAt.Sub(a.StartAt) / (15 * time.Minute))
	}
	booked := 0
	for _, c := range f.counters(sls) {
		booked += c
	}
	if booked != taken {
		t.Fatalf("counters sum %d, the appointments cover %d slots", booked, taken)
	}
	checkInvariants(t, h, s)
	reconciled(t, s)
}

// testListOpenSlots: the read of first-available, by doctor then start,
// open slots with a place left only, bounded: the bound shared among the
// doctors (each doctor's first PerDoctor), not spent on the first doctors.
func testListOpenSlots(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	a := f.run(3, 1, 15*time.Minute)
	b := f.slot(1, onDoctor(f.doctor2.ID), startsAt(a[0].StartAt))
	f.slot(1, onDoctor(f.doctor2.ID), startsAt(a[2].StartAt), closed())
	got, err := s.ListOpenSlots(f.ctx, booking.OpenSlots{DoctorIDs: []int64{f.doctor2.ID, f.doctor.ID}, From: a[0].StartAt, To: a[2].EndAt, Limit: 10})
	must(t, err)
	ids := []int64{}
	for _, sl := range got {
		ids = append(ids, sl.ID)
	}
	want := []int64{a[0].ID, a[1].ID, a[2].ID, b.ID}
	if f.doctor2.ID < f.doctor.ID {
		want = []int64{b.ID, a[0].ID, a[1].ID, a[2].ID}
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("open slots %v, want %v", ids, want)
	}
	if got, err := s.ListOpenSlots(f.ctx, booking.OpenSlots{DoctorIDs: []int64{f.doctor.ID}, From: a[0].StartAt, To: a[2].EndAt, Limit: 2}); err != nil || len(got) != 2 {
		t.Fatalf("limited: %d, %v", len(got), err)
	}
	// A bound of 2 for two doctors: each doctor's first slot, not the
	// first doctor's two.
	got, err = s.ListOpenSlots(f.ctx, booking.OpenSlots{DoctorIDs: []int64{f.doctor.ID, f.doctor2.ID, f.doctor.ID}, From: a[0].StartAt, To: a[2].EndAt, Limit: 2})
	must(t, err)
	if len(got) != 2 || got[0].DoctorID == got[1].DoctorID {
		t.Fatalf("a bound of 2 for two doctors read %+v", got)
	}
	// A full slot is not read: it holds no place, and would take another's
	// share.
	f.mustBook(a[0].ID, f.patient())
	got, err = s.ListOpenSlots(f.ctx, booking.OpenSlots{DoctorIDs: []int64{f.doctor.ID}, From: a[0].StartAt, To: a[2].EndAt, Limit: 1})
	must(t, err)
	if len(got) != 1 || got[0].ID != a[1].ID {
		t.Fatalf("after a[0] filled, the first open slot read is %+v, want a[1]", got)
	}
}
