package storetest

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// testRealName: with the policy's requireNationalId off (the default)
// nobody is asked a national ID number; on, sign-up and adding a person
// require one, stored normalized and sealed, unique through its keyed hash
// (also against many additions at once), exported, and erased with the
// rest of the person's data, which frees the number.
func testRealName(t *testing.T, h Harness) {
	s := h.New(t)
	acc, ok := s.(accountsStore)
	if !ok {
		t.Fatalf("the %T store does not implement accounts.Store", s)
	}
	f := newFixture(t, s)
	ctx := context.Background()
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, PhoneRegion: "FR"})
	box := &codeBox{}
	g := svc.NewSignin(service.SigninOptions{Accounts: acc, Notifier: box, PhoneKey: []byte("phone-key"), CodeKey: []byte("code-key"), Demo: true})
	signup := func(phone, nationalID string) (service.SignedUp, error) {
		t.Helper()
		sent, err := g.RequestSignupCode(ctx, service.SignupCodeRequest{Phone: phone, ClientAddr: "10.9.0.1"})
		must(t, err)
		return g.Signup(ctx, service.SignupRequest{Phone: phone, Code: sent.DemoCode, ClientAddr: "10.9.0.1",
			Profile: booking.SignupProfile{Name: "Wang Fang", NationalID: nationalID}})
	}

	// Off: nothing asked, nothing stored.
	pol, err := svc.ClinicPolicy(ctx)
	must(t, err)
	if pol.RequireNationalID {
		t.Fatal("real-name registration is on by default")
	}
	free, err := signup("+33612000001", "")
	must(t, err)
	if !free.Created || free.Patient.NationalID != "" {
		t.Fatalf("sign-up without the rule: %+v", free)
	}

	pol.RequireNationalID = true
	_, err = svc.SetClinicPolicy(ctx, pol)
	must(t, err)
	_, err = signup("+33612000002", "")
	wantCode(t, err, booking.CodeNationalIDRequired)
	_, err = signup("+33612000002", "12#45")
	wantCode(t, err, booking.CodeInvalidRequest)
	up, err := signup("+33612000002", " 1101 0519-9001.01123x ")
	must(t, err)
	if !up.Created {
		t.Fatalf("sign-up: %+v", up)
	}
	p, err := s.GetPatient(ctx, up.Patient.ID)
	must(t, err)
	const number = "11010519900101123X"
	if p.NationalID != number {
		t.Fatalf("the national ID reads back as %q, want %q", p.NationalID, number)
	}
	if raw := h.Inspect(t, s).PatientBytes(t); bytes.Contains(raw, []byte(number)) || bytes.Contains(raw, []byte("1101 0519")) {
		t.Fatal("the patients' rows hold the national ID number in plain")
	}
	// Another sign-up with the same number, however typed: refused, no patient.
	before, err := acc.ListPatients(ctx, 0, 100)
	must(t, err)
	_, err = signup("+33612000003", "11010519900101123x")
	wantCode(t, err, booking.CodeNationalIDTaken)
	after, err := acc.ListPatients(ctx, 0, 100)
	must(t, err)
	if len(after) != len(before) {
		t.Fatalf("a refused sign-up added %d patients", len(after)-len(before))
	}

	// People: required, unique against every patient, editable.
	_, err = svc.AddPerson(ctx, p.ID, child("Kid"))
	wantCode(t, err, booking.CodeNationalIDRequired)
	taken := child("Kid")
	taken.NationalID = number
	_, err = svc.AddPerson(ctx, p.ID, taken)
	wantCode(t, err, booking.CodeNationalIDTaken)
	in := child("Kid")
	in.NationalID = "110105201501011234"
	kid, err := svc.AddPerson(ctx, p.ID, in)
	must(t, err)
	if kid.NationalID != in.NationalID {
		t.Fatalf("added %+v", kid)
	}
	other := f.patient()
	in.Name = "Their kid"
	_, err = svc.AddPerson(ctx, other.ID, in)
	wantCode(t, err, booking.CodeNationalIDTaken)
	mine := number
	_, err = svc.UpdatePerson(ctx, p.ID, kid.ID, service.PersonPatch{NationalID: &mine})
	wantCode(t, err, booking.CodeNationalIDTaken)
	none := ""
	_, err = svc.UpdatePerson(ctx, p.ID, kid.ID, service.PersonPatch{NationalID: &none})
	wantCode(t, err, booking.CodeNationalIDRequired)

	// Many accounts add a person with one new number at once: one wins.
	const racers = 8
	accounts := f.patients(racers)
	var start, done sync.WaitGroup
	start.Add(1)
	var won, lost atomic.Int32
	for _, a := range accounts {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			r := child("Racer")
			r.NationalID = "RACE0001"
			switch _, err := svc.AddPerson(ctx, a.ID, r); booking.ErrorCode(err) {
			case "":
				won.Add(1)
			case booking.CodeNationalIDTaken:
				lost.Add(1)
			default:
				t.Errorf("a racing addition: %v", err)
			}
		}()
	}
	start.Done()
	done.Wait()
	if won.Load() != 1 || lost.Load() != racers-1 {
		t.Fatalf("%d added and %d refused, want 1 and %d", won.Load(), lost.Load(), racers-1)
	}

	// Exported; erased with the person, which frees the number.
	ex, err := svc.ExportPatient(ctx, kid.ID)
	must(t, err)
	if ex.Patient.NationalID != "110105201501011234" {
		t.Fatalf("the export holds %+v", ex.Patient)
	}
	_, err = svc.RemovePerson(ctx, p.ID, kid.ID)
	must(t, err)
	if gone, err := s.GetPatient(ctx, kid.ID); err != nil || gone.NationalID != "" {
		t.Fatalf("after removal: %+v (%v)", gone, err)
	}
	in.Name = "Kid again"
	if _, err := svc.AddPerson(ctx, other.ID, in); err != nil {
		t.Fatalf("the erased person's number is still taken: %v", err)
	}
}
