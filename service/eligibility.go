package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// A vaccination campaign's rule, cohorts and invitations
// (booking/eligibility.go); staff only (the front ends' rule).

// SetEligibility sets a schedule's rule, as Check allows, or with remove
// deletes it.
func (s *Service) SetEligibility(ctx context.Context, rule booking.EligibilityRule, remove bool) (booking.EligibilityRule, error) {
	if !remove {
		if err := rule.Check(); err != nil {
			return booking.EligibilityRule{}, err
		}
	}
	if err := s.onSites(ctx, booking.SiteRef{ScheduleID: rule.ScheduleID}); err != nil {
		return booking.EligibilityRule{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.EligibilityRule, error) {
		return s.store.SetEligibility(ctx, rule, remove, s.now())
	})
}

// Eligibility reads a schedule's rule, not-found when it has none.
func (s *Service) Eligibility(ctx context.Context, scheduleID int64) (booking.EligibilityRule, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.EligibilityRule, error) {
		r, err := s.store.Eligibility(ctx, scheduleID)
		if err == nil && r == nil {
			return booking.EligibilityRule{}, booking.NotFound("eligibility rule")
		}
		if err != nil {
			return booking.EligibilityRule{}, err
		}
		return *r, nil
	})
}

// ImportCohorts adds patients' cohort tags (at most booking.MaxCohortRows,
// each a valid tag) and returns how many were new.
func (s *Service) ImportCohorts(ctx context.Context, rows []booking.CohortRow) (int, error) {
	if len(rows) > booking.MaxCohortRows {
		return 0, booking.Errorf(booking.CodeInvalidRequest, "at most %d rows per import", booking.MaxCohortRows)
	}
	for _, r := range rows {
		if booking.CohortTag(r.Tag) == "" || r.PatientID < 1 {
			return 0, booking.Errorf(booking.CodeInvalidRequest, "a row's patient or tag is not valid")
		}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	return bounded(s, ctx, func(ctx context.Context) (int, error) { return s.store.ImportCohorts(ctx, rows, s.now()) })
}

// CreateInvitations makes count new codes for a schedule, stores their
// keyed hashes and returns the codes: the only time they are seen.
func (s *Service) CreateInvitations(ctx context.Context, scheduleID int64, count int) ([]string, error) {
	if count < 1 || count > booking.MaxInvitations {
		return nil, &booking.Error{Code: booking.CodeInvalidRequest, Pointer: "/count",
			Message: "count must be 1 to 5000", Format: "count must be 1 to 5000"}
	}
	if err := s.onSites(ctx, booking.SiteRef{ScheduleID: scheduleID}); err != nil {
		return nil, err
	}
	codes := booking.NewInvitationCodes(count)
	_, err := bounded(s, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.store.CreateInvitations(ctx, scheduleID, codes, s.now())
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// SetServiceEligibility sets a service's rule, as Check allows, or with
// remove deletes it.
func (s *Service) SetServiceEligibility(ctx context.Context, rule booking.ServiceRule, remove bool) (booking.ServiceRule, error) {
	if !remove {
		if err := rule.Check(); err != nil {
			return booking.ServiceRule{}, err
		}
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.ServiceRule, error) {
		return s.store.SetServiceEligibility(ctx, rule, remove, s.now())
	})
}

// ServiceEligibility reads a service's rule, not-found when it has none.
func (s *Service) ServiceEligibility(ctx context.Context, serviceID int64) (booking.ServiceRule, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.ServiceRule, error) {
		r, err := s.store.ServiceEligibility(ctx, serviceID)
		if err == nil && r == nil {
			return booking.ServiceRule{}, booking.NotFound("eligibility rule")
		}
		if err != nil {
			return booking.ServiceRule{}, err
		}
		return *r, nil
	})
}

// ListServiceEligibility lists the services' rules by service id, one page
// at a time.
func (s *Service) ListServiceEligibility(ctx context.Context, p booking.Page) ([]booking.ServiceRule, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.ServiceRule, error) {
		return s.store.ListServiceEligibility(ctx, p)
	})
}

// ListingObserver is what an Options.Observer may also implement to count
// the listings answered for one person: whether any shown slot had a
// campaign's rule (the read of the person was then possible).
type ListingObserver interface {
	PersonalListing(withRules bool)
}

// PersonalQuery asks what one person can take of listed slots: whom the
// caller acts for (ActFor) and the slots shown.
type PersonalQuery struct {
	Acting  booking.Acting
	SlotIDs []int64
}

// PlacesForPerson answers, for the person the caller acts for (ActFor: a
// patient for themselves or a person they manage, another's is
// CodeNotFound; the desk for anyone named), what they can take of each
// slot that has a rule, by slot id (booking.PlacesFor, the decision the
// booking makes): one read of the slots' rules and, when a rule asks, the
// person. A slot without a rule is absent.
func (s *Service) PlacesForPerson(ctx context.Context, q PersonalQuery) (map[int64]booking.PersonalPlaces, error) {
	if len(q.SlotIDs) > booking.MaxListingSlots {
		q.SlotIDs = q.SlotIDs[:booking.MaxListingSlots]
	}
	rd, err := bounded(s, ctx, func(ctx context.Context) (booking.ListingReads, error) {
		return s.store.ListingRules(ctx, q.Acting.PatientID, q.SlotIDs)
	})
	if err != nil {
		return nil, err
	}
	if o, ok := s.observer.(ListingObserver); ok {
		o.PersonalListing(len(rd.Slots) > 0)
	}
	now := s.now()
	out := make(map[int64]booking.PersonalPlaces, len(rd.Slots))
	for id := range rd.Slots {
		out[id] = *rd.PlacesOf(id, now)
	}
	return out, nil
}
