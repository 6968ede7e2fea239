package booking

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// A site is one place of the clinic: a hospital of a group, a vaccination
// centre. Departments belong to a site, and their doctors with them. The
// first site is the clinic of the --clinic-* settings (FirstSite).

// Bounds of a site.
const (
	// MaxSiteName bounds a site's name, in characters.
	MaxSiteName = 200
	// MaxSiteAddress bounds a site's one-line postal address.
	MaxSiteAddress = 500
	// MaxSitePhone bounds a site's phone number as shown.
	MaxSitePhone = 40
)

// Site is a place of the clinic.
type Site struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Address string `json:"address"`
	// Lat and Lon are the site's position in degrees (WGS 84), both nil
	// when unknown.
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
	TimeZone string   `json:"timezone"`
	// Phone is the site's booking phone number as shown to patients.
	Phone string `json:"phone"`
	// OpeningHours are the site's weekly hours in its zone, shown to
	// patients (booking/opening_hours.go).
	OpeningHours OpeningHours `json:"openingHours"`
	CreatedAt    time.Time    `json:"createdAt"`
}

// SiteUpdate changes a site; nil fields stay as they are. Position sets
// both coordinates at once (Clear removes them).
type SiteUpdate struct {
	Name     *string
	Address  *string
	TimeZone *string
	Phone    *string
	Position *Position
	// OpeningHours replaces the whole week (empty clears it).
	OpeningHours *OpeningHours
}

// Position is a point in degrees; the zero Position with Clear set means
// "unknown".
type Position struct {
	Lat, Lon float64
	Clear    bool
}

