package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// The clinic's sites (booking/sites.go).

// CreateSite adds a site.
func (s *Service) CreateSite(ctx context.Context, v booking.Site) (booking.Site, error) {
	if err := s.runsClinic(ctx); err != nil {
		return booking.Site{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Site, error) { return s.store.CreateSite(ctx, v) })
}

// UpdateSite changes a site.
func (s *Service) UpdateSite(ctx context.Context, id int64, u booking.SiteUpdate) (booking.Site, error) {
	if err := s.runsClinic(ctx); err != nil {
		return booking.Site{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Site, error) { return s.store.UpdateSite(ctx, id, u) })
}

// FillFirstSite writes the clinic's settings over the site the migration
// made, once (booking.SiteStore); slotd serve calls it at start.
func (s *Service) FillFirstSite(ctx context.Context, v booking.Site) (bool, error) {
	return bounded(s, ctx, func(ctx context.Context) (bool, error) { return s.store.FillFirstSite(ctx, v) })
}
