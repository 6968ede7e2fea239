package service

import (
	"context"
	"slices"
	"time"

	"github.com/slotd/slotd/booking"
)

// StandbyObserver is what an Options.Observer may also implement to count
// the leftover offers (cmd/slotd's metrics do).
type StandbyObserver interface {
	// LeftoverOffers counts n leftover offers by outcome (booking.OfferMade,
	// OfferAccepted, OfferDeclined, OfferExpired).
	LeftoverOffers(outcome string, n int)
}

func (s *Service) observeLeftovers(outcome string, n int) {
	if o, ok := s.observer.(StandbyObserver); ok && n > 0 {
		o.LeftoverOffers(outcome, n)
	}
}

// JoinStandby opts patient e.PatientID in for leftover doses at e.SiteID
// for [e.From, e.To) under the client's Idempotency-Key; a retry returns
// the standby with existed set.
func (s *Service) JoinStandby(ctx context.Context, e booking.WaitlistEntry) (booking.WaitlistEntry, bool, error) {
	if err := booking.CheckStandby(&e, s.now()); err != nil {
		return booking.WaitlistEntry{}, false, err
	}
	return s.join(ctx, e)
}

// Standbys lists a patient's standbys, newest first (their waitlist
// entries for a site).
func (s *Service) Standbys(ctx context.Context, patientID int64) ([]booking.WaitlistEntry, error) {
	es, err := s.Waitlist(ctx, patientID)
	out := []booking.WaitlistEntry{}
	for _, e := range es {
		if e.IsStandby() {
			out = append(out, e)
		}
	}
	return out, err
}

// LeaveStandby leaves patientID's standby id as LeaveWaitlist leaves an
// entry (its running offer declined, the place passed on); an entry that
// is not one of the patient's standbys is not found here.
func (s *Service) LeaveStandby(ctx context.Context, id, patientID int64) (booking.WaitlistEntry, error) {
	mine, err := s.Standbys(ctx, patientID)
	if err != nil {
		return booking.WaitlistEntry{}, err
	}
	if !slices.ContainsFunc(mine, func(e booking.WaitlistEntry) bool { return e.ID == id }) {
		return booking.WaitlistEntry{}, booking.NotFound("standby")
	}
	return s.LeaveWaitlist(ctx, id, patientID)
}

// StandbyPolicy reads a site's leftover policy.
func (s *Service) StandbyPolicy(ctx context.Context, siteID int64) (booking.StandbyPolicy, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.StandbyPolicy, error) { return s.store.StandbyPolicy(ctx, siteID) })
}

// SetStandbyPolicy writes a site's leftover policy (an admin's).
func (s *Service) SetStandbyPolicy(ctx context.Context, p booking.StandbyPolicy) (booking.StandbyPolicy, error) {
	if err := p.Validate(); err != nil {
		return booking.StandbyPolicy{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.StandbyPolicy, error) {
		return s.store.SetStandbyPolicy(ctx, p, s.now())
	})
}

// StandbyDay counts a site's standbys for the local day (YYYY-MM-DD in
// the site's zone).
func (s *Service) StandbyDay(ctx context.Context, siteID int64, day string) (booking.StandbyDay, error) {
	site, err := bounded(s, ctx, func(ctx context.Context) (booking.Site, error) { return s.store.GetSite(ctx, siteID) })
	if err != nil {
		return booking.StandbyDay{}, err
	}
	loc, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	d, err := time.ParseInLocation(time.DateOnly, day, loc)
	if err != nil {
		return booking.StandbyDay{}, booking.Errorf(booking.CodeInvalidRequest, "day must be YYYY-MM-DD")
	}
	out, err := bounded(s, ctx, func(ctx context.Context) (booking.StandbyDay, error) {
		return s.store.StandbyDay(ctx, siteID, d, d.AddDate(0, 0, 1))
	})
	out.Day = day
	return out, err
}

// OfferLeftovers is the leftover scan: each candidate slot's places left
// are offered to its site's standbys (Store.OfferLeftovers), one slot per
// transaction. It returns the offers made.
func (s *Service) OfferLeftovers(ctx context.Context) ([]booking.Appointment, error) {
	ids, err := bounded(s, ctx, func(ctx context.Context) ([]int64, error) {
		return s.store.LeftoverSlots(ctx, s.now(), booking.LeftoverScanLimit)
	})
	if err != nil {
		return nil, err
	}
	var out []booking.Appointment
	for _, id := range ids {
		as, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
			return s.store.OfferLeftovers(ctx, id, s.now())
		})
		if err != nil {
			return out, err
		}
		if len(as) > 0 {
			s.slotChanged(id, 0)
			s.observeLeftovers(booking.OfferMade, len(as))
		}
		out = append(out, as...)
	}
	return out, nil
}
