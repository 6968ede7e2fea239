package service

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
)

// Staff limited to sites (booking/staffsites.go). A token names a role and
// a subject, never sites: the Service fills a staff caller's sites from
// its account, remembered per subject and revocation mark. Changing an
// account's sites moves its marks in the same transaction (as a changed
// password does), so the sessions and tokens from before are refused on
// every instance within MarkRefresh, and the next sign-in, under a new
// mark, reads the new sites: nothing stale is ever used. A patient, a
// doctor account and the jobs cost nothing here.

// maxStaffSiteCache bounds the remembered callers (one per staff subject
// and mark: a few per account); the whole map is forgotten past it.
const maxStaffSiteCache = 10000

type staffSiteKey struct {
	sub  booking.Subject
	mark time.Time
}

// staffSiteCache is one instance's memory of staff callers' sites.
type staffSiteCache struct {
	mu sync.Mutex
	m  map[staffSiteKey][]int64
}

func (c *staffSiteCache) get(k staffSiteKey) ([]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *staffSiteCache) put(k staffSiteKey, v []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxStaffSiteCache {
		c.m = map[staffSiteKey][]int64{}
	}
	c.m[k] = v
}

// Caller returns a with the sites its staff account is limited to (none:
// every site, also for a token whose subject is no staff user's, minted by
// the operator). Patients, doctors' accounts, jobs and the system are
// returned as they are, without a read.
func (s *Service) Caller(ctx context.Context, a booking.Actor) (booking.Actor, error) {
	if (a.Role != booking.RoleAdmin && a.Role != booking.RoleReception) || s.accounts == nil {
		return a, nil
	}
	name := strings.TrimPrefix(a.ID, "staff:")
	if !accounts.StaffNameOK(name) {
		return a, nil
	}
	sub := booking.Subject{Role: a.Role, ID: a.ID}
	m, _, _ := s.marks.get(sub, s.wall())
	k := staffSiteKey{sub: sub, mark: m.ValidAfter}
	if sites, ok := s.staffSites.get(k); ok {
		a.Sites = sites
		return a, nil
	}
	sites, err := bounded(s, ctx, func(ctx context.Context) ([]int64, error) { return s.accounts.StaffSites(ctx, name) })
	switch {
	case booking.ErrorCode(err) == booking.CodeNotFound:
		sites = nil
	case err != nil:
		return a, err
	}
	if len(sites) == 0 {
		sites = nil
	}
	s.staffSites.put(k, sites)
	a.Sites = sites
	return a, nil
}

// onSite refuses, as not found (booking.SiteRefusal), what ref names when
// caller is limited to sites it is not on. An unlimited caller costs no
// read; a limited one one indexed read of the thing's site.
func (s *Service) onSite(ctx context.Context, caller booking.Actor, ref booking.SiteRef) error {
	caller, err := s.Caller(ctx, caller)
	if err != nil || !booking.SiteLimited(caller) {
		return err
	}
	site, err := bounded(s, ctx, func(ctx context.Context) (int64, error) { return s.store.SiteOf(ctx, ref) })
	if err != nil {
		return err
	}
	if !booking.SiteAllowed(caller, site) {
		return booking.SiteRefusal(ref.Kind())
	}
	return nil
}

// runsClinic refuses a clinic-wide change (staff accounts, the policy,
// sites) to the caller of ctx unless booking.RunsClinic.
func (s *Service) runsClinic(ctx context.Context) error {
	caller, err := s.Caller(ctx, booking.ActorOf(ctx))
	if err != nil {
		return err
	}
	if !booking.RunsClinic(caller) {
		return booking.ClinicWideRefusal()
	}
	return nil
}

// StaffSites returns the sites staff user name is limited to (empty:
// every site); an unknown user is not found.
func (s *Service) StaffSites(ctx context.Context, name string) ([]int64, error) {
	if s.accounts == nil {
		return nil, errNoAccounts
	}
	if !accounts.StaffNameOK(name) {
		return nil, booking.NotFound("staff user")
	}
	return bounded(s, ctx, func(ctx context.Context) ([]int64, error) { return s.accounts.StaffSites(ctx, name) })
}

// SetStaffSites limits staff user name to sites (none: every site), for
// an admin that runs the clinic (booking.RunsClinic) or the command line;
// audited. The user's sessions and tokens end (its marks move), on this
// instance at once: the next sign-in works on the new sites. An unknown
// user or site is not found.
func (s *Service) SetStaffSites(ctx context.Context, name string, sites []int64) ([]int64, error) {
	if s.accounts == nil {
		return nil, errNoAccounts
	}
	if err := s.runsClinic(ctx); err != nil {
		return nil, err
	}
	if !accounts.StaffNameOK(name) {
		return nil, booking.NotFound("staff user")
	}
	clean, refusal := booking.CheckStaffSites(sites)
	if refusal != nil {
		return nil, refusal
	}
	if _, err := bounded(s, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.accounts.SetStaffSites(ctx, name, clean, s.now())
	}); err != nil {
		return nil, err
	}
	return clean, s.rereadMarks(ctx)
}

// OnSite refuses, as not found, what ref names when caller is limited to
// other sites: for the reads a front end makes itself for staff work (a
// doctor's day, its export). Unlimited callers cost no read.
func (s *Service) OnSite(ctx context.Context, caller booking.Actor, ref booking.SiteRef) error {
	return s.onSite(ctx, caller, ref)
}

// RunsClinic refuses, unless booking.RunsClinic, the clinic-wide work a
// front end does itself (an export of every site's appointments).
func (s *Service) RunsClinic(ctx context.Context) error { return s.runsClinic(ctx) }

// ListingSite is the site a staff listing of caller (the doctors to call
// for, the day page) is narrowed to, site being the one asked for (0:
// every site): site itself for an unlimited caller; for a limited one,
// site when it is one of its own (another is not found), its only site
// when none is named, and with several sites a request to name one.
func (s *Service) ListingSite(ctx context.Context, caller booking.Actor, site int64) (int64, error) {
	caller, err := s.Caller(ctx, caller)
	switch {
	case err != nil:
		return 0, err
	case !booking.SiteLimited(caller):
		return site, nil
	case site != 0 && !booking.SiteAllowed(caller, site):
		return 0, booking.SiteRefusal("site")
	case site != 0:
		return site, nil
	case len(caller.Sites) == 1:
		return caller.Sites[0], nil
	}
	return 0, booking.Errorf(booking.CodeInvalidRequest, "this account works on several sites: name one with site")
}

// onSites refuses, as onSite does, the catalog change of the caller of
// ctx (an admin limited to sites) when any of refs is on another site:
// a department, doctor, schedule or slot of its sites is its to change,
// another site's is not found. Unlimited callers cost no read.
func (s *Service) onSites(ctx context.Context, refs ...booking.SiteRef) error {
	caller, err := s.Caller(ctx, booking.ActorOf(ctx))
	if err != nil || !booking.SiteLimited(caller) {
		return err
	}
	for _, ref := range refs {
		if err := s.onSite(ctx, caller, ref); err != nil {
			return err
		}
	}
	return nil
}

// departmentSite is the site a department is created on or moved to by
// the caller of ctx, site being the one asked for (0: the first site): as
// ListingSite decides, so that a limited admin's department is on one of
// its sites (another is not found; with several, name one).
func (s *Service) departmentSite(ctx context.Context, site int64) (int64, error) {
	return s.ListingSite(ctx, booking.ActorOf(ctx), site)
}
