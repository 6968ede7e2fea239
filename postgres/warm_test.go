package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
)

// warmed are the statements an opening's first batch would otherwise
// prepare and plan on its connection: each must be prepared, with its
// generic plan built, on every connection of a warm pool.
var warmed = map[string]string{
	"sqlLockSlot": sqlLockSlot, "sqlByKeys": sqlByKeys, "sqlActiveOverlapping": sqlActiveOverlapping,
	"sqlTopQueue": sqlTopQueue, "sqlSlotStaleHolds": sqlSlotStaleHolds, "sqlPatientLoad": sqlPatientLoad,
	"sqlWaiting": sqlWaiting, "sqlTakenIfHoles": sqlTakenIfHoles, "sqlNewIDs": sqlNewIDs,
	"sqlBookPolicy": sqlBookPolicy, "sqlTake": sqlTake, "sqlByKeysOrHolding": sqlByKeysOrHolding,
	"sqlInsertAudit": sqlInsertAudit, "sqlGetSlot": sqlGetSlot, "the outbox statement": warmOutboxSQL,
}

// warmOutboxSQL stands in for Options.OutboxStatement's job row (package
// jobs writes River's), which the warm-up runs too.
const warmOutboxSQL = `SELECT count(*) FROM audit_log WHERE actor_id = $1`

func warmOutbox([]booking.Notification) (string, []any, error) {
	return warmOutboxSQL, []any{"warm"}, nil
}

// TestWarmPoolPreparesTheBookingStatements: with WarmConns, Open returns
// with that many connections established, each with the booking batch's
// statements prepared and generically planned, and the pool still books;
// without, one connection (the ping's) and nothing prepared.
func TestWarmPoolPreparesTheBookingStatements(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	keys := pii.New()
	must(t, MigrateKeys(ctx, dsn, keys))
	open := func(warm int32) *Store {
		s, err := Open(ctx, dsn, Options{Keys: keys, MaxConns: 6, WarmConns: warm, OutboxStatement: warmOutbox})
		must(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	// prepared maps each warmed statement's name to its generic plans on
	// every idle connection of s.
	prepared := func(s *Store) (conns int, plans []map[string]int64) {
		idle := s.pool.AcquireAllIdle(ctx)
		defer func() {
			for _, c := range idle {
				c.Release()
			}
		}()
		for _, c := range idle {
			got := map[string]int64{}
			for name, q := range warmed {
				var n int64
				err := c.QueryRow(ctx, `SELECT coalesce(max(generic_plans), -1) FROM pg_prepared_statements WHERE statement = $1`, q).Scan(&n)
				must(t, err)
				got[name] = n
			}
			plans = append(plans, got)
		}
		return len(idle), plans
	}

	warm := open(4)
	// The pool's own MinConns filling may race Open's acquires to one more.
	if n := warm.pool.Stat().TotalConns(); n < 4 {
		t.Fatalf("a pool warmed with 4 holds %d connections after Open", n)
	}
	n, plans := prepared(warm)
	if n < 4 {
		t.Fatalf("%d idle connections, want at least 4", n)
	}
	for i, got := range plans {
		for name, p := range got {
			if p < 1 {
				t.Errorf("connection %d: %s not prepared with a generic plan (generic_plans %d)", i, name, p)
			}
		}
	}

	cold := open(0)
	if n := cold.pool.Stat().TotalConns(); n != 1 {
		t.Errorf("a cold pool holds %d connections after Open, want 1 (the ping's)", n)
	}
	_, plans = prepared(cold)
	for _, got := range plans {
		for name, p := range got {
			if p >= 0 {
				t.Errorf("cold pool: %s prepared before any booking", name)
			}
		}
	}

	// A warmed connection books as a cold one does.
	f := &fix{t: t, s: warm, ctx: ctx}
	d, err := warm.CreateDepartment(ctx, booking.Department{Name: "Warm"})
	must(t, err)
	f.doc[0], err = warm.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Warm", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	sl := f.slot(1)
	ps := f.patients(2)
	res, err := warm.Book(ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "w0"), rq(ps[1], sl.ID, "w1")}, testNow)
	must(t, err)
	if res[0].Err != nil || res[1].Err == nil {
		t.Errorf("on a warm pool, two requests for one place: %v, %v; want one booking and one refusal", res[0].Err, res[1].Err)
	}
	if got := warm.pool.Stat().TotalConns(); got < 4 {
		t.Errorf("after a booking the warm pool holds %d connections, want at least 4", got)
	}
}

// BenchmarkOpeningFirstBatches: an opening's first batches on a fresh
// pool, cold and warm (Options.WarmConns): each iteration opens a store
// of 20 connections and books 20 new slots at once, one request each, and
// reports the first and the last answer's latency (first-ms, last-ms).
// `scripts/test -race=false -run '^$' -bench OpeningFirstBatches -benchtime 5x ./postgres/`.
func BenchmarkOpeningFirstBatches(b *testing.B) {
	for _, c := range []struct {
		name string
		warm int32
	}{{"cold", 0}, {"warm", openingSlots}} {
		b.Run(c.name, func(b *testing.B) { benchOpening(b, c.warm) })
	}
}

const openingSlots = 20

func benchOpening(b *testing.B, warm int32) {
	ctx := context.Background()
	dsn := pgtest.DSN(b)
	keys := pii.New()
	must(b, MigrateKeys(ctx, dsn, keys))
	setup, err := Open(ctx, dsn, Options{Keys: keys})
	must(b, err)
	defer setup.Close()
	f := &fix{t: b, s: setup, ctx: ctx}
	d, err := setup.CreateDepartment(ctx, booking.Department{Name: "Opening"})
	must(b, err)
	f.doc[0], err = setup.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Opening", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	must(b, err)
	var first, last time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s, err := Open(ctx, dsn, Options{Keys: keys, MaxConns: openingSlots, WarmConns: warm})
		must(b, err)
		sls := make([]booking.Slot, openingSlots)
		for i := range sls {
			sls[i] = f.slot(1)
		}
		ps := f.patients(openingSlots)
		ds := make([]time.Duration, openingSlots)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range openingSlots {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				_, err := s.Book(ctx, sls[i].ID, []booking.BookRequest{rq(ps[i], sls[i].ID, fmt.Sprint("o", ps[i].ID))}, testNow)
				ds[i] = time.Since(t0)
				must(b, err)
			})
		}
		b.StartTimer()
		close(start)
		wg.Wait()
		b.StopTimer()
		first += slices.Min(ds)
		last += slices.Max(ds)
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "first-ms")
	b.ReportMetric(float64(last.Microseconds())/1000/float64(b.N), "last-ms")
}
