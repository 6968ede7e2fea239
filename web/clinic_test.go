package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// TestClinicPagesAuthorization: the clinic-administration staff pages send every
// other session to the staff sign-in; a doctor's pages are a doctor's
// only; a doctor cannot mark another doctor's appointment; the history
// is a patient's.
func TestClinicPagesAuthorization(t *testing.T) {
	ctx := context.Background()
	ws := newSite(t, withoutSamples())
	srv, st, svc, signer, s := ws.srv, ws.store, ws.svc, ws.signer, ws.pages

	dep, _ := st.CreateDepartment(ctx, booking.Department{Name: "GP"})
	d1, _ := st.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: dep.ID, TimeZone: "UTC"})
	d2, _ := st.CreateDoctor(ctx, booking.Doctor{Name: "B", DepartmentID: dep.ID, TimeZone: "UTC"})
	p, _ := st.CreatePatient(ctx, booking.Patient{Name: "P", Phone: "+33600000009"})
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	sl, err := st.CreateSlot(ctx, booking.Slot{DoctorID: d2.ID, StartAt: start, EndAt: start.Add(time.Hour), Capacity: 1,
		OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen})
	if err != nil {
		t.Fatal(err)
	}
	theirs := svc.Book(ctx, p.ID, sl.ID, "k")
	if theirs.Err != nil {
		t.Fatal(theirs.Err)
	}

	cookie := func(role auth.Role, sub string) string {
		tok, err := signer.MintPage(role, sub, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	sessions := map[string]string{
		"nobody":  "",
		"patient": cookie(auth.RolePatient, fmt.Sprint(p.ID)),
		"doctor":  cookie(auth.RoleDoctor, fmt.Sprint(d1.ID)),
		"admin":   cookie(auth.RoleAdmin, staffPrefix+"admin"),
	}
	// An API bearer token put in the cookie is no page session.
	bearer, err := signer.Mint(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sessions["bearer"] = bearer
	client := &http.Client{CheckRedirect: noRedirect}
	get := func(path, who string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if c := sessions[who]; c != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: c})
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	for _, path := range []string{"/staff/audit", "/staff/reconciliation", "/staff/import", "/staff/appointments.csv?from=2026-01-01&to=2026-01-02",
		fmt.Sprintf("/staff/patients/%d/messages", p.ID)} {
		for _, who := range []string{"nobody", "patient", "doctor", "bearer"} {
			if res := get(path, who); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/staff/signin") {
				t.Errorf("%s as %s: %d %s", path, who, res.StatusCode, res.Header.Get("Location"))
			}
		}
		if res := get(path, "admin"); res.StatusCode != http.StatusOK {
			t.Errorf("%s as admin: %d", path, res.StatusCode)
		}
	}
	for _, who := range []string{"nobody", "patient", "admin"} {
		if res := get("/doctor/days/today", who); res.StatusCode != http.StatusSeeOther {
			t.Errorf("a doctor's day as %s: %d", who, res.StatusCode)
		}
	}
	if res := get("/doctor/days/today", "doctor"); res.StatusCode != http.StatusOK {
		t.Errorf("a doctor's own day: %d", res.StatusCode)
	}
	if res := get("/history", "patient"); res.StatusCode != http.StatusOK {
		t.Errorf("a patient's history: %d", res.StatusCode)
	}
	if res := get("/history", "doctor"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("history as a doctor: %d", res.StatusCode)
	}

	// The doctor's form, valid in every other way, for another doctor's
	// appointment: not found, and nothing changes.
	path := fmt.Sprintf("/doctor/appointments/%d/status", theirs.Appointment.ID)
	form := url.Values{"to": {"NO_SHOW"}, "csrf": {s.csrfToken("0123456789abcdef0123456789abcdef", path)}}
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: sessions["doctor"]})
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: "0123456789abcdef0123456789abcdef"})
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("another doctor's appointment: %d", res.StatusCode)
	}
	if a, _ := st.GetAppointment(ctx, theirs.Appointment.ID); a.Status != booking.StatusBooked {
		t.Fatalf("another doctor's appointment became %s", a.Status)
	}
}
