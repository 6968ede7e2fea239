package booking

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Standby for leftover doses (docs/campaigns.md): a patient opts in at a
// site for a day or a short period. When a slot of the site has passed its
// check-in window (Policy.CheckInWindow) with places left — never booked,
// cancelled, or released by a no-show (Policy.AutoNoShow frees the place of
// a BOOKED appointment not checked in) — the leftover scan offers those
// places, first come first served in opt-in order, as the waitlist's held
// offers: a standby is a WaitlistEntry with SiteID set, its offer a HELD
// appointment with the site's short hold. Accepting books it (AnswerOffer,
// DecideAnswer); a decline or an expiry releases the place like any other,
// and the next scan offers it to the next standby. One standby gives at
// most one offer: its entry ends with it (accepted, declined, expired).

// Bounds of a standby.
const (
	// MaxStandbyDays bounds a standby's period: leftover doses are a
	// same-day matter, opted into for a day or a few.
	MaxStandbyDays = 14
	// DefaultLeftoverHoldMinutes is how long a leftover offer is held.
	DefaultLeftoverHoldMinutes = 10
	// MaxLeftoverHoldMinutes bounds a site's hold.
	MaxLeftoverHoldMinutes = 120
	// MaxLeftoverAtOnce bounds a site's offers out at once per slot.
	MaxLeftoverAtOnce = 100
)

// NotifyLeftoverOffer tells a standby a leftover place is held for them.
const NotifyLeftoverOffer NotificationKind = "leftover-offer"

// StandbyPolicy is a site's leftover-dose policy. Off by default.
type StandbyPolicy struct {
	SiteID int64 `json:"siteId"`
	// Enabled turns leftover offers on at the site.
	Enabled bool `json:"enabled"`
	// HoldMinutes is how long an offer is held for its standby (default
	// DefaultLeftoverHoldMinutes).
	HoldMinutes int `json:"holdMinutes"`
	// AtOnce caps the offers out at once in one slot (0: one per place
	// left). A place is never offered to two people at once.
	AtOnce int `json:"atOnce"`
}

// DefaultStandbyPolicy is the policy of a site that has none written.
func DefaultStandbyPolicy(siteID int64) StandbyPolicy {
	return StandbyPolicy{SiteID: siteID, HoldMinutes: DefaultLeftoverHoldMinutes}
}

// Validate refuses a hold outside 1..MaxLeftoverHoldMinutes and an AtOnce
// outside 0..MaxLeftoverAtOnce.
func (p StandbyPolicy) Validate() error {
	switch {
	case p.HoldMinutes < 1 || p.HoldMinutes > MaxLeftoverHoldMinutes:
		return Errorf(CodeInvalidRequest, "holdMinutes must be 1 to %d", MaxLeftoverHoldMinutes)
	case p.AtOnce < 0 || p.AtOnce > MaxLeftoverAtOnce:
		return Errorf(CodeInvalidRequest, "atOnce must be 0 (one per place) to %d", MaxLeftoverAtOnce)
	}
	return nil
}

// IsStandby reports whether e is a standby for leftover doses (not a
// waitlist entry for a doctor or department).
func (e WaitlistEntry) IsStandby() bool { return e.SiteID != 0 }

// CheckStandby validates an opt-in at now and fills its defaults: a site,
// no doctor or department, a period [From, To) not over and at most
// MaxStandbyDays long; part of day any.
func CheckStandby(e *WaitlistEntry, now time.Time) error {
	switch {
	case e.SiteID == 0:
		return Errorf(CodeInvalidRequest, "siteId is required")
	case e.DoctorID != 0 || e.DepartmentID != 0:
		return Errorf(CodeInvalidRequest, "a standby names a site, not a doctor or department")
	case e.From.IsZero() || e.To.IsZero() || !e.From.Before(e.To):
		return Errorf(CodeInvalidRequest, "from must be before to")
	case !now.Before(e.To):
		return Errorf(CodeInvalidRequest, "the period is over")
	case e.To.Sub(e.From) > MaxStandbyDays*24*time.Hour:
		return Errorf(CodeInvalidRequest, "a standby is at most %d days", MaxStandbyDays)
	}
	e.PartOfDay = PartAny
	e.Fingerprint = fmt.Sprintf("site=%d;from=%d;to=%d", e.SiteID, e.From.Unix(), e.To.Unix())
	return nil
}

