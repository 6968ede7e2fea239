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
