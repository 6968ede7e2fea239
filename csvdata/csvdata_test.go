package csvdata_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

func open(t *testing.T) (*sqlite.Store, *service.Service) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "i.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, service.NewService(s, service.Options{})
}

func imp(t *testing.T, s *sqlite.Store, svc *service.Service, file string, dry bool) csvdata.Report {
	t.Helper()
	rep, err := csvdata.Import(context.Background(), svc, s, csvdata.File{CSV: strings.NewReader(file), DryRun: dry})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return rep
}

// TestImport: a dry run changes nothing and counts what it would create;
// the real run creates it; a second run creates nothing; bad lines are
// reported by number and the good ones still import.
func TestImport(t *testing.T) {
	s, svc := open(t)
	ctx := context.Background()
	depts := "department\nCardiology\nDermatology\ncardiology\n"
	if r := imp(t, s, svc, depts, true); r.Kind != "departments" || r.Create != 2 || r.Exist != 1 || len(r.Errors) != 0 {
		t.Fatalf("dry run = %+v", r)
	}
	if ds, _ := s.ListAllDepartments(ctx, booking.Page{}); len(ds) != 0 {
		t.Fatalf("the dry run created %d departments", len(ds))
	}
	if r := imp(t, s, svc, depts, false); r.Create != 2 {
		t.Fatalf("run = %+v", r)
	}
	if r := imp(t, s, svc, depts, false); r.Create != 0 || r.Exist != 3 {
		t.Fatalf("re-run = %+v", r)
	}

	docs := "doctor,department,timezone\nDr. Roux,Cardiology,Europe/Paris\nDr. Ng,Nowhere,Europe/Paris\nDr. Li,Dermatology,Mars/Base\n=1+2,Cardiology,UTC\nDr. Ba,Cardiology\n"
	r := imp(t, s, svc, docs, false)
	if r.Create != 1 || len(r.Errors) != 4 {
		t.Fatalf("doctors = %+v", r)
	}
	lines := []int{}
	for _, e := range r.Errors {
		lines = append(lines, e.Line)
	}
	if want := []int{3, 4, 5, 6}; !equal(lines, want) {
		t.Fatalf("error lines %v, want %v: %+v", lines, want, r.Errors)
	}
	if !strings.Contains(r.Errors[2].Message, "formula") {
		t.Fatalf("a formula is refused as one: %+v", r.Errors[2])
	}
	// Each error carries its sentence and arguments, for a front end to
	// translate; Message is that sentence in English.
	if e := r.Errors[0]; e.Key != "no department %q: import the departments first" || fmt.Sprint(e.Args) != "[Nowhere]" ||
		e.Message != `no department "Nowhere": import the departments first` {
		t.Fatalf("a booking error's sentence: %+v", e)
	}
	if e := r.Errors[3]; e.Key != "expected %d columns (%s)" || fmt.Sprintf(e.Key, e.Args...) != e.Message {
		t.Fatalf("a CSV error's sentence: %+v", e)
	}

	// A deactivated doctor still exists: a re-run does not create it again.
	roux, err := s.ListDoctors(ctx, 0, booking.Page{})
	if err != nil || len(roux) != 1 {
		t.Fatalf("doctors %+v %v", roux, err)
	}
	off := false
	if _, err := svc.UpdateDoctor(ctx, roux[0].ID, booking.DoctorUpdate{Active: &off}); err != nil {
		t.Fatal(err)
	}
	if r := imp(t, s, svc, "doctor,department,timezone\nDr. Roux,Cardiology,Europe/Paris\n", false); r.Create != 0 || r.Exist != 1 {
		t.Fatalf("re-run with the doctor deactivated = %+v", r)
	}
	on := true
	if _, err := svc.UpdateDoctor(ctx, roux[0].ID, booking.DoctorUpdate{Active: &on}); err != nil {
		t.Fatal(err)
	}

	sched := "doctor,department,weekdays,start,end,slot_minutes,capacity,fee_cents,horizon_days\nDr. Roux,Cardiology,mon;thu,08:00,10:00,30,2,0,7\nDr. Roux,Cardiology,funday,08:00,10:00,30,2,0,7\n"
	if r := imp(t, s, svc, sched, false); r.Create != 1 || len(r.Errors) != 1 || r.Errors[0].Line != 3 {
		t.Fatalf("schedules = %+v", r)
	}
	if r := imp(t, s, svc, sched, false); r.Create != 0 || r.Exist != 1 {
		t.Fatalf("schedules re-run = %+v", r)
	}

	pats := "patient,phone,email\nAnna,+33 6 12 34 56 78,anna@example.org\nBen,12,\nAnna again,+33612345678,\n"
	if r := imp(t, s, svc, pats, false); r.Create != 1 || r.Exist != 1 || len(r.Errors) != 1 || r.Errors[0].Line != 3 {
		t.Fatalf("patients = %+v", r)
	}
	if _, err := csvdata.Import(ctx, svc, s, csvdata.File{CSV: strings.NewReader("what,ever\n"), DryRun: true}); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("unknown header: %v", err)
	}
}

// TestExportIsFormulaSafe: a cell a spreadsheet would evaluate is quoted.
func TestExportIsFormulaSafe(t *testing.T) {
	var b bytes.Buffer
	start := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	err := csvdata.WriteAppointments(&b, []csvdata.DayRow{{
		Appointment: booking.Appointment{ID: 1, DoctorID: 2, PatientID: 3, QueueNumber: 1, StartAt: start, EndAt: start.Add(time.Hour), Status: booking.StatusBooked},
		DoctorName:  "Dr. Roux", PatientName: "=cmd|' /C calc'!A0",
	}}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `'=cmd|' /C calc'!A0`) || strings.Contains(b.String(), ",=cmd") {
		t.Fatalf("export:\n%s", b.String())
	}
	for _, c := range []string{"+1", "-1", "@x", "\tx"} {
		if csvdata.SafeCell(c)[0] != '\'' {
			t.Errorf("SafeCell(%q) = %q", c, csvdata.SafeCell(c))
		}
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
