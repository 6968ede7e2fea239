package booking

import "testing"

// Each state's SQL spelling is the state's constant quoted, and each list
// is the list the Go code uses.
func TestSQLSpellings(t *testing.T) {
	for got, st := range map[string]string{
		StatusHeldSQL: string(StatusHeld), StatusBookedSQL: string(StatusBooked), StatusCancelledSQL: string(StatusCancelled),
		StatusExpiredSQL: string(StatusExpired), StatusNoShowSQL: string(StatusNoShow),
		SlotOpenSQL: SlotOpen, SlotClosedSQL: SlotClosed,
		EntryWaitingSQL: EntryWaiting, EntryOfferedSQL: EntryOffered, EntryFulfilledSQL: EntryFulfilled,
	} {
		if want := SQLList([]Status{Status(st)}); "("+got+")" != want {
			t.Errorf("%s spells %s", want, got)
		}
	}
	var live []Status
	for _, st := range []string{EntryWaiting, EntryOffered, EntryAccepted, EntryDeclined, EntryExpired, EntryFulfilled, EntryCancelled, EntryLapsed} {
		if (WaitlistEntry{State: st}).Live() {
			live = append(live, Status(st))
		}
	}
	if got := SQLList(live); got != LiveEntriesSQL {
		t.Fatalf("LiveEntriesSQL = %s, but the live states spell %s", LiveEntriesSQL, got)
	}
}
