package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
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
	t.Run("analyzed-nearly-empty", func(t *testing.T) { testBatchReadsProbe(t, statsAnalyzed) })
	t.Run("never-analyzed", func(t *testing.T) { testBatchReadsProbe(t, statsNever) })
	t.Run("planned-empty", func(t *testing.T) { testBatchReadsProbe(t, statsPlannedEmpty) })
}

// The statistics a connection's generic plans are made from.
const (
	statsAnalyzed     = iota // ANALYZE after a few bookings, planned after the fill
	statsNever               // never analyzed, planned after the fill
	statsPlannedEmpty        // planned before any booking, as the warm pool does on a new database
)

func testBatchReadsProbe(t *testing.T, stats int) {
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
	c := genericConn(t, f)

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
		{"sqlQuotaUse", sqlQuotaUse, []string{slotArg, patientsArg}},
		{"sqlTurns", sqlTurns, []string{slotArg, patientsArg}},
		{"sqlBookPolicy", sqlBookPolicy, []string{slotArg}},
		{"sqlWaiting", sqlWaiting, []string{slotArg, patientsArg}},
		// The gates' refusals' look-up, outside the batch, is planned alike.
		{"sqlByKeysOrHolding", sqlByKeysOrHolding, []string{patientsArg, keysArg, slotsArg}},
		// A patient's overlap, outside the booking batch (reschedule): a
		// patient-led probe too, now through appointments_no_overlap.
		{"sqlRescheduleConflicts", sqlRescheduleConflicts, []string{slotArg, patients[0], "0"}},
	}
	// The reads of a patient's active ordinary appointments probe an index
	// led by the patient: appointments_patient_active_idx or the exclusion
	// constraint's GiST index. With only the GiST index, plans made on an
	// empty table probed appointments_slot_patient_active by its second
	// column instead: every entry of the index, which no row count shows.
	patientLed := map[string]bool{"sqlActiveOverlapping": true, "sqlPatientLoad": true, "sqlRescheduleConflicts": true}
	prepare := func() {
		for i, r := range reads {
			name := fmt.Sprintf("read%d", i)
			_, err := c.Exec(ctx, "PREPARE "+name+" AS "+r.sql)
			must(t, err)
			// The first execution makes the generic plan the
			// connection keeps.
			_, err = c.Exec(ctx, fmt.Sprintf("EXPLAIN EXECUTE %s(%s)", name, strings.Join(r.args, ", ")))
			must(t, err)
		}
	}
	if stats == statsPlannedEmpty {
		prepare()
	}
	leading := map[string]string{}
	for _, table := range []string{"appointments", "patients", "slots", "round_quotas", "round_registrations", "waitlist_entries", "openings", "eligibility_rules"} {
		maps.Copy(leading, indexLeads(t, c.Conn(), table))
	}
	book(0, 5)
	if stats == statsAnalyzed {
		_, err := f.s.pool.Exec(ctx, `ANALYZE appointments, patients, slots`)
		must(t, err)
	}
	for i := 5; i < filled; i += 100 {
		book(i, min(i+100, filled))
	}
	if stats != statsPlannedEmpty {
		prepare()
	}
	for i, r := range reads {
		name := fmt.Sprintf("read%d", i)
		var out []byte
		q := fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE %s(%s)", name, strings.Join(r.args, ", "))
		must(t, c.QueryRow(ctx, q).Scan(&out))
		var plans []struct{ Plan planNode }
		must(t, json.Unmarshal(out, &plans))
		if n := plans[0].Plan.rowsRead(); n > 5*batch {
			t.Errorf("%s read %.0f appointment and patient rows for a batch of %d in a slot of %d; plan:\n%s", r.name, n, batch, filled, out)
		}
		if p := plans[0].Plan; patientLed[r.name] && !p.uses("appointments_patient_active_idx") && !p.uses("appointments_no_overlap") {
			t.Errorf("%s does not probe an index led by the patient; plan:\n%s", r.name, out)
		}
		if bad := plans[0].Plan.unledScans(leading); len(bad) > 0 {
			t.Errorf("%s scans %s without its leading column: the whole index; plan:\n%s", r.name, strings.Join(bad, ", "), out)
		}
	}
}

