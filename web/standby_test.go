package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// TestStandbyPage: "My waitlist" offers to stand by for leftover doses at
// a site for a day; the standby is listed under the site's name in every
// language, and an unknown site is refused; the staff's campaigns page
// counts the site's standbys today.
func TestStandbyPage(t *testing.T) {
	s := newPagesSite(t)
	me := s.patients[0]
	c := s.patientClient(t, me.ID)
	_, page := c.do("GET", "/waitlist", nil)
	form := between(page, `action="/waitlist/standby"`, `</form>`)
	if form == "" {
		t.Fatalf("no standby form:\n%s", mainOf(page))
	}
	site := between(form, `<option value="`, `"`)
	join := url.Values{"csrf": {csrfOf(page, "/waitlist/standby")}, "site": {site}, "date": {between(form, `name="date" value="`, `"`)},
		"key": {between(form, `name="key" value="`, `"`)}}
	bad := url.Values{"csrf": join["csrf"], "site": {"999999"}, "date": join["date"], "key": join["key"]}
	if res, _ := c.do("POST", "/waitlist/standby", bad); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown site: %d", res.StatusCode)
	}
	if res, _ := c.do("POST", "/waitlist/standby", join); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("standing by: %d", res.StatusCode)
	}
	es, err := s.svc.Standbys(t.Context(), me.ID)
	must(t, err)
	if len(es) != 1 || es[0].State != booking.EntryWaiting || itoa(es[0].SiteID) != site {
		t.Fatalf("standbys %+v", es)
	}
	for _, l := range i18n.Languages {
		list := mainOf(s.getAs(t, "patient", l.Tag, "/waitlist"))
		if !strings.Contains(list, `data-entry="`+itoa(es[0].ID)+`"`) || strings.Contains(list, "Department 0") {
			t.Errorf("%s: My waitlist does not show the standby:\n%s", l.Tag, list)
		}
	}
	// The staff's view: the site's standbys today on the campaigns page.
	staff := mainOf(s.getAs(t, "staff", "en", "/staff/campaigns"))
	if !strings.Contains(staff, `id="standby"`) || !strings.Contains(staff, `data-waiting="1"`) {
		t.Errorf("the campaigns page does not count the standby:\n%s", staff)
	}
}
