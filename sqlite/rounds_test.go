package sqlite

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// openRound makes an OPEN round of quota with one room of each beds count.
func (f *fx) openRound(quota int, beds ...int) (booking.Round, []booking.Slot) {
	f.t.Helper()
	r, err := f.s.CreateRound(f.ctx, booking.Round{Name: "R", OpensAt: testNow.Add(-time.Hour),
		ClosesAt: testNow.Add(24 * time.Hour), TermStart: testNow.Add(30 * 24 * time.Hour),
		TermEnd: testNow.Add(150 * 24 * time.Hour), Quota: quota})
	f.must(err)
	ids := make([]int64, len(beds))
	for i, b := range beds {
		room, err := f.s.CreateRoom(f.ctx, booking.Room{Name: fmt.Sprint("room", r.ID, "-", i), Building: "East", Beds: b})
		f.must(err)
		ids[i] = room.ID
	}
	slots, err := f.s.AddRoundSlots(f.ctx, r.ID, ids)
	f.must(err)
	r, err = f.s.SetRoundState(f.ctx, r.ID, booking.RoundOpen, testNow)
	f.must(err)
	return r, slots
}

// corruptQuota gives patient p a quota row that admits nothing although
// used is 0, so that Book's read lets the request through and the CHECK
// round_quotas_within_quota refuses its increment: the path a race with
// another process would take on PostgreSQL.
func (f *fx) corruptQuota(roundID, p int64) {
	f.t.Helper()
	if _, err := f.s.DB().Exec(`INSERT INTO round_quotas (round_id, patient_id, used, quota) VALUES (?, ?, 0, 0)`,
		roundID, p); err != nil {
		f.t.Fatal(err)
	}
}

// TestRoundQuotaCheckFallsBackAlone: when the quota's CHECK fires, the batch
// is decided again request by request; the refused one answers
// quota-exceeded and the others keep their places, counted once.
func TestRoundQuotaCheckFallsBackAlone(t *testing.T) {
	f := newFx(t)
	r, slots := f.openRound(1, 3)
	p, q := f.patient(), f.patient()
	f.corruptQuota(r.ID, p)
	sl := slots[0]
	res := f.book(sl.ID, rq(p, sl.ID, "p"), rq(q, sl.ID, "q"))
	if code(res[0]) != booking.CodeQuotaExceeded || code(res[1]) != "ok" {
		t.Fatalf("got %s, %s", code(res[0]), code(res[1]))
	}
	if got, err := f.s.GetSlot(f.ctx, sl.ID); err != nil || got.BookedCount != 1 {
		t.Fatalf("slot after the fallback: %+v %v", got, err)
	}
	f.checkInvariants()
}

// TestDecidePendingQuotaCheckSavepoint: inside DecidePending's single
// transaction a violation rolls back only its batch (a savepoint), whose
// requests are then decided alone; the other batches stand.
func TestDecidePendingQuotaCheckSavepoint(t *testing.T) {
	f := newFx(t)
	r, slots := f.openRound(1, 2, 1)
	p, q, w := f.patient(), f.patient(), f.patient()
	f.corruptQuota(r.ID, p)
	submit := func(patient int64, sl booking.Slot) booking.Application {
		a, _, err := f.s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: patient, SlotID: sl.ID,
			IdempotencyKey: "k", Fingerprint: booking.ApplicationFingerprint(r.ID, sl.ID)}, testNow)
		f.must(err)
		return a
	}
	submit(p, slots[0])
	submit(q, slots[0])
	submit(w, slots[1])
	got, err := f.s.DecidePending(f.ctx, r.ID, 10, testNow)
	f.must(err)
	if len(got) != 3 || got[0].Status != booking.ApplicationRejected || got[0].Reason != booking.CodeQuotaExceeded ||
		got[1].Status != booking.ApplicationAllocated || got[2].Status != booking.ApplicationAllocated {
		t.Fatalf("decided %+v", got)
	}
	for i, want := range []int{1, 1} {
		if sl, err := f.s.GetSlot(f.ctx, slots[i].ID); err != nil || sl.BookedCount != want {
			t.Fatalf("slot %d: %+v %v", i, sl, err)
		}
	}
	for _, a := range got {
		stored, err := f.s.GetApplication(f.ctx, a.ID)
		f.must(err)
		if stored.Status != a.Status || stored.AppointmentID != a.AppointmentID {
			t.Fatalf("stored %+v, answered %+v", stored, a)
		}
	}
	f.checkInvariants()
}

