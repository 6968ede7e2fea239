package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// TestClinicAuthorization: every clinic-administration endpoint for every role. The
// admin endpoints refuse patients and doctors; the doctors' endpoints
// refuse admins and patients; nothing answers without a token.
func TestClinicAuthorization(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	p := e.patient()
	doc := e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))
	pat := e.patientToken(p.ID)
	csv := map[string]string{"Content-Type": "text/csv"}
	admin := []call{
		{method: "POST", path: "/api/admin/payments/T1/refund", body: `{"reference":"R"}`},
		{method: "GET", path: "/api/admin/reconciliation/last"},
		{method: "GET", path: "/api/admin/holdings"},
		{method: "GET", path: "/api/admin/audit"},
		{method: "POST", path: "/api/admin/import?dryRun=true", body: "department\nX\n", header: csv, invalid: true},
		{method: "GET", path: "/api/admin/appointments/export?from=2026-03-01T00:00:00Z&to=2026-03-05T00:00:00Z"},
		{method: "GET", path: fmt.Sprintf("/api/admin/doctors/%d/days/2026-03-03/export", f.doctor.ID)},
	}
	doctor := []call{
		{method: "GET", path: "/api/doctor/days/2026-03-03"},
		{method: "GET", path: "/api/doctor/days/2026-03-03/export"},
		{method: "POST", path: "/api/doctor/appointments/1/complete"},
		{method: "POST", path: "/api/doctor/appointments/1/no-show"},
	}
	for _, c := range append(admin, doctor...) {
		c.token = ""
		e.do(c).expect(t, 401, booking.CodeUnauthorized)
	}
	for _, c := range admin {
		for _, tok := range []string{pat, doc} {
			c.token = tok
			e.do(c).expect(t, 403, booking.CodeForbidden)
		}
	}
	for _, c := range doctor {
		for _, tok := range []string{pat, e.admin} {
			c.token = tok
			e.do(c).expect(t, 403, booking.CodeForbidden)
		}
	}
	// A patient's history is the patient's: staff read the audit log.
	for _, tok := range []string{e.admin, doc} {
		e.do(call{method: "GET", path: "/api/me/history", token: tok}).expect(t, 403, booking.CodeForbidden)
	}
	e.do(call{method: "GET", path: "/api/me/history"}).expect(t, 401, booking.CodeUnauthorized)
	// A doctor token whose subject is no doctor id reaches nothing.
	e.do(call{method: "GET", path: "/api/doctor/days/2026-03-03", token: e.token(auth.RoleDoctor, "dr-who")}).expect(t, 403, booking.CodeForbidden)
}

// TestDoctorSeesOnlyOwnDays: a doctor's token lists that doctor's day and
// marks that doctor's appointments; another doctor's appointment is not
// found and unchanged.
func TestDoctorSeesOnlyOwnDays(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	mine := e.slot(f, 2)
	theirs := e.slot(f, 2, func(s *booking.Slot) { s.DoctorID = f.doctor2.ID })
	var a, b booking.Appointment
	e.do(book(e.patientToken(e.patient().ID), "a", slotBody(mine.ID))).expect(t, 201).decode(t, &a)
	e.do(book(e.patientToken(e.patient().ID), "b", slotBody(theirs.ID))).expect(t, 201).decode(t, &b)
	doc := e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))
	day := mine.StartAt.In(time.FixedZone("", 3600)).Format("2006-01-02")

	var got doctorDayAnswer
	e.do(call{method: "GET", path: "/api/doctor/days/" + day, token: doc}).expect(t, 200).decode(t, &got)
	if got.Doctor.ID != f.doctor.ID || len(got.Appointments) != 1 || got.Appointments[0].ID != a.ID {
		t.Fatalf("doctor's day = %+v", got)
	}
	csv := e.do(call{method: "GET", path: "/api/doctor/days/" + day + "/export", token: doc}).expect(t, 200)
	if !strings.Contains(string(csv.body), fmt.Sprintf("%d,%d,Dr. Weber", a.ID, f.doctor.ID)) || strings.Contains(string(csv.body), "Dr. Smith") {
		t.Fatalf("day CSV:\n%s", csv.body)
	}

	e.clock.set(b.StartAt.Add(time.Minute))
	e.do(call{method: "POST", path: fmt.Sprintf("/api/doctor/appointments/%d/complete", b.ID), token: doc}).expect(t, 404, booking.CodeNotFound)
	if x, _ := e.db.GetAppointment(t.Context(), b.ID); x.Status != booking.StatusBooked {
		t.Fatalf("another doctor's appointment became %s", x.Status)
	}
	var done booking.Appointment
	e.do(call{method: "POST", path: fmt.Sprintf("/api/doctor/appointments/%d/no-show", a.ID), token: doc}).expect(t, 200).decode(t, &done)
	if done.Status != booking.StatusNoShow {
		t.Fatalf("own appointment = %s", done.Status)
	}
	var page auditPage
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/audit?entity=appointment&id=%d&actor=doctor:%d", a.ID, f.doctor.ID), token: e.admin}).
		expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Action != "no_show" {
		t.Fatalf("the doctor's change is not audited as the doctor's: %+v", page)
	}
}

