package jobs

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/service"
)

// TestRowsPerBooking counts, on PostgreSQL, the rows a booking batch and
// the delivery of its confirmations write, table by table
// (pg_stat_user_tables: inserts, updates and deletes) and the index
// entries they add (each inserted row, and each update that is not HOT,
// once per index of its table), divided by the batch's bookings. The
// notifier is the Deliveries record of production (cmd/slotd serve), and
// the domain events are on, as with a broker: they are the audit rows, so
// the booking writes its appointment, its audit row and its share of the
// batch's job row, and nothing else; the delivery, each message's record.
// docs/performance.md quotes its log.
func TestRowsPerBooking(t *testing.T) {
	const batch = 20
	dsn := pgtest.DSN(t)
	keys := pii.New()
	must(t, postgres.MigrateKeys(context.Background(), dsn, keys))
	out := new(Outbox[pgx.Tx])
	s, err := postgres.Open(context.Background(), dsn, postgres.Options{Keys: keys, Enqueue: out.Enqueue, OutboxStatement: OutboxStatement, Events: true})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	outboxes.Store(booking.Store(s), out)
	must(t, s.MigrateRiver(context.Background()))
	f := newFixture(t, s)
	ps := make([]booking.Patient, batch)
	for i := range ps {
		ps[i] = f.patient()
	}
	sl := f.slot(batch, 0)
	svc := svcAt(s, clock(t0))
	rec := &recorder{}
	// The periodic jobs run at start, before the count begins, and not
	// again within it (the no-show and reminder passes, every minute, may:
	// their job rows are counted apart below).
	r := runner(t, s, Config{Service: svc, Notifier: svc.Deliveries(service.DeliveriesOptions{Notifier: rec}),
		ExpiryInterval: time.Hour, ReconcileInterval: time.Hour, GenerateInterval: time.Hour}, true)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	must(t, err)
	defer conn.Close(ctx)
	type counts struct{ ins, upd, hot, del, indexes int64 }
	// The statistics reach pg_stat_user_tables when each backend flushes
	// them, within its idle interval (10 s).
	snapshot := func() map[string]counts {
		time.Sleep(11 * time.Second)
		rows, _ := conn.Query(ctx, `SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,
			    (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid)
			FROM pg_stat_user_tables t`)
		m := map[string]counts{}
		var name string
		var c counts
		_, err := pgx.ForEachRow(rows, []any{&name, &c.ins, &c.upd, &c.hot, &c.del, &c.indexes}, func() error { m[name] = c; return nil })
		must(t, err)
		return m
	}
	var jobsBefore int
	must(t, conn.QueryRow(ctx, `SELECT count(*) FROM river_job`).Scan(&jobsBefore))
	before := snapshot()
	f.book(sl.ID, t0, ps...)
	eventually(t, "the confirmations", 60*time.Second, func() bool { return len(rec.messages()) >= batch })
	drained(t, r)
	delivered := snapshot()
	var jobsAfter int
	must(t, conn.QueryRow(ctx, `SELECT count(*) FROM river_job`).Scan(&jobsAfter))
	var notifyJobs int
	must(t, conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind LIKE 'slotd.notify%'`).Scan(&notifyJobs))
	t.Logf("river_job rows: %d new, %d of them notification jobs (each also fetched and completed: 2 updates)", jobsAfter-jobsBefore, notifyJobs)
	if notifyJobs != 1 {
		t.Errorf("%d notification jobs for one batch, want 1 (no job per message)", notifyJobs)
	}

	report := func(what string, from, to map[string]counts) (rows, entries float64) {
		var lines []string
		for name, c := range to {
			b := from[name]
			ins, upd, hot, del := c.ins-b.ins, c.upd-b.upd, c.hot-b.hot, c.del-b.del
			if ins+upd+del == 0 {
				continue
			}
			idx := (ins + upd - hot) * c.indexes
			rows += float64(ins+upd+del) / batch
			entries += float64(idx) / batch
			lines = append(lines, fmt.Sprintf("  %-22s ins %5.2f  upd %5.2f  del %5.2f  index entries %5.2f",
				name, float64(ins)/batch, float64(upd)/batch, float64(del)/batch, float64(idx)/batch))
		}
		sort.Strings(lines)
		t.Logf("%s, per booking (batch of %d):\n%s\n  total rows written %.2f, index entries %.2f", what, batch, strings.Join(lines, "\n"), rows, entries)
		return rows, entries
	}
	report("booking and delivery", before, delivered)
	for name, want := range map[string]int64{"appointments": batch, "audit_log": batch, "outbox_events": 0, "messages": batch} {
		if got := delivered[name].ins - before[name].ins; got != want {
			t.Errorf("%s: %d rows inserted for %d bookings, want %d", name, got, batch, want)
		}
	}
	// A confirmation's delivery writes its record once, when it went: no
	// claim before it to update.
	if got := delivered["messages"].upd - before["messages"].upd; got != 0 {
		t.Errorf("messages: %d rows updated for %d confirmations delivered, want none", got, batch)
	}
}