// Apply returns s changed by u.
func (u SiteUpdate) Apply(s Site) Site {
	for _, f := range []struct{ dst, v *string }{{&s.Name, u.Name}, {&s.Address, u.Address},
		{&s.TimeZone, u.TimeZone}, {&s.Phone, u.Phone}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if u.OpeningHours != nil {
		s.OpeningHours = *u.OpeningHours
	}
	if p := u.Position; p != nil {
		s.Lat, s.Lon = nil, nil
		if !p.Clear {
			lat, lon := p.Lat, p.Lon
			s.Lat, s.Lon = &lat, &lon
		}
	}
	return s
}

// Validate checks a site before it is written and trims its text.
func (s *Site) Validate() error {
	s.Name, s.Address, s.Phone = strings.TrimSpace(s.Name), strings.TrimSpace(s.Address), strings.TrimSpace(s.Phone)
	switch {
	case s.Name == "" || utf8.RuneCountInString(s.Name) > MaxSiteName:
		return Errorf(CodeInvalidRequest, "name must be 1 to %d characters", MaxSiteName)
	case utf8.RuneCountInString(s.Address) > MaxSiteAddress || strings.ContainsAny(s.Address, "\r\n"):
		return Errorf(CodeInvalidRequest, "address must be one line of at most %d characters", MaxSiteAddress)
	case utf8.RuneCountInString(s.Phone) > MaxSitePhone || strings.ContainsAny(s.Phone, "\r\n"):
		return Errorf(CodeInvalidRequest, "phone must be one line of at most %d characters", MaxSitePhone)
	case (s.Lat == nil) != (s.Lon == nil):
		return Errorf(CodeInvalidRequest, "lat and lon go together")
	case s.Lat != nil && !(math.Abs(*s.Lat) <= 90 && math.Abs(*s.Lon) <= 180):
		return Errorf(CodeInvalidRequest, "lat must be from -90 to 90 and lon from -180 to 180")
	}
	if _, err := time.LoadLocation(s.TimeZone); err != nil || s.TimeZone == "" || s.TimeZone == "Local" {
		return Errorf(CodeInvalidRequest, "timezone must be an IANA time zone")
	}
	h, err := s.OpeningHours.Normalize()
	s.OpeningHours = h
	return err
}

// SiteStore keeps the sites.
type SiteStore interface {
	// CreateSite writes a validated site; a taken name is a conflict;
	// audited.
	CreateSite(ctx context.Context, s Site) (Site, error)
	// UpdateSite changes a site in one transaction (Apply, then
	// Validate); audited.
	UpdateSite(ctx context.Context, id int64, u SiteUpdate) (Site, error)
	// GetSite reads one site.
	GetSite(ctx context.Context, id int64) (Site, error)
	// ListSites lists the sites by id, one page at a time.
	ListSites(ctx context.Context, p Page) ([]Site, error)
	// SiteOf reads the site of the slot, appointment, doctor or department
	// ref names (0 for a department on no site), or not found: the
	// Service asks it only for a caller limited to sites (staffsites.go).
	SiteOf(ctx context.Context, ref SiteRef) (int64, error)
	// ListSitesNear lists the sites with a position, nearest first.
	ListSitesNear(ctx context.Context, q SitesNear) ([]SiteDistance, error)
	// FillFirstSite writes s (Validate first) over the site the migration
	// made, if it is still that placeholder, and reports whether it did:
	// the --clinic-* settings are flags a migration cannot read. Once
	// filled, or edited through UpdateSite, the site is the staff's and a
	// later start leaves it alone.
	FillFirstSite(ctx context.Context, s Site) (bool, error)
}

// stateOfSite is what the audit log keeps of a site: all of it (a site's
// fields are the clinic's, no one's personal data).
func stateOfSite(s *Site) any {
	if s == nil {
		return nil
	}
	return s
}

// AuditSite is the entry of a site created (before nil) or changed.
func AuditSite(ctx context.Context, now time.Time, before *Site, after Site) AuditEntry {
	action := "update"
	if before == nil {
		action = "create"
	}
	return Audit(ctx, now, AuditChange{Entity: EntitySite, ID: after.ID, Action: action,
		Before: stateOfSite(before), After: stateOfSite(&after)})
}

// DepartmentFilter selects departments to list: those of a site (all with
// 0), and the empty ones too when All (ListDepartments' rule otherwise).
type DepartmentFilter struct {
	SiteID int64
	All    bool
}

// DoctorFilter selects doctors to list: of a department and of a site
// (any with 0), the deactivated ones too when All.
type DoctorFilter struct {
	DepartmentID int64
	SiteID       int64
	All          bool
}

// OpenSlots asks ListOpenSlots for the OPEN slots with a place left of
// DoctorIDs starting in [From, To), of the site's doctors only when SiteID
// is not 0: each doctor's first PerDoctor of them, at most Limit in all.
type OpenSlots struct {
	DoctorIDs []int64
	SiteID    int64
	From, To  time.Time
	Limit     int
}

// PerDoctor is how many of each doctor's slots ListOpenSlots reads: Limit
// shared evenly among the doctors, at least one each (none when Limit is
// not positive). Read whole in doctor order, the bound gave 500 doctors'
// first-available to the first 35 of them (a week of 40 slots a day each
// fills 10,000): the others' earlier places were never seen.
func (q OpenSlots) PerDoctor() int {
	if q.Limit <= 0 {
		return 0
	}
	return max(1, q.Limit/max(1, len(q.DoctorIDs)))
}

// EarthRadiusKm is the mean radius of the Earth (IUGG), the sphere the
// stores' great-circle distance is measured on.
const EarthRadiusKm = 6371.0088

// SitesNear asks ListSitesNear for the sites with a position by their
// great-circle distance from (Lat, Lon), nearest first and ties by id:
// Limit of them after the first Skip. A site without a position is not
// listed: its distance is unknown.
type SitesNear struct {
	Lat, Lon    float64
	Skip, Limit int
}

// Validate checks the point.
func (q SitesNear) Validate() error {
	if !(math.Abs(q.Lat) <= 90 && math.Abs(q.Lon) <= 180) || q.Skip < 0 || q.Limit < 0 {
		return Errorf(CodeInvalidRequest, "lat must be from -90 to 90 and lon from -180 to 180")
	}
	return nil
}

// SiteDistance is a site and its distance from the point asked.
type SiteDistance struct {
	Site
	DistanceKm float64 `json:"distanceKm"`
}

// MapURL links the site's position on OpenStreetMap, "" when unknown.
func (s Site) MapURL() string {
	if s.Lat == nil || s.Lon == nil {
		return ""
	}
	return fmt.Sprintf("https://www.openstreetmap.org/?mlat=%.5f&mlon=%.5f#map=17/%.5f/%.5f", *s.Lat, *s.Lon, *s.Lat, *s.Lon)
}

// Where is the site as a patient is told where to go: its name, and its
// address when known.
func (s Site) Where() string {
	if s.Address == "" {
		return s.Name
	}
	return s.Name + ", " + s.Address
}
