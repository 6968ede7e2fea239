package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/service"
)

// roomsRound creates an open first-come round with three rooms: A-101
// (building A, floor 1, near the door, 1 bed), A-201 and B-101.
func roomsRound(t *testing.T, s *pagesSite, opens time.Time) (booking.Round, []booking.Slot) {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	for _, rm := range []booking.Room{{Name: "A-101", Building: "A", Floor: 1, NearDoor: true, Beds: 1},
		{Name: "A-201", Building: "A", Floor: 2, Beds: 2}, {Name: "B-101", Building: "B", Floor: 1, Beds: 2}} {
		created, err := s.svc.CreateRoom(ctx, rm)
		must(t, err)
		ids = append(ids, created.ID)
	}
	r, err := s.svc.CreateRound(ctx, booking.Round{Name: "Spring rooms", OpensAt: opens, ClosesAt: opens.Add(48 * time.Hour),
		TermStart: opens.Add(72 * time.Hour), TermEnd: opens.Add(900 * time.Hour)})
	must(t, err)
	slots, err := s.svc.AddRoundSlots(ctx, r.ID, ids)
	must(t, err)
	r, err = s.svc.SetRoundState(ctx, r.ID, booking.RoundOpen)
	must(t, err)
	return r, slots
}

var keyOf = regexp.MustCompile(`name="key" value="([^"]+)"`)

// TestRoundRoomsPage: the rooms filter by building, floor and near the
// door (bad values 400), each room has a Choose button for a signed-in
// student while the round accepts, and choosing leads to the application's
// page, PENDING until the processor decides it, then ALLOCATED; a second
// student on the full room sees the refusal. In every language.
func TestRoundRoomsPage(t *testing.T) {
	s := &pagesSite{site: newSite(t)}
	r, slots := roomsRound(t, s, time.Now().Add(-time.Minute))
	path := "/rounds/" + itoa(r.ID)
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "patient", lang.Tag, path))
		if strings.Count(page, `data-room="`) != 3 || strings.Count(page, `action="`+path+`/apply"`) != 3 {
			t.Fatalf("%s: all rooms with a Choose button:\n%s", lang.Tag, page)
		}
	}
	for q, want := range map[string][]string{
		"?building=A":          {"A-101", "A-201"},
		"?floor=1":             {"A-101", "B-101"},
		"?nearDoor=1":          {"A-101"},
		"?building=B&floor=2":  nil,
		"?building=A&floor=1":  {"A-101"},
		"?building=&floor=&x=": {"A-101", "A-201", "B-101"},
	} {
		page := mainOf(s.getAs(t, "patient", "en", path+q))
		if strings.Count(page, `data-room="`) != len(want) {
			t.Fatalf("%s: want %v:\n%s", q, want, page)
		}
		for _, name := range want {
			if !strings.Contains(page, "<h3>"+name+"</h3>") {
				t.Fatalf("%s: %s missing", q, name)
			}
		}
	}
	for _, bad := range []string{"?floor=x", "?after=-1", "?building=" + strings.Repeat("b", 101)} {
		if status, _ := s.statusAs(t, "patient", "en", path+bad); status != http.StatusBadRequest {
			t.Fatalf("%s: %d, want 400", bad, status)
		}
	}
	// Signed out: the rooms, no button.
	if page := mainOf(s.getAs(t, "", "en", path)); strings.Contains(page, "/apply") || !strings.Contains(page, "A-101") {
		t.Fatalf("signed out:\n%s", page)
	}
	// Choose A-101: the application's page, PENDING, then the room.
	page := s.getAs(t, "patient", "en", path+"?nearDoor=1")
	key := keyOf.FindStringSubmatch(page)[1]
	appPath := s.choose(t, path, slots[0].ID, key)
	ctx := context.Background()
	// The processor may already have decided it: both answers are right,
	// but the page says which.
	got := mainOf(s.getAs(t, "patient", "en", appPath))
	if !strings.Contains(got, `data-status="PENDING"`) && !strings.Contains(got, "data-allocated") {
		t.Fatalf("the application's page:\n%s", got)
	}
	_, err := s.svc.ProcessRound(ctx, r.ID)
	must(t, err)
	for _, lang := range i18n.Languages {
		if got := s.getAs(t, "patient", lang.Tag, appPath+"?partial=1"); !strings.Contains(got, "data-allocated") || strings.Contains(got, "<main") {
			t.Fatalf("%s: the live answer after the decision:\n%s", lang.Tag, got)
		}
	}
	// Another student's application is not found; the wrong round too.
	if status, _ := s.statusAs(t, "patient", "en", strings.Replace(appPath, path, "/rounds/"+itoa(r.ID+1000), 1)); status != http.StatusNotFound {
		t.Fatalf("an application under another round: %d", status)
	}
	other := s.patients[1]
	res, _, err := s.svc.SubmitApplication(ctx, service.ApplicationRequest{RoundID: r.ID, PatientID: other.ID, SlotID: slots[0].ID, Key: "other"})
	must(t, err)
	_, err = s.svc.ProcessRound(ctx, r.ID)
	must(t, err)
	if status, _ := s.statusAs(t, "patient", "en", path+"/applications/"+itoa(res.ID)); status != http.StatusNotFound {
		t.Fatalf("another student's application: %d", status)
	}
	// A second room is past the quota: the refusal, in the reader's words.
	key = keyOf.FindStringSubmatch(s.getAs(t, "patient", "en", path+"?building=B"))[1]
	second := s.choose(t, path, slots[2].ID, key)
	_, err = s.svc.ProcessRound(ctx, r.ID)
	must(t, err)
	for _, lang := range i18n.Languages {
		got := mainOf(s.getAs(t, "patient", lang.Tag, second))
		if !strings.Contains(got, `data-refused="quota-exceeded"`) {
			t.Fatalf("%s: the refusal:\n%s", lang.Tag, got)
		}
	}
	// The staff's results: A-101 for the first student; the second student on
	// the full room and the first on a second room refused. In every language.
	for _, lang := range i18n.Languages {
		staff := mainOf(s.getAs(t, "staff", lang.Tag, "/staff"+path))
		if strings.Count(staff, "data-allocation=") != 1 || strings.Count(staff, "data-refusal=") != 2 {
			t.Fatalf("%s: the staff's results:\n%s", lang.Tag, staff)
		}
	}
	// A slot of no round, or a missing key: 4xx, nothing stored.
	status, _ := s.postAs(t, "patient", "en", path+"/apply", url.Values{"slot": {itoa(s.slots[0].ID)}, "key": {"k-other"}})
	if status != http.StatusNotFound {
		t.Fatalf("a slot of no round: %d", status)
	}
	status, _ = s.postAs(t, "patient", "en", path+"/apply", url.Values{"slot": {itoa(slots[1].ID)}})
	if status != http.StatusBadRequest {
		t.Fatalf("no key: %d", status)
	}
	if status, _ = s.postAs(t, "", "en", path+"/apply", url.Values{"slot": {itoa(slots[1].ID)}, "key": {"k"}}); status != http.StatusUnauthorized {
		t.Fatalf("signed out: %d", status)
	}
}

