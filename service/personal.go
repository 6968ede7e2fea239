package service

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/slotd/slotd/booking"
)

// ExportPatient gathers a patient's data and history and records, in the
// audit log, who exported it.
func (s *Service) ExportPatient(ctx context.Context, id int64) (booking.PatientExport, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.PatientExport, error) {
		p, err := s.store.GetPatient(ctx, id)
		if err != nil {
			return booking.PatientExport{}, err
		}
		as, err := s.store.ListAppointments(ctx, booking.AppointmentQuery{PatientID: id})
		if err != nil {
			return booking.PatientExport{}, err
		}
		ws, err := s.store.ListWaitlist(ctx, id)
		if err != nil {
			return booking.PatientExport{}, err
		}
		appts, err := s.store.ListAudit(ctx, booking.AuditFilter{PatientID: id, Limit: booking.MaxAuditPage})
		if err != nil {
			return booking.PatientExport{}, err
		}
		own, err := s.store.ListAudit(ctx, booking.AuditFilter{Entity: booking.EntityPatient, EntityID: id, Limit: booking.MaxAuditPage})
		if err != nil {
			return booking.PatientExport{}, err
		}
		now := s.now()
		if err := s.store.AppendAudit(ctx, booking.Audit(ctx, now, booking.AuditChange{Entity: booking.EntityPatient, ID: id, Action: "export", After: map[string]any{"id": id}})); err != nil {
			return booking.PatientExport{}, err
		}
		return booking.PatientExport{ExportedAt: now.UTC(), Patient: p, Appointments: nonNil(as), Waitlist: nonNil(ws), History: mergeNewestFirst(appts, own)}, nil
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// mergeNewestFirst merges two newest-first lists of entries.
func mergeNewestFirst(a, b []booking.AuditEntry) []booking.AuditEntry {
	out := make([]booking.AuditEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].ID > b[0].ID {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// ErasePatient erases a patient's personal data for reason (required:
// the audit log keeps it). The patient leaves every waiting list, and the
// active appointments that have not started are cancelled first, as staff
// cancel (whatever the patient's cutoff), so that their places are
// released and counted as any other and what was paid is refunded in full; every other
// appointment stays, anonymized with its patient, so that capacity history
// and reconciliation stay true. The phone is then free: a patient
// registered with it later is a new patient. In the erasure's transaction
// the patient's calendar link and sign-in codes (Options.LoginKey) are
// deleted and their revocation mark closed:
// no token of theirs is admitted again, on this instance at once.
func (s *Service) ErasePatient(ctx context.Context, id int64, reason string) (booking.Patient, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > booking.MaxEraseReason {
		return booking.Patient{}, booking.Errorf(booking.CodeInvalidRequest, "an erasure needs a reason (1 to 500 characters)")
	}
	before, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.GetPatient(ctx, id) })
	if err != nil {
		return booking.Patient{}, err
	}
	if before.ManagerID == 0 && before.ErasedAt == nil {
		// An account's people go with it (each erased as it would be alone,
		// its future appointments cancelled): nobody could act for them.
		if err := s.eraseDependants(ctx, id, reason); err != nil {
			return booking.Patient{}, err
		}
	}
	loginKey := ""
	if s.loginKey != nil && before.Phone != "" {
		loginKey = s.loginKey(before.Phone)
	}
	// Waiting entries first (an offer they hold is declined, its place
	// passed on), so that no new offer goes to the patient meanwhile.
	ws, err := s.Waitlist(ctx, id)
	if err != nil {
		return booking.Patient{}, err
	}
	for _, e := range ws {
		if e.State == booking.EntryWaiting || e.State == booking.EntryOffered {
			if _, err := s.LeaveWaitlist(ctx, e.ID, id); err != nil {
				return booking.Patient{}, err
			}
		}
	}
	as, err := s.Appointments(ctx, id, "", booking.Page{})
	if err != nil {
		return booking.Patient{}, err
	}
	now := s.now()
	for _, a := range as {
		if a.Status.Active() && a.StartAt.After(now) {
			if err := s.cancelErased(ctx, a.ID); err != nil {
				return booking.Patient{}, err
			}
		}
	}
	p, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) {
		return s.store.ErasePatient(ctx, booking.Erasure{PatientID: id, Reason: reason, At: now, LoginKey: loginKey})
	})
	if err == nil {
		// Best effort: failing, the copy is read again within MarkRefresh.
		_ = s.rereadMarks(ctx, booking.PatientSubject(id))
	}
	return p, err
}

// cancelErased cancels an appointment of a patient being erased: as staff
// would (a patient's cutoff does not keep a place for nobody), what was
// paid refunded in full by the refund job (booking.RefundErasure).
func (s *Service) cancelErased(ctx context.Context, id int64) error {
	a, err := bounded(s, ctx, func(ctx context.Context) (booking.Appointment, error) { return s.store.CancelErased(ctx, id, s.now()) })
	if err != nil {
		return err
	}
	s.released(a)
	return nil
}

// eraseDependants erases the people account manages.
func (s *Service) eraseDependants(ctx context.Context, account int64, reason string) error {
	people, err := s.People(ctx, account, booking.Page{Limit: booking.MaxPeopleLimit + 1})
	if err != nil {
		return err
	}
	for _, p := range people {
		if p.ID == account {
			continue
		}
		s.managers.forget(p.ID)
		if _, err := s.ErasePatient(ctx, p.ID, reason); err != nil {
			return err
		}
	}
	return nil
}