// TestPatientListsProbe: a patient's list and an account's (with its
// people) read those patients' appointments through an index led by the
// patient, in proportion to what they answer, not the whole table newest
// first until the page is full, whatever statistics the connection's
// generic plan was made from. A patient with a few appointments in a table
// of thousands is every patient's usual case.
func TestPatientListsProbe(t *testing.T) {
	t.Run("analyzed-nearly-empty", func(t *testing.T) { testPatientListsProbe(t, statsAnalyzed) })
	t.Run("never-analyzed", func(t *testing.T) { testPatientListsProbe(t, statsNever) })
	t.Run("planned-empty", func(t *testing.T) { testPatientListsProbe(t, statsPlannedEmpty) })
}

func testPatientListsProbe(t *testing.T, stats int) {
	f := newFix(t)
	ctx := f.ctx
	const filled, own = 2000, 3
	crowd := f.slot(filled)
	ps := f.patients(filled)
	account := ps[0]
	consent := testNow
	child, err := f.s.AddPerson(ctx, booking.Patient{Name: "C", ManagerID: account.ID, Relation: booking.RelationChild, BirthDate: "2015-03-02", ConsentAt: &consent}, 5)
	must(t, err)
	bookIn := func(sl booking.Slot, who []booking.Patient) {
		reqs := make([]booking.BookRequest, len(who))
		for i, p := range who {
			reqs[i] = rq(p, sl.ID, fmt.Sprint("k", sl.ID, "-", p.ID))
		}
		res, err := f.s.Book(ctx, sl.ID, reqs, testNow)
		must(t, err)
		for _, r := range res {
			must(t, r.Err)
		}
	}
	c := genericConn(t, f)

	literals := func(args []any) string {
		out := make([]string, len(args))
		for i, a := range args {
			switch v := a.(type) {
			case string:
				out[i] = "'" + v + "'"
			case []int64:
				out[i] = "'{" + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(v)), ","), "[]") + "}'::bigint[]"
			default:
				out[i] = fmt.Sprint(v)
			}
		}
		return strings.Join(out, ", ")
	}
	type list struct {
		name string
		sql  string
		args []any
	}
	of := func(name string, l listOf, q booking.AppointmentQuery) list {
		q.PatientID = account.ID
		sql, args := listSQL(l, q)
		return list{name, sql, args}
	}
	page := booking.Page{Limit: 50}
	lists := []list{
		of("a patient's", listPatient, booking.AppointmentQuery{Page: page}),
		of("a patient's, booked", listPatient, booking.AppointmentQuery{Status: booking.StatusBooked, Page: page}),
		of("a patient's, next page", listPatient, booking.AppointmentQuery{Page: booking.Page{After: 1 << 40, Limit: 50}}),
		of("a patient's, one site", listPatient, booking.AppointmentQuery{Sites: []int64{1}, Page: page}),
		of("an account's", listAccount, booking.AppointmentQuery{Page: page}),
		of("an account's, booked", listAccount, booking.AppointmentQuery{Status: booking.StatusBooked, Page: page}),
		{"an account's series bookings", sqlAccountSeriesBookings, []any{account.ID, 0, 50}},
		{"an account's people", sqlPeople, []any{account.ID, 0, 50}},
	}
	// Series bookings, written as rows: the list reads only their ids.
	var series int64
	must(t, f.s.pool.QueryRow(ctx, `INSERT INTO dose_series (name, windows, created_at) VALUES ('S', '[]', now()) RETURNING id`).Scan(&series))
	seriesOf := func(ids ...int64) {
		_, err := f.s.pool.Exec(ctx, `INSERT INTO series_bookings (series_id, patient_id, idempotency_key, fingerprint, created_at)
			SELECT $1, p, 'k' || p || '-' || g, 'f', now() FROM unnest($2::bigint[]) p, generate_series(1, $3) g`, series, ids, own)
		must(t, err)
	}
	prepare := func() {
		for i, l := range lists {
			_, err := c.Exec(ctx, fmt.Sprintf("PREPARE list%d AS %s", i, l.sql))
			must(t, err)
			_, err = c.Exec(ctx, fmt.Sprintf("EXPLAIN EXECUTE list%d(%s)", i, literals(l.args)))
			must(t, err)
		}
	}
	if stats == statsPlannedEmpty {
		prepare()
	}
	// The first patients of a new clinic: the account's own first.
	for range own {
		bookIn(f.slot(2), []booking.Patient{account, child})
	}
	seriesOf(account.ID, child.ID)
	if stats == statsAnalyzed {
		_, err = f.s.pool.Exec(ctx, `ANALYZE appointments, patients, slots, series_bookings`)
		must(t, err)
	}
	crowdIDs := make([]int64, 0, filled)
	for _, p := range ps[1:] {
		crowdIDs = append(crowdIDs, p.ID)
	}
	for i := 1; i < filled; i += 100 {
		bookIn(crowd, ps[i:min(i+100, filled)])
	}
	seriesOf(crowdIDs...)
	if stats != statsPlannedEmpty {
		prepare()
	}
	leading := map[string]string{}
	for _, table := range []string{"appointments", "patients", "slots", "series_bookings"} {
		maps.Copy(leading, indexLeads(t, c.Conn(), table))
	}
	for i, l := range lists {
		var out []byte
		q := fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE list%d(%s)", i, literals(l.args))
		must(t, c.QueryRow(ctx, q).Scan(&out))
		var plans []struct{ Plan planNode }
		must(t, json.Unmarshal(out, &plans))
		// The account's and its child's rows, and theirs in patients: a
		// few times 2 × own.
		if n := plans[0].Plan.rowsRead() + plans[0].Plan.rowsOf("series_bookings"); n > 10*own {
			t.Errorf("%s list read %.0f rows for the %d of an account and its child among thousands; plan:\n%s", l.name, n, 2*own, out)
		}
		if bad := plans[0].Plan.unledScans(leading); len(bad) > 0 {
			t.Errorf("%s list scans %s without its leading column: the whole index; plan:\n%s", l.name, strings.Join(bad, ", "), out)
		}
	}
}

