package booking

import (
	"context"
	"slices"
	"time"
)

// A staff account may be limited to sites (a receptionist works at one
// hospital of a group): an empty list is every site, as before. The
// Service fills Actor.Sites from the account (never from a token) and
// asks SiteAllowed before any staff work on a slot, appointment, doctor or
// department; what a limited caller names on another site is not found,
// as another patient's id is for a patient, so that ids say nothing of the
// other sites. Patients are never limited.

// MaxStaffSites bounds the sites one staff account may be limited to.
const MaxStaffSites = 100

// SiteLimited reports whether caller is limited to some sites.
func SiteLimited(caller Actor) bool { return len(caller.Sites) > 0 }

// SiteAllowed is the one rule of where a caller works: anywhere when not
// limited, else on its sites only (a department on no site, 0, is on none
// of them).
func SiteAllowed(caller Actor, siteID int64) bool {
	return !SiteLimited(caller) || slices.Contains(caller.Sites, siteID)
}

// SiteRefusal is the answer to a limited caller for a kind of thing
// ("slot", "appointment", "doctor", "department", "schedule", "site") of
// another site: not
// found, as if it did not exist.
func SiteRefusal(kind string) *Error { return NotFound(kind) }

// RunsClinic reports whether caller may change what is the whole clinic's
// (staff accounts and their sites, the booking policy, sites, closures,
// exports of every site): an admin limited to no site, or the command line
// and jobs (ActorSystem, ActorJob). An admin limited to sites runs its
// sites' desk and nothing clinic-wide.
func RunsClinic(caller Actor) bool {
	switch caller.Role {
	case ActorSystem, ActorJob:
		return true
	case RoleAdmin:
		return !SiteLimited(caller)
	}
	return false
}

// ClinicWideRefusal refuses a clinic-wide change to a caller that does
// not run the clinic.
func ClinicWideRefusal() *Error {
	return Errorf(CodeForbidden, "only an admin limited to no site can change staff accounts or the clinic's settings")
}

// SiteRef names the thing whose site SiteOf reads: exactly one id is set.
type SiteRef struct {
	SlotID, AppointmentID, DoctorID, DepartmentID, ScheduleID int64
}

// Kind is what ref names, for the not-found answer.
func (ref SiteRef) Kind() string {
	switch {
	case ref.SlotID != 0:
		return "slot"
	case ref.AppointmentID != 0:
		return "appointment"
	case ref.DoctorID != 0:
		return "doctor"
	case ref.ScheduleID != 0:
		return "schedule"
	}
	return "department"
}

// CheckStaffSites validates the sites an account is limited to and
// returns them sorted without repeats: positive ids, at most
// MaxStaffSites; none is every site.
func CheckStaffSites(ids []int64) ([]int64, *Error) {
	if len(ids) > MaxStaffSites {
		return nil, Errorf(CodeInvalidRequest, "a staff account is limited to at most %d sites", MaxStaffSites)
	}
	out := slices.Clone(ids)
	for _, id := range out {
		if id <= 0 {
			return nil, Errorf(CodeInvalidRequest, "a site id is a positive integer")
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []int64{}
	}
	return out, nil
}

// staffSitesState is what the log keeps of an account's sites.
type staffSitesState struct {
	Name  string  `json:"name"`
	Sites []int64 `json:"sites"`
}

// StaffSitesChange is staff user Name's sites changed from Before to
// After (both as CheckStaffSites returns them).
type StaffSitesChange struct {
	Name          string
	Before, After []int64
}

// AuditStaffSites is the entry of change c.
func AuditStaffSites(ctx context.Context, now time.Time, c StaffSitesChange) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityStaffSites, Action: "update",
		Before: staffSitesState{Name: c.Name, Sites: nonNil(c.Before)}, After: staffSitesState{Name: c.Name, Sites: nonNil(c.After)}})
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
