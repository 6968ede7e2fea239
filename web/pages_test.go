package web

// What the pages say, rendered over HTTP in every language: the fixes of
// what patients and receptionists tripped over (pages_e2e_test.go walks the
// same pages in the browser).

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
)

// getAs renders path in lang as role ("patient" for patients[0], "staff"
// for admin, "" signed out) and fails unless it answers 200.
func (s *pagesSite) getAs(t *testing.T, role, lang, path string) string {
	t.Helper()
	status, body := s.statusAs(t, role, lang, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s in %s as %q: %d\n%.600s", path, lang, role, status, body)
	}
	return body
}

// statusAs is GET path as role in lang: the status and the body.
func (s *pagesSite) statusAs(t *testing.T, role, lang, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", s.url+path, nil)
	must(t, err)
	req.AddCookie(&http.Cookie{Name: langCookie, Value: lang})
	switch role {
	case "patient":
		tok, _ := s.signer.MintPage(auth.RolePatient, strconv.FormatInt(s.patients[0].ID, 10), time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	case "staff":
		tok, _ := s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	case "reception":
		tok, _ := s.signer.MintPage(auth.RoleReception, staffPrefix+"rita", time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	}
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	return res.StatusCode, readAll(t, res)
}

// mainOf is the page's <main>, without the layout.
func mainOf(page string) string {
	if i := strings.Index(page, "<main"); i >= 0 {
		page = page[i:]
	}
	if i := strings.Index(page, "</main>"); i >= 0 {
		page = page[:i]
	}
	return page
}

// A day the calendar marks as opening later says so on its own page too,
// in every language, instead of "no appointments".
func TestDayNotPublishedSaysWhenItOpens(t *testing.T) {
	s := newPagesSite(t)
	path := fmt.Sprintf("/doctors/%d/days/%s", s.later.ID, s.laterOn)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		opens := between(s.getAs(t, "patient", l.Tag, fmt.Sprintf("/doctors/%d", s.later.ID)), fmt.Sprintf(`data-date="%s"`, s.laterOn), "</a>")
		page := mainOf(s.getAs(t, "patient", l.Tag, path))
		if !strings.Contains(page, "data-opens") || strings.Contains(page, pr.T("No appointments on this day.")) {
			t.Errorf("%s: the day page does not say when it opens:\n%s", l.Tag, page)
		}
		// Both name the same time: 07:00, two days before.
		if !strings.Contains(opens, "07:00") || !strings.Contains(between(page, "data-opens>", "</p>"), "07:00") {
			t.Errorf("%s: calendar cell %q, day page %q", l.Tag, opens, between(page, "data-opens>", "</p>"))
		}
	}
	// A day no schedule will fill still says there is nothing.
	page := s.getAs(t, "patient", "en", fmt.Sprintf("/doctors/%d/days/%s", s.empty.ID, s.laterOn))
	if !strings.Contains(page, "No appointments on this day.") || strings.Contains(page, "data-opens") {
		t.Errorf("a doctor without a schedule:\n%s", mainOf(page))
	}
}

// The sign-in invitation is one sentence with its link inside, in every
// language (no "登录 使用手机号码登录后即可预约。").
func TestSignInSentenceIsOneSentence(t *testing.T) {
	s := newPagesSite(t)
	path := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	link := regexp.MustCompile(`<p class="notice">([^<]*)<a href="/signin\?next=[^"]+">([^<]+)</a>([^<]*)</p>`)
	for _, l := range i18n.Languages {
		page := mainOf(s.getAs(t, "", l.Tag, path))
		m := link.FindStringSubmatch(page)
		if m == nil {
			t.Errorf("%s: no sign-in sentence with its link inside:\n%s", l.Tag, page)
			continue
		}
		whole := m[1] + m[2] + m[3]
		if strings.Count(whole, m[2]) != 1 || strings.Contains(whole, "  ") {
			t.Errorf("%s: %q repeats its link's words %q", l.Tag, whole, m[2])
		}
	}
	if got := between(s.getAs(t, "", "zh-Hans", path), `<p class="notice">`, "</p>"); !strings.Contains(got, `使用手机号码<a href="/signin?next=`) {
		t.Errorf("zh: %q", got)
	}
}

// Every sentence given to Link has one [link] part in each language.
func TestLinkedSentencesKeepTheirLink(t *testing.T) {
	for _, key := range []string{"[Sign in] with your phone number to book."} {
		for _, l := range i18n.Languages {
			got := i18n.New(l.Tag).T(key)
			if strings.Count(got, "[") != 1 || strings.Count(got, "]") != 1 || strings.Index(got, "[") > strings.Index(got, "]") {
				t.Errorf("%s: %q has no single [link]", l.Tag, got)
			}
		}
	}
	p := &page{}
	if got := p.Link("Go [there] now <b>", "/x?a=1&b=2"); got != `Go <a href="/x?a=1&amp;b=2">there</a> now &lt;b&gt;` {
		t.Errorf("Link: %s", got)
	}
	if got := p.Link("[there]", "https://evil.example/"); strings.Contains(string(got), "<a") {
		t.Errorf("Link to another site: %s", got)
	}
}

// Times read on the 24-hour clock in Chinese too.
func TestChineseTimesAre24Hour(t *testing.T) {
	s := newPagesSite(t)
	for _, path := range []string{fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow), fmt.Sprintf("/doctors/%d", s.later.ID),
		fmt.Sprintf("/appointments/%d", s.appt)} {
		page := mainOf(s.getAs(t, "patient", "zh-Hans", path))
		if strings.Contains(page, "上午") || strings.Contains(page, "下午") {
			t.Errorf("%s: 12-hour times:\n%s", path, page)
		}
		if !strings.Contains(page, ":00") {
			t.Errorf("%s: no time at all:\n%s", path, page)
		}
	}
}

