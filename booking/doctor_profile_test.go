package booking

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func encoded(t *testing.T, w, h int, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCheckPhoto(t *testing.T) {
	pngOf := func(w, h int) []byte {
		return encoded(t, w, h, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	}
	jpegOf := encoded(t, 16, 16, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	for _, c := range []struct {
		name string
		data []byte
		ct   string // "" when refused
	}{
		{"png", pngOf(8, 8), "image/png"},
		{"jpeg", jpegOf, "image/jpeg"},
		{"empty", nil, ""},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), ""},
		{"truncated png", pngOf(8, 8)[:40], ""},
		{"jpeg magic, garbage after", append([]byte("\xff\xd8\xff\xe0"), bytes.Repeat([]byte{7}, 100)...), ""},
		{"too wide", pngOf(MaxPhotoSide+1, 1), ""},
		{"too big", append(pngOf(1, 1), make([]byte, MaxPhotoBytes)...), ""},
	} {
		p, err := CheckPhoto(3, c.data)
		if c.ct == "" {
			if err == nil || ErrorCode(err) != CodeInvalidRequest {
				t.Errorf("%s: accepted (%v)", c.name, err)
			}
			continue
		}
		if err != nil || p.ContentType != c.ct || p.DoctorID != 3 || len(p.ETag) != 32 {
			t.Errorf("%s: %s %q %v", c.name, p.ContentType, p.ETag, err)
		}
	}
	a, _ := CheckPhoto(1, pngOf(2, 2))
	b, _ := CheckPhoto(1, pngOf(3, 3))
	if a.ETag == b.ETag {
		t.Error("two photos share a tag")
	}
}

func TestProfileUpdateValidate(t *testing.T) {
	s := func(v string) *string { return &v }
	l := func(v ...string) *[]string { return &v }
	ok := ProfileUpdate{Title: s("  Dr "), Specialties: l(" Cardiology ", "Echo"), Bio: s(" Hello "), ConsultingRoom: s(" 诊室 3\t")}
	if err := ok.Validate(); err != nil || *ok.Title != "Dr" || (*ok.Specialties)[0] != "Cardiology" || *ok.Bio != "Hello" || *ok.ConsultingRoom != "诊室 3" {
		t.Fatalf("trimmed %+v, %v", ok, err)
	}
	for _, room := range []string{"", "   ", strings.Repeat("诊", MaxConsultingRoom)} {
		u := ProfileUpdate{ConsultingRoom: s(room)}
		if err := u.Validate(); err != nil || u.Empty() {
			t.Errorf("room %q: %v", room, err)
		}
	}
	for name, u := range map[string]ProfileUpdate{
		"long title":     {Title: s(strings.Repeat("x", MaxDoctorTitle+1))},
		"two-line title": {Title: s("Dr\nX")},
		"too many":       {Languages: l(strings.Split("a b c d e f g h i j k", " ")...)},
		"empty item":     {Languages: l("en", " ")},
		"repeated":       {Specialties: l("Echo", "Echo")},
		"long item":      {Specialties: l(strings.Repeat("é", MaxProfileItem+1))},
		"long bio":       {Bio: s(strings.Repeat("b", MaxDoctorBio+1))},
		"long room":      {ConsultingRoom: s(strings.Repeat("r", MaxConsultingRoom+1))},
		"two-line room":  {ConsultingRoom: s("Room\n3")},
	} {
		if err := u.Validate(); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestNormalizeSearch(t *testing.T) {
	for in, want := range map[string]string{"  dr   mar ": "dr mar", "50%_off": "50off", `a\b`: "ab"} {
		if got, err := NormalizeSearch(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "  ", "%%", strings.Repeat("x", MaxSearchText+1)} {
		if _, err := NormalizeSearch(in); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%q accepted", in)
		}
	}
	h := SearchHit{Kind: HitDoctor, ID: 42}
	if r, id := SearchAfter(h.Position()); r != 2 || id != 42 {
		t.Errorf("position round trip: %d %d", r, id)
	}
}
