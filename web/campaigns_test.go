package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// TestCampaignPages: an admin imports cohorts and downloads a batch of
// invitation codes from the Campaigns page; a patient refused for want of
// a code is asked for it on the error page (in their language) and books
// with it; a patient outside the cohort reads why.
func TestCampaignPages(t *testing.T) {
	ctx := context.Background()
	ws := newSite(t, withoutSamples())
	srv, st, signer, s := ws.srv, ws.store, ws.signer, ws.pages
	dep, _ := st.CreateDepartment(ctx, booking.Department{Name: "GP"})
	doc, _ := st.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: dep.ID, TimeZone: "UTC"})
	sc, err := st.CreateSchedule(ctx, booking.Schedule{DoctorID: doc.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetEligibility(ctx, booking.EligibilityRule{ScheduleID: sc.ID, Cohorts: []string{"health workers"}, InvitationRequired: true}, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	sl, err := st.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, ScheduleID: sc.ID, StartAt: start, EndAt: start.Add(time.Hour), Capacity: 3,
		OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen})
	if err != nil {
		t.Fatal(err)
	}
	nurse, _ := st.CreatePatient(ctx, booking.Patient{Name: "N", Phone: "+33600000011"})
	other, _ := st.CreatePatient(ctx, booking.Patient{Name: "O", Phone: "+33600000012"})

	const csrfID = "0123456789abcdef0123456789abcdef"
	post := func(who string, path, lang string, form url.Values) (int, string) {
		t.Helper()
		form.Set("csrf", s.csrfToken(csrfID, path))
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept-Language", lang)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: who})
		req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrfID})
		client := &http.Client{CheckRedirect: noRedirect}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	admin, _ := signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	status, page := post(admin, "/staff/campaigns/cohorts", "fr", url.Values{"csv": {fmt.Sprintf("patient_id,tag\n%d,health workers\nx,y\n", nurse.ID)}})
	if status != http.StatusOK || !strings.Contains(page, "2 lignes : 1 ajoutées, 1 refusées.") || !strings.Contains(page, "Ligne 3") {
		t.Fatalf("the cohorts' import in French: %d %s", status, between(page, "<main", "</main>"))
	}
	status, page = post(admin, "/staff/campaigns/cohorts", "en", url.Values{"csv": {"patient,tag\n1,a\n"}})
	if status != http.StatusBadRequest || !strings.Contains(page, "patient_id,tag") {
		t.Fatalf("a wrong header: %d", status)
	}
	status, page = post(admin, "/staff/campaigns/invitations", "en", url.Values{"schedule": {fmt.Sprint(sc.ID)}, "count": {"2"}})
	rows, err := csv.NewReader(strings.NewReader(page)).ReadAll()
	if status != http.StatusOK || err != nil || len(rows) != 3 || len(rows[1][0]) != booking.InvitationCodeLen {
		t.Fatalf("the invitations' CSV: %d %q", status, page)
	}
	if status, _ := post(admin, "/staff/campaigns/invitations", "en", url.Values{"schedule": {fmt.Sprint(sc.ID)}, "count": {"0"}}); status != http.StatusBadRequest {
		t.Fatalf("0 codes: %d", status)
	}
	patient := func(p booking.Patient) string {
		tok, _ := signer.MintPage(auth.RolePatient, fmt.Sprint(p.ID), time.Hour)
		return tok
	}
	status, page = post(patient(nurse), "/book", "vi", url.Values{"slot": {fmt.Sprint(sl.ID)}, "key": {"k-nurse-1"}})
	if status != http.StatusConflict || !strings.Contains(page, `id="invitation-form"`) || !strings.Contains(page, "Mã mời") {
		t.Fatalf("refused for want of a code: %d, the form asked: %v", status, strings.Contains(page, `id="invitation-form"`))
	}
	status, _ = post(patient(nurse), "/book", "vi", url.Values{"slot": {fmt.Sprint(sl.ID)}, "key": {"k-nurse-1"}, "invitation": {strings.ToLower(rows[1][0])}})
	if status != http.StatusSeeOther {
		t.Fatalf("booking with the code: %d", status)
	}
	status, page = post(patient(other), "/book", "en", url.Values{"slot": {fmt.Sprint(sl.ID)}, "key": {"k-other"}, "invitation": {rows[2][0]}})
	if status != http.StatusConflict || !strings.Contains(page, "Not eligible for this campaign") || strings.Contains(page, `id="invitation-form"`) {
		t.Fatalf("outside the cohort: %d", status)
	}

	// The services' rules are listed, in the reader's language.
	get := func(who, lang string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/staff/campaigns", nil)
		req.Header.Set("Accept-Language", lang)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: who})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, page := get(admin, "fr"); status != http.StatusOK || !strings.Contains(page, "Aucune prestation n’a de règle.") {
		t.Fatalf("no service rule yet: %d %s", status, between(page, "<main", "</main>"))
	}
	v, err := st.CreateService(ctx, booking.Service{Name: "Flu jab", Minutes: 15, Level: booking.LevelOrdinary, DoctorIDs: []int64{doc.ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetServiceEligibility(ctx, booking.ServiceRule{ServiceID: v.ID, MinAge: ptr(65), Cohorts: []string{"carers", "65+"}}, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	status, page = get(admin, "zh-Hans")
	rules := between(page, `id="service-rules"`, "</section>")
	if status != http.StatusOK || !strings.Contains(rules, "按服务的规则") || !strings.Contains(rules, "<td>Flu jab</td><td>65</td><td>—</td><td>carers, 65&#43;</td>") {
		t.Fatalf("the service's rule: %d %s", status, rules)
	}
}

func ptr[T any](v T) *T { return &v }

// TestCampaignDayForPerson: a signed-in patient's day page says what they
// can take of a campaign's slot, in their language: a member of the
// cohort "2 places for you" (one of three held for invitations), someone
// else "not for you" without a Book button; a visitor sees the page as
// before.
func TestCampaignDayForPerson(t *testing.T) {
	ctx := context.Background()
	ws := newSite(t, withoutSamples())
	srv, st, signer := ws.srv, ws.store, ws.signer
	dep, _ := st.CreateDepartment(ctx, booking.Department{Name: "GP"})
	doc, _ := st.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: dep.ID, TimeZone: "UTC"})
	sc, err := st.CreateSchedule(ctx, booking.Schedule{DoctorID: doc.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 3, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(24 * time.Hour)
	if _, err := st.SetEligibility(ctx, booking.EligibilityRule{ScheduleID: sc.ID, Cohorts: []string{"nurses"}, ReservePlaces: 1, ReserveUntil: &until},
		false, time.Now()); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	sl, err := st.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, ScheduleID: sc.ID, StartAt: start, EndAt: start.Add(time.Hour), Capacity: 3,
		OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen})
	if err != nil {
		t.Fatal(err)
	}
	nurse, _ := st.CreatePatient(ctx, booking.Patient{Name: "N", Phone: "+33600000021"})
	other, _ := st.CreatePatient(ctx, booking.Patient{Name: "O", Phone: "+33600000022"})
	if _, err := st.ImportCohorts(ctx, []booking.CohortRow{{PatientID: nurse.ID, Tag: "nurses"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	get := func(p *booking.Patient, lang string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/doctors/%d/days/%s", srv.URL, doc.ID, start.UTC().Format(time.DateOnly)), nil)
		req.Header.Set("Accept-Language", lang)
		if p != nil {
			tok, _ := signer.MintPage(auth.RolePatient, fmt.Sprint(p.ID), time.Hour)
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("day page: %d", res.StatusCode)
		}
		return between(string(b), fmt.Sprintf(`data-slot="%d"`, sl.ID), "</li>")
	}
	if row := get(nil, "en"); strings.Contains(row, "for you") || !strings.Contains(row, "3 of 3 left") {
		t.Errorf("a visitor's row: %s", row)
	}
	if row := get(&nurse, "fr"); !strings.Contains(row, "2 places pour vous") {
		t.Errorf("a nurse's row: %s", row)
	}
	if row := get(&other, "en"); !strings.Contains(row, "Not for you: age or group") || strings.Contains(row, `name="key"`) {
		t.Errorf("another's row: %s", row)
	}
}
