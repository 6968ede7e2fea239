package ical_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	goical "github.com/arran4/golang-ical"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/ical"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// The clock stands a few days before Europe/Paris leaves summer time
// (2026-10-25 03:00 CEST becomes 02:00 CET).
var now = time.Date(2026, 10, 20, 8, 0, 0, 0, time.UTC)

// testSecret signs the fixture's tokens.
const testSecret = "0123456789abcdef0123456789abcdef"

type fixture struct {
	t       *testing.T
	store   *sqlite.Store
	svc     *service.Service
	signer  *auth.Signer
	srv     *httptest.Server
	h       *ical.Handler
	doctor  booking.Doctor
	paris   *time.Location
	p1, p2  booking.Patient
	before  booking.Appointment // 2026-10-24 09:00 CEST
	after   booking.Appointment // 2026-10-26 09:00 CET
	ofOther booking.Appointment // p2's
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	must(t, st.Migrate(ctx))
	signer, err := auth.NewSigner([]byte(testSecret))
	must(t, err)
	f := &fixture{t: t, store: st, signer: signer}
	f.paris, err = time.LoadLocation("Europe/Paris")
	must(t, err)
	f.svc = service.NewService(st, service.Options{Now: func() time.Time { return now },
		CheckInCodes: booking.NewCheckInCodes(signer.DeriveKey(booking.CheckInKeyPurpose))})
	dept, err := st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	f.doctor, err = st.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Martin", DepartmentID: dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	f.p1, err = st.CreatePatient(ctx, booking.Patient{Name: "Anh Tran", Phone: "+33600000001"})
	must(t, err)
	f.p2, err = st.CreatePatient(ctx, booking.Patient{Name: "Bo Li", Phone: "+33600000002"})
	must(t, err)
	f.before = f.book(f.p1.ID, time.Date(2026, 10, 24, 9, 0, 0, 0, f.paris))
	f.after = f.book(f.p1.ID, time.Date(2026, 10, 26, 9, 0, 0, 0, f.paris))
	f.ofOther = f.book(f.p2.ID, time.Date(2026, 10, 26, 10, 0, 0, 0, f.paris))
	f.h = ical.New(ical.Config{Service: f.svc, Tokens: st, Days: st, Signer: signer, Domain: "clinic.test"})
	f.srv = httptest.NewServer(f.h)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) book(patientID int64, start time.Time) booking.Appointment {
	f.t.Helper()
	sl, err := f.store.CreateSlot(context.Background(), booking.Slot{DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 2, OpensAt: now.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	must(f.t, err)
	res := f.svc.Book(context.Background(), patientID, sl.ID, "k"+strconv.FormatInt(sl.ID, 10))
	must(f.t, res.Err)
	return res.Appointment
}

func (f *fixture) token(role auth.Role, sub string) string {
	tok, err := f.signer.Mint(role, sub, time.Hour)
	must(f.t, err)
	return tok
}

func (f *fixture) get(path, token string) (*http.Response, string) {
	return f.do("GET", path, token)
}

func (f *fixture) do(method, path, token string) (*http.Response, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, nil)
	must(f.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	must(f.t, err)
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, b.String()
}

// parse reads a calendar back with golang-ical, failing on anything it
// refuses.
func parse(t *testing.T, body string) *goical.Calendar {
	t.Helper()
	cal, err := goical.ParseCalendar(strings.NewReader(body))
	if err != nil {
		t.Fatalf("golang-ical refuses the calendar: %v\n%s", err, body)
	}
	return cal
}

func eventsByUID(t *testing.T, cal *goical.Calendar) map[string]*goical.VEvent {
	t.Helper()
	m := map[string]*goical.VEvent{}
	for _, e := range cal.Events() {
		m[e.Id()] = e
	}
	return m
}

func prop(c *goical.ComponentBase, p goical.ComponentProperty) string {
	if v := c.GetProperty(p); v != nil {
		return v.Value
	}
	return ""
}

// TestSubscriptionFeedAcrossDST subscribes, reads the feed back with
// golang-ical, and checks each event's instant both through Go's zone
// database (the library resolves TZID) and through the VTIMEZONE the feed
// itself carries, on both sides of the October change.
func TestSubscriptionFeedAcrossDST(t *testing.T) {
	f := newFixture(t)
	p1 := f.token(auth.RolePatient, strconv.FormatInt(f.p1.ID, 10))

	resp, body := f.do("POST", "/ical/subscription", p1)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", resp.StatusCode, body)
	}
	var sub struct {
		Active bool   `json:"active"`
		URL    string `json:"url"`
	}
	must(t, json.Unmarshal([]byte(body), &sub))
	if !sub.Active || !strings.HasPrefix(sub.URL, f.srv.URL+"/ical/feed/") {
		t.Fatalf("subscription %+v", sub)
	}
	feedPath := strings.TrimPrefix(sub.URL, f.srv.URL)
	resp, body = f.get(feedPath, "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("feed: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if !strings.Contains(body, "\r\n") || strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\n") {
		t.Fatal("content lines must end in CRLF")
	}
	cal := parse(t, body)
	evs := eventsByUID(t, cal)
	if len(evs) != 2 {
		t.Fatalf("%d events, want the patient's 2 (not the other patient's)", len(evs))
	}
	tz := timezone(t, cal, "Europe/Paris")
	for _, a := range []booking.Appointment{f.before, f.after} {
		e := evs[ical.UID(a.ID, "clinic.test")]
		if e == nil {
			t.Fatalf("no event %s", ical.UID(a.ID, "clinic.test"))
		}
		start, err := e.GetStartAt()
		must(t, err)
		end, err := e.GetEndAt()
		must(t, err)
		if !start.Equal(a.StartAt) || !end.Equal(a.EndAt) {
			t.Errorf("event %d: %v–%v, want %v–%v", a.ID, start, end, a.StartAt, a.EndAt)
		}
		dt := e.GetProperty(goical.ComponentPropertyDtStart)
		if got := dt.ICalParameters["TZID"]; len(got) != 1 || got[0] != "Europe/Paris" {
			t.Errorf("DTSTART TZID %v", got)
		}
		if got := tz.resolve(t, dt.Value); !got.Equal(a.StartAt) {
			t.Errorf("event %d resolved with the feed's VTIMEZONE at %v, want %v", a.ID, got, a.StartAt)
		}
		if prop(&e.ComponentBase, goical.ComponentPropertyStatus) != "CONFIRMED" || prop(&e.ComponentBase, goical.ComponentPropertySequence) != "0" {
			t.Errorf("event %d status %q sequence %q", a.ID, prop(&e.ComponentBase, goical.ComponentPropertyStatus), prop(&e.ComponentBase, goical.ComponentPropertySequence))
		}
	}
	// 09:00 local is 07:00Z in summer time and 08:00Z after the change.
	if f.before.StartAt.UTC().Hour() != 7 || f.after.StartAt.UTC().Hour() != 8 {
		t.Fatalf("fixture does not straddle the change: %v %v", f.before.StartAt.UTC(), f.after.StartAt.UTC())
	}

	// A cancel reaches the subscriber as the same UID, a higher SEQUENCE
	// (2: a final state counts two, ical.Sequence) and STATUS:CANCELLED.
	_, err := f.svc.Cancel(context.Background(), f.after.ID, f.p1.ID)
	must(t, err)
	_, body = f.get(feedPath, "")
	e := eventsByUID(t, parse(t, body))[ical.UID(f.after.ID, "clinic.test")]
	if e == nil {
		t.Fatal("the cancelled appointment left the feed; subscribers would keep it")
	}
	if prop(&e.ComponentBase, goical.ComponentPropertyStatus) != "CANCELLED" || prop(&e.ComponentBase, goical.ComponentPropertySequence) != "2" {
		t.Errorf("cancelled: status %q sequence %q", prop(&e.ComponentBase, goical.ComponentPropertyStatus), prop(&e.ComponentBase, goical.ComponentPropertySequence))
	}

	// Rotating replaces the URL; revoking ends it.
	resp, body = f.do("POST", "/ical/subscription", p1)
	must(t, json.Unmarshal([]byte(body), &sub))
	if resp, _ := f.get(feedPath, ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("old URL after rotation: %d", resp.StatusCode)
	}
	newPath := strings.TrimPrefix(sub.URL, f.srv.URL)
	if resp, _ := f.get(newPath, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("new URL: %d", resp.StatusCode)
	}
	if resp, _ := f.do("DELETE", "/ical/subscription", p1); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if resp, _ := f.get(newPath, ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("URL after revoke: %d", resp.StatusCode)
	}
	resp, body = f.get("/ical/subscription", p1)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"active":false`) {
		t.Fatalf("status after revoke: %d %s", resp.StatusCode, body)
	}
}

// vtimezone is the feed's own description of a zone: its observances.
type vtimezone struct {
	onsets []struct {
		at       time.Time // instant of the change
		from, to int
	}
}

func timezone(t *testing.T, cal *goical.Calendar, tzid string) vtimezone {
	t.Helper()
	var tz vtimezone
	for _, c := range cal.Components {
		z, ok := c.(*goical.VTimezone)
		if !ok || prop(&z.ComponentBase, goical.ComponentPropertyTzid) != tzid {
			continue
		}
		for _, sub := range z.Components {
			var base *goical.ComponentBase
			switch o := sub.(type) {
			case *goical.Standard:
				base = &o.ComponentBase
			case *goical.Daylight:
				base = &o.ComponentBase
			default:
				continue
			}
			from := parseOffset(t, prop(base, goical.ComponentProperty(goical.PropertyTzoffsetfrom)))
			to := parseOffset(t, prop(base, goical.ComponentProperty(goical.PropertyTzoffsetto)))
			wall, err := time.Parse("20060102T150405", prop(base, goical.ComponentPropertyDtStart))
			must(t, err)
			tz.onsets = append(tz.onsets, struct {
				at       time.Time
				from, to int
			}{wall.Add(-time.Duration(from) * time.Second), from, to})
		}
	}
	if len(tz.onsets) == 0 {
		t.Fatalf("no VTIMEZONE %s", tzid)
	}
	sort.Slice(tz.onsets, func(i, j int) bool { return tz.onsets[i].at.Before(tz.onsets[j].at) })
	// The October 2026 change must be there: 01:00Z, +0200 to +0100.
	found := false
	for _, o := range tz.onsets {
		if o.at.Equal(time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC)) && o.from == 7200 && o.to == 3600 {
			found = true
		}
	}
	if !found {
		t.Fatalf("VTIMEZONE lacks the 2026-10-25 change: %+v", tz.onsets)
	}
	return tz
}

// resolve turns a local DTSTART value into an instant with the observance
// in effect (ignoring the ambiguous hour, which the fixture avoids).
func (tz vtimezone) resolve(t *testing.T, v string) time.Time {
	t.Helper()
	wall, err := time.Parse("20060102T150405", v)
	must(t, err)
	off := tz.onsets[0].from
	for _, o := range tz.onsets {
		if !wall.Add(-time.Duration(o.to) * time.Second).Before(o.at) {
			off = o.to
		}
	}
	return wall.Add(-time.Duration(off) * time.Second)
}

func parseOffset(t *testing.T, s string) int {
	t.Helper()
	if len(s) < 5 {
		t.Fatalf("offset %q", s)
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[3:5])
	if err1 != nil || err2 != nil {
		t.Fatalf("offset %q", s)
	}
	sec := h*3600 + m*60
	if s[0] == '-' {
		sec = -sec
	}
	return sec
}

// TestAppointmentICS: the patient's own and an admin's; another patient's
// id is not found; doctors and anonymous callers are refused.
func TestAppointmentICS(t *testing.T) {
	f := newFixture(t)
	// The event is at the doctor's site: its name and address, and a map.
	sites, err := f.store.ListSites(context.Background(), booking.Page{Limit: 1})
	must(t, err)
	name, addr := "Clinique Lumière", "12 Rue de la Santé"
	_, err = f.svc.UpdateSite(context.Background(), sites[0].ID, booking.SiteUpdate{Name: &name, Address: &addr,
		Position: &booking.Position{Lat: 48.8352, Lon: 2.3422}})
	must(t, err)
	p1 := f.token(auth.RolePatient, strconv.FormatInt(f.p1.ID, 10))
	path := "/ical/appointments/" + strconv.FormatInt(f.before.ID, 10) + ".ics"
	for _, tc := range []struct {
		name  string
		path  string
		token string
		want  int
	}{
		{"own", path, p1, 200},
		{"admin", path, f.token(auth.RoleAdmin, "a"), 200},
		{"other patient's id", "/ical/appointments/" + strconv.FormatInt(f.ofOther.ID, 10) + ".ics", p1, 404},
		{"doctor", path, f.token(auth.RoleDoctor, strconv.FormatInt(f.doctor.ID, 10)), 403},
		{"anonymous", path, "", 401},
		{"bad id", "/ical/appointments/x.ics", p1, 400},
	} {
		resp, body := f.get(tc.path, tc.token)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, resp.StatusCode, tc.want, body)
			continue
		}
		if tc.want != 200 {
			if resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s: content type %q", tc.name, resp.Header.Get("Content-Type"))
			}
			continue
		}
		evs := parse(t, body).Events()
		if len(evs) != 1 || evs[0].Id() != ical.UID(f.before.ID, "clinic.test") {
			t.Errorf("%s: events %v", tc.name, evs)
		}
		if !strings.Contains(body, `LOCATION:Clinique Lumière\, 12 Rue de la Santé`) || !strings.Contains(body, "mlat=48.83520") {
			t.Errorf("%s: the event lacks the site's place and map:\n%s", tc.name, body)
		}
		// The patient's own event carries the code to type at the kiosk.
		if code := f.svc.CheckInCode(f.before.ID); !strings.Contains(body, "Check-in code: "+code) {
			t.Errorf("%s: the event lacks the check-in code %s:\n%s", tc.name, code, body)
		}
	}
}

// TestDoctorDays: admins and the doctor; not patients, not another doctor.
func TestDoctorDays(t *testing.T) {
	f := newFixture(t)
	doc := strconv.FormatInt(f.doctor.ID, 10)
	path := "/ical/doctors/" + doc + ".ics?from=2026-10-24&days=3"
	for _, tc := range []struct {
		name  string
		path  string
		token string
		want  int
	}{
		{"admin", path, f.token(auth.RoleAdmin, "a"), 200},
		{"the doctor", path, f.token(auth.RoleDoctor, doc), 200},
		{"another doctor", path, f.token(auth.RoleDoctor, doc+"0"), 403},
		{"patient", path, f.token(auth.RolePatient, strconv.FormatInt(f.p1.ID, 10)), 403},
		{"anonymous", path, "", 401},
		{"bad days", "/ical/doctors/" + doc + "?days=1000", f.token(auth.RoleAdmin, "a"), 400},
		{"bad from", "/ical/doctors/" + doc + "?from=24/10", f.token(auth.RoleAdmin, "a"), 400},
		{"unknown doctor", "/ical/doctors/999999", f.token(auth.RoleAdmin, "a"), 404},
	} {
		resp, body := f.get(tc.path, tc.token)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, resp.StatusCode, tc.want, body)
			continue
		}
		if tc.want != 200 {
			continue
		}
		cal := parse(t, body)
		evs := eventsByUID(t, cal)
		if len(evs) != 3 {
			t.Fatalf("%s: %d events, want the doctor's 3", tc.name, len(evs))
		}
		timezone(t, cal, "Europe/Paris")
		e := evs[ical.UID(f.ofOther.ID, "clinic.test")]
		if s := prop(&e.ComponentBase, goical.ComponentPropertySummary); !strings.Contains(s, "Bo Li") {
			t.Errorf("staff summary %q names no patient", s)
		}
	}
}

func TestFeedTokenRules(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/ical/feed/short.ics", "/ical/feed/" + strings.Repeat("A", 43) + ".ics", "/ical/nothing"} {
		if resp, _ := f.get(p, ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	// Subscriptions are a patient's: an admin has none.
	if resp, _ := f.do("POST", "/ical/subscription", f.token(auth.RoleAdmin, "a")); resp.StatusCode != http.StatusForbidden {
		t.Errorf("admin subscribe: %d, want 403", resp.StatusCode)
	}
	if resp, _ := f.do("POST", "/ical/subscription", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous subscribe: %d, want 401", resp.StatusCode)
	}
}

func TestSequenceGrowsAlongEveryPath(t *testing.T) {
	held := time.Now()
	paths := [][]booking.Appointment{
		{{Status: booking.StatusBooked}, {Status: booking.StatusCancelled}},
		{{Status: booking.StatusBooked}, {Status: booking.StatusCompleted}},
		{{Status: booking.StatusHeld, HoldExpiresAt: &held}, {Status: booking.StatusBooked, HoldExpiresAt: &held}, {Status: booking.StatusNoShow, HoldExpiresAt: &held}},
		{{Status: booking.StatusHeld, HoldExpiresAt: &held}, {Status: booking.StatusExpired, HoldExpiresAt: &held}},
		{{Status: booking.StatusHeld, HoldExpiresAt: &held}, {Status: booking.StatusCancelled, HoldExpiresAt: &held}},
		{{Status: booking.StatusBooked}, {Status: booking.StatusArrived}, {Status: booking.StatusCompleted}},
		{{Status: booking.StatusBooked}, {Status: booking.StatusArrived}, {Status: booking.StatusNoShow}},
		{{Status: booking.StatusHeld, HoldExpiresAt: &held}, {Status: booking.StatusBooked, HoldExpiresAt: &held}, {Status: booking.StatusArrived, HoldExpiresAt: &held}, {Status: booking.StatusCancelled, HoldExpiresAt: &held}},
	}
	for _, p := range paths {
		for i := 1; i < len(p); i++ {
			if !booking.CanTransition(p[i-1].Status, p[i].Status) {
				t.Fatalf("%s→%s is not a transition", p[i-1].Status, p[i].Status)
			}
			if ical.Sequence(p[i]) <= ical.Sequence(p[i-1]) {
				t.Errorf("%s→%s: sequence %d→%d does not grow", p[i-1].Status, p[i].Status, ical.Sequence(p[i-1]), ical.Sequence(p[i]))
			}
		}
	}
}

// TestOpenAPIDescribesTheRoutes compares the routes with the /ical/ paths of
// the API's OpenAPI document, both ways.
func TestOpenAPIDescribesTheRoutes(t *testing.T) {
	var inDoc []string
	for op := range openAPIOperations(t) {
		inDoc = append(inDoc, op)
	}
	f := newFixture(t)
	inMux := f.h.Patterns()
	sort.Strings(inDoc)
	sort.Strings(inMux)
	if strings.Join(inDoc, "\n") != strings.Join(inMux, "\n") {
		t.Fatalf("routes differ\nopenapi.json:\n%s\n\nmux:\n%s", strings.Join(inDoc, "\n"), strings.Join(inMux, "\n"))
	}
}

// openAPIOperations reads the /ical/ operations of the API's OpenAPI
// document, keyed "METHOD /path".
func openAPIOperations(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile("../httpapi/openapi.json")
	must(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	must(t, json.Unmarshal(raw, &doc))
	ops := map[string]json.RawMessage{}
	for p, item := range doc.Paths {
		if !strings.HasPrefix(p, "/ical/") {
			continue
		}
		for m, op := range item {
			if m != "parameters" {
				ops[strings.ToUpper(m)+" "+p] = op
			}
		}
	}
	return ops
}

// must fails the test at once on an error.
var must = testkit.NoError