// genericConn is a pooled connection that runs its prepared statements'
// generic plans, as a pool keeps them, with autovacuum kept off
// appointments so that its statistics stay those the test chose.
func genericConn(t *testing.T, f *fix) *pgxpool.Conn {
	_, err := f.s.pool.Exec(f.ctx, `ALTER TABLE appointments SET (autovacuum_enabled = false)`)
	must(t, err)
	c, err := f.s.pool.Acquire(f.ctx)
	must(t, err)
	t.Cleanup(c.Release) // before the pool closes
	_, err = c.Exec(f.ctx, `SET plan_cache_mode = force_generic_plan`)
	must(t, err)
	return c
}

// appointmentIndexes is the reviewed index set of appointments on
// PostgreSQL, each with the read or the promise that needs it (the table
// of docs/stores.md, "The appointments' indexes"). An index added or
// dropped fails TestAppointmentsIndexesAreTheReviewedSet until it is
// reviewed here and there; a read that needed a dropped index fails
// TestBatchReadsProbeWhateverTheStatistics, which bounds the rows each
// booking read touches.
var appointmentIndexes = map[string]string{
	"appointments_pkey":                "every read by id (GetAppointment, the batch's joins of the key look-ups)",
	"appointments_patient_key_key":     "the promise of one appointment per (patient, key); sqlByKeys, sqlByKeysOrHolding, a patient's list",
	"appointments_no_overlap":          "the promise of no overlap (exclusion)",
	"appointments_patient_active_idx":  "a patient's active ordinary appointments: sqlActiveOverlapping, sqlPatientLoad, reschedule, waitlist (without it, plans made on an empty table scan appointments_slot_patient_active by its second column)",
	"appointments_slot_patient_active": "the promise of one place per patient and slot; a slot's active appointments (RoundResults, the boards)",
	"appointments_slot_queue_active":   "the promise of one queue number per place; sqlTopQueue, sqlTakenIfHoles",
	"appointments_slot_held_idx":       "sqlSlotStaleHolds, sqlNewIDs, the reclaim (a full slot's stale holds)",
	"appointments_held_idx":            "the expiry job's stale holds, clinic-wide (sqlStaleHolds)",
	"appointments_patient_noshow_idx":  "sqlPatientLoad's no-shows since the window",
	"appointments_round_active_idx":    "reconciliation of round quotas (sqlRoundQuotaMismatches)",
	"appointments_due_idx":             "the kiosk's candidates by start, clinic-wide (ArrivalCandidates)",
	"appointments_walk_in_active":      "a slot's walk-ins (sqlWalkInReads) and their reconciliation (sqlWalkIns)",
}

