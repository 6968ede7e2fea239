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

// History is patientID's appointment history as the patient sees it
// (AuditEntry.SeenByPatient), newest first, a page of at most limit before
// beforeID (0: the newest).
func (s *Service) History(ctx context.Context, patientID, beforeID int64, limit int) ([]booking.AuditEntry, error) {
	es, err := s.Audit(ctx, booking.AuditFilter{PatientID: patientID, Entity: booking.EntityAppointment, BeforeID: beforeID, Limit: limit})
	for i := range es {
		es[i] = es[i].SeenByPatient()
	}
	return es, err
}
