package booking

import (
	"context"
	"time"
)

// A patient's personal data (docs/personal-data.md): exported on request, erased on
// request. The stores keep name, phone and e-mail sealed (package pii);
// here is what the Service does with them.

// PatientStore is the part of a Store that exports and erases a
// patient's data.
type PatientStore interface {
	// ErasePatient removes a patient's personal fields (name, phone,
	// e-mail, their look-up indexes, language) and sets ErasedAt, keeping
	// the row and its appointments; in the same transaction it deletes the
	// patient's calendar link and the sign-in codes stored under
	// e.LoginKey, closes the patient's revocation mark and writes
	// AuditErasure's entry. Erasing an erased patient returns it unchanged.
	ErasePatient(ctx context.Context, e Erasure) (Patient, error)
	// AppendAudit writes audit entries that no change of state carries
	// (an export of a patient's data).
	AppendAudit(ctx context.Context, es ...AuditEntry) error
}

// Erasure is one patient's erasure as a store performs it.
type Erasure struct {
	PatientID int64
	Reason    string // kept in the audit entry (no personal data)
	At        time.Time
	// LoginKey is the key of the patient's phone under which sign-in codes
	// are stored, "" for none.
	LoginKey string
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
	return Audit(ctx, now, AuditChange{Entity: EntityPatient, ID: patientID, Action: "erase", After: map[string]any{"id": patientID, "reason": reason}})
}

// UpdateRefusal refuses editing patient p once its personal data was
// erased: it cannot be given back.
func UpdateRefusal(p Patient) error {
	if p.ErasedAt != nil {
		return Errorf(CodeInvalidTransition, "this patient's personal data was erased")
	}
	return nil
}
