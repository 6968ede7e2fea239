package web

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// TestSearchAndFirstAvailablePages: the search finds a service, a
// department and a doctor by the start of their names, in every
// language; the first-available page lists the service's free times and
// leads to the day with the service chosen; bad input is a 4xx page.
func TestSearchAndFirstAvailablePages(t *testing.T) {
	s := newPagesSite(t)
	svc, err := s.svc.CreateService(t.Context(), booking.Service{Name: "Cardiac check-up", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{s.doctor.ID}, Active: true})
	must(t, err)
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		page := mainOf(s.getAs(t, "", l.Tag, "/search?q=card"))
		for _, want := range []string{fmt.Sprintf(`href="/first-available?service=%d"`, svc.ID), fmt.Sprintf(`href="/departments/%d"`, s.dept.ID), pr.T("Services")} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: search lacks %q:\n%s", l.Tag, want, page)
			}
		}
		home := mainOf(s.getAs(t, "", l.Tag, "/"))
		if !strings.Contains(home, `role="search"`) || !strings.Contains(home, fmt.Sprintf(`/first-available?service=%d`, svc.ID)) {
			t.Errorf("%s: the home page has no search box or service:\n%s", l.Tag, home)
		}
	}
	page := mainOf(s.getAs(t, "", "en", "/search?q="+url.QueryEscape(s.doctor.Name[:5])))
	if !strings.Contains(page, fmt.Sprintf(`href="/doctors/%d"`, s.doctor.ID)) {
		t.Errorf("the doctor is not found by the start of the name:\n%s", page)
	}

	page = mainOf(s.getAs(t, "patient", "en", fmt.Sprintf("/first-available?service=%d", svc.ID)))
	book := fmt.Sprintf(`/doctors/%d/days/%s?slot=%d&amp;service=%d#review`, s.doctor.ID, s.tomorrow, s.slots[1].ID, svc.ID)
	if !strings.Contains(page, book) {
		t.Fatalf("the first free time does not lead to %s:\n%s", book, page)
	}
	if page := mainOf(s.getAs(t, "", "en", "/first-available")); !strings.Contains(page, svc.Name) {
		t.Errorf("without a service, the page offers none:\n%s", page)
	}
	review := mainOf(s.getAs(t, "patient", "en", strings.ReplaceAll(strings.TrimSuffix(book, "#review"), "&amp;", "&")))
	if !strings.Contains(review, fmt.Sprintf(`value="%d" checked`, svc.ID)) {
		t.Errorf("the review does not keep the service chosen:\n%s", review)
	}

	for path, want := range map[string]int{
		"/search":                               http.StatusBadRequest,
		"/search?q=%25%25":                      http.StatusBadRequest,
		"/search?q=" + strings.Repeat("x", 101): http.StatusBadRequest,
		"/search?q=a&after=-1":                  http.StatusBadRequest,
		"/first-available?service=abc":          http.StatusNotFound,
		"/first-available?service=999999":       http.StatusNotFound,
		"/first-available?site=999999":          http.StatusNotFound,
		"/?site=abc":                            http.StatusNotFound,
	} {
		if got, body := s.statusAs(t, "", "en", path); got != want {
			t.Errorf("GET %s: %d, want %d\n%.300s", path, got, want, mainOf(body))
		}
	}
}

// TestStaffDoctorProfileAndPhoto: an admin edits a doctor's profile and
// uploads a photo from the edit page; a file that is not an image
// changes nothing; the patients' pages show the profile.
func TestStaffDoctorProfileAndPhoto(t *testing.T) {
	s := newPagesSite(t)
	edit := fmt.Sprintf("/staff/doctors/%d/edit", s.doctor.ID)
	status, _ := s.postAs(t, "staff", "en", edit, url.Values{"name": {s.doctor.Name}, "department": {itoa(s.dept.ID)}, "active": {"on"},
		"title": {"Prof."}, "specialties": {"Cardiology\n\n Echography \n"}, "languages": {"Français\nEnglish"}, "bio": {"Kind."}, "consultingRoom": {" 诊室 3 "}})
	if status != http.StatusSeeOther && status != http.StatusOK {
		t.Fatalf("saving the profile: %d", status)
	}
	d, err := s.store.GetDoctor(t.Context(), s.doctor.ID)
	must(t, err)
	if d.Title != "Prof." || strings.Join(d.Specialties, "|") != "Cardiology|Echography" || strings.Join(d.Languages, "|") != "Français|English" || d.ConsultingRoom != "诊室 3" {
		t.Fatalf("saved profile %+v", d.Profile)
	}
	upload := func(name, ct string, data []byte) int {
		t.Helper()
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		action := fmt.Sprintf("/staff/doctors/%d/photo", s.doctor.ID)
		const csrf = "0123456789abcdef0123456789abcdef"
		must(t, mw.WriteField("csrf", s.pages.csrfToken(csrf, action)))
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="photo"; filename=%q`, name))
		h.Set("Content-Type", ct)
		part, err := mw.CreatePart(h)
		must(t, err)
		_, _ = part.Write(data)
		must(t, mw.Close())
		req, err := http.NewRequest("POST", s.url+action, &b)
		must(t, err)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrf})
		tok, _ := s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		must(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	if got := upload("notes.txt", "text/plain", []byte("hello")); got != http.StatusBadRequest {
		t.Fatalf("a text file: %d", got)
	}
	var img bytes.Buffer
	must(t, png.Encode(&img, image.NewGray(image.Rect(0, 0, 40, 40))))
	if got := upload("me.png", "image/png", img.Bytes()); got != http.StatusSeeOther {
		t.Fatalf("a PNG: %d", got)
	}
	d, err = s.store.GetDoctor(t.Context(), s.doctor.ID)
	must(t, err)
	if d.Photo == "" {
		t.Fatal("no photo after the upload")
	}
	page := mainOf(s.getAs(t, "", "en", fmt.Sprintf("/departments/%d", s.dept.ID)))
	for _, want := range []string{"Prof. " + s.doctor.Name, "Cardiology, Echography", "Français, English", "/photo?v=" + d.Photo} {
		if !strings.Contains(page, want) {
			t.Errorf("the department's card lacks %q:\n%s", want, page)
		}
	}
}
