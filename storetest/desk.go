package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// deskStore is what testDesk needs beyond accounts.Store: the filling of
// the name indexes of the rows from before migration 00031.
type deskStore interface {
	accountsStore
	FillNameIndexes(ctx context.Context, after int64, limit int) (int64, error)
}

// testDesk holds both stores to the front desk's needs: a reception
// account (its role read at sign-in, its marks moved when it becomes
// one), and people found by whole name with birth date through the keyed
// hash, kept on every write and gone with an erasure.
func testDesk(t *testing.T, h Harness) {
	s := h.New(t)
	acc, ok := s.(deskStore)
	if !ok {
		t.Fatalf("the %T store does not fill name indexes", s)
	}
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: booking.RoleReception, ID: "rita"})
	now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)

	// A reception account: the role at sign-in, the old tokens ended.
	must(t, acc.SetStaffPassword(ctx, "rita", []byte("$2a$10$x"), now))
	before, _ := markOf(t, s, booking.Subject{Role: booking.RoleReception, ID: "staff:rita"})
	must(t, acc.SetStaffReception(ctx, "rita"))
	a, err := acc.StaffAccount(ctx, "rita")
	must(t, err)
	if a.Role != booking.RoleReception || a.DoctorID != 0 {
		t.Fatalf("reception account reads %q doctor %d", a.Role, a.DoctorID)
	}
	if m, ok := markOf(t, s, booking.Subject{Role: booking.RoleAdmin, ID: "staff:rita"}); !ok || m.Closed {
		t.Fatalf("the admin page mark of a new reception account: %+v %v, want moved and open", m, ok)
	}
	if m, ok := markOf(t, s, booking.Subject{Role: booking.RoleReception, ID: "staff:rita"}); !ok || !m.ValidAfter.After(before.ValidAfter) {
		t.Fatalf("the reception page mark %+v %v, want moved", m, ok)
	}
	wantCode(t, acc.SetStaffReception(ctx, "nobody"), booking.CodeNotFound)
	must(t, acc.SetStaffDoctor(ctx, "rita", 0))
	if a, _ := acc.StaffAccount(ctx, "rita"); a.Role != booking.RoleAdmin {
		t.Fatalf("back to admin: %q", a.Role)
	}

	// Found by name and birth date, in any case and spacing; a namesake
	// born another day is not; a person without a birth date is found by
	// no search.
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, PhoneRegion: "FR", Accounts: acc})
	p, err := svc.CreatePatient(ctx, booking.Patient{Name: "Marie Dupont-Desk", BirthDate: "1980-02-03"})
	must(t, err)
	other, err := svc.CreatePatient(ctx, booking.Patient{Name: "Marie Dupont-Desk", BirthDate: "1981-02-03"})
	must(t, err)
	undated, err := svc.CreatePatient(ctx, booking.Patient{Name: "Marie Dupont-Desk"})
	must(t, err)
	found := func(name, birth string) []int64 {
		t.Helper()
		ps, err := acc.PatientsByName(ctx, name, birth)
		must(t, err)
		var ids []int64
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		return ids
	}
	if got := found("  marie   DUPONT-desk ", "1980-02-03"); len(got) != 1 || got[0] != p.ID {
		t.Fatalf("by name and birth date: %v, want [%d]", got, p.ID)
	}
	if got := found("Marie Dupont-Desk", "1981-02-03"); len(got) != 1 || got[0] != other.ID {
		t.Fatalf("the namesake: %v, want [%d]", got, other.ID)
	}
	// Through the Service: the front desk gives a date with a name (a name
	// alone is an admin's scan of the opened names), and finds the pair.
	q := booking.PatientQuery{Q: "Marie Dupont-Desk", Role: booking.RoleReception, Page: booking.Page{Limit: 10}}
	_, err = svc.FindPatients(ctx, q)
	wantCode(t, err, booking.CodeForbidden)
	q.BirthDate = "1980-02-03"
	if page, err := svc.FindPatients(ctx, q); err != nil || len(page.Patients) != 1 || page.Patients[0].ID != p.ID {
		t.Fatalf("the front desk's search: %+v, %v", page, err)
	}
	q.BirthDate = "1980-02-30"
	_, err = svc.FindPatients(ctx, q)
	wantCode(t, err, booking.CodeInvalidRequest)
	q.Role, q.BirthDate = booking.RoleAdmin, ""
	if page, err := svc.FindPatients(ctx, q); err != nil || len(page.Patients) != 3 || page.Patients[2].ID != undated.ID {
		t.Fatalf("an admin's name scan: %+v, %v", page, err)
	}

	// An edit of the name indexes it again.
	renamed := "Marie Martin-Desk"
	_, err = s.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Name: &renamed})
	must(t, err)
	if got := found("Marie Dupont-Desk", "1980-02-03"); len(got) != 0 {
		t.Fatalf("the old name still finds %v", got)
	}
	if got := found("marie martin-desk", "1980-02-03"); len(got) != 1 || got[0] != p.ID {
		t.Fatalf("the new name: %v", got)
	}

	// The rows from before: their index is filled, a batch at a time, and
	// the filling ends (a row left without one is passed, not read again).
	h.Inspect(t, s).ClearNameIndexes(t)
	if got := found("Marie Martin-Desk", "1980-02-03"); len(got) != 0 {
		t.Fatalf("without indexes: %v", got)
	}
	var after int64
	for batches := 0; ; batches++ {
		if batches > 10 {
			t.Fatal("the filling does not end")
		}
		last, err := acc.FillNameIndexes(ctx, after, 1)
		must(t, err)
		if last == 0 {
			break
		}
		after = last
	}
	if got := found("Marie Martin-Desk", "1980-02-03"); len(got) != 1 || got[0] != p.ID {
		t.Fatalf("after the filling: %v", got)
	}

	// An erasure removes the index with the name.
	_, err = svc.ErasePatient(ctx, other.ID, "asked to be forgotten")
	must(t, err)
	if got := found("Marie Dupont-Desk", "1981-02-03"); len(got) != 0 {
		t.Fatalf("an erased person is still found: %v", got)
	}
}
