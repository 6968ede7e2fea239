package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testQueueAhead: a call that leaves an arrived patient the policy's
// number ahead sends them one message (booking.QueueAheadNotice), in the
// call's transaction; racing consoles send it once per appointment, and
// fewer waiting send none.
func testQueueAhead(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	if pol.QueueNotifyAhead != booking.DefaultQueueNotifyAhead {
		t.Fatalf("default message ahead %d", pol.QueueNotifyAhead)
	}
	pol.QueueNotifyAhead = 2
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	if got, _ := s.ClinicPolicy(f.ctx); got.QueueNotifyAhead != 2 {
		t.Fatalf("the policy reads back %d", got.QueueNotifyAhead)
	}
	told := func() map[int64][]string {
		t.Helper()
		out := map[int64][]string{}
		for _, n := range h.Inspect(t, s).Notifications(t) {
			if n.Kind == booking.NotifyQueueAhead {
				out[n.AppointmentID] = append(out[n.AppointmentID], n.Ref)
			}
		}
		return out
	}

	// One console, each call started: call i leaves No. i+1 on waiting,
	// so calls 1 and 2 leave No. 4 and No. 5 two ahead; call 3 leaves two
	// waiting, nobody two ahead.
	sl := f.slot(5)
	r := f.queueDay(f.doctor, sl)
	at := sl.StartAt.Add(-30 * time.Minute)
	var no [6]int64
	for i, p := range f.patients(5) {
		a := f.arrive(sl, p, at.Add(time.Duration(i)*time.Second))
		no[a.QueueNumber] = a.ID
	}
	for range 3 {
		c, _, err := s.CallNext(f.ctx, r, at)
		must(t, err)
		_, err = s.StepQueue(f.ctx, booking.QueueStep{AppointmentID: c.Next.AppointmentID, Action: booking.QueueActionStart}, at)
		must(t, err)
	}
	got := told()
	for n := 1; n <= 5; n++ {
		want := n >= 4
		if refs := got[no[n]]; want != (len(refs) == 1) || len(refs) > 1 || (want && refs[0] != "2") {
			t.Errorf("No. %d was told %v (want once: %v)", n, refs, want)
		}
	}

	// Consoles race for every call on another doctor's day; nobody's
	// call is started, so each passes the last as skipped and the skipped
	// come back after the waiting (the skip re-entry is long): every call
	// leaves someone two ahead, each of the eight once, and a skipped
	// patient two ahead again is not told again.
	pol.QueueSkipCalls = booking.MaxQueueSkipCalls
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	const arrived = 8
	sl2 := f.slot(arrived, onDoctor(f.doctor2.ID), startsAt(sl.StartAt))
	r2 := f.queueDay(f.doctor2, sl2)
	var racing []int64
	for i, p := range f.patients(arrived) {
		racing = append(racing, f.arrive(sl2, p, at.Add(time.Duration(i)*time.Second)).ID)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range arrived + 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, _, err := s.CallNext(f.ctx, r2, at); err != nil && booking.ErrorCode(err) != booking.CodeQueueEmpty {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	got = told()
	for _, id := range racing {
		if refs := got[id]; len(refs) != 1 {
			t.Errorf("appointment %d was told %v, want once", id, refs)
		}
	}
}