// LeftoverReads is what the leftover scan reads of one slot under its
// lock: the Slot, its doctor's Zone (nil: UTC), the clinic Policy (its
// check-in window), the site's StandbyPolicy, the site's waiting standbys
// in opt-in order (Waiting), the patients of those who already hold an
// active appointment in the slot or overlapping it (Busy), the queue
// numbers in use (Taken) and the leftover offers still HELD in it (Out).
type LeftoverReads struct {
	Slot    Slot
	Zone    *time.Location
	Policy  Policy
	Standby StandbyPolicy
	Waiting []WaitlistEntry
	Busy    map[int64]bool
	Taken   []int
	Out     int
}

// LeftoverOpen reports whether slot sl's leftover places may be offered at
// now under p: its check-in window has closed and its local day (zone,
// nil: UTC) has not ended.
func LeftoverOpen(sl Slot, p Policy, zone *time.Location, now time.Time) bool {
	if zone == nil {
		zone = time.UTC
	}
	_, closes := p.CheckInWindow(sl.StartAt)
	y, m, d := sl.StartAt.In(zone).Date()
	dayEnd := time.Date(y, m, d+1, 0, 0, 0, 0, zone)
	return now.After(closes) && now.Before(dayEnd)
}

// DecideLeftovers gives slot rd.Slot's places left to the earliest
// standbys whose period holds its start, one each and one per patient, as
// offers held for the site's minutes (never past the local day's end): no
// offer when the site's policy is off, the slot is closed or a round's, or
// outside LeftoverOpen; at most the places left (capacity - booked, so a
// place is never offered twice nor oversold) and, under AtOnce, at most
// AtOnce - Out. Busy patients are passed over, their standby kept.
func DecideLeftovers(rd LeftoverReads, now time.Time) []Offer {
	sl, sp := rd.Slot, rd.Standby
	if !sp.Enabled || sl.Status != SlotOpen || sl.RoundID != 0 || !LeftoverOpen(sl, rd.Policy, rd.Zone, now) {
		return nil
	}
	n := sl.Capacity - sl.BookedCount
	if sp.AtOnce > 0 {
		n = min(n, sp.AtOnce-rd.Out)
	}
	if n <= 0 {
		return nil
	}
	mins := sp.HoldMinutes
	if mins <= 0 {
		mins = DefaultLeftoverHoldMinutes
	}
	zone := rd.Zone
	if zone == nil {
		zone = time.UTC
	}
	y, m, d := sl.StartAt.In(zone).Date()
	exp := now.Add(time.Duration(mins) * time.Minute)
	if end := time.Date(y, m, d+1, 0, 0, 0, 0, zone); exp.After(end) {
		exp = end
	}
	var out []Offer
	taken := slices.Clone(rd.Taken)
	seen := map[int64]bool{}
	for _, e := range rd.Waiting {
		if len(out) == n {
			break
		}
		if e.State != EntryWaiting || e.SiteID != sp.SiteID || sl.StartAt.Before(e.From) || !sl.StartAt.Before(e.To) ||
			seen[e.PatientID] || rd.Busy[e.PatientID] {
			continue
		}
		seen[e.PatientID] = true
		out = append(out, singleOffer(e, takeLowest(&taken), exp))
	}
	return out
}

// IsLeftoverOffer reports whether a is a leftover offer's appointment: an
// offer (IsOffer) made once its slot had started, which a waitlist offer
// never is (DecideOffers returns the places of a started slot).
func IsLeftoverOffer(a Appointment) bool { return IsOffer(a) && !a.CreatedAt.Before(a.StartAt) }

// StandbyDay is the staff's view of a site's standbys for one local day:
// the standbys whose period meets the day, waiting and holding an offer,
// and the leftover offers accepted in the day's slots.
type StandbyDay struct {
	SiteID   int64  `json:"siteId"`
	Day      string `json:"day"`
	Waiting  int    `json:"waiting"`
	Offered  int    `json:"offered"`
	Accepted int    `json:"accepted"`
}

// AuditStandbyPolicy is the entry of a site's leftover policy changed
// from before to after.
func AuditStandbyPolicy(ctx context.Context, now time.Time, before, after StandbyPolicy) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntitySite, ID: after.SiteID, Action: "standby-policy", Before: before, After: after})
}

// LeftoverScanLimit bounds the slots one leftover scan looks at.
const LeftoverScanLimit = 200
