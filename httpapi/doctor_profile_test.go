package httpapi

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
)

func photoOf(t *testing.T, w, h int, jpg bool) []byte {
	t.Helper()
	var b bytes.Buffer
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	var err error
	if jpg {
		err = jpeg.Encode(&b, m, nil)
	} else {
		err = png.Encode(&b, m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDoctorProfile: staff write a profile and a photo, anyone reads them
// (the photo cached: ETag, 304); bad input is a 400 or 413 that changes
// nothing.
func TestDoctorProfile(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	path := fmt.Sprintf("/api/admin/doctors/%d", f.doctor.ID)
	var d booking.Doctor
	e.do(call{method: "PATCH", path: path, token: e.admin, body: map[string]any{
		"title": " Dr ", "specialties": []string{"Cardiology"}, "languages": []string{"English", "Deutsch"}, "bio": "Kind."}}).
		expect(t, 200).decode(t, &d)
	if d.Title != "Dr" || !slices.Equal(d.Languages, []string{"English", "Deutsch"}) || d.Name != f.doctor.Name {
		t.Fatalf("patched %+v", d)
	}
	e.do(call{method: "PATCH", path: path, token: e.admin, body: map[string]any{"languages": []string{"en", "en"}},
		invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: path, token: e.admin, body: map[string]any{"bio": strings.Repeat("b", booking.MaxDoctorBio+1)},
		invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: path, token: e.admin, body: map[string]any{"consultingRoom": " 诊室 3 "}}).expect(t, 200).decode(t, &d)
	if d.ConsultingRoom != "诊室 3" || d.Title != "Dr" {
		t.Fatalf("patched the room: %+v", d.Profile)
	}
	for _, room := range []string{strings.Repeat("r", booking.MaxConsultingRoom+1), "Room\n3"} {
		e.do(call{method: "PATCH", path: path, token: e.admin, body: map[string]any{"consultingRoom": room, "title": "Prof."},
			invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors/%d", f.doctor.ID)}).expect(t, 200).decode(t, &d)
	if d.Title != "Dr" || d.Bio != "Kind." || d.Photo != "" || d.ConsultingRoom != "诊室 3" {
		t.Fatalf("read back %+v after refused changes", d.Profile)
	}

	photoPath := path + "/photo"
	public := fmt.Sprintf("/api/doctors/%d/photo", f.doctor.ID)
	e.do(call{method: "GET", path: public}).expect(t, 404, booking.CodeNotFound)
	upload := func(data []byte, ct string) call {
		return call{method: "PUT", path: photoPath, token: e.admin, body: data, header: map[string]string{"Content-Type": ct}}
	}
	jpg := photoOf(t, 32, 32, true)
	var set struct {
		Photo, ContentType string
		Bytes              int
	}
	e.do(upload(jpg, "image/jpeg")).expect(t, 200).decode(t, &set)
	if set.ContentType != "image/jpeg" || set.Bytes != len(jpg) || set.Photo == "" {
		t.Fatalf("set %+v", set)
	}
	// Refused: a PNG called a JPEG, a text, a truncated image, a GIF type,
	// a body over the bound.
	bad := []call{upload(photoOf(t, 4, 4, false), "image/jpeg"), upload([]byte("hello"), "image/png"),
		upload(jpg[:len(jpg)/2], "image/jpeg"), upload([]byte("GIF89a"), "image/gif")}
	for _, c := range bad {
		c.invalid = true
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	}
	big := upload(append(photoOf(t, 1, 1, false), make([]byte, booking.MaxPhotoBytes)...), "image/png")
	big.invalid = true
	e.do(big).expect(t, 413, booking.CodePayloadTooLarge)
	e.do(call{method: "PUT", path: "/api/admin/doctors/999999/photo", token: e.admin, body: jpg,
		header: map[string]string{"Content-Type": "image/jpeg"}}).expect(t, 404, booking.CodeNotFound)

	got := e.do(call{method: "GET", path: public}).expect(t, 200)
	if !bytes.Equal(got.body, jpg) || got.header.Get("Content-Type") != "image/jpeg" ||
		got.header.Get("ETag") != `"`+set.Photo+`"` || !strings.Contains(got.header.Get("Cache-Control"), "max-age=") {
		t.Fatalf("photo served %d bytes, %v", len(got.body), got.header)
	}
	e.do(call{method: "GET", path: public, header: map[string]string{"If-None-Match": `"` + set.Photo + `"`}}).expect(t, 304)
	e.do(call{method: "GET", path: public, header: map[string]string{"If-None-Match": `"stale"`}}).expect(t, 200)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors/%d", f.doctor.ID)}).expect(t, 200).decode(t, &d)
	if d.Photo != set.Photo {
		t.Fatalf("doctor's photo tag %q, want %q", d.Photo, set.Photo)
	}
	var audit struct{ Items []struct{ Action string } }
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/audit?entity=doctor&id=%d", f.doctor.ID), token: e.admin}).
		expect(t, 200).decode(t, &audit)
	if len(audit.Items) < 2 || audit.Items[0].Action != "photo" || audit.Items[1].Action != "profile" {
		t.Fatalf("audit %+v", audit.Items)
	}
}

// TestSearch: the start of a name finds services, departments and
// doctors, paged; a missing or too long q is a 400.
func TestSearch(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	var page struct {
		Items []booking.SearchHit
		Next  *string
	}
	e.do(call{method: "GET", path: "/api/search?q=" + url.QueryEscape(f.doctor.Name[:4]) + "&limit=1"}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Kind != booking.HitDoctor || page.Items[0].ID != f.doctor.ID || page.Next == nil {
		t.Fatalf("first page %+v", page)
	}
	e.do(call{method: "GET", path: "/api/search?q=" + url.QueryEscape(f.doctor.Name[:4]) + "&limit=1&cursor=" + *page.Next}).
		expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != f.doctor2.ID {
		t.Fatalf("second page %+v", page)
	}
	e.do(call{method: "GET", path: "/api/search?q=" + url.QueryEscape(strings.ToLower(f.dept.Name))}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Kind != booking.HitDepartment {
		t.Fatalf("department %+v", page)
	}
	e.do(call{method: "GET", path: "/api/search?q=zzz"}).expect(t, 200).decode(t, &page)
	if page.Items == nil || len(page.Items) != 0 {
		t.Fatalf("nothing found is an empty list: %+v", page)
	}
	e.do(call{method: "GET", path: "/api/search", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/search?q=%25%25"}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/search?q=" + strings.Repeat("x", booking.MaxSearchText+1), invalid: true}).
		expect(t, 400, booking.CodeInvalidRequest)
}
