package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// TestWhatForBooksAService: a doctor offering a service leads a time to
// the review, which asks "What for?" in every language; choosing the
// service books one appointment over two consecutive times.
func TestWhatForBooksAService(t *testing.T) {
	s := newPagesSite(t)
	svc, err := s.svc.CreateService(t.Context(), booking.Service{Name: "Long consultation", Minutes: 60, Level: booking.LevelSpecialist,
		DoctorIDs: []int64{s.doctor.ID}, Notes: "Bring your results.", Active: true})
	must(t, err)
	first, second := s.slots[3], s.slots[4]
	day := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	review := day + "?slot=" + itoa(first.ID)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		page := mainOf(s.getAs(t, "patient", l.Tag, review))
		if !strings.Contains(page, pr.T("What for?")) || !strings.Contains(page, fmt.Sprintf(`name="service" value="%d"`, svc.ID)) ||
			!strings.Contains(page, "Bring your results.") {
			t.Errorf("%s: the review of a doctor with a service:\n%s", l.Tag, page)
		}
	}
	// Signed out, a visitor sees no choice (nothing read for them).
	if page := mainOf(s.getAs(t, "", "en", review)); strings.Contains(page, `id="what"`) {
		t.Errorf("a visitor is asked what for:\n%s", page)
	}

	c := s.patientClient(t, s.patients[0].ID)
	_, page := c.do("GET", review, nil)
	if !strings.Contains(page, `href="`+day+`?slot=`) {
		t.Fatalf("the day's times do not lead to the review:\n%s", mainOf(page))
	}
	key := between(page[strings.Index(page, `id="review"`):], `name="key" value="`, `"`)
	form := url.Values{"csrf": {csrfOf(page, "/book")}, "slot": {itoa(first.ID)}, "key": {key}, "service": {itoa(svc.ID)}}
	res, _ := c.do("POST", "/book", form)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/appointments/") {
		t.Fatalf("booking the service: %d %s", res.StatusCode, loc)
	}
	id, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(loc, "/appointments/"), "?booked=1"), 10, 64)
	a, err := s.store.GetAppointment(t.Context(), id)
	must(t, err)
	if a.ServiceID != svc.ID || !a.EndAt.Equal(second.EndAt) {
		t.Fatalf("booked %+v", a)
	}
	if got, _ := s.store.GetSlot(t.Context(), second.ID); got.BookedCount != 1 {
		t.Fatalf("the second time's count is %d, want 1", got.BookedCount)
	}
	form.Set("service", "x")
	form.Set("key", key+"-2")
	if res, _ := c.do("POST", "/book", form); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a malformed service: %d", res.StatusCode)
	}
}
