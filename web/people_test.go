package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// patientClient is a browser of patient id: its session and CSRF cookies,
// redirects not followed.
type patientClient struct {
	t    *testing.T
	base string
	jar  []*http.Cookie
}

func (s *pagesSite) patientClient(t *testing.T, id int64) *patientClient {
	tok, _ := s.signer.MintPage(auth.RolePatient, strconv.FormatInt(id, 10), time.Hour)
	return &patientClient{t: t, base: s.url, jar: []*http.Cookie{{Name: sessionCookie, Value: tok}}}
}

func (c *patientClient) do(method, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, c.base+path, body)
	must(c.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, ck := range c.jar {
		req.AddCookie(ck)
	}
	res, err := (&http.Client{CheckRedirect: noRedirect}).Do(req)
	must(c.t, err)
	for _, ck := range res.Cookies() {
		if ck.Name == csrfCookie {
			c.jar = append(c.jar, ck)
		}
	}
	return res, readAll(c.t, res)
}

// csrfOf is the CSRF token of the form posting to action on page.
func csrfOf(page, action string) string {
	i := strings.Index(page, `action="`+action+`"`)
	if i < 0 {
		return ""
	}
	return between(page[i:], `name="csrf" value="`, `"`)
}

// TestPeoplePageAndWhoIsThisFor: the People page adds, edits and removes a
// person in every language; with a person the booking review asks "Who is
// this for?" and books for the one chosen, whom the appointments page
// names; another account's person is refused and books nothing.
func TestPeoplePageAndWhoIsThisFor(t *testing.T) {
	s := newPagesSite(t)
	me := s.patients[0]
	day := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	sl := s.slots[1] // open (the sample fills the first)
	review := day + "?slot=" + itoa(sl.ID)

	// One person: the one-tap booking is unchanged.
	if page := mainOf(s.getAs(t, "patient", "en", review)); strings.Contains(page, `id="who"`) || !strings.Contains(page, `action="/book"`) {
		t.Fatalf("the review of an account alone:\n%s", page)
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		page := mainOf(s.getAs(t, "patient", l.Tag, "/people"))
		if !strings.Contains(page, pr.T("People")) || !strings.Contains(page, `id="add-person"`) || !strings.Contains(page, `name="consent"`) {
			t.Errorf("%s: the People page:\n%s", l.Tag, page)
		}
	}

	c := s.patientClient(t, me.ID)
	_, page := c.do("GET", "/people", nil)
	add := url.Values{"csrf": {csrfOf(page, "/people")}, "name": {"Lan"}, "birthDate": {"2017-06-01"}, "relation": {"child"}}
	if res, body := c.do("POST", "/people", add); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("adding without consent: %d\n%.400s", res.StatusCode, body)
	}
	add.Set("consent", "yes")
	if res, _ := c.do("POST", "/people", add); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/people?added=1" {
		t.Fatalf("adding: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	ps, err := s.svc.People(t.Context(), me.ID, booking.Page{})
	must(t, err)
	if len(ps) != 2 || ps[1].Name != "Lan" || ps[1].Relation != booking.RelationChild {
		t.Fatalf("people %+v", ps)
	}
	kid := ps[1]
	_, page = c.do("GET", "/people", nil)
	edit := fmt.Sprintf("/people/%d/edit", kid.ID)
	if res, _ := c.do("POST", edit, url.Values{"csrf": {csrfOf(page, edit)}, "name": {"Lan Anh"}, "birthDate": {"2017-06-01"}, "relation": {"child"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("editing: %d", res.StatusCode)
	}

	// Two people: the day's times lead to the review, which asks.
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if page := mainOf(s.getAs(t, "patient", l.Tag, review)); !strings.Contains(page, pr.T("Who is this for?")) ||
			!strings.Contains(page, fmt.Sprintf(`name="for" value="%d" checked`, me.ID)) || !strings.Contains(page, fmt.Sprintf(`name="for" value="%d"`, kid.ID)) {
			t.Errorf("%s: the review of an account with a person:\n%s", l.Tag, page)
		}
	}
	_, page = c.do("GET", review, nil)
	if !strings.Contains(page, `href="`+day+`?slot=`) {
		t.Errorf("the day's times do not lead to the review:\n%s", mainOf(page))
	}
	key := between(page[strings.Index(page, `id="review"`):], `name="key" value="`, `"`)
	bookForm := url.Values{"csrf": {csrfOf(page, "/book")}, "slot": {itoa(sl.ID)}, "key": {key}}

	// Another account's person: not found, nothing booked.
	other := s.patients[1]
	theirs, err := s.svc.AddPerson(t.Context(), other.ID, booking.PersonInput{Name: "Theirs", BirthDate: "2015-01-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	bookForm.Set("for", itoa(theirs.ID))
	if res, _ := c.do("POST", "/book", bookForm); res.StatusCode != http.StatusNotFound {
		t.Fatalf("booking for another account's person: %d", res.StatusCode)
	}
	if got, _ := s.store.GetSlot(t.Context(), sl.ID); got.BookedCount != sl.BookedCount {
		t.Fatalf("the slot's count moved: %d → %d", sl.BookedCount, got.BookedCount)
	}

	bookForm.Set("for", itoa(kid.ID))
	res, _ := c.do("POST", "/book", bookForm)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/appointments/") {
		t.Fatalf("booking for the kid: %d %s", res.StatusCode, loc)
	}
	id, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(loc, "/appointments/"), "?booked=1"), 10, 64)
	a, err := s.store.GetAppointment(t.Context(), id)
	must(t, err)
	if a.PatientID != kid.ID {
		t.Fatalf("booked for %d, want the kid %d", a.PatientID, kid.ID)
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if list := mainOf(s.getAs(t, "patient", l.Tag, "/appointments")); !strings.Contains(list, pr.T("For %s", "Lan Anh")) {
			t.Errorf("%s: the appointments page does not name the person:\n%s", l.Tag, list)
		}
	}

	// Staff see the account of each person.
	if list := mainOf(s.getAs(t, "staff", "en", "/staff/patients")); !strings.Contains(list, fmt.Sprintf(`data-manager="%d" href="/staff/patients/%d">child of patient %d<`, me.ID, me.ID, me.ID)) {
		t.Errorf("the staff patients list does not name the person's account:\n%s", list)
	}
	// The account's page lists its people; the person's names its account.
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		acc := mainOf(s.getAs(t, "staff", l.Tag, fmt.Sprintf("/staff/patients/%d", me.ID)))
		if !strings.Contains(acc, pr.T("The account and its people")) || !strings.Contains(acc, fmt.Sprintf(`<a href="/staff/patients/%d">Lan Anh</a>`, kid.ID)) ||
			!strings.Contains(acc, pr.T("the account")) || strings.Contains(acc, `id="account"`) {
			t.Errorf("%s: the account's staff page:\n%s", l.Tag, acc)
		}
		person := mainOf(s.getAs(t, "staff", l.Tag, fmt.Sprintf("/staff/patients/%d", kid.ID)))
		if !strings.Contains(person, pr.T("%s of patient %d", pr.T("child"), me.ID)) || !strings.Contains(person, fmt.Sprintf(`<a href="/staff/patients/%d">`, me.ID)) ||
			!strings.Contains(person, `aria-current="page">Lan Anh<`) {
			t.Errorf("%s: the person's staff page:\n%s", l.Tag, person)
		}
	}
	// The staff's audit log names the addition in the reader's language.
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if log := mainOf(s.getAs(t, "staff", l.Tag, "/staff/audit")); !strings.Contains(log, pr.T("person added by their account")) {
			t.Errorf("%s: the audit log does not name the person's addition:\n%.3000s", l.Tag, log)
		}
	}
	for _, path := range []string{"/staff/patients/999999", "/staff/patients/0", "/staff/patients/x"} {
		if res, _ := s.statusAs(t, "staff", "en", path); res != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, res)
		}
	}
	if _, body := s.statusAs(t, "patient", "en", fmt.Sprintf("/staff/patients/%d", me.ID)); strings.Contains(body, `id="people"`) {
		t.Errorf("a patient reads the staff page of a patient")
	}

	// Removing: refused while booked.
	_, page = c.do("GET", "/people", nil)
	remove := fmt.Sprintf("/people/%d/remove", kid.ID)
	if res, _ := c.do("POST", remove, url.Values{"csrf": {csrfOf(page, remove)}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("removing a booked person: %d", res.StatusCode)
	}
}