// TestAuditAPI: a patient's booking and cancellation are recorded with the
// patient as actor, found by entity, actor and period, paginated; the
// patient sees them in their history, another patient does not.
func TestAuditAPI(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 3)
	p, q := e.patient(), e.patient()
	var a booking.Appointment
	e.do(book(e.patientToken(p.ID), "k", slotBody(sl.ID))).expect(t, 201).decode(t, &a)
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", a.ID), token: e.patientToken(p.ID)}).expect(t, 200)

	var page auditPage
	actor := fmt.Sprintf("patient:%d", p.ID)
	e.do(call{method: "GET", path: "/api/admin/audit?entity=appointment&id=" + fmt.Sprint(a.ID) + "&actor=" + actor, token: e.admin}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].Action != "cancel" || page.Items[1].Action != "book" {
		t.Fatalf("audit = %+v", page)
	}
	// before and after are JSON objects, not strings holding them.
	var before, after struct{ Status booking.Status }
	if err := json.Unmarshal(page.Items[0].Before, &before); err != nil || before.Status != booking.StatusBooked {
		t.Fatalf("before = %s (%v)", page.Items[0].Before, err)
	}
	if err := json.Unmarshal(page.Items[0].After, &after); err != nil || after.Status != booking.StatusCancelled {
		t.Fatalf("after = %s (%v)", page.Items[0].After, err)
	}
	for _, en := range page.Items {
		if states := string(en.Before) + string(en.After); strings.Contains(states, "Anna") || strings.Contains(states, "1234567") {
			t.Fatalf("personal data in the log: %+v", en)
		}
	}
	e.do(call{method: "GET", path: "/api/admin/audit?limit=1&entity=appointment", token: e.admin}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Next == nil {
		t.Fatalf("first page = %+v", page)
	}
	e.do(call{method: "GET", path: "/api/admin/audit?limit=1&entity=appointment&cursor=" + *page.Next, token: e.admin}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Action != "book" {
		t.Fatalf("second page = %+v", page)
	}
	e.do(call{method: "GET", path: "/api/admin/audit?from=2030-01-01T00:00:00Z&entity=appointment", token: e.admin}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 0 {
		t.Fatalf("after the period = %+v", page)
	}
	for _, bad := range []string{"?limit=0", "?limit=501", "?id=x", "?from=yesterday", "?actor=", "?nope=1"} {
		e.do(call{method: "GET", path: "/api/admin/audit" + bad, token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}

	e.do(call{method: "GET", path: "/api/me/history", token: e.patientToken(p.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 2 {
		t.Fatalf("own history = %+v", page)
	}
	// Staff acting on the patient's appointment show as their role only:
	// the patient never learns a staff user name.
	var a2 booking.Appointment
	e.do(book(e.patientToken(p.ID), "k2", slotBody(sl.ID))).expect(t, 201).decode(t, &a2)
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", a2.ID), token: e.admin}).expect(t, 200)
	e.do(call{method: "GET", path: "/api/me/history", token: e.patientToken(p.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 4 || page.Items[0].ActorRole != "admin" || page.Items[0].ActorID != "" || page.Items[1].ActorID != fmt.Sprint(p.ID) {
		t.Fatalf("history after a staff cancel = %+v, want the admin as a role without a name, the patient's own change with its id", page)
	}
	e.do(call{method: "GET", path: "/api/me/history", token: e.patientToken(q.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 0 {
		t.Fatalf("another patient's history shows %+v", page)
	}
}

// TestImportAndExportAPI: a dry run reports and changes nothing, the run
// creates, a re-run creates nothing; the export quotes formulas.
func TestImportAndExportAPI(t *testing.T) {
	e := newEnv(t)
	csvH := map[string]string{"Content-Type": "text/csv"}
	file := "department\nNeurology\nDermatology\n=1+1\n"
	var rep struct {
		Kind              string
		DryRun            bool
		Created, Existing int
		Errors            []struct{ Line int }
	}
	e.do(call{method: "POST", path: "/api/admin/import?dryRun=true", token: e.admin, body: file, header: csvH, invalid: true}).expect(t, 200).decode(t, &rep)
	if rep.Kind != "departments" || !rep.DryRun || rep.Created != 2 || len(rep.Errors) != 1 || rep.Errors[0].Line != 4 {
		t.Fatalf("dry run = %+v", rep)
	}
	if ds, _ := e.db.ListAllDepartments(t.Context(), booking.Page{}); len(ds) != 0 {
		t.Fatal("the dry run created departments")
	}
	// A refused line's message follows Accept-Language.
	var fr struct{ Errors []struct{ Message string } }
	e.do(call{method: "POST", path: "/api/admin/import?dryRun=true", token: e.admin, body: file,
		header: map[string]string{"Content-Type": "text/csv", "Accept-Language": "fr"}, invalid: true}).expect(t, 200).decode(t, &fr)
	if len(fr.Errors) != 1 || !strings.Contains(fr.Errors[0].Message, "ne doit pas commencer par") {
		t.Fatalf("a French dry run's line error = %+v", fr.Errors)
	}
	e.do(call{method: "POST", path: "/api/admin/import", token: e.admin, body: file, header: csvH, invalid: true}).expect(t, 200).decode(t, &rep)
	if rep.Created != 2 {
		t.Fatalf("run = %+v", rep)
	}
	e.do(call{method: "POST", path: "/api/admin/import", token: e.admin, body: file, header: csvH, invalid: true}).expect(t, 200).decode(t, &rep)
	if rep.Created != 0 || rep.Existing != 2 {
		t.Fatalf("re-run = %+v", rep)
	}
	e.do(call{method: "POST", path: "/api/admin/import", token: e.admin, body: "what\n", header: csvH, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/import", token: e.admin, body: file, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/import", token: e.admin, body: "department\nx" + strings.Repeat("x", 3<<20) + "\n", header: csvH, invalid: true}).
		expect(t, http.StatusRequestEntityTooLarge, booking.CodePayloadTooLarge)

	f := e.fixture()
	sl := e.slot(f, 2)
	p, err := e.db.CreatePatient(t.Context(), booking.Patient{Name: "=HYPERLINK(\"http://x\")"})
	if err != nil {
		t.Fatal(err)
	}
	e.do(book(e.patientToken(p.ID), "x", slotBody(sl.ID))).expect(t, 201)
	out := e.do(call{method: "GET", path: "/api/admin/appointments/export?from=2026-03-01T00:00:00Z&to=2026-03-10T00:00:00Z", token: e.admin}).expect(t, 200)
	if !strings.Contains(string(out.body), `"'=HYPERLINK(""http://x"")"`) {
		t.Fatalf("export:\n%s", out.body)
	}
	// A deactivated doctor's appointments stay, and so in the export.
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/doctors/%d", f.doctor.ID), token: e.admin,
		body: map[string]any{"active": false}}).expect(t, 200)
	out = e.do(call{method: "GET", path: "/api/admin/appointments/export?from=2026-03-01T00:00:00Z&to=2026-03-10T00:00:00Z", token: e.admin}).expect(t, 200)
	if !strings.Contains(string(out.body), `"'=HYPERLINK(""http://x"")"`) {
		t.Fatalf("export with the doctor deactivated:\n%s", out.body)
	}
	for _, bad := range []string{"", "?from=2026-03-01T00:00:00Z", "?from=2026-03-01T00:00:00Z&to=2026-12-01T00:00:00Z"} {
		e.do(call{method: "GET", path: "/api/admin/appointments/export" + bad, token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
}
