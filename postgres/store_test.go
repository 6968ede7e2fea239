package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/storetest"
)

// newStore returns a store on a fresh migrated database of its own.
func newStore(t testing.TB) *Store {
	t.Helper()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	keys := pii.New()
	if err := MigrateKeys(ctx, dsn, keys); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	s, err := Open(ctx, dsn, Options{Keys: keys})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newOutboxStore returns a store like newStore whose enqueuer writes the
// notifications into storetest_outbox with the transaction it is given, so
// that the table holds exactly the committed ones.
func newOutboxStore(t testing.TB) *Store {
	t.Helper()
	s := newStore(t)
	if _, err := s.Pool().Exec(context.Background(), `CREATE TABLE storetest_outbox (
		id bigserial PRIMARY KEY, kind text NOT NULL, appointment_id bigint NOT NULL, suspension_id bigint,
		ref text NOT NULL DEFAULT '', slot_id bigint NOT NULL DEFAULT 0, refund_id bigint NOT NULL DEFAULT 0)`); err != nil {
		t.Fatalf("create storetest_outbox: %v", err)
	}
	s.enqueue = func(ctx context.Context, tx pgx.Tx, ns []booking.Notification) error {
		if len(ns) == 0 {
			t.Errorf("the enqueuer was called with nothing to enqueue")
			return nil
		}
		_, err := tx.Exec(ctx, sqlTestOutbox, testOutboxArgs(ns)...)
		return err
	}
	// Book sends its notifications as a statement in its commit pipeline.
	s.outboxStmt = func(ns []booking.Notification) (string, []any, error) {
		if len(ns) == 0 {
			t.Errorf("the outbox statement was asked for nothing to enqueue")
		}
		return sqlTestOutbox, testOutboxArgs(ns), nil
	}
	return s
}

const sqlTestOutbox = `INSERT INTO storetest_outbox (kind, appointment_id, suspension_id, ref, slot_id, refund_id)
	SELECT k, a, NULLIF(s, 0), r, sl, rf FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[])
	WITH ORDINALITY AS n(k, a, s, r, sl, rf, o)
	ORDER BY o`

// testOutboxArgs returns sqlTestOutbox's arguments: one array per column.
func testOutboxArgs(ns []booking.Notification) []any {
	kinds := make([]string, len(ns))
	appts := make([]int64, len(ns))
	susps := make([]int64, len(ns))
	refs := make([]string, len(ns))
	slots := make([]int64, len(ns))
	refunds := make([]int64, len(ns))
	for i, n := range ns {
		kinds[i], appts[i], susps[i], refs[i], slots[i], refunds[i] = string(n.Kind), n.AppointmentID, n.SuspensionID, n.Ref, n.SlotID, n.RefundID
	}
	return []any{kinds, appts, susps, refs, slots, refunds}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		New: func(t testing.TB) booking.Store { return newOutboxStore(t) },
		NewRacy: func(t testing.TB) booking.Store {
			s := newOutboxStore(t)
			s.SetRacy(true)
			return s
		},
		Inspect: func(t testing.TB, s booking.Store) storetest.Inspector { return inspector{s.(*Store).Pool()} },
		Keyed:   keyedStore,
	})
}

// keyedStore is storetest.Harness.Keyed: a store on a fresh database
// migrated and opened with keys; restart migrates it with others, as
// another instance's start does.
func keyedStore(t testing.TB, keys *pii.Keys) (booking.Store, func(*pii.Keys) error) {
	t.Helper()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	if err := MigrateKeys(ctx, dsn, keys); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	s, err := Open(ctx, dsn, Options{Keys: keys})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func(k *pii.Keys) error { return MigrateKeys(ctx, dsn, k) }
}

// inspector reads rows straight from the pool, bypassing the Store.
type inspector struct{ pool *pgxpool.Pool }

