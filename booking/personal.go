package booking

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// A patient's personal data (issue 20): exported on request, erased on
// request. The stores keep name, phone and e-mail sealed (package pii);
// here is what the Service does with them.

// PatientStore is the part of a Store that exports and erases a
// patient's data.
type PatientStore interface {
	// ErasePatient removes a patient's personal fields (name, phone,
	// e-mail, their look-up indexes, language) and sets ErasedAt, keeping
	// the row and its appointments; it writes AuditErasure's entry in the
	// same transaction. Erasing an erased patient returns it unchanged.
	ErasePatient(ctx context.Context, id int64, reason string, now time.Time) (Patient, error)
	// AppendAudit writes audit entries that no change of state carries
	// (an export of a patient's data).
	AppendAudit(ctx context.Context, es ...AuditEntry) error
}

// PatientExport is everything slotd keeps about one patient, as the
// patient or staff download it.
type PatientExport struct {
	ExportedAt   time.Time     `json:"exportedAt"`
	Patient      Patient       `json:"patient"`
	Appointments []Appointment `json:"appointments"`
	// Waitlist is the patient's waiting-list entries.
	Waitlist []WaitlistEntry `json:"waitlist"`
	// History is the audit log of the patient and its appointments,
	// newest first.
	History []AuditEntry `json:"history"`
}

// MaxEraseReason bounds an erasure's reason (characters).
const MaxEraseReason = 500

// AuditErasure is the entry of a patient's erasure: its id and the reason,
// never what was erased.
func AuditErasure(ctx context.Context, now time.Time, patientID int64, reason string) AuditEntry {
	return Audit(ctx, now, EntityPatient, patientID, "erase", nil, map[string]any{"id": patientID, "reason": reason})
}

// ExportPatient gathers a patient's data and history and records, in the
// audit log, who exported it.
func (s *Service) ExportPatient(ctx context.Context, id int64) (PatientExport, error) {
	return bounded(s, ctx, func(ctx context.Context) (PatientExport, error) {
		p, err := s.store.GetPatient(ctx, id)
		if err != nil {
			return PatientExport{}, err
		}
		as, err := s.store.ListAppointments(ctx, id, "")
		if err != nil {
			return PatientExport{}, err
		}
		ws, err := s.store.ListWaitlist(ctx, id)
		if err != nil {
			return PatientExport{}, err
		}
		appts, err := s.store.ListAudit(ctx, AuditFilter{PatientID: id, Limit: MaxAuditPage})
		if err != nil {
			return PatientExport{}, err
		}
		own, err := s.store.ListAudit(ctx, AuditFilter{Entity: EntityPatient, EntityID: id, Limit: MaxAuditPage})
		if err != nil {
			return PatientExport{}, err
		}
		now := s.now()
		if err := s.store.AppendAudit(ctx, Audit(ctx, now, EntityPatient, id, "export", nil, map[string]any{"id": id})); err != nil {
			return PatientExport{}, err
		}
		return PatientExport{ExportedAt: now.UTC(), Patient: p, Appointments: nonNil(as), Waitlist: nonNil(ws), History: mergeNewestFirst(appts, own)}, nil
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// mergeNewestFirst merges two newest-first lists of entries.
func mergeNewestFirst(a, b []AuditEntry) []AuditEntry {
	out := make([]AuditEntry, 0, len(a)+len(b))
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
// active appointments that have not started are cancelled first, through Cancel like any cancellation, so
// that their places are released and counted as any other; every other
// appointment stays, anonymized with its patient, so that capacity history
// and reconciliation stay true. The phone is then free: a patient
// registered with it later is a new patient.
func (s *Service) ErasePatient(ctx context.Context, id int64, reason string) (Patient, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > MaxEraseReason {
		return Patient{}, Errorf(CodeInvalidRequest, "an erasure needs a reason (1 to 500 characters)")
	}
	if _, err := bounded(s, ctx, func(ctx context.Context) (Patient, error) { return s.store.GetPatient(ctx, id) }); err != nil {
		return Patient{}, err
	}
	// Waiting entries first (an offer they hold is declined, its place
	// passed on), so that no new offer goes to the patient meanwhile.
	ws, err := s.Waitlist(ctx, id)
	if err != nil {
		return Patient{}, err
	}
	for _, e := range ws {
		if e.State == EntryWaiting || e.State == EntryOffered {
			if _, err := s.LeaveWaitlist(ctx, e.ID, id); err != nil {
				return Patient{}, err
			}
		}
	}
	as, err := s.Appointments(ctx, id, "")
	if err != nil {
		return Patient{}, err
	}
	now := s.now()
	for _, a := range as {
		if a.Status.Active() && a.StartAt.After(now) {
			if _, err := s.Cancel(ctx, a.ID, id); err != nil {
				return Patient{}, err
			}
		}
	}
	return bounded(s, ctx, func(ctx context.Context) (Patient, error) { return s.store.ErasePatient(ctx, id, reason, now) })
}
