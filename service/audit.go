package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// Audit lists audit entries (see AuditFilter), newest first.
func (s *Service) Audit(ctx context.Context, f booking.AuditFilter) ([]booking.AuditEntry, error) {
	if f.Limit <= 0 || f.Limit > booking.MaxAuditPage {
		f.Limit = booking.MaxAuditPage
	}
	return bounded(s, ctx, func(ctx context.Context) ([]booking.AuditEntry, error) { return s.store.ListAudit(ctx, f) })
}
