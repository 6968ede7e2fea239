package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testSlotsPage is the contract of ListSlotsPage: by (start, id), after
// the cursor, at most the limit; paging a period lists exactly what
// ListSlots lists, once each, also while slots are being inserted; a
// limit outside 1..MaxSlotPage is refused.
func testSlotsPage(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	base := time.Date(2026, 9, 1, 7, 0, 0, 0, time.UTC)
	slotAt := func(doctor int64, start time.Time) booking.Slot {
		return booking.Slot{DoctorID: doctor, StartAt: start, EndAt: start.Add(time.Minute), Capacity: 2,
			OpensAt: base.Add(-24 * time.Hour), Status: booking.SlotOpen, HoldSeconds: 600}
	}
	// The listed slots last five minutes every twenty: the inserts below
	// fit between them.
	long := func(sl booking.Slot) booking.Slot { sl.EndAt = sl.StartAt.Add(5 * time.Minute); return sl }
	var batch []booking.Slot
	for i := range 23 {
		batch = append(batch, long(slotAt(f.doctor.ID, base.Add(time.Duration(i)*20*time.Minute))))
		batch = append(batch, long(slotAt(f.doctor2.ID, base.Add(time.Duration(i)*20*time.Minute))))
	}
	batch = append(batch, slotAt(f.doctor.ID, base.Add(-time.Hour)), slotAt(f.doctor.ID, base.Add(48*time.Hour)))
	n, err := s.InsertSlots(f.ctx, batch)
	must(t, err)
	if n != len(batch) {
		t.Fatalf("InsertSlots created %d, want %d", n, len(batch))
	}
	from, to := base, base.Add(24*time.Hour)
	want, err := s.ListSlots(f.ctx, f.doctor.ID, from, to)
	must(t, err)
	if len(want) != 23 {
		t.Fatalf("ListSlots: %d slots, want 23", len(want))
	}

	// Paging in sevens lists the same slots, in order, once each.
	for _, limit := range []int{1, 7, 23, 24, booking.MaxSlotPage} {
		var got []booking.Slot
		after := booking.SlotCursor{}
		for pages := 0; ; pages++ {
			if pages > len(want)+1 {
				t.Fatalf("limit %d: paging does not end", limit)
			}
			page, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, To: to, After: after, Limit: limit})
			must(t, err)
			if len(page) > limit {
				t.Fatalf("limit %d: a page of %d", limit, len(page))
			}
			got = append(got, page...)
			if len(page) < limit {
				break
			}
			after = booking.CursorOf(page)
		}
		if len(got) != len(want) {
			t.Fatalf("limit %d: %d slots paged, want %d", limit, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID || !got[i].StartAt.Equal(want[i].StartAt) || got[i].DoctorID != f.doctor.ID {
				t.Fatalf("limit %d: slot %d is %+v, want %+v", limit, i, got[i], want[i])
			}
		}
	}

	// A cursor before the period starts at its beginning; one at its last
	// slot ends it.
	page, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, To: to,
		After: booking.SlotCursor{StartAt: base.Add(-2 * time.Hour), ID: 1}, Limit: 2})
	must(t, err)
	if len(page) != 2 || page[0].ID != want[0].ID {
		t.Fatalf("a cursor before the period: %+v", page)
	}
	page, err = s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, To: to, After: booking.CursorOf(want), Limit: 5})
	must(t, err)
	if len(page) != 0 {
		t.Fatalf("after the last slot: %d slots", len(page))
	}

	// Stable under inserts: a slot inserted behind the cursor is not
	// listed, one ahead of it is, and nothing is listed twice.
	first, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, To: to, Limit: 10})
	must(t, err)
	behind, err := s.CreateSlot(f.ctx, slotAt(f.doctor.ID, base.Add(10*time.Minute)))
	must(t, err)
	ahead, err := s.CreateSlot(f.ctx, slotAt(f.doctor.ID, base.Add(22*20*time.Minute+10*time.Minute)))
	must(t, err)
	rest, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, To: to, After: booking.CursorOf(first), Limit: booking.MaxSlotPage})
	must(t, err)
	seen := map[int64]bool{}
	for _, sl := range append(first, rest...) {
		if seen[sl.ID] {
			t.Fatalf("slot %d listed twice", sl.ID)
		}
		seen[sl.ID] = true
	}
	if seen[behind.ID] || !seen[ahead.ID] || len(seen) != len(want)+1 {
		t.Fatalf("after inserts: behind seen %v, ahead seen %v, %d slots", seen[behind.ID], seen[ahead.ID], len(seen))
	}

	// Bounds: a page holds 1 to MaxSlotPage slots and has both ends.
	for _, limit := range []int{0, -1, booking.MaxSlotPage + 1} {
		_, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, To: to, Limit: limit})
		wantCode(t, err, booking.CodeInvalidRequest)
	}
	_, err = s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor.ID, From: from, Limit: 5})
	wantCode(t, err, booking.CodeInvalidRequest)
	none, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: 999999, From: from, To: to, Limit: 5})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("an unknown doctor has %d slots", len(none))
	}

	// Paging while many writers insert slots ahead of and behind the
	// cursor: pages stay in strict (start, id) order, nothing twice, and
	// every slot that existed before paging began is listed.
	before, err := s.ListSlots(f.ctx, f.doctor2.ID, from, to)
	must(t, err)
	const writers = 8
	var wg sync.WaitGroup
	gate := make(chan struct{})
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			for i := range 5 {
				// One minute at minutes 6..13 past a 20-minute mark: between
				// the five-minute slots, and apart from each other.
				at := base.Add(time.Duration(i*4)*20*time.Minute + time.Duration(w+6)*time.Minute)
				if _, err := s.CreateSlot(f.ctx, slotAt(f.doctor2.ID, at)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	close(gate)
	var paged []booking.Slot
	after := booking.SlotCursor{}
	for {
		page, err := s.ListSlotsPage(f.ctx, booking.SlotPage{DoctorID: f.doctor2.ID, From: from, To: to, After: after, Limit: 4})
		must(t, err)
		paged = append(paged, page...)
		if len(page) < 4 {
			break
		}
		after = booking.CursorOf(page)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	got := map[int64]bool{}
	for i, sl := range paged {
		if got[sl.ID] {
			t.Fatalf("slot %d listed twice while inserting", sl.ID)
		}
		got[sl.ID] = true
		if i > 0 && !(sl.StartAt.After(paged[i-1].StartAt) || (sl.StartAt.Equal(paged[i-1].StartAt) && sl.ID > paged[i-1].ID)) {
			t.Fatalf("slot %d out of (start, id) order", i)
		}
	}
	for _, sl := range before {
		if !got[sl.ID] {
			t.Fatalf("slot %d existed before paging and was skipped", sl.ID)
		}
	}
}
