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
	"github.com/slotd/slotd/schedule"
)

// TestClinicPagesInTheReadersLanguage: the audit log's action, entity and
// role codes, the import's line errors and a refused file are shown in the
// page's language; the export takes dates in the clinic's zone.
func TestClinicPagesInTheReadersLanguage(t *testing.T) {
	ctx := context.Background()
	const tz = "Asia/Ho_Chi_Minh" // UTC+7: 20:00 UTC is the next day there
	ws := newSite(t, withoutSamples(), withConfig(func(c *Config) { c.ClinicZone = tz }))
	srv, st, svc, signer, s := ws.srv, ws.store, ws.svc, ws.signer, ws.pages

	dep, _ := st.CreateDepartment(ctx, booking.Department{Name: "GP"})
	doc, _ := st.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: dep.ID, TimeZone: tz})
	p, _ := st.CreatePatient(ctx, booking.Patient{Name: "P", Phone: "+33600000009"})
	start := time.Now().UTC().Add(48 * time.Hour).Truncate(24 * time.Hour).Add(20 * time.Hour)
	sl, err := st.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: start, EndAt: start.Add(time.Hour), Capacity: 1,
		OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen})
	if err != nil {
		t.Fatal(err)
	}
	if res := svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, sl.ID, "k"); res.Err != nil {
		t.Fatal(res.Err)
	}

	tok, _ := signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	const csrfID = "0123456789abcdef0123456789abcdef"
	do := func(method, path, lang string, form url.Values) (int, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			form.Set("csrf", s.csrfToken(csrfID, path))
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, srv.URL+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.Header.Set("Accept-Language", lang)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrfID})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	_, page := do("GET", "/staff/audit", "fr", nil)
	for _, want := range []string{"rendez-vous " + fmt.Sprint(1) + " : réservé", ">patient ", `<option value="slot">créneau</option>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the French audit page lacks %q", want)
		}
	}
	_, page = do("GET", "/staff/audit", "zh", nil)
	if !strings.Contains(page, "预约 1：已预约") || strings.Contains(page, "：book<") {
		t.Errorf("the Chinese audit page shows the codes, not their words, or an ASCII colon")
	}

	status, page := do("POST", "/staff/import", "fr", url.Values{"dryrun": {"1"},
		"csv": {"patient,phone,email\nAnne,+33600000010,not-an-address\nBen,12,\n"}})
	if status != http.StatusOK {
		t.Fatalf("import: %d", status)
	}
	for _, want := range []string{"Ligne 2", "email doit être une adresse", "phone doit être un numéro de téléphone"} {
		if !strings.Contains(page, want) {
			t.Errorf("the French import report lacks %q", want)
		}
	}
	status, page = do("POST", "/staff/import", "vi", url.Values{"csv": {"name,age\nx,1\n"}})
	if status != http.StatusBadRequest || !strings.Contains(page, "tiêu đề không rõ") || !strings.Contains(page, "name,age") {
		t.Errorf("an unknown header in Vietnamese: %d, the page keeps the paste and says why: %v", status, strings.Contains(page, "tiêu đề không rõ"))
	}

	// A schedule the decision refuses: its own sentence, in French.
	path := fmt.Sprintf("/staff/doctors/%d/schedules", doc.ID)
	status, page = do("POST", path, "fr", url.Values{"weekday": {"1"}, "start": {"10:00"}, "end": {"09:00"}, "minutes": {"15"},
		"capacity": {"1"}, "fee": {"0"}, "horizon": {"7"}, "hold": {"10"}, "opens": {"07:00"}})
	if status != http.StatusBadRequest || !strings.Contains(page, "endTime : 09:00 n’est pas après startTime 10:00") {
		t.Errorf("a refused schedule in French: %d, the sentence shown: %v", status, strings.Contains(page, "endTime"))
	}

	// The export's dates are the clinic's: the appointment at 20:00 UTC is
	// on the next day in Ho Chi Minh City, its times written in that zone.
	loc, _ := time.LoadLocation(tz)
	day := schedule.DateOf(start, loc)
	rows := func(d schedule.Date) [][]string {
		t.Helper()
		status, body := do("GET", "/staff/appointments.csv?from="+d.String()+"&to="+d.String(), "en", nil)
		if status != http.StatusOK {
			t.Fatalf("export %s: %d", d, status)
		}
		recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs[1:]
	}
	if got := rows(day); len(got) != 1 || got[0][3] != start.In(loc).Format(time.RFC3339) {
		t.Errorf("export of the clinic's day %s: %v", day, got)
	}
	if got := rows(day.AddDays(-1)); len(got) != 0 {
		t.Errorf("export of the UTC day before %s: %v", day.AddDays(-1), got)
	}
}