// BlockSlot locks the slot's row in a transaction of its own
// (storetest.Inspector).
func (in inspector) BlockSlot(t testing.TB, slotID int64) func() {
	t.Helper()
	ctx := context.Background()
	tx, err := in.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM slots WHERE id = $1 FOR UPDATE`, slotID); err != nil {
		t.Fatal(err)
	}
	return func() { _ = tx.Rollback(ctx) }
}

func (in inspector) SlotCounters(t testing.TB) map[int64][2]int {
	t.Helper()
	rows, _ := in.pool.Query(context.Background(), `SELECT id, capacity + walk_ins, booked_count - offer_pending - (SELECT count(*) FROM appointment_places p
		JOIN appointments a ON a.id = p.appointment_id WHERE p.slot_id = slots.id AND a.status IN `+booking.ActiveSQL+`) FROM slots`)
	m := map[int64][2]int{}
	var id int64
	var c, b int
	if _, err := pgx.ForEachRow(rows, []any{&id, &c, &b}, func() error { m[id] = [2]int{c, b}; return nil }); err != nil {
		t.Fatalf("slot counters: %v", err)
	}
	return m
}

func (in inspector) ActiveAppointments(t testing.TB) []booking.Appointment {
	t.Helper()
	rows, _ := in.pool.Query(context.Background(), `SELECT `+apptColumns+`
		FROM appointments a JOIN slots s ON s.id = a.slot_id WHERE a.status IN `+booking.ActiveSQL+` ORDER BY a.id`)
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	if err != nil {
		t.Fatalf("active appointments: %v", err)
	}
	return as
}

func (in inspector) Notifications(t testing.TB) []booking.Notification {
	t.Helper()
	rows, _ := in.pool.Query(context.Background(),
		`SELECT kind, appointment_id, COALESCE(suspension_id, 0), ref, slot_id, refund_id FROM storetest_outbox ORDER BY id`)
	ns, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Notification, error) {
		var n booking.Notification
		err := r.Scan(&n.Kind, &n.AppointmentID, &n.SuspensionID, &n.Ref, &n.SlotID, &n.RefundID)
		return n, err
	})
	if err != nil {
		t.Fatalf("notifications: %v", err)
	}
	return ns
}

func (in inspector) ClearNameIndexes(t testing.TB) {
	t.Helper()
	if _, err := in.pool.Exec(context.Background(), `UPDATE patients SET name_index = NULL`); err != nil {
		t.Fatalf("clear name indexes: %v", err)
	}
}

func (in inspector) SetBookedCount(t testing.TB, slotID int64, n int) {
	t.Helper()
	if _, err := in.pool.Exec(context.Background(), `UPDATE slots SET booked_count = $2 WHERE id = $1`, slotID, n); err != nil {
		t.Fatalf("set booked_count: %v", err)
	}
}

// --- focused tests of what is specific to PostgreSQL ---------------------

var testNow = time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)

type fix struct {
	t   testing.TB
	s   *Store
	ctx context.Context
	doc [2]booking.Doctor
	n   int
}

func newFix(t testing.TB) *fix {
	t.Helper()
	f := &fix{t: t, s: newStore(t), ctx: context.Background()}
	d, err := f.s.CreateDepartment(f.ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	for i := range f.doc {
		f.doc[i], err = f.s.CreateDoctor(f.ctx, booking.Doctor{Name: fmt.Sprint("Dr. ", i), DepartmentID: d.ID, TimeZone: "Europe/Paris"})
		must(t, err)
	}
	return f
}

// must fails the test at once on an error.
var must = testkit.NoError

func (f *fix) slot(capacity int, mod ...func(*booking.Slot)) booking.Slot {
	f.t.Helper()
	f.n++
	start := testNow.Add(time.Duration(24+f.n) * time.Hour)
	sl := booking.Slot{DoctorID: f.doc[0].ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: capacity, OpensAt: testNow.Add(-time.Hour)}
	for _, m := range mod {
		m(&sl)
	}
	out, err := f.s.CreateSlot(f.ctx, sl)
	must(f.t, err)
	return out
}

func (f *fix) patients(n int) []booking.Patient {
	f.t.Helper()
	ps := make([]booking.Patient, n)
	for i := range ps {
		p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "P"})
		must(f.t, err)
		ps[i] = p
	}
	return ps
}

func rq(p booking.Patient, slotID int64, key string) booking.BookRequest {
	return booking.BookRequest{PatientID: p.ID, IdempotencyKey: key, Fingerprint: booking.Fingerprint(slotID)}
}

func codeOf(r booking.BookResult) string {
	switch {
	case r.Err != nil:
		return string(booking.ErrorCode(r.Err))
	case r.Replayed:
		return "replay"
	}
	return "ok"
}

func TestRaceCapacityOne(t *testing.T) {
	f := newFix(t)
	sl := f.slot(1)
	ps := f.patients(20)
	start := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]string, 20)
	for i := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[i], sl.ID, "k")}, testNow)
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = codeOf(res[0])
		}()
	}
	close(start)
	wg.Wait()
	n := map[string]int{}
	for _, g := range got {
		n[g]++
	}
	if n["ok"] != 1 || n["slot-full"] != 19 {
		t.Fatalf("want 1 ok and 19 slot-full, got %v", n)
	}
}

// A batch answers each request by its own reason, in order.
func TestMixedBatch(t *testing.T) {
	f := newFix(t)
	ps := f.patients(8)
	sl := f.slot(3)
	// p0 booked earlier with key "a"; p1 holds a place already.
	first, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "a"), rq(ps[1], sl.ID, "b")}, testNow)
	must(t, err)
	other := f.slot(1)
	_, err = f.s.Book(f.ctx, other.ID, []booking.BookRequest{rq(ps[2], other.ID, "used")}, testNow)
	must(t, err)
	reqs := []booking.BookRequest{
		rq(ps[0], sl.ID, "a"),    // replay
		rq(ps[2], sl.ID, "used"), // key used for another slot
		rq(ps[1], sl.ID, "new"),  // already booked
		rq(ps[3], sl.ID, "c"),    // the last place
		rq(ps[3], sl.ID, "c"),    // same key again in the batch: replay of the previous
		rq(ps[3], sl.ID, "d"),    // same patient, another key: already booked
		rq(ps[4], sl.ID, "e"),    // full
	}
	res, err := f.s.Book(f.ctx, sl.ID, reqs, testNow)
	must(t, err)
	want := []string{"replay", "idempotency-key-reused", "already-booked", "ok", "replay", "already-booked", "slot-full"}
	for i, r := range res {
		if codeOf(r) != want[i] {
			t.Errorf("request %d: %s (%v), want %s", i, codeOf(r), r.Err, want[i])
		}
	}
	if res[0].Appointment.ID != first[0].Appointment.ID || res[4].Appointment.ID != res[3].Appointment.ID {
		t.Error("replays do not return the original appointments")
	}
	if res[3].Appointment.QueueNumber != 3 || res[3].Appointment.DoctorID != f.doc[0].ID {
		t.Errorf("new appointment %+v", res[3].Appointment)
	}

	notYet := f.slot(2, func(s *booking.Slot) { s.OpensAt = testNow.Add(time.Hour) })
	closed := f.slot(2, func(s *booking.Slot) { s.Status = booking.SlotClosed })
	r, err := f.s.Book(f.ctx, notYet.ID, []booking.BookRequest{rq(ps[5], notYet.ID, "x")}, testNow)
	must(t, err)
	var be *booking.Error
	if !errors.As(r[0].Err, &be) || be.Code != booking.CodeNotOpenYet || be.OpensAt == nil || !be.OpensAt.Equal(notYet.OpensAt) {
		t.Errorf("not open yet: %v", r[0].Err)
	}
	r, err = f.s.Book(f.ctx, closed.ID, []booking.BookRequest{rq(ps[5], closed.ID, "y")}, testNow)
	must(t, err)
	if codeOf(r[0]) != "slot-closed" {
		t.Errorf("closed: %v", r[0].Err)
	}
}

// A batch whose insert is refused by a constraint (here an unknown patient)
// is decided again request by request; the others still get places.
func TestBatchFallsBackToSingles(t *testing.T) {
	f := newFix(t)
	ps := f.patients(2)
	sl := f.slot(5)
	ghost := booking.Patient{ID: 999999}
	res, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "a"), rq(ghost, sl.ID, "b"), rq(ps[1], sl.ID, "c")}, testNow)
	must(t, err)
	got := []string{codeOf(res[0]), codeOf(res[1]), codeOf(res[2])}
	if fmt.Sprint(got) != "[ok not-found ok]" {
		t.Fatalf("got %v", got)
	}
	if res[0].Appointment.QueueNumber != 1 || res[2].Appointment.QueueNumber != 2 {
		t.Fatalf("queue numbers %d %d", res[0].Appointment.QueueNumber, res[2].Appointment.QueueNumber)
	}
}

// The same patient in batches on two overlapping slots of two doctors at
// once: the exclusion constraint refuses one, which the fallback answers.
func TestRaceOverlapBatches(t *testing.T) {
	f := newFix(t)
	for round := range 10 {
		a := f.slot(4)
		b := f.slot(4, func(s *booking.Slot) {
			s.DoctorID = f.doc[1].ID
			s.StartAt, s.EndAt = a.StartAt.Add(10*time.Minute), a.EndAt.Add(10*time.Minute)
		})
		ps := f.patients(3)
		start := make(chan struct{})
		var wg sync.WaitGroup
		var res [2][]booking.BookResult
		for i, sl := range []booking.Slot{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var err error
				// ps[0] is in both batches; ps[1] only in a, ps[2] only in b.
				res[i], err = f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[1+i], sl.ID, "own"), rq(ps[0], sl.ID, fmt.Sprint("shared", i))}, testNow)
				if err != nil {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if t.Failed() {
			return
		}
		n := map[string]int{}
		for _, rs := range res {
			if codeOf(rs[0]) != "ok" {
				t.Fatalf("round %d: own booking %v", round, rs[0].Err)
			}
			n[codeOf(rs[1])]++
		}
		if n["ok"] != 1 || n["overlapping-appointment"] != 1 {
			t.Fatalf("round %d: shared patient got %v", round, n)
		}
	}
}

func TestCancel(t *testing.T) {
	f := newFix(t)
	ps := f.patients(2)
	sl := f.slot(2)
	res, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "a")}, testNow)
	must(t, err)
	a := res[0].Appointment

	if _, err := f.s.Cancel(f.ctx, a.ID, ps[1].ID, testNow); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("another patient's cancel: %v", err)
	}
	if _, err := f.s.Cancel(f.ctx, a.ID, ps[0].ID, sl.StartAt); booking.ErrorCode(err) != booking.CodeAlreadyStarted {
		t.Fatalf("cancel at start: %v", err)
	}
	// Twenty concurrent cancels release the place once.
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := f.s.Cancel(f.ctx, a.ID, ps[0].ID, testNow)
			if err != nil || c.Status != booking.StatusCancelled {
				t.Errorf("cancel: %v %v", c.Status, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	got, err := f.s.GetSlot(f.ctx, sl.ID)
	must(t, err)
	if got.BookedCount != 0 {
		t.Fatalf("booked_count %d after a double cancel", got.BookedCount)
	}
	if _, err := f.s.Cancel(f.ctx, 424242, 0, testNow); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("missing: %v", err)
	}
}

func TestInsertSlots(t *testing.T) {
	f := newFix(t)
	const n = 20000
	base := testNow.Add(48 * time.Hour)
	slots := make([]booking.Slot, n)
	for i := range slots {
		st := base.Add(time.Duration(i) * 15 * time.Minute)
		slots[i] = booking.Slot{DoctorID: f.doc[i%2].ID, StartAt: st, EndAt: st.Add(15 * time.Minute), Capacity: 1, OpensAt: testNow}
	}
	t0 := time.Now()
	created, err := f.s.InsertSlots(f.ctx, slots)
	must(t, err)
	t.Logf("InsertSlots: %d slots in %v", n, time.Since(t0))
	if created != n {
		t.Fatalf("created %d, want %d", created, n)
	}
	created, err = f.s.InsertSlots(f.ctx, append(slots[:10:10], slots[:10]...))
	must(t, err)
	if created != 0 {
		t.Fatalf("second run created %d", created)
	}
	bad := []booking.Slot{{DoctorID: 777777, StartAt: base, EndAt: base.Add(time.Minute), Capacity: 1, OpensAt: testNow}}
	if _, err := f.s.InsertSlots(f.ctx, bad); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("unknown doctor: %v", err)
	}
}

// Two processes migrating the same database at once: the advisory lock
// serializes them.
func TestMigrateConcurrently(t *testing.T) {
	dsn := pgtest.DSN(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = Migrate(context.Background(), dsn) }()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
}

// closedPort returns an address on which nothing listens.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestOpenUnreachable(t *testing.T) {
	t0 := time.Now()
	_, err := Open(context.Background(), "postgres://postgres@"+closedPort(t)+"/x?sslmode=disable", Options{ConnectTimeout: 2 * time.Second, Keys: pii.New()})
	if !errors.Is(err, booking.ErrUnavailable) || booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("want ErrUnavailable, got %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	// A DSN that routes nowhere: bounded by the connect timeout.
	t0 = time.Now()
	_, err = Open(context.Background(), "postgres://postgres@10.255.255.1:5432/x?sslmode=disable", Options{ConnectTimeout: time.Second, Keys: pii.New()})
	if !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("want ErrUnavailable, got %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestBookWhenServerGone(t *testing.T) {
	// A pool whose server stopped answering: every call is ErrUnavailable.
	cfg, err := pgxpool.ParseConfig("postgres://postgres@" + closedPort(t) + "/x?sslmode=disable&connect_timeout=1")
	must(t, err)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	must(t, err)
	s := &Store{pool: pool}
	defer s.Close()
	_, err = s.Book(context.Background(), 1, []booking.BookRequest{{PatientID: 1, IdempotencyKey: "k", Fingerprint: "slot=1"}}, testNow)
	if !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("book: want ErrUnavailable, got %v", err)
	}
	if _, err := s.Cancel(context.Background(), 1, 1, testNow); !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("cancel: want ErrUnavailable, got %v", err)
	}

	// A store whose pool was closed under it.
	f := newFix(t)
	sl := f.slot(1)
	ps := f.patients(1)
	f.s.Close()
	_, err = f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "k")}, testNow)
	if !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("closed pool: want ErrUnavailable, got %v", err)
	}
	var be *booking.Error
	if errors.As(err, &be) {
		t.Fatalf("driver failure surfaced as a client error: %v", be)
	}
}

// The connections of a store killed by the server: the next call fails as
// unavailable or succeeds on a fresh connection, never as internal.
func TestTerminatedConnections(t *testing.T) {
	f := newFix(t)
	sl := f.slot(5)
	ps := f.patients(1)
	must(t, f.s.Ping(f.ctx))
	admin, err := pgx.Connect(f.ctx, f.s.Pool().Config().ConnConfig.ConnString())
	must(t, err)
	defer admin.Close(f.ctx)
	if _, err := admin.Exec(f.ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "k")}, testNow)
	if err != nil && !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("want nil or ErrUnavailable, got %v", err)
	}
}

// SetRoundQuotaUsed implements storetest.Inspector.
func (in inspector) SetRoundQuotaUsed(t testing.TB, roundID, patientID int64, used int) {
	t.Helper()
	if _, err := in.pool.Exec(context.Background(),
		`UPDATE round_quotas SET used = $3 WHERE round_id = $1 AND patient_id = $2`, roundID, patientID, used); err != nil {
		t.Fatalf("set round quota: %v", err)
	}
}

func (in inspector) DeleteRefunds(t testing.TB) {
	t.Helper()
	if _, err := in.pool.Exec(context.Background(), `DELETE FROM refunds`); err != nil {
		t.Fatal(err)
	}
}

func (in inspector) SetRefundAmount(t testing.TB, refundID, cents int64) error {
	_, err := in.pool.Exec(context.Background(), `UPDATE refunds SET amount_cents = $2 WHERE id = $1`, refundID, cents)
	return err
}

func (in inspector) LoginCodes(t testing.TB) int {
	t.Helper()
	var n int
	if err := in.pool.QueryRow(context.Background(), `SELECT count(*) FROM login_codes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (in inspector) PatientBytes(t testing.TB) []byte {
	t.Helper()
	rows, err := in.pool.Query(context.Background(), `SELECT * FROM patients`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []byte
	for rows.Next() {
		for _, v := range rows.RawValues() {
			out = append(out, v...)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
