package storetest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// personalStore is what testPersonal needs beyond booking.Store: the
// look-ups by keyed hash (accounts.Store and the staff's by e-mail).
type personalStore interface {
	booking.Store
	PatientByPhone(ctx context.Context, phone string) (booking.Patient, error)
	PatientsByEmail(ctx context.Context, email string) ([]booking.Patient, error)
}

// testPersonal holds both stores to docs/personal-data.md: personal data sealed at rest
// and found by keyed hash, one patient per phone, export and erasure.
func testPersonal(t *testing.T, h Harness) {
	s := h.New(t)
	ps, ok := s.(personalStore)
	if !ok {
		t.Fatalf("the %T store has no look-ups by keyed hash", s)
	}
	f := newFixture(t, s)
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, PhoneRegion: "FR"})
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: "admin", ID: "dpo"})

	const name, email = "Anaïs Quintard-Personal", "Anais.Quintard@Example.ORG"
	p, err := svc.CreatePatient(ctx, booking.Patient{Name: name, Phone: "06 12 34 56 78", Email: email})
	must(t, err)
	if got, err := s.GetPatient(ctx, p.ID); err != nil || got.Name != name || got.Phone != "+33612345678" || got.Email != email {
		t.Fatalf("the patient reads back as %+v (%v)", got, err)
	}
	// Found by phone in any format the clinic's region reads, and by e-mail
	// in any case: both through their keyed hash.
	for _, typed := range []string{"0612345678", "+33 6 12 34 56 78"} {
		if got, err := ps.PatientByPhone(ctx, svc.NormalizePhone(typed)); err != nil || got.ID != p.ID {
			t.Fatalf("by phone %q: %+v (%v)", typed, got, err)
		}
	}
	if got, err := ps.PatientsByEmail(ctx, strings.ToUpper(email)); err != nil || len(got) != 1 || got[0].ID != p.ID {
		t.Fatalf("by e-mail: %+v (%v)", got, err)
	}
	if _, err := svc.CreatePatient(ctx, booking.Patient{Name: "Twin", Phone: "+33612345678"}); booking.ErrorCode(err) != booking.CodeConflict {
		t.Fatalf("a second patient with the phone: %v, want conflict", err)
	}
	raw := h.Inspect(t, s).PatientBytes(t)
	for _, plain := range []string{name, "Quintard", "+33612345678", "612345678", strings.ToLower(email), email, "Example.ORG"} {
		if bytes.Contains(raw, []byte(plain)) {
			t.Fatalf("the patients' rows hold %q in plain", plain)
		}
	}

	// Editing seals and indexes again: the new phone finds the patient, the
	// old one nobody, and neither is stored plain.
	newPhone := "+33698765432"
	if _, err := svc.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Phone: &newPhone}); err != nil {
		t.Fatal(err)
	}
	if got, err := ps.PatientByPhone(ctx, newPhone); err != nil || got.ID != p.ID || got.Name != name {
		t.Fatalf("by the edited phone: %+v (%v)", got, err)
	}
	if _, err := ps.PatientByPhone(ctx, "+33612345678"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the old phone after editing: %v, want not-found", err)
	}
	if bytes.Contains(h.Inspect(t, s).PatientBytes(t), []byte("98765432")) {
		t.Fatal("the edited phone is stored plain")
	}
	old := "+33612345678"
	if _, err := svc.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Phone: &old}); err != nil {
		t.Fatal(err)
	}

	// History: a future booking (cancelled by the erasure, its place
	// released) and a cancelled one (kept as it is).
	future, kept, full := f.slot(2), f.slot(2), f.slot(1)
	a := f.mustBook(future.ID, p)
	b := f.mustBook(kept.ID, p)
	if _, err := svc.Cancel(ctx, b.ID, p.ID); err != nil {
		t.Fatal(err)
	}

	// A waiting-list entry for a full slot's doctor: erasure leaves it.
	f.mustBook(full.ID, f.patient())
	w, _, err := svc.JoinWaitlist(ctx, booking.WaitlistEntry{PatientID: p.ID, DoctorID: f.doctor.ID,
		From: full.StartAt.Add(-time.Hour), To: full.EndAt.Add(time.Hour), IdempotencyKey: "erase-wait"})
	must(t, err)

	ex, err := svc.ExportPatient(ctx, p.ID)
	must(t, err)
	if ex.Patient.Name != name || ex.Patient.Phone != "+33612345678" || len(ex.Appointments) != 2 || len(ex.Waitlist) != 1 || len(ex.History) < 4 {
		t.Fatalf("export: %+v", ex)
	}
	if _, err := svc.ErasePatient(ctx, p.ID, "  "); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("erasure without a reason: %v, want invalid-request", err)
	}
	if _, err := svc.ErasePatient(ctx, p.ID+10_000, "asked"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("erasure of nobody: %v, want not-found", err)
	}
	er, err := svc.ErasePatient(ctx, p.ID, "the patient asked (GDPR art. 17)")
	must(t, err)
	if er.ErasedAt == nil || er.Name != "" || er.Phone != "" || er.Email != "" || er.Language != "" {
		t.Fatalf("erased patient: %+v", er)
	}
	again, err := svc.ErasePatient(ctx, p.ID, "twice")
	if err != nil || !again.ErasedAt.Equal(*er.ErasedAt) {
		t.Fatalf("a second erasure: %+v (%v), want the first unchanged", again, err)
	}
	if got, err := s.GetAppointment(ctx, a.ID); err != nil || got.Status != booking.StatusCancelled || got.PatientID != p.ID {
		t.Fatalf("the future appointment after erasure: %+v (%v), want cancelled, still the patient's", got, err)
	}
	if got := f.getSlot(future.ID); got.BookedCount != 0 {
		t.Fatalf("the future slot counts %d booked after erasure, want its place released", got.BookedCount)
	}
	if ws, err := svc.Waitlist(ctx, p.ID); err != nil || len(ws) != 1 || ws[0].ID != w.ID || ws[0].State == booking.EntryWaiting {
		t.Fatalf("the waiting-list entry after erasure: %+v (%v), want left", ws, err)
	}
	if got, err := s.GetAppointment(ctx, b.ID); err != nil || got.Status != booking.StatusCancelled {
		t.Fatalf("the kept appointment: %+v (%v)", got, err)
	}
	rec, err := s.Reconcile(ctx, now, false)
	must(t, err)
	if len(rec.CounterMismatches)+len(rec.DuplicateActives) != 0 {
		t.Fatalf("reconciliation after erasure: %+v", rec)
	}
	if _, err := ps.PatientByPhone(ctx, "+33612345678"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the erased patient's phone still finds someone: %v", err)
	}
	if got, err := ps.PatientsByEmail(ctx, email); err != nil || len(got) != 0 {
		t.Fatalf("the erased patient's e-mail still finds %+v (%v)", got, err)
	}
	again2 := name
	if _, err := svc.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Name: &again2}); booking.ErrorCode(err) != booking.CodeInvalidTransition {
		t.Fatalf("editing an erased patient: %v, want invalid-transition", err)
	}
	if er.Active {
		t.Fatal("an erased patient is still active (it could book)")
	}
	// The phone is free: registering it again makes a new patient.
	fresh, err := svc.CreatePatient(ctx, booking.Patient{Name: "New", Phone: "0612345678"})
	must(t, err)
	if got, err := ps.PatientByPhone(ctx, "+33612345678"); err != nil || got.ID != fresh.ID || fresh.ID == p.ID {
		t.Fatalf("the phone after erasure finds %+v (%v), want the new patient %d", got, err, fresh.ID)
	}
	// The log records the export and the erasure, by whom and why, and
	// nothing of the person.
	es, err := svc.Audit(ctx, booking.AuditFilter{Entity: booking.EntityPatient, EntityID: p.ID})
	must(t, err)
	actions := map[string]booking.AuditEntry{}
	for _, e := range es {
		actions[e.Action] = e
		for _, plain := range []string{name, "Quintard", "612345678", strings.ToLower(email)} {
			if strings.Contains(strings.ToLower(e.Before+e.After), strings.ToLower(plain)) {
				t.Fatalf("audit entry %+v holds %q", e, plain)
			}
		}
	}
	if e, ok := actions["erase"]; !ok || e.ActorID != "dpo" || !strings.Contains(e.After, "GDPR art. 17") {
		t.Fatalf("no erasure entry with its reason by dpo: %+v", es)
	}
	if e, ok := actions["export"]; !ok || e.ActorID != "dpo" {
		t.Fatalf("no export entry by dpo: %+v", es)
	}
	if ex, err := svc.ExportPatient(ctx, p.ID); err != nil || ex.Patient.ErasedAt == nil || len(ex.Appointments) != 2 {
		t.Fatalf("export after erasure: %+v (%v), want the anonymized facts", ex, err)
	}
}
