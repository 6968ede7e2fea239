package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// ClinicPolicy returns the clinic's default policy.
func (s *Service) ClinicPolicy(ctx context.Context) (booking.Policy, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Policy, error) { return s.store.ClinicPolicy(ctx) })
}

// SetClinicPolicy replaces the clinic's default policy.
func (s *Service) SetClinicPolicy(ctx context.Context, p booking.Policy) (booking.Policy, error) {
	if err := s.runsClinic(ctx); err != nil {
		return booking.Policy{}, err
	}
	if err := p.Validate(); err != nil {
		return booking.Policy{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Policy, error) { return s.store.SetClinicPolicy(ctx, p) })
}
