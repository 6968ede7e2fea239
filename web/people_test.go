package web

import (
	"fmt"
	"net/http"
	"net/url"
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
	if list := mainOf(s.getAs(t, "staff", "en", "/staff/patients")); !strings.Contains(list, fmt.Sprintf(`data-manager="%d">child of patient %d<`, me.ID, me.ID)) {
		t.Errorf("the staff patients list does not name the person's account:\n%s", list)
	}

	// Removing: refused while booked.
	_, page = c.do("GET", "/people", nil)
	remove := fmt.Sprintf("/people/%d/remove", kid.ID)
	if res, _ := c.do("POST", remove, url.Values{"csrf": {csrfOf(page, remove)}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("removing a booked person: %d", res.StatusCode)
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
		as, err := s.store.ListAppointments(t.Context(), p, "", booking.Page{Limit: 10})
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