// A fee with no note before it has no stray separator.
func TestFeeWithoutStraySeparator(t *testing.T) {
	s := newPagesSite(t)
	for _, l := range i18n.Languages {
		page := mainOf(s.getAs(t, "patient", l.Tag, fmt.Sprintf("/doctors/%d/days/%s", s.fee.ID, s.tomorrow)))
		left := between(page, `class="left"`, "</span>")
		if left == "" || strings.Contains(left, "·") || !strings.Contains(left, "25") {
			t.Errorf("%s: the fee reads %q", l.Tag, left)
		}
	}
	p := &page{}
	for _, c := range []struct {
		parts []any
		want  string
	}{{[]any{"", "€ 25.00"}, "€ 25.00"}, {[]any{"2 of 3 left", "€ 25.00"}, "2 of 3 left · € 25.00"}, {[]any{"Full", int64(0)}, "Full"}, {nil, ""}} {
		if got := p.Joined(c.parts...); got != c.want {
			t.Errorf("Joined(%q) = %q, want %q", c.parts, got, c.want)
		}
	}
}

// A queue number shows only where a slot takes several people; an
// appointment's id is never labelled "No.".
func TestQueueNumberOnlyWhereItCounts(t *testing.T) {
	s := newPagesSite(t)
	ctx := context.Background()
	day3, _ := schedule.DayBounds(s.tomorrow.AddDays(3), s.loc)
	group, err := s.store.ListSlots(ctx, s.doctor.ID, day3, day3.Add(24*time.Hour))
	must(t, err)
	if len(group) != 1 || group[0].Capacity != 3 {
		t.Fatalf("the sample's group slot: %+v", group)
	}
	p := s.patients[0]
	res := s.svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, group[0].ID, "pages-group")
	must(t, res.Err)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		one := s.getAs(t, "patient", l.Tag, fmt.Sprintf("/appointments/%d", s.appt))
		if strings.Contains(mainOf(one), `class="queue"`) || strings.Contains(one, pr.T("No. %d", 1)) || strings.Contains(one, pr.T("Queue number")) {
			t.Errorf("%s: a one-place slot shows a queue number:\n%s", l.Tag, mainOf(one))
		}
		three := mainOf(s.getAs(t, "patient", l.Tag, fmt.Sprintf("/appointments/%d", res.Appointment.ID)))
		if !strings.Contains(three, `data-queue="1">`+pr.T("No. %d", 1)+"<") {
			t.Errorf("%s: a group slot lacks its queue number:\n%s", l.Tag, three)
		}
		list := mainOf(s.getAs(t, "patient", l.Tag, "/appointments"))
		if strings.Count(list, pr.T("No. %d", 1)) != 2 { // the group one: seen and in its Cancel button's name
			t.Errorf("%s: the list's queue numbers:\n%s", l.Tag, list)
		}
		for _, id := range []int64{s.appt, res.Appointment.ID} {
			if cancel := mainOf(s.getAs(t, "patient", l.Tag, fmt.Sprintf("/appointments/%d/cancel", id))); strings.Contains(cancel, pr.T("Queue number")) != (id != s.appt) {
				t.Errorf("%s: the cancel page of %d:\n%s", l.Tag, id, cancel)
			}
		}
		hist := mainOf(s.getAs(t, "patient", l.Tag, "/history"))
		for _, id := range []int64{s.appt, res.Appointment.ID} {
			if strings.Contains(hist, pr.T("No. %d", id)) {
				t.Errorf("%s: the history labels appointment id %d as a number:\n%s", l.Tag, id, hist)
			}
		}
		if !strings.Contains(hist, fmt.Sprintf(`href="/appointments/%d">`, s.appt)) || !strings.Contains(hist, "10:00<") {
			t.Errorf("%s: the history does not name the appointment by its time:\n%s", l.Tag, hist)
		}
		// The staff day list: numbers on the group slot's day only.
		staffOne := mainOf(s.getAs(t, "staff", l.Tag, fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)))
		if !strings.Contains(staffOne, "data-appointment=") || strings.Contains(staffOne, pr.T("No. %d", 1)) {
			t.Errorf("%s: the staff day list numbers a one-place slot:\n%s", l.Tag, staffOne)
		}
		staffThree := mainOf(s.getAs(t, "staff", l.Tag, fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow.AddDays(3))))
		if !strings.Contains(staffThree, pr.T("No. %d", 1)) {
			t.Errorf("%s: the staff day list lacks the group slot's queue number:\n%s", l.Tag, staffThree)
		}
	}
}