// TestAppointmentsIndexesAreTheReviewedSet: the indexes of appointments
// after every migration are exactly appointmentIndexes.
func TestAppointmentsIndexesAreTheReviewedSet(t *testing.T) {
	s := newStore(t)
	rows, err := s.pool.Query(context.Background(), `SELECT indexname FROM pg_indexes WHERE tablename = 'appointments'`)
	must(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	must(t, err)
	seen := map[string]bool{}
	for _, name := range got {
		seen[name] = true
		if _, ok := appointmentIndexes[name]; !ok {
			t.Errorf("index %s on appointments is not reviewed: name the read or constraint that needs it in appointmentIndexes and docs/stores.md", name)
		}
	}
	for name := range appointmentIndexes {
		if !seen[name] {
			t.Errorf("index %s is reviewed but not on appointments", name)
		}
	}
}

// planNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	Rows      float64    `json:"Actual Rows"`
	Loops     float64    `json:"Actual Loops"`
	Filtered  float64    `json:"Rows Removed by Filter"`
	Rechecked float64    `json:"Rows Removed by Index Recheck"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// indexLeads maps each index of table to its leading column.
func indexLeads(t *testing.T, c *pgx.Conn, table string) map[string]string {
	rows, err := c.Query(context.Background(), `SELECT i.indexrelid::regclass::text, a.attname FROM pg_index i
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] WHERE i.indrelid = $1::regclass`, table)
	must(t, err)
	out := map[string]string{}
	var name, col string
	_, err = pgx.ForEachRow(rows, []any{&name, &col}, func() error { out[name] = col; return nil })
	must(t, err)
	return out
}

// unledScans lists the scans of the indexes in leading whose condition
// does not name the index's leading column: a btree then reads every
// entry, and the rows it returns do not show it.
func (n planNode) unledScans(leading map[string]string) []string {
	var out []string
	if col, ok := leading[n.Index]; ok && !strings.Contains(n.IndexCond, col) {
		out = append(out, n.Index)
	}
	for _, c := range n.Plans {
		out = append(out, c.unledScans(leading)...)
	}
	return out
}

// uses reports whether the plan scans the index named.
func (n planNode) uses(index string) bool {
	if n.Index == index {
		return true
	}
	for _, c := range n.Plans {
		if c.uses(index) {
			return true
		}
	}
	return false
}

// rowsRead counts the rows that the plan's scans of appointments
// and patients (the tables or their indexes) produced or filtered out,
// over all loops.
func (n planNode) rowsRead() float64 {
	var sum float64
	for _, t := range []string{"appointments", "patients"} {
		if n.Relation == t || strings.HasPrefix(n.Index, t+"_") {
			sum += (n.Rows + n.Filtered + n.Rechecked) * n.Loops
		}
	}
	for _, c := range n.Plans {
		sum += c.rowsRead()
	}
	return sum
}

// TestCatalogReadsProbe: first available for a service across its doctors
// (with and without a site), a department's cards' next free times, and
// the search, read slots and doctors through their indexes, in proportion
// to what they answer, whether the plan is made for the values or is the
// generic one a pooled connection keeps: no sequential scan of slots or
// of resources, and no more slot rows than the read's bound.
func TestCatalogReadsProbe(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	now := time.Now()
	if _, err := demo.Load(ctx, s, demo.Options{Doctors: 800, Days: 3, Sites: 2, Services: true, Now: now}); err != nil {
		t.Fatal(err)
	}
	_, err := s.pool.Exec(ctx, `ANALYZE`)
	must(t, err)
	services, err := s.ListServices(ctx, booking.ServiceFilter{}, booking.Page{})
	must(t, err)
	sites, err := s.ListSites(ctx, booking.Page{})
	must(t, err)
	if len(services) == 0 || len(sites) < 2 {
		t.Fatalf("demo-data made %d services and %d sites", len(services), len(sites))
	}
	doctors := services[0].DoctorIDs
	ids := make([]string, len(doctors))
	for i, id := range doctors {
		ids[i] = fmt.Sprint(id)
	}
	q := booking.OpenSlots{DoctorIDs: doctors, Limit: booking.MaxAvailabilitySlots}
	arr := "'{" + strings.Join(ids, ",") + "}'::bigint[]"
	ts := func(t time.Time) string { return "'" + t.Format(time.RFC3339) + "'::timestamptz" }
	open := func(site int64) []string {
		return []string{arr, ts(now), ts(now.Add(booking.AvailabilityWindow)), fmt.Sprint(q.Limit), fmt.Sprint(site), fmt.Sprint(q.PerDoctor())}
	}
	reads := []struct {
		name, sql string
		args      []string
		maxSlots  float64
	}{
		{"open slots, all sites", sqlOpenSlots, open(0), float64(q.Limit + len(doctors))},
		{"open slots, one site", sqlOpenSlots, open(sites[1].ID), float64(q.Limit + len(doctors))},
		{"search, a doctor's name", sqlSearch, []string{"'dr. anh'", "0", "0", "51"}, 0},
		{"search, a department", sqlSearch, []string{"'card'", "0", "0", "51"}, 0},
	}
	for _, generic := range []bool{false, true} {
		c, err := s.pool.Acquire(ctx)
		must(t, err)
		t.Cleanup(c.Release) // before the pool closes, even on a failure
		if generic {
			_, err = c.Exec(ctx, `SET plan_cache_mode = force_generic_plan`)
		} else {
			_, err = c.Exec(ctx, `SET plan_cache_mode = force_custom_plan`)
		}
		must(t, err)
		for i, r := range reads {
			name := fmt.Sprintf("catalog%d", i)
			_, err := c.Exec(ctx, "PREPARE "+name+" AS "+r.sql)
			must(t, err)
			var out []byte
			must(t, c.QueryRow(ctx, fmt.Sprintf("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE %s(%s)", name, strings.Join(r.args, ", "))).Scan(&out))
			_, err = c.Exec(ctx, "DEALLOCATE "+name)
			must(t, err)
			var plans []struct{ Plan planNode }
			must(t, json.Unmarshal(out, &plans))
			if rel := plans[0].Plan.seqScanOf("slots", "resources"); rel != "" {
				t.Errorf("%s (generic plan %v) scans %s sequentially; plan:\n%s", r.name, generic, rel, out)
			}
			if n := plans[0].Plan.rowsOf("slots"); n > r.maxSlots {
				t.Errorf("%s (generic plan %v) read %.0f slot rows, bound %.0f; plan:\n%s", r.name, generic, n, r.maxSlots, out)
			}
		}
	}
}

// seqScanOf is the first of relations the plan scans sequentially, or "".
func (n planNode) seqScanOf(relations ...string) string {
	if n.NodeType == "Seq Scan" && slices.Contains(relations, n.Relation) {
		return n.Relation
	}
	for _, c := range n.Plans {
		if r := c.seqScanOf(relations...); r != "" {
			return r
		}
	}
	return ""
}

// rowsOf counts the rows the plan's scans of relation (the table or its
// indexes) produced or filtered out, over all loops.
func (n planNode) rowsOf(relation string) float64 {
	var sum float64
	if n.Relation == relation || strings.HasPrefix(n.Index, relation+"_") {
		sum += (n.Rows + n.Filtered + n.Rechecked) * n.Loops
	}
	for _, c := range n.Plans {
		sum += c.rowsOf(relation)
	}
	return sum
}

// TestArrayStatementsPlannedOnce: the statements that take arrays of keys
// (a notification batch's reads and records, the marks re-read after a
// sign-out, a cancel's refund check) keep one generic plan on their
// connection instead of making one at each call: on a pool of one
// connection, arrays of every length from 1 to 12 (a cancel's, of one)
// make no custom plan. The plans, made on nearly empty tables
// never analyzed (a new database's first batch), probe each key's row
// through its index: none scans a table.
func TestArrayStatementsPlannedOnce(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	keys := pii.New()
	must(t, MigrateKeys(ctx, dsn, keys))
	s, err := Open(ctx, dsn, Options{Keys: keys, MaxConns: 1})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	f := &fix{t: t, s: s, ctx: ctx}
	d, err := s.CreateDepartment(ctx, booking.Department{Name: "Plans"})
	must(t, err)
	f.doc[0], err = s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Plans", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	const n = 12
	sl := f.slot(n)
	ps := f.patients(n)
	reqs := make([]booking.BookRequest, n)
	for i, p := range ps {
		reqs[i] = rq(p, sl.ID, fmt.Sprint("plan", i))
	}
	res, err := s.Book(ctx, sl.ID, reqs, testNow)
	must(t, err)
	appts, patients := make([]int64, n), make([]int64, n)
	msgKeys, attempts := make([]string, n), make([]booking.MessageAttempt, n)
	for i, r := range res {
		must(t, r.Err)
		appts[i], patients[i] = r.Appointment.ID, ps[i].ID
		key := fmt.Sprintf("appt-%d-confirmation", r.Appointment.ID)
		msgKeys[i] = key
		attempts[i] = booking.MessageAttempt{Key: key, PatientID: ps[i].ID, Kind: "confirmation", Channel: "sms",
			State: booking.MessageSent, At: testNow}
	}
	subs := make([]booking.Subject, n)
	for i, p := range ps {
		subs[i] = booking.Subject{Role: booking.RolePatient, ID: fmt.Sprint(p.ID)}
	}
	must(t, s.MoveMarks(ctx, testNow, subs...))
	for k := 1; k <= n; k++ {
		ms, err := s.MarksOf(ctx, subs[:k]...)
		must(t, err)
		if len(ms) != k {
			t.Fatalf("MarksOf %d subjects: %d marks", k, len(ms))
		}
		_, err = s.GetAppointments(ctx, appts[:k])
		must(t, err)
		_, err = s.GetPatients(ctx, patients[:k])
		must(t, err)
		_, err = s.DeliveryStates(ctx, msgKeys[:k])
		must(t, err)
		_, err = s.RecordMessages(ctx, attempts[:k])
		must(t, err)
	}
	for _, id := range appts { // each cancel checks for payments to refund
		_, err := s.Cancel(ctx, id, 0, testNow)
		must(t, err)
	}
	c, err := s.pool.Acquire(ctx)
	must(t, err)
	defer c.Release()
	_, err = c.Exec(ctx, `SET plan_cache_mode = force_generic_plan`) // EXPLAIN EXECUTE shows the kept plan
	must(t, err)
	for _, st := range []struct{ name, like, args string }{
		{"GetAppointments", "%LATERAL (SELECT * FROM appointments a WHERE a.id = k.want%", `'{1,2}'`},
		{"GetPatients", "%LATERAL (SELECT * FROM patients p WHERE p.id = k.want%", `'{1,2}'`},
		{"DeliveryStates", "%LATERAL (SELECT msg_key, state FROM messages m WHERE m.msg_key = k.want%", `'{a,b}'`},
		{"MarksOf", "%AS k(role, subject)%revocation_marks m %", `'{patient,patient}', '{1,2}'`},
		{"a cancel's refund check", "%FROM%payments%outcome = 'applied'%", `'{1,2}'`},
		{"RecordMessages' locks", "SELECT pg_advisory_xact_lock(hashtextextended('message:'%", ""},
		{"RecordMessages' read", "%LATERAL (SELECT * FROM messages m WHERE m.msg_key = k.want FOR UPDATE)%", `'{a,b}'`},
		{"RecordMessages' write", "INSERT INTO messages (msg_key, patient_id, kind, channel, state, provider_id,%", ""},
	} {
		var name string
		var generic, custom int64
		err := c.QueryRow(ctx, `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE $1`,
			st.like).Scan(&name, &generic, &custom)
		if err != nil {
			t.Errorf("%s: not prepared on the connection: %v", st.name, err)
			continue
		}
		if generic < n || custom != 0 {
			t.Errorf("%s: %d executions of its generic plan and %d custom plans, want %d and none", st.name, generic, custom, n)
		}
		if st.args == "" {
			continue // no table read
		}
		rows, err := c.Query(ctx, fmt.Sprintf("EXPLAIN EXECUTE %s(%s)", pgx.Identifier{name}.Sanitize(), st.args))
		must(t, err)
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		must(t, err)
		if text := strings.Join(plan, "\n"); strings.Contains(text, "Seq Scan on") {
			t.Errorf("%s scans a table:\n%s", st.name, text)
		}
	}
}