// choose presses a room's Choose button as patients[0] and answers the
// application page it leads to.
func (s *pagesSite) choose(t *testing.T, path string, slotID int64, key string) string {
	t.Helper()
	const csrf = "0123456789abcdef0123456789abcdef"
	form := url.Values{"slot": {itoa(slotID)}, "key": {key}, "csrf": {s.pages.csrfToken(csrf, path+"/apply")}}
	req, err := http.NewRequest("POST", s.url+path+"/apply", strings.NewReader(form.Encode()))
	must(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	tok, _ := s.signer.MintPage(auth.RolePatient, itoa(s.patients[0].ID), time.Hour)
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrf})
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	must(t, err)
	readAll(t, res)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, path+"/applications/") {
		t.Fatalf("choosing slot %d: %d to %q", slotID, res.StatusCode, loc)
	}
	return loc
}

// TestStaffRoundPages: an admin creates a lottery round from the form, adds
// rooms, opens and closes it, and sees the allocations; the audit log
// records each change; reception and patients are refused.
func TestStaffRoundPages(t *testing.T) {
	s := &pagesSite{site: newSite(t)}
	ctx := context.Background()
	room, err := s.svc.CreateRoom(ctx, booking.Room{Name: "C-301", Building: "C", Floor: 3, Beds: 2})
	must(t, err)
	for _, lang := range i18n.Languages {
		if page := mainOf(s.getAs(t, "staff", lang.Tag, "/staff/rounds/new")); !strings.Contains(page, `action="/staff/rounds"`) {
			t.Fatalf("%s: the form:\n%s", lang.Tag, page)
		}
	}
	local := func(d time.Duration) string {
		return time.Now().Add(d).In(s.pages.clinicZone).Format("2006-01-02T15:04")
	}
	form := url.Values{"name": {"Autumn"}, "opens": {local(2 * time.Hour)}, "closes": {local(48 * time.Hour)},
		"termStart": {local(72 * time.Hour)}, "termEnd": {local(900 * time.Hour)}, "quota": {"1"},
		"lottery": {"1"}, "regOpens": {local(-time.Hour)}, "regCloses": {local(time.Hour)},
		"selectionMinutes": {"2"}, "selectionGroup": {"10"}, "windowMinutes": {"2"}}
	for name, bad := range map[string]func(url.Values){
		"no name":      func(v url.Values) { v.Set("name", "") },
		"a bad time":   func(v url.Values) { v.Set("opens", "soon") },
		"a bad number": func(v url.Values) { v.Set("windowMinutes", "two") },
		"a negative":   func(v url.Values) { v.Set("windowMinutes", "-2") },
	} {
		v := url.Values{}
		for k, x := range form {
			v[k] = x
		}
		bad(v)
		if status, _ := s.postAs(t, "staff", "en", "/staff/rounds", v); status != http.StatusBadRequest {
			t.Fatalf("%s: %d, want 400", name, status)
		}
	}
	if status, _ := s.postAs(t, "reception", "en", "/staff/rounds", form); status != http.StatusForbidden {
		t.Fatalf("reception creates a round: %d", status)
	}
	if status, _ := s.postAs(t, "patient", "en", "/staff/rounds", form); status != http.StatusUnauthorized {
		t.Fatalf("a patient creates a round: %d", status)
	}
	status, _ := s.postAs(t, "staff", "en", "/staff/rounds", form)
	if status != http.StatusSeeOther {
		t.Fatalf("create: %d", status)
	}
	var r booking.Round
	for id := int64(1); id < 10; id++ {
		if got, err := s.store.GetRound(ctx, id); err == nil && got.Name == "Autumn" {
			r = got
		}
	}
	if r.Lottery == nil || r.Lottery.WindowMinutes != 2 || r.Lottery.SelectionGroup != 10 || r.State != booking.RoundDraft {
		t.Fatalf("the round created: %+v %+v", r, r.Lottery)
	}
	path := "/staff/rounds/" + itoa(r.ID)
	if page := mainOf(s.getAs(t, "staff", "en", path)); !strings.Contains(page, `name="room" value="`+itoa(room.ID)+`"`) {
		t.Fatalf("a draft offers its rooms:\n%s", page)
	}
	if status, _ := s.postAs(t, "staff", "en", path+"/rooms", url.Values{"room": {"x"}}); status != http.StatusBadRequest {
		t.Fatalf("a bad room: %d", status)
	}
	if status, _ := s.postAs(t, "staff", "en", path+"/rooms", url.Values{"room": {itoa(room.ID)}}); status != http.StatusSeeOther {
		t.Fatalf("add rooms: %d", status)
	}
	if status, _ := s.postAs(t, "staff", "en", path+"/state", url.Values{"state": {"DRAFT"}}); status != http.StatusBadRequest {
		t.Fatalf("back to draft: %d", status)
	}
	if status, _ := s.postAs(t, "staff", "en", path+"/state", url.Values{"state": {"OPEN"}}); status != http.StatusSeeOther {
		t.Fatalf("open: %d", status)
	}
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "staff", lang.Tag, path))
		if !strings.Contains(page, `data-state="OPEN"`) || !strings.Contains(page, "C-301") || strings.Contains(page, `value="OPEN"`) {
			t.Fatalf("%s: the open round:\n%s", lang.Tag, page)
		}
	}
	if status, _ := s.statusAs(t, "staff", "en", path+"?refusedAfter=x"); status != http.StatusBadRequest {
		t.Fatalf("a bad cursor: %d", status)
	}
	if status, _ := s.postAs(t, "staff", "en", path+"/state", url.Values{"state": {"CLOSED"}}); status != http.StatusSeeOther {
		t.Fatalf("close: %d", status)
	}
	if page := mainOf(s.getAs(t, "staff", "en", path)); !strings.Contains(page, `data-state="CLOSED"`) || strings.Contains(page, `value="CLOSED"`) {
		t.Fatalf("the closed round:\n%s", page)
	}
	if status, _ := s.postAs(t, "staff", "en", path+"/state", url.Values{"state": {"OPEN"}}); status != http.StatusConflict {
		t.Fatalf("reopen a closed round: %d", status)
	}
	entries, err := s.store.ListAudit(ctx, booking.AuditFilter{Entity: booking.EntityRound, EntityID: r.ID, Limit: 20})
	must(t, err)
	if len(entries) < 3 {
		t.Fatalf("audit of the round: %+v", entries)
	}
}
