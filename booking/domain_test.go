package booking

import "testing"

// ActiveSQL is a constant so that the stores' queries stay constants; it
// must spell ActiveStatuses, which Active and the transition table use.
func TestActiveSQLIsActiveStatuses(t *testing.T) {
	if got := SQLList(ActiveStatuses); got != ActiveSQL {
		t.Fatalf("ActiveSQL = %s, but ActiveStatuses spell %s", ActiveSQL, got)
	}
	for _, s := range Statuses {
		if !s.Valid() {
			t.Fatalf("%s is not in the transition table", s)
		}
	}
	if len(Statuses) != len(transitions) {
		t.Fatalf("Statuses has %d states, the transition table %d", len(Statuses), len(transitions))
	}
	n := 0
	for s := range transitions {
		if s.Active() {
			n++
		}
	}
	if n != len(ActiveStatuses) {
		t.Fatalf("%d active states in the transition table, %d in ActiveStatuses", n, len(ActiveStatuses))
	}
}
