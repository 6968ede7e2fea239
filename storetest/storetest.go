// Package storetest is the conformance suite every booking.Store runs:
// the same semantics, races and invariants on PostgreSQL and SQLite.
package storetest

import (
	"testing"

	"github.com/slotd/slotd/booking"
)

// Harness gives the suite stores to test.
type Harness struct {
	// New returns a store on a fresh, empty, migrated database of its own;
	// it registers its own cleanup with t.
	New func(t testing.TB) booking.Store
	// Inspect returns a checker that reads rows directly, bypassing the
	// Store interface, for invariant checks after a run.
	Inspect func(t testing.TB, s booking.Store) Inspector
}

// Inspector reads the raw rows of a store for invariant checks.
type Inspector interface {
	// Slots returns id → (capacity, booked_count) for every slot.
	SlotCounters(t testing.TB) map[int64][2]int
	// ActiveAppointments returns every HELD or BOOKED appointment.
	ActiveAppointments(t testing.TB) []booking.Appointment
	// Exec runs raw SQL (e.g. to corrupt a counter on purpose in a test).
	Exec(t testing.TB, sql string, args ...any)
}

// Run runs the whole suite against h.
func Run(t *testing.T, h Harness) {
	t.Helper()
	t.Run("Catalog", func(t *testing.T) { t.Parallel(); testCatalog(t, h) })
}

func testCatalog(t *testing.T, h Harness) {
	s := h.New(t)
	_ = s
}