// TestPeopleWaitlistPages: on a full day the waitlist form asks "Who is
// this for?"; the entry joined for a person is theirs, "My waitlist" names
// them and leaves it for them; another account's person is not found.
func TestPeopleWaitlistPages(t *testing.T) {
	s := newPagesSite(t)
	me, other := s.patients[0], s.patients[1]
	kid, err := s.svc.AddPerson(t.Context(), me.ID, booking.PersonInput{Name: "Lan", BirthDate: "2017-06-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	theirs, err := s.svc.AddPerson(t.Context(), other.ID, booking.PersonInput{Name: "Theirs", BirthDate: "2015-01-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	// Fill the day: each open place to a new patient.
	for i, sl := range s.slots {
		sl, err := s.store.GetSlot(t.Context(), sl.ID)
		must(t, err)
		for n := sl.BookedCount; n < sl.Capacity; n++ {
			p, err := s.store.CreatePatient(t.Context(), booking.Patient{Name: "Filler", Phone: fmt.Sprintf("+3361100%02d%02d", i, n)})
			must(t, err)
			must(t, s.svc.Book(t.Context(), p.ID, sl.ID, "fill").Err)
		}
	}
	day := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	c := s.patientClient(t, me.ID)
	_, page := c.do("GET", day, nil)
	if !strings.Contains(page, `id="wait-who"`) || !strings.Contains(page, fmt.Sprintf(`id="wait-for%d"`, kid.ID)) {
		t.Fatalf("the full day's waitlist form does not ask whom for:\n%s", mainOf(page))
	}
	form := between(page, `action="/waitlist"`, `</form>`)
	join := url.Values{"csrf": {csrfOf(page, "/waitlist")}, "doctor": {itoa(s.doctor.ID)}, "date": {s.tomorrow.String()},
		"key": {between(form, `name="key" value="`, `"`)}, "part": {"any"}, "for": {itoa(theirs.ID)}}
	if res, _ := c.do("POST", "/waitlist", join); res.StatusCode != http.StatusNotFound {
		t.Fatalf("joining for another account's person: %d", res.StatusCode)
	}
	if es, _ := s.svc.Waitlist(t.Context(), theirs.ID); len(es) != 0 {
		t.Fatalf("their person's entries %+v", es)
	}
	join.Set("for", itoa(kid.ID))
	if res, _ := c.do("POST", "/waitlist", join); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("joining for the kid: %d", res.StatusCode)
	}
	es, err := s.svc.Waitlist(t.Context(), kid.ID)
	must(t, err)
	if len(es) != 1 {
		t.Fatalf("the kid's entries %+v", es)
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if list := mainOf(s.getAs(t, "patient", l.Tag, "/waitlist")); !strings.Contains(list, pr.T("For %s", "Lan")) ||
			!strings.Contains(list, fmt.Sprintf(`data-entry="%d"`, es[0].ID)) {
			t.Errorf("%s: My waitlist does not show the kid's entry:\n%s", l.Tag, list)
		}
	}
	_, page = c.do("GET", "/waitlist", nil)
	leave := fmt.Sprintf("/waitlist/%d/leave", es[0].ID)
	if res, _ := c.do("POST", leave, url.Values{"csrf": {csrfOf(page, leave)}}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("leaving the kid's entry as the account's own: %d", res.StatusCode)
	}
	if res, _ := c.do("POST", leave, url.Values{"csrf": {csrfOf(page, leave)}, "for": {itoa(kid.ID)}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("leaving for the kid: %d", res.StatusCode)
	}
	if es, _ = s.svc.Waitlist(t.Context(), kid.ID); len(es) != 1 || es[0].State != booking.EntryCancelled {
		t.Fatalf("after leaving: %+v", es)
	}
}

// TestBookGroupPage: with people, the review offers to book several at
// once in every language; the form books the ticked people on consecutive
// numbers, replays on a repeat, and another account's person books
// nobody.
func TestBookGroupPage(t *testing.T) {
	s := newPagesSite(t)
	me := s.patients[0]
	kid, err := s.svc.AddPerson(t.Context(), me.ID, booking.PersonInput{Name: "Lan", BirthDate: "2017-06-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	// A slot of two places, tomorrow afternoon (the fixture's hold one).
	at := s.slots[0].StartAt.Add(5 * time.Hour)
	sl, err := s.store.CreateSlot(t.Context(), booking.Slot{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 2,
		OpensAt: s.slots[0].OpensAt, Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	review := fmt.Sprintf("/doctors/%d/days/%s?slot=%d", s.doctor.ID, s.tomorrow, sl.ID)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if page := mainOf(s.getAs(t, "patient", l.Tag, review)); !strings.Contains(page, pr.T("Or book for several people at once")) ||
			!strings.Contains(page, fmt.Sprintf(`name="who" value="%d"`, kid.ID)) {
			t.Errorf("%s: the review offers no group booking:\n%s", l.Tag, page)
		}
	}
	c := s.patientClient(t, me.ID)
	_, page := c.do("GET", review, nil)
	form := url.Values{"csrf": {csrfOf(page, "/book-group")}, "slot": {itoa(sl.ID)},
		"key": {between(page[strings.Index(page, `id="group"`):], `name="key" value="`, `"`)}}

	other := s.patients[1]
	theirs, err := s.svc.AddPerson(t.Context(), other.ID, booking.PersonInput{Name: "Theirs", BirthDate: "2015-01-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	form["who"] = []string{itoa(me.ID), itoa(theirs.ID)}
	if res, _ := c.do("POST", "/book-group", form); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a group with another account's person: %d", res.StatusCode)
	}
	// One place: the group is refused whole.
	one := url.Values{"csrf": form["csrf"], "slot": {itoa(s.slots[1].ID)}, "key": {"group-one"}, "who": {itoa(me.ID), itoa(kid.ID)}}
	if res, _ := c.do("POST", "/book-group", one); res.StatusCode != http.StatusConflict {
		t.Fatalf("a group of two for one place: %d", res.StatusCode)
	}
	if got, _ := s.store.GetSlot(t.Context(), s.slots[1].ID); got.BookedCount != s.slots[1].BookedCount {
		t.Fatal("a refused group took a place")
	}
	form["who"] = []string{itoa(me.ID), itoa(kid.ID)}
	for range 2 { // the repeat replays
		if res, body := c.do("POST", "/book-group", form); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/appointments" {
			t.Fatalf("booking the group: %d %s\n%.400s", res.StatusCode, res.Header.Get("Location"), body)
		}
	}
	got, err := s.store.GetSlot(t.Context(), sl.ID)
	must(t, err)
	if got.BookedCount != sl.BookedCount+2 {
		t.Fatalf("the slot holds %d, want %d", got.BookedCount, sl.BookedCount+2)
	}
	var nums []int
	for _, p := range []int64{me.ID, kid.ID} {
		as, err := s.store.ListAppointments(t.Context(), booking.AppointmentQuery{PatientID: p, Page: booking.Page{Limit: 10}})
		must(t, err)
		for _, a := range as {
			if a.SlotID == sl.ID {
				nums = append(nums, a.QueueNumber)
			}
		}
	}
	if len(nums) != 2 || nums[1]-nums[0] != 1 {
		t.Fatalf("queue numbers %v, want two consecutive", nums)
	}
}

// TestBookGroupInvitationPage: a group booked into a campaign's slot that
// asks for invitation codes is refused invitation-required whole; the
// error page then asks each person ticked for their code (by name, in
// every language) and books them all with their codes.
func TestBookGroupInvitationPage(t *testing.T) {
	s := newPagesSite(t)
	me := s.patients[0]
	kid, err := s.svc.AddPerson(t.Context(), me.ID, booking.PersonInput{Name: "Lan", BirthDate: "2017-06-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	sc, err := s.store.CreateSchedule(t.Context(), booking.Schedule{DoctorID: s.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	at := s.slots[0].StartAt.Add(6 * time.Hour)
	sl, err := s.store.CreateSlot(t.Context(), booking.Slot{DoctorID: s.doctor.ID, ScheduleID: sc.ID, StartAt: at, EndAt: at.Add(30 * time.Minute),
		Capacity: 3, OpensAt: s.slots[0].OpensAt, Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	_, err = s.svc.SetEligibility(t.Context(), booking.EligibilityRule{ScheduleID: sc.ID, InvitationRequired: true}, false)
	must(t, err)
	codes, err := s.svc.CreateInvitations(t.Context(), sc.ID, 2)
	must(t, err)
	c := s.patientClient(t, me.ID)
	review := fmt.Sprintf("/doctors/%d/days/%s?slot=%d", s.doctor.ID, s.tomorrow, sl.ID)
	_, page := c.do("GET", review, nil)
	form := url.Values{"csrf": {csrfOf(page, "/book-group")}, "slot": {itoa(sl.ID)}, "key": {"group-invited"},
		"who": {itoa(me.ID), itoa(kid.ID)}}
	res, body := c.do("POST", "/book-group", form)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, `id="group-invitation-form"`) ||
		!strings.Contains(body, fmt.Sprintf(`name="invitation-%d"`, kid.ID)) || !strings.Contains(body, "Invitation code of Lan") {
		t.Fatalf("a group without codes: %d, asked for them: %v", res.StatusCode, strings.Contains(body, `id="group-invitation-form"`))
	}
	if got, _ := s.store.GetSlot(t.Context(), sl.ID); got.BookedCount != 0 {
		t.Fatal("a group refused for its codes took a place")
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		lc := &patientClient{t: t, base: c.base, jar: append(slices.Clone(c.jar), &http.Cookie{Name: langCookie, Value: l.Tag})}
		res, body := lc.do("POST", "/book-group", form)
		if res.StatusCode != http.StatusConflict || !strings.Contains(body, pr.T("Invitation code of %s", "Lan")) || !strings.Contains(body, pr.T("Book with these codes")) {
			t.Errorf("%s: the group's codes are not asked for:\n%s", l.Tag, mainOf(body))
		}
	}
	// One code only: still refused, the code typed kept in the form.
	form.Set("invitation-"+itoa(me.ID), codes[0])
	if res, body := c.do("POST", "/book-group", form); res.StatusCode != http.StatusConflict || !strings.Contains(body, `value="`+codes[0]+`"`) {
		t.Fatalf("a group with one code of two: %d", res.StatusCode)
	}
	form.Set("invitation-"+itoa(kid.ID), strings.ToLower(codes[1]))
	if res, body := c.do("POST", "/book-group", form); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/appointments" {
		t.Fatalf("the group with its codes: %d %s\n%.400s", res.StatusCode, res.Header.Get("Location"), body)
	}
	if got, _ := s.store.GetSlot(t.Context(), sl.ID); got.BookedCount != 2 {
		t.Fatalf("the slot holds %d, want the group's 2", got.BookedCount)
	}
}

// TestWaitlistPartyPage: the full day's waitlist form asks an account with
// people how many wait together (up to its people); a party of two joins
// and My waitlist names it in every language; a size out of bounds is
// refused.
func TestWaitlistPartyPage(t *testing.T) {
	s := newPagesSite(t)
	me := s.patients[0]
	_, err := s.svc.AddPerson(t.Context(), me.ID, booking.PersonInput{Name: "Lan", BirthDate: "2017-06-01", Relation: booking.RelationChild, Consent: true})
	must(t, err)
	for i, sl := range s.slots {
		sl, err := s.store.GetSlot(t.Context(), sl.ID)
		must(t, err)
		for n := sl.BookedCount; n < sl.Capacity; n++ {
			p, err := s.store.CreatePatient(t.Context(), booking.Patient{Name: "Filler", Phone: fmt.Sprintf("+3361200%02d%02d", i, n)})
			must(t, err)
			must(t, s.svc.Book(t.Context(), p.ID, sl.ID, "fill").Err)
		}
	}
	day := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	c := s.patientClient(t, me.ID)
	_, page := c.do("GET", day, nil)
	form := between(page, `action="/waitlist"`, `</form>`)
	if !strings.Contains(form, `name="party"`) || !strings.Contains(form, `<option value="2">`) || strings.Contains(form, `<option value="3">`) {
		t.Fatalf("the party sizes are not 1 to the account's 2 people:\n%s", form)
	}
	join := url.Values{"csrf": {csrfOf(page, "/waitlist")}, "doctor": {itoa(s.doctor.ID)}, "date": {s.tomorrow.String()},
		"key": {between(form, `name="key" value="`, `"`)}, "part": {"any"}, "party": {"11"}}
	if res, _ := c.do("POST", "/waitlist", join); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a party of 11: %d", res.StatusCode)
	}
	join.Set("party", "3")
	if res, _ := c.do("POST", "/waitlist", join); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a party beyond the account's people: %d", res.StatusCode)
	}
	join.Set("party", "2")
	if res, _ := c.do("POST", "/waitlist", join); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a party of 2: %d", res.StatusCode)
	}
	es, err := s.svc.Waitlist(t.Context(), me.ID)
	must(t, err)
	if len(es) != 1 || es[0].PartySize != 2 {
		t.Fatalf("entries %+v", es)
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if list := mainOf(s.getAs(t, "patient", l.Tag, "/waitlist")); !strings.Contains(list, `data-party="2"`) ||
			!strings.Contains(list, pr.T("A party of %d: their places are offered together, and accepting books them all.", 2)) {
			t.Errorf("%s: My waitlist does not name the party:\n%s", l.Tag, list)
		}
	}
}
