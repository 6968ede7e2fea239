package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// fillFirstSite writes the --clinic-* settings over the first site the
// sites migration made, the first time serve starts after it: a
// migration cannot read flags, and afterwards the site is the staff's
// (PATCH /api/admin/sites/{id}), so a later start never overwrites it.
func fillFirstSite(ctx context.Context, svc *service.Service, f interopFlags, logger *slog.Logger) error {
	filled, err := svc.FillFirstSite(ctx, booking.Site{Name: f.clinicName, Address: f.clinicAddress,
		Phone: f.clinicPhone, TimeZone: f.clinicZone})
	if err != nil {
		return fmt.Errorf("the first site from --clinic-name, --clinic-address, --clinic-phone, --clinic-timezone: %w", err)
	}
	if filled {
		logger.Info("first site filled from the clinic settings")
	}
	return nil
}