// On the confirmation, cancelling is offered after the other actions, as a
// plain link, not as the most prominent button.
func TestConfirmationCancelIsSecondary(t *testing.T) {
	s := newPagesSite(t)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		page := mainOf(s.getAs(t, "patient", l.Tag, fmt.Sprintf("/appointments/%d?booked=1", s.appt)))
		cancel := strings.Index(page, "data-cancel>"+pr.T("Cancel this appointment"))
		if cancel < 0 || strings.Index(page, pr.T("Reschedule")) > cancel || strings.Index(page, pr.T("Book another time")) > cancel {
			t.Errorf("%s: cancelling is not after the other actions:\n%s", l.Tag, page)
		}
		if strings.Contains(page, `class="button danger" href="/appointments/`) {
			t.Errorf("%s: cancelling is still a button", l.Tag)
		}
	}
}

// The staff pages: a full slot's bar is marked full (red, not the meter's
// green), the closure's button says it cancels, and the doctors table
// stacks on a phone (its actions named per doctor).
func TestStaffPagesSayWhatTheyDo(t *testing.T) {
	s := newPagesSite(t)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		dash := mainOf(s.getAs(t, "staff", l.Tag, "/staff/dashboard"))
		full := between(dash, `<li class="full">`, "</li>")
		if !strings.Contains(full, `<meter class="full" optimum="0"`) {
			t.Errorf("%s: the full slot's bar is not marked full: %q\n%s", l.Tag, full, dash)
		}
		clinic := mainOf(s.getAs(t, "staff", l.Tag, "/staff/clinic"))
		if !strings.Contains(between(clinic, `id="closure-form"`, "</form>"), `class="danger">`+pr.T("Close and cancel its appointments")+"</button>") {
			t.Errorf("%s: the closure's button:\n%s", l.Tag, between(clinic, `id="closure-form"`, "</form>"))
		}
		home := mainOf(s.getAs(t, "staff", l.Tag, "/staff"))
		table := between(home, `<table class="list stack" id="doctors"`, "</table>")
		if !strings.Contains(table, pr.T("Day view")+`<span class="visually-hidden"> – `+s.doctor.Name+"</span>") || !strings.Contains(table, `data-label="`+pr.T("%s:", pr.T("Edit"))+`"`) {
			t.Errorf("%s: the doctors table does not stack:\n%s", l.Tag, home)
		}
	}
}

// A department without an active doctor offers a patient nothing: the
// patient's home does not list it, and the staff catalog says why, in
// every language.
func TestEmptyDepartmentIsNotOffered(t *testing.T) {
	s := newPagesSite(t)
	empty, err := s.store.CreateDepartment(context.Background(), booking.Department{Name: "Radiology"})
	must(t, err)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		if home := mainOf(s.getAs(t, "visitor", l.Tag, "/")); strings.Contains(home, empty.Name) || !strings.Contains(home, s.dept.Name) {
			t.Errorf("%s: the patient's home lists the empty department (or not the clinic's):\n%s", l.Tag, home)
		}
		staff := mainOf(s.getAs(t, "staff", l.Tag, "/staff"))
		hint := ` <span class="hint">(` + pr.T("not shown to patients until it has an active doctor") + `)</span>`
		if !strings.Contains(staff, "<li>"+empty.Name+hint) || strings.Contains(staff, "<li>"+s.dept.Name+hint) {
			t.Errorf("%s: the staff catalog does not mark only the empty department:\n%s", l.Tag, staff)
		}
	}
}

// The staff day offers Completed and No-show only once an appointment has
// started (before, they could only answer "not started yet"), and marks a
// slot that has begun, which takes no more bookings.
func TestStaffDayMarksOnlyWhatHasStarted(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	s := &pagesSite{site: newSite(t, withConfig(func(c *Config) {
		c.Now = func() time.Time { return time.Unix(0, clock.Load()) }
	}))}
	ctx := context.Background()
	p := s.patients[0]
	booked := s.svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, s.slots[2].ID, "staff-day-marks")
	must(t, booked.Err)
	path := fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		clock.Store(time.Now().UnixNano())
		before := mainOf(s.getAs(t, "staff", l.Tag, path))
		if !strings.Contains(before, "data-appointment=") || strings.Contains(before, `value="COMPLETED"`) || strings.Contains(before, `value="NO_SHOW"`) || strings.Contains(before, pr.T("Already started")) {
			t.Errorf("%s: tomorrow's appointment can be marked, or a slot is marked started:\n%s", l.Tag, before)
		}
		clock.Store(s.slots[2].StartAt.Add(time.Minute).UnixNano())
		after := mainOf(s.getAs(t, "staff", l.Tag, path))
		if !strings.Contains(after, `value="COMPLETED"`) || !strings.Contains(after, `value="NO_SHOW"`) || !strings.Contains(after, `<span class="badge">`+pr.T("Already started")+`</span>`) {
			t.Errorf("%s: once started, the appointment cannot be marked or its slot is not marked started:\n%s", l.Tag, after)
		}
	}
}
