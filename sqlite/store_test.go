package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/storetest"
)

// newStore opens and migrates a store on its own temp file.
func newStore(t testing.TB) *Store {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "slotd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// withOutbox gives s the conformance suite's outbox: a table the harness
// creates and an enqueuer that inserts into it through the state change's
// own transaction, so that only committed notifications are ever visible.
func withOutbox(t testing.TB, s *Store) *Store {
	t.Helper()
	if _, err := s.DB().Exec(`CREATE TABLE storetest_outbox (id INTEGER PRIMARY KEY, kind TEXT,
		appointment_id INTEGER, suspension_id INTEGER, ref TEXT, slot_id INTEGER, refund_id INTEGER)`); err != nil {
		t.Fatal(err)
	}
	s.enqueue = func(ctx context.Context, tx *sql.Tx, ns []booking.Notification) error {
		for _, n := range ns {
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO storetest_outbox (kind, appointment_id, suspension_id, ref, slot_id, refund_id) VALUES (?, ?, ?, ?, ?, ?)`,
				string(n.Kind), n.AppointmentID, n.SuspensionID, n.Ref, n.SlotID, n.RefundID); err != nil {
				return err
			}
		}
		return nil
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		New: func(t testing.TB) booking.Store { return withOutbox(t, newStore(t)) },
		NewRacy: func(t testing.TB) booking.Store {
			s := withOutbox(t, newStore(t))
			s.SetRacy(true)
			return s
		},
		Inspect: func(t testing.TB, s booking.Store) storetest.Inspector {
			return inspector{db: s.(*Store).DB(), path: s.(*Store).Path()}
		},
		Keyed: keyedStore,
	})
}

// keyedStore is storetest.Harness.Keyed: a store on its own temp file
// opened and migrated with keys; restart opens the file again with others
// and migrates it, as another process's start does.
func keyedStore(t testing.TB, keys *pii.Keys) (booking.Store, func(*pii.Keys) error) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "slotd.db")
	s, err := OpenKeys(ctx, path, keys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s, func(k *pii.Keys) error {
		other, err := OpenKeys(ctx, path, k)
		if err != nil {
			return err
		}
		defer other.Close()
		return other.Migrate(ctx)
	}
}

// inspector reads the rows through the writer handle, bypassing the Store.
type inspector struct {
	db   *sql.DB
	path string
}

// BlockSlot holds the database's write lock from a connection of its own
// (storetest.Inspector).
func (in inspector) BlockSlot(t testing.TB, _ int64) func() {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(in.path, ""))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

func (in inspector) SlotCounters(t testing.TB) map[int64][2]int {
	t.Helper()
	rows, err := in.db.Query(`SELECT id, capacity + walk_ins, booked_count - offer_pending - (SELECT count(*) FROM appointment_places p
		JOIN appointments a ON a.id = p.appointment_id WHERE p.slot_id = slots.id AND a.status IN ` + booking.ActiveSQL + `) FROM slots`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64][2]int{}
	for rows.Next() {
		var id int64
		var c, b int
		if err := rows.Scan(&id, &c, &b); err != nil {
			t.Fatal(err)
		}
		out[id] = [2]int{c, b}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (in inspector) ActiveAppointments(t testing.TB) []booking.Appointment {
	t.Helper()
	rows, err := in.db.Query(`SELECT ` + apptCols + apptFrom + `WHERE a.status IN ` + booking.ActiveSQL + ` ORDER BY a.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []booking.Appointment
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Notifications reads the harness's outbox in insertion order.
func (in inspector) Notifications(t testing.TB) []booking.Notification {
	t.Helper()
	rows, err := in.db.Query(`SELECT kind, appointment_id, suspension_id, ref, slot_id, refund_id FROM storetest_outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []booking.Notification
	for rows.Next() {
		var n booking.Notification
		var kind string
		if err := rows.Scan(&kind, &n.AppointmentID, &n.SuspensionID, &n.Ref, &n.SlotID, &n.RefundID); err != nil {
			t.Fatal(err)
		}
		n.Kind = booking.NotificationKind(kind)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// SetRoundQuotaUsed overwrites a round quota's used count (storetest.Inspector).
func (in inspector) SetRoundQuotaUsed(t testing.TB, roundID, patientID int64, used int) {
	t.Helper()
	if _, err := in.db.Exec(`UPDATE round_quotas SET used = ? WHERE round_id = ? AND patient_id = ?`,
		used, roundID, patientID); err != nil {
		t.Fatal(err)
	}
}

func (in inspector) ClearNameIndexes(t testing.TB) {
	t.Helper()
	if _, err := in.db.Exec(`UPDATE patients SET name_index = NULL`); err != nil {
		t.Fatal(err)
	}
}

func (in inspector) SetBookedCount(t testing.TB, slotID int64, n int) {
	t.Helper()
	if _, err := in.db.Exec(`UPDATE slots SET booked_count = ? WHERE id = ?`, n, slotID); err != nil {
		t.Fatal(err)
	}
}

// --- focused tests of this store ---

var testNow = time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)

type fx struct {
	t      *testing.T
	s      *Store
	ctx    context.Context
	doctor booking.Doctor
	other  booking.Doctor
	hour   int
}

func newFx(t *testing.T) *fx {
	t.Helper()
	f := &fx{t: t, s: newStore(t), ctx: context.Background()}
	d, err := f.s.CreateDepartment(f.ctx, booking.Department{Name: "Cardiology"})
	f.must(err)
	f.doctor, err = f.s.CreateDoctor(f.ctx, booking.Doctor{Name: "A", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	f.must(err)
	f.other, err = f.s.CreateDoctor(f.ctx, booking.Doctor{Name: "B", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	f.must(err)
	return f
}

func (f *fx) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fx) slot(capacity int, mod ...func(*booking.Slot)) booking.Slot {
	f.t.Helper()
	f.hour++
	start := testNow.Add(time.Duration(24+f.hour) * time.Hour)
	sl := booking.Slot{DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: capacity, OpensAt: testNow.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900}
	for _, m := range mod {
		m(&sl)
	}
	sl, err := f.s.CreateSlot(f.ctx, sl)
	f.must(err)
	return sl
}

func (f *fx) patient() int64 {
	f.t.Helper()
	p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "P"})
	f.must(err)
	return p.ID
}

func rq(p, slotID int64, key string) booking.BookRequest {
	return booking.BookRequest{PatientID: p, IdempotencyKey: key, Fingerprint: booking.Fingerprint(slotID)}
}

func (f *fx) book(slotID int64, reqs ...booking.BookRequest) []booking.BookResult {
	f.t.Helper()
	res, err := f.s.Book(f.ctx, slotID, reqs, testNow)
	f.must(err)
	if len(res) != len(reqs) {
		f.t.Fatalf("%d results for %d requests", len(res), len(reqs))
	}
	return res
}

func code(r booking.BookResult) booking.Code {
	if r.Err == nil {
		if r.Replayed {
			return "replayed"
		}
		return "ok"
	}
	return booking.ErrorCode(r.Err)
}

// checkInvariants compares every slot's counter with its active rows and
// checks queue numbers.
func (f *fx) checkInvariants() {
	f.t.Helper()
	in := inspector{db: f.s.DB()}
	counters := in.SlotCounters(f.t)
	active := map[int64]int{}
	seen := map[[2]int64]bool{}
	for _, a := range in.ActiveAppointments(f.t) {
		active[a.SlotID]++
		k := [2]int64{a.SlotID, int64(a.QueueNumber)}
		if seen[k] || a.QueueNumber < 1 || a.QueueNumber > counters[a.SlotID][0] {
			f.t.Errorf("slot %d: bad queue number %d", a.SlotID, a.QueueNumber)
		}
		seen[k] = true
	}
	for id, cb := range counters {
		if cb[1] != active[id] || cb[1] > cb[0] {
			f.t.Errorf("slot %d: capacity %d booked_count %d active rows %d", id, cb[0], cb[1], active[id])
		}
	}
}

func TestRaceCapacityOne(t *testing.T) {
	f := newFx(t)
	sl := f.slot(1)
	const n = 20
	ps := make([]int64, n)
	for i := range ps {
		ps[i] = f.patient()
	}
	results := make([]booking.BookResult, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[i], sl.ID, "k")}, testNow)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = res[0]
		}()
	}
	close(start)
	wg.Wait()
	counts := map[booking.Code]int{}
	for _, r := range results {
		counts[code(r)]++
	}
	if counts["ok"] != 1 || counts[booking.CodeSlotFull] != n-1 {
		t.Fatalf("answers %v, want 1 ok and %d slot-full", counts, n-1)
	}
	f.checkInvariants()
}

func TestMixedBatchInOrder(t *testing.T) {
	f := newFx(t)
	sl := f.slot(3)
	a, b, c, d, e := f.patient(), f.patient(), f.patient(), f.patient(), f.patient()
	first := f.book(sl.ID, rq(a, sl.ID, "ka"))
	if code(first[0]) != "ok" || first[0].Appointment.QueueNumber != 1 {
		t.Fatalf("first booking: %+v", first[0])
	}
	other := f.slot(1, func(s *booking.Slot) { s.StartAt = s.StartAt.Add(48 * time.Hour); s.EndAt = s.StartAt.Add(time.Hour) })
	f.book(other.ID, rq(b, other.ID, "kb-other"))

	res := f.book(sl.ID,
		rq(a, sl.ID, "ka"),       // replay
		rq(b, sl.ID, "kb-other"), // key reused for another slot
		rq(a, sl.ID, "ka2"),      // already booked
		rq(c, sl.ID, "kc"),       // place 2
		rq(c, sl.ID, "kc"),       // same key in the batch: replay of the previous
		rq(c, sl.ID, "kc2"),      // same patient again: already booked
		rq(d, sl.ID, "kd"),       // place 3
		rq(e, sl.ID, "ke"),       // full
	)
	want := []booking.Code{"replayed", booking.CodeKeyReused, booking.CodeAlreadyBooked, "ok", "replayed",
		booking.CodeAlreadyBooked, "ok", booking.CodeSlotFull}
	for i, r := range res {
		if code(r) != want[i] {
			t.Errorf("request %d: %s (%v), want %s", i, code(r), r.Err, want[i])
		}
	}
	if res[0].Appointment.ID != first[0].Appointment.ID || res[4].Appointment.ID != res[3].Appointment.ID {
		t.Errorf("replays answered other appointments")
	}
	if res[3].Appointment.QueueNumber != 2 || res[6].Appointment.QueueNumber != 3 {
		t.Errorf("queue numbers %d, %d, want 2, 3", res[3].Appointment.QueueNumber, res[6].Appointment.QueueNumber)
	}
	// A later retry gets exactly what the first answer said.
	again := f.book(sl.ID, rq(d, sl.ID, "kd"))
	if !again[0].Replayed || again[0].Appointment != res[6].Appointment {
		t.Errorf("retry answered %+v, want %+v", again[0].Appointment, res[6].Appointment)
	}

	notYet := f.slot(2, func(s *booking.Slot) { s.OpensAt = testNow.Add(time.Hour) })
	closed := f.slot(2, func(s *booking.Slot) { s.Status = booking.SlotClosed })
	started := f.slot(2, func(s *booking.Slot) { s.StartAt = testNow.Add(-time.Minute); s.EndAt = testNow.Add(time.Hour) })
	r := f.book(notYet.ID, rq(e, notYet.ID, "n1"))[0]
	var be *booking.Error
	if code(r) != booking.CodeNotOpenYet || !asErr(r.Err, &be) || be.OpensAt == nil || !be.OpensAt.Equal(notYet.OpensAt) {
		t.Errorf("not open yet: %v", r.Err)
	}
	if r := f.book(closed.ID, rq(e, closed.ID, "c1"))[0]; code(r) != booking.CodeSlotClosed {
		t.Errorf("closed: %v", r.Err)
	}
	if r := f.book(started.ID, rq(e, started.ID, "s1"))[0]; code(r) != booking.CodeSlotClosed {
		t.Errorf("started: %v", r.Err)
	}
	if r := f.book(999999, rq(e, 999999, "x"))[0]; code(r) != booking.CodeNotFound {
		t.Errorf("missing slot: %v", r.Err)
	}
	f.checkInvariants()
}

func asErr(err error, target **booking.Error) bool {
	e, ok := err.(*booking.Error)
	*target = e
	return ok
}

func TestHeldWhenFee(t *testing.T) {
	f := newFx(t)
	sl := f.slot(2, func(s *booking.Slot) { s.FeeCents = 500; s.HoldSeconds = 600 })
	r := f.book(sl.ID, rq(f.patient(), sl.ID, "k"))[0]
	a := r.Appointment
	if r.Err != nil || a.Status != booking.StatusHeld || a.HoldExpiresAt == nil || !a.HoldExpiresAt.Equal(testNow.Add(10*time.Minute)) {
		t.Fatalf("fee slot: %+v %v", a, r.Err)
	}
	got, err := f.s.GetAppointment(f.ctx, a.ID)
	f.must(err)
	if got.Status != a.Status || !got.HoldExpiresAt.Equal(*a.HoldExpiresAt) || got.DoctorID != f.doctor.ID {
		t.Fatalf("read back %+v", got)
	}
}

func TestOverlapAcrossDoctors(t *testing.T) {
	f := newFx(t)
	p := f.patient()
	s1 := f.slot(5)
	s2 := f.slot(5, func(s *booking.Slot) {
		s.DoctorID = f.other.ID
		s.StartAt = s1.StartAt.Add(15 * time.Minute)
		s.EndAt = s.StartAt.Add(30 * time.Minute)
	})
	// Concurrently, at most one of the two overlapping bookings succeeds.
	var wg sync.WaitGroup
	res := make([]booking.BookResult, 2)
	start := make(chan struct{})
	for i, sl := range []booking.Slot{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(p, sl.ID, fmt.Sprint("k", i))}, testNow)
			if err != nil {
				t.Error(err)
				return
			}
			res[i] = out[0]
		}()
	}
	close(start)
	wg.Wait()
	codes := map[booking.Code]int{code(res[0]): 1}
	codes[code(res[1])]++
	if codes["ok"] != 1 || codes[booking.CodeOverlapping] != 1 {
		t.Fatalf("answers %v, want one ok and one overlapping", codes)
	}
	// Touching intervals do not overlap.
	s3 := f.slot(1, func(s *booking.Slot) {
		s.DoctorID = f.other.ID
		s.StartAt = s1.EndAt.Add(15 * time.Minute)
		s.EndAt = s.StartAt.Add(30 * time.Minute)
	})
	if r := f.book(s3.ID, rq(p, s3.ID, "k3"))[0]; code(r) != "ok" {
		t.Fatalf("adjacent slot: %v", r.Err)
	}
	f.checkInvariants()
}

func TestOverlapTriggerIsLastLine(t *testing.T) {
	f := newFx(t)
	p := f.patient()
	s1 := f.slot(5)
	s2 := f.slot(5, func(s *booking.Slot) { s.DoctorID = f.other.ID; s.StartAt = s1.StartAt; s.EndAt = s1.EndAt })
	f.book(s1.ID, rq(p, s1.ID, "a"))
	_, err := f.s.DB().Exec(`INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
		idempotency_key, fingerprint, created_at, updated_at) VALUES (?, ?, 'BOOKED', 1, ?, ?, 'b', 'x', 0, 0)`,
		s2.ID, p, ts(s2.StartAt), ts(s2.EndAt))
	if name := constraintName(err); name != booking.ConNoOverlap {
		t.Fatalf("overlapping insert: %q (%v)", name, err)
	}
}

func TestConcurrentDoubleCancel(t *testing.T) {
	f := newFx(t)
	sl := f.slot(2)
	p := f.patient()
	a := f.book(sl.ID, rq(p, sl.ID, "k"))[0].Appointment
	var wg sync.WaitGroup
	errs := make([]error, 8)
	start := make(chan struct{})
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got, err := f.s.Cancel(f.ctx, a.ID, p, testNow)
			if err == nil && got.Status != booking.StatusCancelled {
				err = fmt.Errorf("status %s", got.Status)
			}
			errs[i] = err
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("cancel: %v", err)
		}
	}
	got, err := f.s.GetSlot(f.ctx, sl.ID)
	f.must(err)
	if got.BookedCount != 0 {
		t.Fatalf("booked_count %d after double cancel", got.BookedCount)
	}
	if _, err := f.s.Cancel(f.ctx, a.ID, f.patient(), testNow); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("another patient's cancel: %v", err)
	}
	f.checkInvariants()
}

func TestCancelStarted(t *testing.T) {
	f := newFx(t)
	sl := f.slot(1)
	p := f.patient()
	a := f.book(sl.ID, rq(p, sl.ID, "k"))[0].Appointment
	_, err := f.s.Cancel(f.ctx, a.ID, p, sl.StartAt)
	if booking.ErrorCode(err) != booking.CodeAlreadyStarted {
		t.Fatalf("cancel at start: %v", err)
	}
	if _, err := f.s.Cancel(f.ctx, 999999, 0, testNow); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("cancel of a missing appointment: %v", err)
	}
	got, err := f.s.GetSlot(f.ctx, sl.ID)
	f.must(err)
	if got.BookedCount != 1 {
		t.Fatalf("booked_count %d", got.BookedCount)
	}
}

func TestInsertSlotsTwice(t *testing.T) {
	f := newFx(t)
	slots := genSlots(f.doctor.ID, 2*insertChunk+100) // several chunks
	n, err := f.s.InsertSlots(f.ctx, slots)
	f.must(err)
	if n != len(slots) {
		t.Fatalf("created %d, want %d", n, len(slots))
	}
	n, err = f.s.InsertSlots(f.ctx, slots)
	f.must(err)
	if n != 0 {
		t.Fatalf("second run created %d", n)
	}
	_, err = f.s.InsertSlots(f.ctx, genSlots(999999, 1))
	if booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("unknown doctor: %v", err)
	}
}

func genSlots(doctorID int64, n int) []booking.Slot {
	base := time.Date(2026, 7, 1, 8, 0, 0, 0, time.UTC)
	out := make([]booking.Slot, n)
	for i := range out {
		start := base.Add(time.Duration(i) * 15 * time.Minute)
		out[i] = booking.Slot{DoctorID: doctorID, StartAt: start, EndAt: start.Add(15 * time.Minute),
			Capacity: 1, OpensAt: start.Add(-14 * 24 * time.Hour), Status: booking.SlotOpen, HoldSeconds: 900}
	}
	return out
}

func TestReaderSeesCommittedWrites(t *testing.T) {
	f := newFx(t)
	sl := f.slot(4)
	for i := range 4 {
		r := f.book(sl.ID, rq(f.patient(), sl.ID, "k"))[0]
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		got, err := f.s.GetSlot(f.ctx, sl.ID)
		f.must(err)
		if got.BookedCount != i+1 {
			t.Fatalf("reader saw booked_count %d after %d bookings", got.BookedCount, i+1)
		}
		a, err := f.s.GetAppointment(f.ctx, r.Appointment.ID)
		f.must(err)
		if a != r.Appointment {
			t.Fatalf("read back %+v, answered %+v", a, r.Appointment)
		}
	}
	// The reader pool is read-only.
	if _, err := f.s.reader.Exec(`DELETE FROM slots`); err == nil {
		t.Fatal("reader connection accepted a write")
	}
}

func TestUnavailableOnDeadline(t *testing.T) {
	f := newFx(t)
	sl := f.slot(1)
	// Hold the only writer connection so that Book has to wait for it.
	conn, err := f.s.writer.Conn(f.ctx)
	f.must(err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(f.ctx, 50*time.Millisecond)
	defer cancel()
	_, err = f.s.Book(ctx, sl.ID, []booking.BookRequest{rq(f.patient2(conn), sl.ID, "k")}, testNow)
	if booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("Book past its deadline: %v", err)
	}
}

// patient2 makes a patient through a held connection.
func (f *fx) patient2(conn *sql.Conn) int64 {
	f.t.Helper()
	var id int64
	f.must(conn.QueryRowContext(f.ctx, `INSERT INTO patients (created_at) VALUES (0) RETURNING id`).Scan(&id))
	return id
}

// BenchmarkInsertSlots measures InsertSlots on 100,000 new slots (the
// source scale is 1.1 million: about eleven times this).
func BenchmarkInsertSlots(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := newStore(b)
		ctx := context.Background()
		d, err := s.CreateDepartment(ctx, booking.Department{Name: "D"})
		if err != nil {
			b.Fatal(err)
		}
		doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: d.ID, TimeZone: "UTC"})
		if err != nil {
			b.Fatal(err)
		}
		slots := genSlots(doc.ID, 100000)
		b.StartTimer()
		n, err := s.InsertSlots(ctx, slots)
		if err != nil || n != len(slots) {
			b.Fatalf("created %d: %v", n, err)
		}
	}
}

// TestSynchronousFull proves that every connection, the writer's and each
// reader's, runs with synchronous=FULL (2): in WAL mode NORMAL may lose a
// committed booking on power loss.
func TestSynchronousFull(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for name, db := range map[string]*sql.DB{"writer": s.writer, "reader": s.reader} {
		// Hold several reader connections at once so that more than the
		// first one opened is checked.
		var conns []*sql.Conn
		for range 3 {
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			if name == "writer" {
				break
			}
		}
		for _, c := range conns {
			var sync int
			var journal string
			if err := c.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&journal); err != nil {
				t.Fatal(err)
			}
			if err := c.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
				t.Fatal(err)
			}
			if journal != "wal" || sync != 2 {
				t.Errorf("%s: journal_mode %q synchronous %d, want wal and 2 (FULL)", name, journal, sync)
			}
		}
		for _, c := range conns {
			c.Close()
		}
	}
}

func (in inspector) DeleteRefunds(t testing.TB) {
	t.Helper()
	if _, err := in.db.Exec(`DELETE FROM refunds`); err != nil {
		t.Fatal(err)
	}
}

func (in inspector) SetRefundAmount(t testing.TB, refundID, cents int64) error {
	_, err := in.db.Exec(`UPDATE refunds SET amount_cents = ? WHERE id = ?`, cents, refundID)
	return err
}

func (in inspector) LoginCodes(t testing.TB) int {
	t.Helper()
	var n int
	if err := in.db.QueryRow(`SELECT count(*) FROM login_codes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (in inspector) PatientBytes(t testing.TB) []byte {
	t.Helper()
	rows, err := in.db.Query(`SELECT * FROM patients`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []byte
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			out = append(out, fmt.Sprint(v)...)
			if b, ok := v.([]byte); ok {
				out = append(out, b...)
			}
		}
	}
	return out
}
