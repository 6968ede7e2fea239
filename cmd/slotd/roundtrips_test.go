package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/service"
)

// TestABookingIsTwoRoundTrips: a booking through serve's whole handler
// chain on PostgreSQL costs its batch's two round trips (the reads, then
// the writes and the commit), and what this version added to the booking
// costs no read per request: a person the account books for is checked
// from the Service's cache once known, and a schedule's eligibility rule
// costs one read more per batch, only where a rule exists. Each request
// here is a batch of its own, so a read added per request shows. What the
// Service reads once for many requests (a slot for its gates, the
// revocation marks each second) is kept for the test's length.
func TestABookingIsTwoRoundTrips(t *testing.T) {
	f := newFrontWith(t, func(o *service.Options) {
		o.MarkRefresh, o.Gates.SlotInfoTTL = time.Hour, time.Hour
	}, "--db", pgtest.DSN(t), "--data-keys", pii.Generate())
	ctx := context.Background()
	queries := f.store.(interface{ Queries() int64 })
	// Doctor 7 is the demo's vaccination doctor: slots of 10 places.
	sum, err := demo.Load(ctx, f.store, demo.Options{Doctors: 8, Days: 3, Patients: 10})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := f.store.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		t.Fatal(err)
	}
	// A person books four places of one day here.
	pols := f.store.(interface {
		ClinicPolicy(context.Context) (booking.Policy, error)
		SetClinicPolicy(context.Context, booking.Policy) (booking.Policy, error)
	})
	pol, err := pols.ClinicPolicy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pol.MaxActive, pol.MaxPerDay = 10, 10
	if _, err := pols.SetClinicPolicy(ctx, pol); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var slots []booking.Slot
	for _, d := range docs {
		all, err := f.store.ListSlots(ctx, d.ID, now.Add(36*time.Hour), now.Add(60*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for _, sl := range all {
			if sl.Capacity >= 10 && sl.FeeCents == 0 {
				slots = append(slots, sl)
			}
		}
	}
	if len(slots) < 4 {
		t.Fatalf("found %d free slots of 10 places", len(slots))
	}

	w := &sink{h: http.Header{}}
	// send sends one request as patient and returns its status and the
	// round trips to PostgreSQL it cost.
	send := func(patient int64, method, path, body string) (int, int64) {
		t.Helper()
		tok, _ := f.signer.Mint(auth.RolePatient, fmt.Sprint(patient), time.Hour)
		r := request(method, path, map[string]string{"Content-Type": "application/json",
			"Authorization": "Bearer " + tok, "Idempotency-Key": fmt.Sprintf("k-%d-%d", patient, time.Now().UnixNano())})
		before := queries.Queries()
		code := f.serve(w, r, []byte(body))
		return code, queries.Queries() - before
	}
	book := func(patient int64, slot booking.Slot, extra string) int64 {
		t.Helper()
		code, trips := send(patient, "POST", "/api/appointments", fmt.Sprintf(`{"slotId":%d%s}`, slot.ID, extra))
		if code != http.StatusCreated {
			t.Fatalf("booking slot %d for patient %d: %d", slot.ID, patient, code)
		}
		return trips
	}
	p := func(i int) int64 { return sum.FirstPatientID + int64(i) }
	// least is the fewest round trips of the bookings: one query of a
	// background task (a lane's, a job's) may fall within a request's.
	least := func(trips ...int64) int64 { return slices.Min(trips) }

	// The first booking of each slot reads it for the gates, and the
	// first of the server what the Service then keeps: not counted.
	for i := range 4 {
		book(p(i), slots[i], "")
	}
	if n := least(book(p(4), slots[0], ""), book(p(5), slots[0], ""), book(p(6), slots[0], "")); n != 2 {
		t.Errorf("a patient's booking cost %d round trips, want 2", n)
	}
	// A person the account manages: the first booking may read who they
	// are; the next ones for the same person read nothing more.
	child := addChild(t, f, send, p(7))
	forPerson := func(person int64) string { return fmt.Sprintf(`,"patientId":%d`, person) }
	book(p(7), slots[0], forPerson(child))
	if n := least(book(p(7), slots[1], forPerson(child)), book(p(7), slots[2], forPerson(child)), book(p(7), slots[3], forPerson(child))); n != 2 {
		t.Errorf("a booking for a managed person cost %d round trips, want 2", n)
	}
	// An eligibility rule on the slots' schedule, by age: one read more a
	// batch, for the people's birth dates.
	minAge := 0
	if _, err := f.store.(interface {
		SetEligibility(context.Context, booking.EligibilityRule, bool, time.Time) (booking.EligibilityRule, error)
	}).SetEligibility(ctx, booking.EligibilityRule{ScheduleID: slots[0].ScheduleID, MinAge: &minAge}, false, now); err != nil {
		t.Fatal(err)
	}
	other := addChild(t, f, send, p(8))
	book(p(8), slots[0], forPerson(other))
	if n := least(book(p(8), slots[1], forPerson(other)), book(p(8), slots[2], forPerson(other)), book(p(8), slots[3], forPerson(other))); n != 3 {
		t.Errorf("a booking under an eligibility rule cost %d round trips, want 3", n)
	}
}

// addChild adds a child to account's people and returns the child's id.
func addChild(t *testing.T, f front, send func(int64, string, string, string) (int, int64), account int64) int64 {
	t.Helper()
	if code, _ := send(account, "POST", "/api/me/people", `{"name":"Lan","birthDate":"2019-05-01","relation":"child","consent":true}`); code != http.StatusCreated {
		t.Fatalf("adding a person: %d", code)
	}
	people, err := f.store.(interface {
		People(context.Context, int64, booking.Page) ([]booking.Patient, error)
	}).People(context.Background(), account, booking.Page{Limit: 10})
	if err != nil || len(people) != 2 {
		t.Fatalf("the account's people: %v, %+v", err, people)
	}
	if people[0].ID == account {
		return people[1].ID
	}
	return people[0].ID
}
