package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
)

// now is the suite's clock: every slot it makes opened before it and starts
// after it unless a test says otherwise.
var now = time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)

// fixture is a store with a department, two doctors and helpers to make
// slots and patients.
type fixture struct {
	t       testing.TB
	s       booking.Store
	ctx     context.Context
	dept    booking.Department
	doctor  booking.Doctor
	doctor2 booking.Doctor
	next    atomic.Int64 // hour offset of the next slot, so slots never overlap by accident
	// campaigns numbers the campaigns' schedules (eligibility.go).
	campaigns atomic.Int64
}

func newFixture(t testing.TB, s booking.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{t: t, s: s, ctx: ctx}
	var err error
	f.dept, err = s.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	f.doctor, err = s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Martin", DepartmentID: f.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	f.doctor2, err = s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Nguyen", DepartmentID: f.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	return f
}

type slotOpt func(*booking.Slot)

func withFee(cents int64) slotOpt { return func(s *booking.Slot) { s.FeeCents = cents } }
func opensAt(t time.Time) slotOpt { return func(s *booking.Slot) { s.OpensAt = t } }
func startsAt(t time.Time) slotOpt {
	return func(s *booking.Slot) { s.EndAt = t.Add(s.EndAt.Sub(s.StartAt)); s.StartAt = t }
}
func onDoctor(id int64) slotOpt { return func(s *booking.Slot) { s.DoctorID = id } }
func closed() slotOpt           { return func(s *booking.Slot) { s.Status = booking.SlotClosed } }
func lasting(d time.Duration) slotOpt {
	return func(s *booking.Slot) { s.EndAt = s.StartAt.Add(d) }
}

// slot creates an open slot of the given capacity, 30 minutes long, starting
// at a fresh hour after now.
func (f *fixture) slot(capacity int, opts ...slotOpt) booking.Slot {
	f.t.Helper()
	start := now.Add(time.Duration(24+f.next.Add(1)) * time.Hour)
	sl := booking.Slot{
		DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: capacity, OpensAt: now.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900,
	}
	for _, o := range opts {
		o(&sl)
	}
	created, err := f.s.CreateSlot(f.ctx, sl)
	must(f.t, err)
	return created
}

// phones numbers the fixtures' patients: a phone is one patient's.
var phones atomic.Int64

func (f *fixture) patient() booking.Patient {
	f.t.Helper()
	p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "Patient", Phone: fmt.Sprintf("+336%08d", phones.Add(1)), Email: "p@example.org"})
	must(f.t, err)
	return p
}

func (f *fixture) patients(n int) []booking.Patient {
	f.t.Helper()
	ps := make([]booking.Patient, n)
	for i := range ps {
		ps[i] = f.patient()
	}
	return ps
}

// req builds a request of patient p for slot with key.
func req(p booking.Patient, slotID int64, key string) booking.BookRequest {
	return booking.BookRequest{PatientID: p.ID, IdempotencyKey: key, Fingerprint: booking.Fingerprint(slotID)}
}

// book books one request alone and returns its result.
func (f *fixture) book(slotID int64, r booking.BookRequest) booking.BookResult {
	f.t.Helper()
	return f.bookAt(slotID, r, now)
}

func (f *fixture) bookAt(slotID int64, r booking.BookRequest, at time.Time) booking.BookResult {
	f.t.Helper()
	res, err := f.s.Book(f.ctx, slotID, []booking.BookRequest{r}, at)
	must(f.t, err)
	if len(res) != 1 {
		f.t.Fatalf("Book answered %d results for 1 request", len(res))
	}
	return res[0]
}

// mustBook books and fails the test unless a new appointment was made.
func (f *fixture) mustBook(slotID int64, p booking.Patient) booking.Appointment {
	f.t.Helper()
	res := f.book(slotID, req(p, slotID, fmt.Sprintf("k-%d-%d", p.ID, slotID)))
	if res.Err != nil || res.Replayed {
		f.t.Fatalf("book slot %d patient %d: err=%v replayed=%v", slotID, p.ID, res.Err, res.Replayed)
	}
	return res.Appointment
}

func (f *fixture) getSlot(id int64) booking.Slot {
	f.t.Helper()
	s, err := f.s.GetSlot(f.ctx, id)
	must(f.t, err)
	return s
}

// must fails the test at once on an error.
var must = testkit.NoError

// wantCode fails unless err carries code.
func wantCode(t testing.TB, err error, code booking.Code) {
	t.Helper()
	if got := booking.ErrorCode(err); got != code {
		t.Fatalf("want error %q, got %q (%v)", code, got, err)
	}
}

// wantOK fails unless res is a new appointment.
func wantOK(t testing.TB, res booking.BookResult) booking.Appointment {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("want a new appointment, got %v", res.Err)
	}
	if res.Replayed {
		t.Fatalf("want a new appointment, got a replay of %d", res.Appointment.ID)
	}
	return res.Appointment
}

func errorsAs(err error) *booking.Error {
	var e *booking.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// release runs fn in n goroutines that all start at the same moment and
// waits for them.
func release(n int, fn func(i int)) {
	start := make(chan struct{})
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func(i int) {
			defer func() { done <- struct{}{} }()
			<-start
			fn(i)
		}(i)
	}
	close(start)
	for i := 0; i < n; i++ {
		<-done
	}
}
