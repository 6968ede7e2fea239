package fhir

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// TestAppointmentSearchOfLimitedStaff: the front desk limited to site B
// searching a patient's appointments finds those of site B only, paged
// whole; an unlimited admin finds all.
func TestAppointmentSearchOfLimitedStaff(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	acc, ok := f.store.Store.(accounts.Store)
	if !ok {
		t.Fatalf("the %T store keeps no staff accounts", f.store.Store)
	}
	siteB, err := f.store.CreateSite(ctx, booking.Site{Name: "Site B", TimeZone: "Europe/Paris"})
	must(t, err)
	deptB, err := f.store.CreateDepartment(ctx, booking.Department{Name: "Pédiatrie", SiteID: siteB.ID})
	must(t, err)
	docB, err := f.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Blanc", DepartmentID: deptB.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	var onB []booking.Slot
	for h := 12; h < 15; h++ {
		onB = append(onB, f.slot(docB.ID, time.Date(2026, 12, 4, h, 0, 0, 0, f.paris), 1, start.Add(-time.Hour), booking.SlotOpen))
	}
	must(t, f.svc.Book(ctx, f.p1.ID, f.open.ID, "a").Err)
	for i, sl := range onB {
		must(t, f.svc.Book(ctx, f.p1.ID, sl.ID, "b"+string(rune('0'+i))).Err)
	}
	root := booking.WithActor(ctx, booking.Actor{Role: booking.RoleAdmin, ID: "root"})
	must(t, acc.SetStaffPassword(root, "bea", []byte("$2a$10$x"), f.now()))
	must(t, acc.SetStaffReception(root, "bea"))
	must(t, acc.SetStaffSites(root, "bea", []int64{siteB.ID}, f.now()))
	svc := service.NewService(f.store, service.Options{Now: f.now, BookingRate: fixtureBookingRate, Accounts: acc})
	f.h = New(Config{Service: svc, Signer: f.signer, PublicURL: "https://clinic.test", Zone: f.paris})
	f.srv = httptest.NewServer(f.h)
	t.Cleanup(f.srv.Close)

	bea := f.token(auth.RoleReception, "staff:bea")
	q := "/fhir/Appointment?patient=Patient/" + id(f.p1.ID)
	got := entries[Appointment](t, f.get(q, bea))
	if len(got) != 3 {
		t.Fatalf("site B's desk found %d of the patient's appointments, want site B's 3: %+v", len(got), got)
	}
	for i, a := range got {
		if a.Slot[0].Reference != "Slot/"+id(onB[i].ID) {
			t.Fatalf("site B's desk found %s, want %s", a.Slot[0].Reference, "Slot/"+id(onB[i].ID))
		}
	}
	// Paged: two, then the third, none of site A's.
	var page struct {
		Entry []struct {
			Resource Appointment `json:"resource"`
		} `json:"entry"`
	}
	must(t, json.Unmarshal(f.get(q+"&_count=2", bea).body, &page))
	if len(page.Entry) != 2 || page.Entry[1].Resource.Slot[0].Reference != "Slot/"+id(onB[1].ID) {
		t.Fatalf("a page of 2 of site B's: %+v", page)
	}
	if all := entries[Appointment](t, f.get(q, f.token(auth.RoleAdmin, "a"))); len(all) != 4 {
		t.Fatalf("an unlimited admin found %d, want 4", len(all))
	}
}
