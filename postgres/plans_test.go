package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestBatchReadsProbeWhateverTheStatistics: the read pipeline of a booking
// batch (and the refusals' key look-up) touches rows in proportion to the batch, not to the slot, even
// with the plans a connection caches from statistics taken when the table
// was nearly empty (a fresh database at its first rush), or with none.
// Autovacuum is kept off the table, the statistics are taken after a few
// bookings (or never), the slot is filled to 2,000 places, and each read
// is run as the generic plan a pooled connection would keep. Written as
// joins (the overlap check, the key look-up) or as max(queue_no), these
// reads scanned every appointment of the slot.
func TestBatchReadsProbeWhateverTheStatistics(t *testing.T) {
	t.Run("analyzed-nearly-empty", func(t *testing.T) { testBatchReadsProbe(t, true) })
	t.Run("never-analyzed", func(t *testing.T) { testBatchReadsProbe(t, false) })
}

func testBatchReadsProbe(t *testing.T, analyze bool) {
	f := newFix(t)
	ctx := f.ctx
	const filled, batch = 2000, 20
	sl := f.slot(filled + batch)
	ps := f.patients(filled + batch)
	book := func(from, to int) {
		reqs := make([]booking.BookRequest, 0, to-from)
		for _, p := range ps[from:to] {
			reqs = append(reqs, rq(p, sl.ID, fmt.Sprint("k", p.ID)))
		}
		res, err := f.s.Book(ctx, sl.ID, reqs, testNow)
		must(t, err)
		for _, r := range res {
			must(t, r.Err)
		}
	}
	_, err := f.s.pool.Exec(ctx, `ALTER TABLE appointments SET (autovacuum_enabled = false)`)
	must(t, err)
	book(0, 5)
	if analyze {
		_, err = f.s.pool.Exec(ctx, `ANALYZE appointments, patients, slots`)
		must(t, err)
	}
	for i := 5; i < filled; i += 100 {
		book(i, min(i+100, filled))
	}

	c, err := f.s.pool.Acquire(ctx)
	must(t, err)
	defer c.Release()
	_, err = c.Exec(ctx, `SET plan_cache_mode = force_generic_plan`)
	must(t, err)

	patients, keys := make([]string, batch), make([]string, batch)
	for i, p := range ps[filled:] {
		patients[i], keys[i] = fmt.Sprint(p.ID), fmt.Sprintf(`"k%d"`, p.ID)
	}
	slotArg := fmt.Sprint(sl.ID)
	slotsArg := "'{" + strings.Repeat(slotArg+",", batch-1) + slotArg + "}'"
	patientsArg := "'{" + strings.Join(patients, ",") + "}'"
	keysArg := "'{" + strings.Join(keys, ",") + "}'"
	nowArg := "'" + testNow.Format(time.RFC3339) + "'::timestamptz"
	since := "'" + testNow.Add(-booking.NoShowWindow).Format(time.RFC3339) + "'::timestamptz"
	reads := []struct {
		name, sql string
		args      []string
	}{
		{"sqlByKeys", sqlByKeys, []string{patientsArg, keysArg}},
		{"sqlActiveOverlapping", sqlActiveOverlapping, []string{slotArg, patientsArg}},
		{"sqlTopQueue", sqlTopQueue, []string{slotArg}},
		{"sqlSlotStaleHolds", sqlSlotStaleHolds, []string{slotArg, nowArg}},
		{"sqlPatientLoad", sqlPatientLoad, []string{slotArg, patientsArg, since}},
		{"sqlTakenIfHoles", sqlTakenIfHoles, []string{slotArg, nowArg}},
		{"sqlNewIDs", sqlNewIDs, []string{slotArg, fmt.Sprint(batch), nowArg}},
		// The gates' refusals' look-up, outside the batch, is planned alike.
		{"sqlByKeysOrHolding", sqlByKeysOrHolding, []string{patientsArg, keysArg, slotsArg}},
	}
	for i, r := range reads {
		name := fmt.Sprintf("read%d", i)
		_, err := c.Exec(ctx, "PREPARE "+name+" AS "+r.sql)
		must(t, err)
		var out []byte
		q := fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE %s(%s)", name, strings.Join(r.args, ", "))
		must(t, c.QueryRow(ctx, q).Scan(&out))
		var plans []struct{ Plan planNode }
		must(t, json.Unmarshal(out, &plans))
		if n := plans[0].Plan.appointmentRows(); n > 5*batch {
			t.Errorf("%s read %.0f appointment rows for a batch of %d in a slot of %d; plan:\n%s", r.name, n, batch, filled, out)
		}
	}
}

// planNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	Rows      float64    `json:"Actual Rows"`
	Loops     float64    `json:"Actual Loops"`
	Filtered  float64    `json:"Rows Removed by Filter"`
	Rechecked float64    `json:"Rows Removed by Index Recheck"`
	Plans     []planNode `json:"Plans"`
}

// appointmentRows counts the rows that the plan's scans of appointments
// (the table or its indexes) produced or filtered out, over all loops.
func (n planNode) appointmentRows() float64 {
	var sum float64
	if n.Relation == "appointments" || strings.HasPrefix(n.Index, "appointments_") {
		sum += (n.Rows + n.Filtered + n.Rechecked) * n.Loops
	}
	for _, c := range n.Plans {
		sum += c.appointmentRows()
	}
	return sum
}
