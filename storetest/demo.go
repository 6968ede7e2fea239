package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
)

// testDemoMarker: an empty database is claimed for the demo once, stays the
// demo's after it is filled, and a database holding anything the demo did
// not load (a department, a patient, a staff user) is refused unmarked.
func testDemoMarker(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.New(t)
	fill, err := s.ClaimDemo(ctx)
	if err != nil || !fill {
		t.Fatalf("empty database: fill %v, %v; want true", fill, err)
	}
	if fill, err = s.ClaimDemo(ctx); err != nil || fill {
		t.Fatalf("claimed again: fill %v, %v; want false", fill, err)
	}
	// The demo's data, then a restart: still the demo's, not filled again.
	_, err = s.CreateDepartment(ctx, booking.Department{Name: "Demo department"})
	must(t, err)
	if _, err = s.CreatePatient(ctx, booking.Patient{Name: "Demo patient"}); err != nil {
		t.Fatal(err)
	}
	if fill, err = s.ClaimDemo(ctx); err != nil || fill {
		t.Fatalf("filled demo database: fill %v, %v; want false", fill, err)
	}

	realData := map[string]func(booking.Store) error{
		"department": func(s booking.Store) error {
			_, err := s.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
			return err
		},
		"patient": func(s booking.Store) error {
			_, err := s.CreatePatient(ctx, booking.Patient{Name: "Real patient"})
			return err
		},
		"staff user": func(s booking.Store) error {
			acc, ok := s.(accounts.Store)
			if !ok {
				t.Skip("the store keeps no staff users")
			}
			hash, err := accounts.HashPassword("not-the-demo")
			if err != nil {
				return err
			}
			return acc.SetStaffPassword(ctx, "reception", hash, time.Now())
		},
	}
	for name, add := range realData {
		t.Run(name, func(t *testing.T) {
			s := h.New(t)
			must(t, add(s))
			for range 2 { // refused, and still refused: nothing was marked
				fill, err := s.ClaimDemo(ctx)
				if fill || booking.ErrorCode(err) != booking.CodeConflict {
					t.Fatalf("database with a %s: fill %v, %v; want conflict", name, fill, err)
				}
			}
		})
	}
}

// testDemoClaimRace: many starts claiming one empty database at once fill
// it once.
func testDemoClaimRace(t *testing.T, h Harness) {
	s := h.New(t)
	const n = 16
	var fills atomic.Int32
	var start, done sync.WaitGroup
	start.Add(1)
	errs := make(chan error, n)
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			fill, err := s.ClaimDemo(context.Background())
			if err != nil {
				errs <- err
				return
			}
			if fill {
				fills.Add(1)
			}
		}()
	}
	start.Done()
	done.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := fills.Load(); got != 1 {
		t.Fatalf("%d of %d racing claims would fill the database, want 1", got, n)
	}
}

// testHoldings: Holdings counts the patients not erased and the active
// appointments, and tells the demo's database from a clinic's (Real), which
// slotd rush refuses to write into.
func testHoldings(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.New(t)
	want := func(what string, w booking.Holdings, real bool) {
		t.Helper()
		got, err := s.Holdings(ctx)
		if err != nil || got != w || got.Real() != real {
			t.Fatalf("%s: holdings %+v (real %v), %v; want %+v (real %v)", what, got, got.Real(), err, w, real)
		}
	}
	want("empty", booking.Holdings{}, false)
	f := newFixture(t, s)
	want("a catalogue only", booking.Holdings{}, false)
	p, q := f.patient(), f.patient()
	want("two patients", booking.Holdings{Patients: 2}, true)
	a := f.mustBook(f.slot(2).ID, p)
	want("a booking", booking.Holdings{Patients: 2, ActiveAppointments: 1}, true)
	if _, err := s.ErasePatient(ctx, booking.Erasure{PatientID: q.ID, Reason: "test", At: now}); err != nil {
		t.Fatal(err)
	}
	want("one erased", booking.Holdings{Patients: 1, ActiveAppointments: 1}, true)
	if _, err := s.Cancel(ctx, a.ID, p.ID, now); err != nil {
		t.Fatal(err)
	}
	want("cancelled", booking.Holdings{Patients: 1}, true)

	demo := h.New(t)
	if fill, err := demo.ClaimDemo(ctx); err != nil || !fill {
		t.Fatalf("claim: %v %v", fill, err)
	}
	if _, err := demo.CreatePatient(ctx, booking.Patient{Name: "Demo patient"}); err != nil {
		t.Fatal(err)
	}
	if got, err := demo.Holdings(ctx); err != nil || !got.Demo || got.Patients != 1 || got.Real() {
		t.Fatalf("demo: holdings %+v (real %v), %v; want the demo's, 1 patient, not real", got, got.Real(), err)
	}
}
