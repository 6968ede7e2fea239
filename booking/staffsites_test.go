package booking

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestSiteAllowed(t *testing.T) {
	every := Actor{Role: RoleReception, ID: "staff:rita"}
	limited := Actor{Role: RoleReception, ID: "staff:rita", Sites: []int64{2, 5}}
	for _, c := range []struct {
		caller Actor
		site   int64
		want   bool
	}{
		{every, 1, true}, {every, 0, true},
		{limited, 2, true}, {limited, 5, true}, {limited, 1, false}, {limited, 0, false},
		{Actor{Role: RolePatient, ID: "7"}, 3, true},
	} {
		if got := SiteAllowed(c.caller, c.site); got != c.want {
			t.Errorf("SiteAllowed(%+v, %d) = %v, want %v", c.caller, c.site, got, c.want)
		}
	}
	if e := SiteRefusal(SiteRef{AppointmentID: 3}.Kind()); e.Code != CodeNotFound || e.Message != "appointment not found" {
		t.Errorf("the refusal: %+v", e)
	}
}

func TestRunsClinic(t *testing.T) {
	for _, c := range []struct {
		caller Actor
		want   bool
	}{
		{Actor{Role: RoleAdmin, ID: "root"}, true},
		{Actor{Role: RoleAdmin, ID: "ann", Sites: []int64{1}}, false},
		{Actor{Role: RoleReception, ID: "rita"}, false},
		{Actor{Role: RoleDoctor, ID: "4"}, false},
		{Actor{Role: ActorSystem, ID: "-"}, true},
		{Actor{Role: ActorJob, ID: "expiry"}, true},
	} {
		if got := RunsClinic(c.caller); got != c.want {
			t.Errorf("RunsClinic(%+v) = %v, want %v", c.caller, got, c.want)
		}
	}
}

func TestCheckStaffSites(t *testing.T) {
	got, err := CheckStaffSites([]int64{5, 2, 5})
	if err != nil || fmt.Sprint(got) != "[2 5]" {
		t.Fatalf("sorted without repeats: %v, %v", got, err)
	}
	if got, err := CheckStaffSites(nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("none is every site, as an empty list: %v, %v", got, err)
	}
	for _, bad := range [][]int64{{0}, {-1}, make([]int64, MaxStaffSites+1)} {
		if _, err := CheckStaffSites(bad); err == nil || err.Code != CodeInvalidRequest {
			t.Errorf("CheckStaffSites(%d ids) = %v, want invalid-request", len(bad), err)
		}
	}
	e := AuditStaffSites(WithActor(context.Background(), Actor{Role: RoleAdmin, ID: "root"}), time.Unix(0, 0), StaffSitesChange{Name: "rita", After: []int64{2}})
	if e.Entity != EntityStaffSites || e.Before != `{"name":"rita","sites":[]}` || e.After != `{"name":"rita","sites":[2]}` || e.ActorID != "root" {
		t.Fatalf("the audit entry: %+v", e)
	}
}
