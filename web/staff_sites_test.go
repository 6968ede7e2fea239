package web

import (
	"context"
	"fmt"
	"net/http"
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
	root := booking.WithActor(ctx, booking.Actor{Role: booking.RoleAdmin, ID: "admin"})
	siteB, err := s.store.CreateSite(ctx, booking.Site{Name: "Site B", TimeZone: "Europe/Paris"})
	must(t, err)
	deptB, err := s.store.CreateDepartment(ctx, booking.Department{Name: "Dermatology B", SiteID: siteB.ID})
	must(t, err)
	docB, err := s.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Site-B", DepartmentID: deptB.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	must(t, s.store.SetStaffPassword(ctx, "rita", []byte("$2a$10$x"), time.Now()))
	must(t, s.store.SetStaffReception(ctx, "rita"))
	_, err = s.svc.SetStaffSites(root, "rita", []int64{siteB.ID})
	must(t, err)

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
}