// TestRoundSingleBedArrivalOrder: asynchronous applications for one bed
// are decided by arrival, however the deciders are split.
func TestRoundSingleBedArrivalOrder(t *testing.T) {
	f := newFx(t)
	r, slots := f.openRound(1, 1)
	var apps []booking.Application
	for range 5 {
		a, _, err := f.s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: f.patient(),
			SlotID: slots[0].ID, IdempotencyKey: "k", Fingerprint: booking.ApplicationFingerprint(r.ID, slots[0].ID)}, testNow)
		f.must(err)
		apps = append(apps, a)
	}
	for {
		d, err := f.s.DecidePending(f.ctx, r.ID, 2, testNow)
		f.must(err)
		if len(d) == 0 {
			break
		}
	}
	for i, a := range apps {
		got, err := f.s.GetApplication(f.ctx, a.ID)
		f.must(err)
		want := booking.ApplicationRejected
		if i == 0 {
			want = booking.ApplicationAllocated
		}
		if got.Status != want {
			t.Fatalf("application %d (arrival %d): %s", a.ID, i, got.Status)
		}
	}
	// The cancel releases the bed and the quota once.
	first, err := f.s.GetApplication(f.ctx, apps[0].ID)
	f.must(err)
	for range 2 {
		_, err := f.s.Cancel(f.ctx, first.AppointmentID, 0, testNow)
		f.must(err)
	}
	var used int
	f.must(f.s.DB().QueryRow(`SELECT used FROM round_quotas WHERE round_id = ? AND patient_id = ?`,
		r.ID, first.PatientID).Scan(&used))
	if sl, err := f.s.GetSlot(f.ctx, slots[0].ID); err != nil || sl.BookedCount != 0 || used != 0 {
		t.Fatalf("after two cancels: slot %+v, used %d, %v", sl, used, err)
	}
	rep, err := f.s.Reconcile(f.ctx, testNow, false)
	f.must(err)
	if !rep.Sound() {
		t.Fatalf("reconciliation: %+v", rep)
	}
	f.checkInvariants()
}

// TestQueueNumbersFillGaps: after cancels, the next numbers are the gaps,
// lowest first, then the numbers after the top.
func TestQueueNumbersFillGaps(t *testing.T) {
	f := newFx(t)
	sl := f.slot(6)
	var first []booking.BookResult
	for i := range 4 {
		first = append(first, f.book(sl.ID, rq(f.patient(), sl.ID, fmt.Sprint("a", i)))...)
	}
	for _, i := range []int{1, 2} {
		_, err := f.s.Cancel(f.ctx, first[i].Appointment.ID, 0, testNow)
		f.must(err)
	}
	res := f.book(sl.ID, rq(f.patient(), sl.ID, "b"), rq(f.patient(), sl.ID, "c"), rq(f.patient(), sl.ID, "d"),
		rq(f.patient(), sl.ID, "e"), rq(f.patient(), sl.ID, "f"))
	for i, want := range []int{2, 3, 5, 6} {
		if res[i].Err != nil || res[i].Appointment.QueueNumber != want {
			t.Fatalf("request %d: %+v, want number %d", i, res[i], want)
		}
	}
	if code(res[4]) != booking.CodeSlotFull {
		t.Fatalf("the fifth: %s", code(res[4]))
	}
	f.checkInvariants()
}
