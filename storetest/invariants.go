package storetest

import (
	"fmt"
	"sort"
	"testing"

	"github.com/slotd/slotd/booking"
)

// Violations checks the invariants (docs/reliability.md) from the rows and describes
// every breach; none means the store is consistent.
//  1. booked_count = number of active (HELD, BOOKED, ARRIVED) appointments ≤
//     capacity (plus the slot's walk-in allowance)
//  2. a patient holds at most one active appointment per slot
//  3. a patient's active appointments never overlap in time (room
//     allocations of rounds excepted: their round's quota governs them)
//  4. active queue numbers are unique per slot and within 1..that limit,
//     a walk-in's excepted: it lines up after the last number taken when
//     it came (booking.DecideWalkIn), which a cancel since may have left
//     above the limit
func Violations(t testing.TB, ins Inspector) []string {
	t.Helper()
	counters := ins.SlotCounters(t)
	active := ins.ActiveAppointments(t)
	var out []string

	perSlot := map[int64]int{}
	seenPatient := map[[2]int64]bool{}
	seenNumber := map[[2]int64]bool{}
	byPatient := map[int64][]booking.Appointment{}
	for _, a := range active {
		perSlot[a.SlotID]++
		pk := [2]int64{a.SlotID, a.PatientID}
		if seenPatient[pk] {
			out = append(out, fmt.Sprintf("patient %d holds slot %d twice", a.PatientID, a.SlotID))
		}
		seenPatient[pk] = true
		nk := [2]int64{a.SlotID, int64(a.QueueNumber)}
		if seenNumber[nk] {
			out = append(out, fmt.Sprintf("queue number %d given twice in slot %d", a.QueueNumber, a.SlotID))
		}
		seenNumber[nk] = true
		if c, ok := counters[a.SlotID]; ok && (a.QueueNumber < 1 || a.QueueNumber > c[0] && !a.WalkIn) {
			out = append(out, fmt.Sprintf("queue number %d outside 1..%d in slot %d", a.QueueNumber, c[0], a.SlotID))
		}
		if a.RoundID == 0 {
			byPatient[a.PatientID] = append(byPatient[a.PatientID], a)
		}
	}
	for id, c := range counters {
		if c[1] != perSlot[id] {
			out = append(out, fmt.Sprintf("slot %d: booked_count %d but %d active appointments", id, c[1], perSlot[id]))
		}
		if c[1] > c[0] || perSlot[id] > c[0] {
			out = append(out, fmt.Sprintf("slot %d over capacity: %d counted, %d active, capacity %d", id, c[1], perSlot[id], c[0]))
		}
	}
	for p, as := range byPatient {
		sort.Slice(as, func(i, j int) bool { return as[i].StartAt.Before(as[j].StartAt) })
		for i := 1; i < len(as); i++ {
			if as[i].StartAt.Before(as[i-1].EndAt) {
				out = append(out, fmt.Sprintf("patient %d: appointments %d and %d overlap", p, as[i-1].ID, as[i].ID))
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkInvariants fails the test on any invariant breach.
func checkInvariants(t testing.TB, h Harness, s booking.Store) {
	t.Helper()
	if v := Violations(t, h.Inspect(t, s)); len(v) > 0 {
		t.Fatalf("invariants broken:\n%s", join(v, 20))
	}
}

func join(lines []string, max int) string {
	out := ""
	for i, l := range lines {
		if i == max {
			return out + fmt.Sprintf("… and %d more\n", len(lines)-max)
		}
		out += l + "\n"
	}
	return out
}
