package chaos

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for reading the rows
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/slotd/slotd/booking"
)

// verify runs every check of a finished rush.
func verify(ctx context.Context, cfg Config, srv *server, r *rush, outages []outage) Report {
	var rep Report
	add := func(name string, err error) { rep.Checks = append(rep.Checks, Check{name, err}) }
	all := r.log.all()
	rep.Requests = len(all)

	srv.mu.Lock()
	unexpected := append([]string(nil), srv.unexpected...)
	srv.mu.Unlock()
	add(fmt.Sprintf("the server exited only when killed (%d kills)", srv.kills), list(unexpected))
	if err := srv.ensureUp(ctx); err != nil {
		add("the server restarts for the checks", err)
		return rep
	}
	add("every answer is one a correct server gives", list(r.odd))
	add(fmt.Sprintf("every 5xx of the %d requests is a 503 with Retry-After", len(all)), only503(all))

	// No confirmation lost.
	r.mu.Lock()
	confirmed := append([]*confirmed(nil), r.confirmed...)
	r.mu.Unlock()
	rep.Confirmed = len(confirmed)
	var lost, replays []string
	for _, c := range confirmed {
		a := r.send(0, "verify", &slotRun{id: c.slot}, patient{c.patient, c.token}, "GET", fmt.Sprintf("/api/appointments/%d", c.appointment), "", nil)
		want := "BOOKED"
		if c.cancelled {
			want = "CANCELLED"
		}
		if a.Status != http.StatusOK || a.Code != want && !(c.uncertain && a.Code == "CANCELLED") {
			lost = append(lost, fmt.Sprintf("appointment %d: %d %s, want %s", c.appointment, a.Status, a.Code, want))
		}
		a = r.send(0, "verify", &slotRun{id: c.slot}, patient{c.patient, c.token}, "POST", "/api/appointments", c.key, map[string]any{"slotId": c.slot})
		if a.Status != http.StatusOK || a.Appointment != c.appointment {
			replays = append(replays, fmt.Sprintf("key %s: %d %s appointment %d, want 200 appointment %d", c.key, a.Status, a.Code, a.Appointment, c.appointment))
		}
	}
	rep.Lost = len(lost)
	add(fmt.Sprintf("each of the %d appointments answered 2xx exists, active unless its client cancelled it", len(confirmed)), list(lost))
	add(fmt.Sprintf("a retry of each of the %d confirmed keys after the restarts returns the same appointment", len(confirmed)), list(replays))

	checkDatabase(ctx, cfg, add)

	// Linearizability, slot by slot.
	var mu sync.Mutex
	var wg sync.WaitGroup
	var bad []string
	for _, sl := range r.slots {
		rep.Histories++
		rep.Operations += sl.history.Len()
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := sl.history.DropFullDuringCancel()
			mu.Lock()
			rep.StaleFull += n
			mu.Unlock()
			if err := sl.history.Check(); err != nil {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("slot %d: %v", sl.id, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	add(fmt.Sprintf("every slot's history is linearizable (%d histories, %d operations; %d slot-full answers concurrent with a cancel left out)",
		rep.Histories, rep.Operations-rep.StaleFull, rep.StaleFull), list(bad))

	for _, o := range outages {
		checkOutage(cfg, o, all, add)
	}
	return rep
}

// checkDatabase checks the rows (capacities, nobody twice, queue numbers,
// counters) and runs slotd reconcile.
func checkDatabase(ctx context.Context, cfg Config, add func(string, error)) {
	rows, err := readRows(ctx, cfg.DB)
	if err != nil {
		add("the rows can be read", err)
	} else {
		over, twice, numbers, counters := rows.check()
		add(fmt.Sprintf("no slot over capacity (%d slots)", len(rows.slots)), list(over))
		add("nobody twice in a slot", list(twice))
		add("queue numbers unique in each slot", list(numbers))
		add("every slot's counter equals its active rows", list(counters))
	}
	rec := exec.CommandContext(ctx, cfg.Binary, "reconcile", "--db", cfg.DB)
	rec.Env = append(os.Environ(), "SLOTD_DATA_KEYS="+cfg.DataKeys)
	out, err := rec.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	add("slotd reconcile is clean", err)

}

// checkOutage checks the answers to the requests sent while the database
// was away, and the recovery after it returned.
func checkOutage(cfg Config, o outage, all []attempt, add func(string, error)) {
	var during []attempt
	var first time.Time
	for _, a := range all {
		if !a.Start.Before(o.from) && a.Start.Before(o.to) {
			during = append(during, a)
		}
		if a.Status >= 200 && a.Status < 300 && !a.End.Before(o.to) && (first.IsZero() || a.End.Before(first)) {
			first = a.End
		}
	}
	name := "database " + o.name
	var five00 []string
	for _, a := range during {
		if a.Status == http.StatusInternalServerError {
			five00 = append(five00, describe(a))
		}
	}
	add(fmt.Sprintf("%s: no 500 among %d requests", name, len(during)), list(five00))
	add(name+": every 5xx is a 503 with Retry-After", only503(during))
	limit := cfg.DBTimeout + cfg.Margin
	var late []string
	for _, a := range during {
		if d := a.End.Sub(a.Start); d > limit {
			late = append(late, fmt.Sprintf("%s after %v", describe(a), d.Round(time.Millisecond)))
		}
	}
	add(fmt.Sprintf("%s: every answer within --db-timeout %v + %v", name, cfg.DBTimeout, cfg.Margin), list(late))
	var err error
	switch {
	case first.IsZero():
		err = errors.New("no success after the database returned")
	case first.Sub(o.to) > cfg.Recovery:
		err = fmt.Errorf("the first success came %v after the database returned", first.Sub(o.to).Round(time.Millisecond))
	}
	add(fmt.Sprintf("%s: first success within %v of the database returning", name, cfg.Recovery), err)
}

func only503(as []attempt) error {
	var bad []string
	for _, a := range as {
		if a.Status >= 500 && (a.Status != http.StatusServiceUnavailable || a.RetryAfter == "") {
			bad = append(bad, describe(a))
		}
	}
	return list(bad)
}

func describe(a attempt) string {
	s := fmt.Sprintf("%s slot %d → %d %s", a.Kind, a.Slot, a.Status, a.Code)
	if a.Status == http.StatusServiceUnavailable && a.RetryAfter == "" {
		s += " without Retry-After"
	}
	return s
}

// list is nil for no problems, else an error naming the first few.
func list(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	shown := problems[:min(len(problems), 5)]
	more := ""
	if len(problems) > len(shown) {
		more = fmt.Sprintf(" … and %d more", len(problems)-len(shown))
	}
	return fmt.Errorf("%d: %s%s", len(problems), strings.Join(shown, "; "), more)
}

// rows are the slots and active appointments as the database has them.
type rows struct {
	slots  map[int64][2]int // id → capacity, booked_count
	active []activeRow
}

type activeRow struct{ id, slot, patient, queue int64 }

func readRows(ctx context.Context, dbURL string) (rows, error) {
	driver, dsn := "pgx", dbURL
	if path, ok := strings.CutPrefix(dbURL, "sqlite:"); ok {
		driver, dsn = "sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return rows{}, err
	}
	defer db.Close()
	out := rows{slots: map[int64][2]int{}}
	rs, err := db.QueryContext(ctx, `SELECT id, capacity, booked_count FROM slots`)
	if err != nil {
		return rows{}, err
	}
	for rs.Next() {
		var id int64
		var c, b int
		if err := rs.Scan(&id, &c, &b); err != nil {
			rs.Close()
			return rows{}, err
		}
		out.slots[id] = [2]int{c, b}
	}
	rs.Close()
	rs, err = db.QueryContext(ctx, `SELECT id, slot_id, patient_id, queue_no FROM appointments WHERE status IN `+booking.ActiveSQL)
	if err != nil {
		return rows{}, err
	}
	defer rs.Close()
	for rs.Next() {
		var a activeRow
		if err := rs.Scan(&a.id, &a.slot, &a.patient, &a.queue); err != nil {
			return rows{}, err
		}
		out.active = append(out.active, a)
	}
	return out, rs.Err()
}

func (r rows) check() (over, twice, numbers, counters []string) {
	perSlot := map[int64]int{}
	patients := map[[2]int64]int64{}
	queues := map[[2]int64]int64{}
	for _, a := range r.active {
		perSlot[a.slot]++
		if other, dup := patients[[2]int64{a.slot, a.patient}]; dup {
			twice = append(twice, fmt.Sprintf("patient %d holds slot %d twice (appointments %d and %d)", a.patient, a.slot, other, a.id))
		}
		patients[[2]int64{a.slot, a.patient}] = a.id
		if other, dup := queues[[2]int64{a.slot, a.queue}]; dup {
			numbers = append(numbers, fmt.Sprintf("queue number %d given twice in slot %d (appointments %d and %d)", a.queue, a.slot, other, a.id))
		}
		queues[[2]int64{a.slot, a.queue}] = a.id
	}
	for id, s := range r.slots {
		if s[1] > s[0] || perSlot[id] > s[0] {
			over = append(over, fmt.Sprintf("slot %d: capacity %d, counter %d, %d active", id, s[0], s[1], perSlot[id]))
		}
		if s[1] != perSlot[id] {
			counters = append(counters, fmt.Sprintf("slot %d: counter %d, %d active", id, s[1], perSlot[id]))
		}
	}
	return over, twice, numbers, counters
}
