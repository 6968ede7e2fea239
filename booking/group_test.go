package booking

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A group is decided whole: one member refused refuses everyone, and its
// numbers are the lowest run of free ones.
func TestDecideGroup(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	slot := Slot{ID: 9, Capacity: 6, BookedCount: 2, StartAt: now.Add(time.Hour), EndAt: now.Add(2 * time.Hour),
		OpensAt: now.Add(-time.Hour), Status: SlotOpen}
	reqs := Group{SlotID: 9, PatientIDs: []int64{1, 2, 3}, Key: "k"}.Requests()
	rd := BookReads{Found: true, Slot: slot, TopQueue: 2, ActiveHere: map[int64]bool{}}
	d := DecideBooking(reqs, rd, now)
	if len(d.Winners) != 3 || fmt.Sprint(d.Queue) != "[3 4 5]" {
		t.Fatalf("winners %v queue %v", d.Winners, d.Queue)
	}

	rd.ActiveHere = map[int64]bool{2: true}
	d = DecideBooking(reqs, rd, now)
	res, _ := d.Finish(nil)
	for i, r := range res {
		if ErrorCode(r.Err) != CodeAlreadyBooked {
			t.Fatalf("member %d: %v, want the group refused already-booked", i, r.Err)
		}
	}
	if len(d.Winners) != 0 {
		t.Fatal("a refused group has winners")
	}

	// Numbers 1, 3 and 5 taken (holes): the run is 6..., too short; 2
	// people fit nowhere, 1 person takes 2.
	rd = BookReads{Found: true, Slot: Slot{ID: 9, Capacity: 6, BookedCount: 3, StartAt: slot.StartAt, EndAt: slot.EndAt, OpensAt: slot.OpensAt, Status: SlotOpen}, TopQueue: 5}
	d = DecideBooking(Group{SlotID: 9, PatientIDs: []int64{1, 2}, Key: "k"}.Requests(), rd, now)
	if d.Queue != nil || ErrorCode(d.QueueFrom(slices.Values([]int{1, 3, 5}))) != CodeSlotFull {
		t.Fatalf("2 people found a run among 2, 4, 6: %v", d.Queue)
	}
	d = DecideBooking(Group{SlotID: 9, PatientIDs: []int64{1, 2}, Key: "k"}.Requests(), rd, now)
	if err := d.QueueFrom(slices.Values([]int{1, 4, 5})); err != nil || fmt.Sprint(d.Queue) != "[2 3]" {
		t.Fatalf("queue %v, %v; want [2 3]", d.Queue, err)
	}

	// A replay of some members but not all: the key was used for another group.
	rd = BookReads{Found: true, Slot: slot, TopQueue: 2, Existing: map[PatientKey]Appointment{
		{1, GroupKey("k")}: {ID: 7, PatientID: 1, Fingerprint: reqs[0].Fingerprint}}}
	d = DecideBooking(reqs, rd, now)
	res, _ = d.Finish(nil)
	if len(d.Winners) != 0 || ErrorCode(res[1].Err) != CodeKeyReused {
		t.Fatalf("a partly replayed group: winners %v, %v", d.Winners, res[1].Err)
	}
}
