package fhir

import (
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
)

// TestListParamsAreDeduplicatedAndCapped: a repeated value is read once,
// and a list longer than MaxListValues is refused before any slot is read.
func TestListParamsAreDeduplicatedAndCapped(t *testing.T) {
	f := newFixture(t)
	ref := "Schedule/" + id(f.doc.ID)
	before := f.store.listSlots.Load()
	a := f.get("/fhir/Slot?schedule="+strings.Repeat(ref+",", 5)+id(f.doc.ID)+"&start=2026-12-02", "")
	if got := entries[Slot](t, a); len(got) != 4 {
		t.Fatalf("%d slots for one schedule named six times, want 4: %s", len(got), a.body)
	}
	if n := f.store.listSlots.Load() - before; n != 1 {
		t.Fatalf("%d slot reads for one schedule named six times, want 1", n)
	}
	many := make([]string, MaxListValues+1)
	for i := range many {
		many[i] = "Schedule/" + id(int64(i+1))
	}
	before = f.store.listSlots.Load()
	expectOutcome(t, f.get("/fhir/Slot?schedule="+strings.Join(many, ","), ""), 400, booking.CodeInvalidRequest)
	if n := f.store.listSlots.Load() - before; n != 0 {
		t.Fatalf("%d slot reads for a refused list", n)
	}
	// The cap counts values across repeated parameters too.
	expectOutcome(t, f.get("/fhir/Slot?schedule="+strings.Join(many[:MaxListValues], ",")+"&schedule=Schedule/999", ""), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/Schedule?actor="+strings.Join(many, ","), ""), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/Appointment/$find?practitioner="+strings.Join(many, ","), ""), 400, booking.CodeInvalidRequest)
}

// TestFindNeedsANarrowing: $find over every doctor is allowed only over a
// short period, so its cost does not grow with the clinic.
func TestFindNeedsANarrowing(t *testing.T) {
	f := newFixture(t)
	expectOutcome(t, f.get("/fhir/Appointment/$find?start=2026-12-01&end=2026-12-20", ""), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/Appointment/$find", ""), 400, booking.CodeInvalidRequest)
	if got := entries[Slot](t, f.get("/fhir/Appointment/$find?start=2026-12-01&end=2026-12-07", "")); len(got) != 3 {
		t.Fatalf("everyone's free slots over a week: %+v", got)
	}
	if got := entries[Slot](t, f.get("/fhir/Appointment/$find?specialty=Dermatology&start=2026-12-01&end=2026-12-20", "")); len(got) != 1 {
		t.Fatalf("a specialty over 20 days: %+v", got)
	}
	if got := entries[Slot](t, f.get("/fhir/Appointment/$find?practitioner=Practitioner/"+id(f.doc.ID)+"&start=2026-12-01&end=2026-12-20", "")); len(got) != 2 {
		t.Fatalf("a practitioner over 20 days: %+v", got)
	}
}
