package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A receptionist limited to her site (booking/staffsites.go) sees on the
// staff catalog only her site's departments and doctors, her doctor's day
// page, and another site's doctor's day as not found; the unlimited admin
// still sees both sites.
func TestStaffSitesPages(t *testing.T) {
	s := &pagesSite{site: newSite(t)}
	ctx := context.Background()
	siteB, err := s.store.CreateSite(ctx, booking.Site{Name: "Site B", TimeZone: "Europe/Paris"})
	must(t, err)
	deptB, err := s.store.CreateDepartment(ctx, booking.Department{Name: "Dermatology B", SiteID: siteB.ID})
	must(t, err)
	docB, err := s.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Site-B", DepartmentID: deptB.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	must(t, s.store.SetStaffPassword(ctx, "rita", []byte("$2a$10$x"), time.Now()))
	must(t, s.store.SetStaffReception(ctx, "rita"))
	// Limited on the clinic page, by the admin only.
	form := url.Values{"user": {"rita"}, "site": {fmt.Sprint(siteB.ID)}}
	if status, _ := s.postAs(t, "reception", "en", "/staff/clinic/staff-sites", form); status != http.StatusForbidden {
		t.Fatalf("reception limiting herself: %d, want 403", status)
	}
	if page := mainOf(s.getAs(t, "staff", "fr", "/staff/clinic")); !strings.Contains(page, `id="staff-sites-form"`) || !strings.Contains(page, "Site B") {
		t.Fatalf("the clinic page's staff sites form:\n%s", page)
	}
	if status, body := s.postAs(t, "staff", "en", "/staff/clinic/staff-sites", form); status != http.StatusSeeOther {
		t.Fatalf("the admin limiting rita: %d\n%.600s", status, body)
	}
	if sites, err := s.svc.StaffSites(ctx, "rita"); err != nil || fmt.Sprint(sites) != fmt.Sprint([]int64{siteB.ID}) {
		t.Fatalf("rita's sites after the form: %v, %v", sites, err)
	}

	home := mainOf(s.getAs(t, "reception", "en", "/staff"))
	if !strings.Contains(home, docB.Name) || !strings.Contains(home, deptB.Name) ||
		strings.Contains(home, s.doctor.Name) || strings.Contains(home, s.dept.Name) {
		t.Fatalf("rita's catalog, limited to site B:\n%s", home)
	}
	if page := mainOf(s.getAs(t, "reception", "en", fmt.Sprintf("/staff/doctors/%d/days/today", docB.ID))); !strings.Contains(page, docB.Name) {
		t.Fatalf("rita's doctor's day:\n%s", page)
	}
	if status, _ := s.statusAs(t, "reception", "en", fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)); status != http.StatusNotFound {
		t.Fatalf("site A's doctor's day for rita: %d, want 404", status)
	}
	admin := mainOf(s.getAs(t, "staff", "en", "/staff"))
	if !strings.Contains(admin, docB.Name) || !strings.Contains(admin, s.doctor.Name) {
		t.Fatalf("the admin's catalog lacks a site:\n%s", admin)
	}

	// The admin limited to site A: no export of every site, no staff
	// account changed any more.
	if status, _ := s.postAs(t, "staff", "en", "/staff/clinic/staff-sites", url.Values{"user": {"admin"}, "site": {fmt.Sprint(s.dept.SiteID)}}); status != http.StatusSeeOther {
		t.Fatalf("limiting the admin: %d", status)
	}
	if status, _ := s.statusAs(t, "staff", "en", "/staff/appointments.csv?from=2026-01-01&to=2026-01-02"); status != http.StatusForbidden {
		t.Fatalf("every site's export for an admin limited to site A: %d, want 403", status)
	}
	if status, _ := s.postAs(t, "staff", "en", "/staff/clinic/staff-sites", url.Values{"user": {"rita"}}); status != http.StatusForbidden {
		t.Fatalf("an admin limited to site A changing rita's sites: %d, want 403", status)
	}
	// ... nor site B's doctor's page (schedules and slots), its own is hers.
	if status, _ := s.statusAs(t, "staff", "en", fmt.Sprintf("/staff/doctors/%d", docB.ID)); status != http.StatusNotFound {
		t.Fatalf("site B's doctor's page for an admin limited to site A: %d, want 404", status)
	}
	if status, _ := s.statusAs(t, "staff", "en", fmt.Sprintf("/staff/doctors/%d", s.doctor.ID)); status != http.StatusOK {
		t.Fatalf("site A's doctor's page for an admin limited to site A: %d, want 200", status)
	}
}
