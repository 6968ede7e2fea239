package service

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/sqlite"
)

// peopleCounts is a PeopleObserver that keeps what it is told.
type peopleCounts map[[2]string]int

func (c peopleCounts) Person(action, outcome string)    { c[[2]string{action, outcome}]++ }
func (peopleCounts) Booked(string, bool, time.Duration) {}
func (peopleCounts) Batch(int, time.Duration)           {}

// TestPeopleObserved: every change to a person is counted once by its
// action and outcome, a refusal by its problem code.
func TestPeopleObserved(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	counts := peopleCounts{}
	s := NewService(st, Options{Observer: counts, Now: func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }})
	acc, err := st.CreatePatient(ctx, booking.Patient{Name: "Ada", Phone: "+33612345678"})
	if err != nil {
		t.Fatal(err)
	}
	in := booking.PersonInput{Name: "Kid", BirthDate: "2016-04-05", Relation: booking.RelationChild, Consent: true}
	kid, err := s.AddPerson(ctx, acc.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	in.Consent = false
	if _, err := s.AddPerson(ctx, acc.ID, in); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("no consent: %v", err)
	}
	name := "Kiddo"
	if _, err := s.UpdatePerson(ctx, acc.ID, kid.ID, PersonPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemovePerson(ctx, acc.ID, acc.ID); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("removing the account: %v", err)
	}
	if _, err := s.RemovePerson(ctx, acc.ID, kid.ID); err != nil {
		t.Fatal(err)
	}
	want := peopleCounts{
		{booking.PersonAdd, "done"}: 1, {booking.PersonAdd, string(booking.CodeInvalidRequest)}: 1,
		{booking.PersonUpdate, "done"}:                       1,
		{booking.PersonRemove, string(booking.CodeNotFound)}: 1, {booking.PersonRemove, "done"}: 1,
	}
	if len(counts) != len(want) {
		t.Fatalf("counted %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%v counted %d, want %d", k, counts[k], n)
		}
	}
}
