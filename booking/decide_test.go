package booking

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)

func openSlot(capacity, booked int) Slot {
	return Slot{ID: 7, DoctorID: 3, Capacity: capacity, BookedCount: booked, Status: SlotOpen,
		OpensAt: t0.Add(-time.Hour), StartAt: t0.Add(time.Hour), EndAt: t0.Add(90 * time.Minute)}
}

func bookReq(patient int64, key string) BookRequest {
	return BookRequest{PatientID: patient, IdempotencyKey: key, Fingerprint: Fingerprint(7)}
}

func codes(res []BookResult) []Code {
	out := make([]Code, len(res))
	for i, r := range res {
		out[i] = ErrorCode(r.Err)
	}
	return out
}

// The refusals come in one order: the more specific truth first. A patient
// who holds a place in a full slot is told already-booked, not slot-full;
// missing beats everything the patient's rows could say;
// overlapping beats the quota; fullness comes last.
func TestDecideBookingOrderOfRefusals(t *testing.T) {
	round := &Round{ID: 1, State: RoundOpen, OpensAt: t0.Add(-time.Hour), ClosesAt: t0.Add(time.Hour), Quota: 1}
	for name, tc := range map[string]struct {
		rd   BookReads
		want Code
	}{
		"holder of a full slot":  {BookReads{ActiveHere: map[int64]bool{1: true}}, CodeAlreadyBooked},
		"missing patient":        {BookReads{Missing: map[int64]bool{1: true}, ActiveHere: map[int64]bool{1: true}}, CodeNotFound},
		"here beats overlapping": {BookReads{ActiveHere: map[int64]bool{1: true}, Overlapping: map[int64]bool{1: true}}, CodeAlreadyBooked},
		"overlap beats full":     {BookReads{Overlapping: map[int64]bool{1: true}}, CodeOverlapping},
		"overlap beats quota": {BookReads{Round: round, Overlapping: map[int64]bool{1: true},
			Used: map[int64]int{1: 1}}, CodeOverlapping},
		"quota beats full": {BookReads{Round: round, Used: map[int64]int{1: 1}}, CodeQuotaExceeded},
		"full":             {BookReads{}, CodeSlotFull},
		// A patient who has left is refused on a round's slot as on any.
		"deactivated, free slot": {BookReads{Load: map[int64]PatientLoad{1: {Inactive: true}}, TopQueue: -1}, CodeBookingBlocked},
		"deactivated, round": {BookReads{Round: round, Load: map[int64]PatientLoad{1: {Inactive: true}},
			TopQueue: -1}, CodeBookingBlocked},
	} {
		t.Run(name, func(t *testing.T) {
			rd := tc.rd
			rd.Found, rd.Slot = true, openSlot(2, 2)
			if rd.TopQueue < 0 { // a slot with places left
				rd.Slot, rd.TopQueue = openSlot(2, 0), 0
			} else {
				rd.TopQueue = 2
			}
			if rd.Round != nil {
				rd.Slot.RoundID = rd.Round.ID
			}
			d := DecideBooking([]BookRequest{bookReq(1, "new")}, rd, t0)
			res, ns := d.Finish(nil)
			if got := ErrorCode(res[0].Err); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			if len(d.Winners) != 0 || d.Reclaim || len(ns) != 0 {
				t.Fatalf("a refusal decided writes: %+v", d)
			}
		})
	}

	// The slot's own state comes before any patient's: a closed slot is
	// closed for its holder too, and a replay beats even that.
	rd := BookReads{Found: true, Slot: openSlot(2, 2), ActiveHere: map[int64]bool{1: true},
		Existing: map[PatientKey]Appointment{{1, "old"}: {ID: 9, SlotID: 7, PatientID: 1, Fingerprint: Fingerprint(7)}}}
	rd.Slot.Status = SlotClosed
	res, _ := DecideBooking([]BookRequest{bookReq(1, "new"), bookReq(1, "old")}, rd, t0).Finish(nil)
	if ErrorCode(res[0].Err) != CodeSlotClosed || !res[1].Replayed || res[1].Appointment.ID != 9 {
		t.Fatalf("closed slot: %+v", res)
	}
	res, _ = DecideBooking([]BookRequest{bookReq(1, "new")}, BookReads{}, t0).Finish(nil)
	if ErrorCode(res[0].Err) != CodeNotFound {
		t.Fatalf("no slot: %+v", res)
	}
}

// A batch in arrival order: winners take the lowest numbers after the top,
// a patient's later request waits on the earlier, an in-batch duplicate gets
// its first request's outcome, and the losers are told slot-full.
func TestDecideBookingBatch(t *testing.T) {
	rd := BookReads{Found: true, Slot: openSlot(3, 1), TopQueue: 1}
	reqs := []BookRequest{bookReq(1, "a"), bookReq(1, "a"), bookReq(1, "b"), bookReq(2, "c"), bookReq(3, "d"), bookReq(3, "d")}
	reqs[5].Fingerprint = "other"
	d := DecideBooking(reqs, rd, t0)
	if !slices.Equal(d.Winners, []int{0, 3}) || !slices.Equal(d.Queue, []int{2, 3}) || d.Reclaim {
		t.Fatalf("winners %v queue %v reclaim %v", d.Winners, d.Queue, d.Reclaim)
	}
	res, ns := d.Finish([]int64{100, 101})
	want := []Code{"", "", CodeAlreadyBooked, "", CodeSlotFull, CodeSlotFull}
	if got := codes(res); !slices.Equal(got, want) {
		t.Fatalf("codes %v, want %v", got, want)
	}
	if !res[1].Replayed || res[1].Appointment.ID != 100 || res[3].Appointment.QueueNumber != 3 || len(ns) != 2 {
		t.Fatalf("results %+v notifications %+v", res, ns)
	}
}

