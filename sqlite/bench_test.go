package sqlite

import (
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/storetest"
)

// BenchmarkBook: `scripts/test -race=false -run '^$' -bench Book ./sqlite/`
// (or make bench).
func BenchmarkBook(b *testing.B) {
	storetest.Bench(b, func(t testing.TB) booking.Store { return newStore(t) })
}

// BenchmarkListDay: SLOTD_BENCH_DOCTORS=2000 for the source scale.
func BenchmarkListDay(b *testing.B) {
	storetest.BenchListDay(b, func(t testing.TB) booking.Store { return newStore(t) })
}

// BenchmarkEligibility: a booking's cost with a campaign's rule off and on,
// `go test -run '^$' -bench Eligibility -benchtime 2000x ./sqlite/`.
func BenchmarkEligibility(b *testing.B) {
	storetest.BenchEligibility(b, func(t testing.TB) booking.Store { return newStore(t) })
}

// BenchmarkServiceEligibility: a visit's cost with its service's rule off
// and on, `scripts/test -race=false -run '^$' -bench ServiceEligibility -benchtime 500x ./sqlite/`.
func BenchmarkServiceEligibility(b *testing.B) {
	storetest.BenchServiceEligibility(b, func(t testing.TB) booking.Store { return newStore(t) })
}

// BenchmarkListingRules: the personal part of a slot listing (16 slots),
// `go test -run '^$' -bench ListingRules -benchtime 2000x`.
func BenchmarkListingRules(b *testing.B) {
	storetest.BenchListingRules(b, func(t testing.TB) booking.Store { return newStore(t) })
}