// More takers than places and stale holds: the holds are reclaimed, their
// numbers are free again, their patients may book again, and a replay of
// one is answered EXPIRED.
func TestDecideBookingReclaim(t *testing.T) {
	rd := BookReads{Found: true, Slot: openSlot(2, 2), TopQueue: 2,
		ActiveHere: map[int64]bool{1: true, 2: true},
		Stale:      []StaleHold{{ID: 50, PatientID: 1, QueueNumber: 1}},
		Existing:   map[PatientKey]Appointment{{1, "old"}: {ID: 50, SlotID: 7, PatientID: 1, Status: StatusHeld, Fingerprint: Fingerprint(7)}},
	}
	rd.Slot.FeeCents, rd.Slot.HoldSeconds = 100, 60
	d := DecideBooking([]BookRequest{bookReq(1, "old"), bookReq(1, "new"), bookReq(2, "x"), bookReq(4, "y")}, rd, t0)
	if !d.Reclaim || !slices.Equal(d.Winners, []int{1}) || d.Queue != nil || d.Status != StatusHeld {
		t.Fatalf("decision %+v", d)
	}
	if err := d.QueueFrom(slices.Values([]int{1, 2})); err != nil || !slices.Equal(d.Queue, []int{1}) {
		t.Fatalf("queue %v, %v", d.Queue, err)
	}
	res, ns := d.Finish([]int64{60})
	if got := codes(res); !slices.Equal(got, []Code{"", "", CodeAlreadyBooked, CodeSlotFull}) {
		t.Fatalf("codes %v", got)
	}
	if res[0].Appointment.Status != StatusExpired || res[1].Appointment.HoldExpiresAt == nil {
		t.Fatalf("results %+v", res)
	}
	if fmt.Sprint(ns) != fmt.Sprint([]Notification{{Kind: NotifyExpiry, AppointmentID: 50}}) {
		t.Fatalf("notifications %+v (a HELD appointment is told nothing until paid)", ns)
	}
}

// QueueFrom fills the gaps lowest first and refuses a corrupt counter.
func TestQueueFrom(t *testing.T) {
	d := DecideBooking([]BookRequest{bookReq(1, "a"), bookReq(2, "b")}, BookReads{Found: true, Slot: openSlot(5, 2), TopQueue: 4}, t0)
	if d.Queue != nil {
		t.Fatalf("numbers below the top may be free, but Queue = %v", d.Queue)
	}
	if err := d.QueueFrom(slices.Values([]int{2, 4})); err != nil || !slices.Equal(d.Queue, []int{1, 3}) {
		t.Fatalf("queue %v, %v", d.Queue, err)
	}
	if err := d.QueueFrom(slices.Values([]int{1, 2, 3, 4})); err == nil {
		t.Fatal("a counter saying 2 of 5 with 4 numbers in use was not refused")
	}
}

// A winner's result says whether its decision left the slot without a
// place for anyone: the gates then refuse the next request from memory.
func TestDecideBookingSlotFull(t *testing.T) {
	full := func(res []BookResult) []bool {
		out := make([]bool, len(res))
		for i, r := range res {
			out[i] = r.SlotFull
		}
		return out
	}
	// Three places, one taken: two winners take the last two.
	rd := BookReads{Found: true, Slot: openSlot(3, 1), TopQueue: 1}
	res, _ := DecideBooking([]BookRequest{bookReq(1, "a"), bookReq(2, "b")}, rd, t0).Finish([]int64{100, 101})
	if got := full(res); !slices.Equal(got, []bool{true, true}) {
		t.Fatalf("the batch that took the last places: %v", got)
	}
	// One winner leaves a place.
	res, _ = DecideBooking([]BookRequest{bookReq(1, "a")}, rd, t0).Finish([]int64{100})
	if res[0].SlotFull {
		t.Fatal("a place is left, yet the slot is said full")
	}
	// A stale hold reclaimed for the last place: full again.
	rd = BookReads{Found: true, Slot: openSlot(1, 1), TopQueue: 1, Stale: []StaleHold{{ID: 50, PatientID: 9, QueueNumber: 1}}}
	d := DecideBooking([]BookRequest{bookReq(1, "a")}, rd, t0)
	if !d.Reclaim {
		t.Fatal("no reclaim")
	}
	if err := d.QueueFrom(slices.Values([]int{1})); err != nil {
		t.Fatal(err)
	}
	if res, _ = d.Finish([]int64{100}); !res[0].SlotFull {
		t.Fatal("the reclaimed place was the last one")
	}
	// Behind a waiting room the refusal turns on the admission first.
	rd = BookReads{Found: true, Slot: openSlot(1, 0), OpeningID: 4}
	req := bookReq(1, "a")
	req.Admission = 4
	if res, _ = DecideBooking([]BookRequest{req}, rd, t0).Finish([]int64{100}); res[0].Err != nil || res[0].SlotFull {
		t.Fatalf("behind a waiting room: %+v", res[0])
	}
	// The places left are reserved for a cohort: not full for everyone.
	until := t0.Add(time.Hour)
	rd = BookReads{Found: true, Slot: openSlot(3, 1), TopQueue: 1, Rule: &EligibilityRule{ScheduleID: 5, ReservePlaces: 1, ReserveCohort: "65+", ReserveUntil: &until},
		Persons: map[int64]Person{1: {}, 2: {}}}
	res, _ = DecideBooking([]BookRequest{bookReq(1, "a"), bookReq(2, "b")}, rd, t0).Finish([]int64{100})
	if got := codes(res); !slices.Equal(got, []Code{"", CodePlacesReserved}) || res[0].SlotFull {
		t.Fatalf("a reserved place left: codes %v, full %v", got, res[0].SlotFull)
	}
}
