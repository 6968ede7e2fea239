package storetest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
)

// pngOf encodes a w×h PNG: a photo CheckPhoto accepts.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	must(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))))
	return b.Bytes()
}

// testProfiles: a doctor's profile is written with its other fields in
// one audited change, read back by every doctor read, and left alone by a
// change of something else; a photo is set, replaced and read, tagged on
// the doctor; an unknown doctor is not found.
func testProfiles(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	if d, err := s.GetDoctor(f.ctx, f.doctor.ID); err != nil || d.Title != "" || len(d.Specialties) != 0 || d.Photo != "" {
		t.Fatalf("a new doctor's profile: %+v, %v", d.Profile, err)
	}
	title, bio := "Dr", "Twenty years of cardiology."
	specs, langs := []string{"Cardiology", "Echography"}, []string{"Français", "Tiếng Việt"}
	u := booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{Title: &title, Specialties: &specs, Languages: &langs, Bio: &bio}}
	d, err := s.UpdateDoctor(f.ctx, f.doctor.ID, u)
	must(t, err)
	want := booking.Profile{Title: title, Specialties: specs, Languages: langs, Bio: bio}
	same := func(p booking.Profile) bool {
		return p.Title == want.Title && p.Bio == want.Bio && slices.Equal(p.Specialties, want.Specialties) &&
			slices.Equal(p.Languages, want.Languages)
	}
	if !same(d.Profile) {
		t.Fatalf("updated profile %+v, want %+v", d.Profile, want)
	}
	name := "Dr. Martin-Curie"
	d, err = s.UpdateDoctor(f.ctx, f.doctor.ID, booking.DoctorUpdate{Name: &name})
	must(t, err)
	listed, err := s.ListDoctors(f.ctx, f.dept.ID, booking.Page{})
	must(t, err)
	if !same(d.Profile) || len(listed) != 2 || !same(listed[0].Profile) || d.Name != name {
		t.Fatalf("a rename kept the profile %+v; listed %+v", d.Profile, listed)
	}
	audit, err := s.ListAudit(f.ctx, booking.AuditFilter{Entity: booking.EntityDoctor, EntityID: f.doctor.ID, Limit: 10})
	must(t, err)
	profiles := 0
	for _, e := range audit {
		if e.Action == "profile" {
			profiles++
			var after struct{ Changed []string }
			must(t, json.Unmarshal([]byte(e.After), &after))
			if !slices.Equal(after.Changed, []string{"title", "specialties", "languages", "bio"}) {
				t.Fatalf("profile audit after %s", e.After)
			}
		}
	}
	if profiles != 1 {
		t.Fatalf("%d profile entries, want 1 (the rename changed no profile field): %+v", profiles, audit)
	}

	_, err = s.GetPhoto(f.ctx, f.doctor.ID)
	wantCode(t, err, booking.CodeNotFound)
	first, err := booking.CheckPhoto(f.doctor.ID, pngOf(t, 4, 4))
	must(t, err)
	must(t, s.SetPhoto(f.ctx, first))
	second, err := booking.CheckPhoto(f.doctor.ID, pngOf(t, 8, 8))
	must(t, err)
	must(t, s.SetPhoto(f.ctx, second))
	got, err := s.GetPhoto(f.ctx, f.doctor.ID)
	must(t, err)
	if got.ContentType != "image/png" || !bytes.Equal(got.Data, second.Data) || got.ETag != second.ETag || got.UpdatedAt.IsZero() {
		t.Fatalf("photo read back %s %s %d bytes, want the second", got.ContentType, got.ETag, len(got.Data))
	}
	if d, err = s.GetDoctor(f.ctx, f.doctor.ID); err != nil || d.Photo != second.ETag {
		t.Fatalf("doctor's photo tag %q, want %q (%v)", d.Photo, second.ETag, err)
	}
	if _, err := s.GetPhoto(f.ctx, f.doctor2.ID); err == nil {
		t.Fatal("the other doctor has no photo")
	}
	missing := second
	missing.DoctorID = 999999
	wantCode(t, s.SetPhoto(f.ctx, missing), booking.CodeNotFound)
	_, err = s.UpdateDoctor(f.ctx, 999999, u)
	wantCode(t, err, booking.CodeNotFound)
	audit, err = s.ListAudit(f.ctx, booking.AuditFilter{Entity: booking.EntityDoctor, EntityID: f.doctor.ID, Limit: 10})
	must(t, err)
	var before struct{ Photo string }
	must(t, json.Unmarshal([]byte(audit[0].Before), &before))
	if audit[0].Action != "photo" || before.Photo != first.ETag {
		t.Fatalf("latest doctor audit %+v, want the photo's replacement", audit[0])
	}
}

// testConsultingRoom: a doctor's consulting room is stored with the
// profile, bounded in characters (not bytes) by the store itself, audited
// as a profile change, and cleared by "".
func testConsultingRoom(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	if d, err := s.GetDoctor(f.ctx, f.doctor.ID); err != nil || d.ConsultingRoom != "" {
		t.Fatalf("a new doctor's room %q, %v", d.ConsultingRoom, err)
	}
	set := func(room string) (booking.Doctor, error) {
		return s.UpdateDoctor(f.ctx, f.doctor.ID, booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{ConsultingRoom: &room}})
	}
	full := strings.Repeat("诊", booking.MaxConsultingRoom) // 120 bytes, 40 characters
	for _, room := range []string{"Room 3", full} {
		d, err := set(room)
		must(t, err)
		listed, err := s.ListDoctors(f.ctx, f.dept.ID, booking.Page{})
		must(t, err)
		if d.ConsultingRoom != room || listed[0].ID != f.doctor.ID || listed[0].ConsultingRoom != room || listed[1].ConsultingRoom != "" {
			t.Fatalf("room %q: updated %q, listed %+v", room, d.ConsultingRoom, listed)
		}
	}
	_, err := set(full + "3")
	wantCode(t, err, booking.CodeInvalidRequest)
	if d, err := s.GetDoctor(f.ctx, f.doctor.ID); err != nil || d.ConsultingRoom != full {
		t.Fatalf("a refused room changed it to %q (%v)", d.ConsultingRoom, err)
	}
	d, err := set("")
	must(t, err)
	if d.ConsultingRoom != "" {
		t.Fatalf("cleared room %q", d.ConsultingRoom)
	}
	audit, err := s.ListAudit(f.ctx, booking.AuditFilter{Entity: booking.EntityDoctor, EntityID: f.doctor.ID, Limit: 10})
	must(t, err)
	rooms := 0
	for _, e := range audit {
		var after struct{ Changed []string }
		must(t, json.Unmarshal([]byte(e.After), &after))
		if e.Action == "profile" && slices.Equal(after.Changed, []string{"consultingRoom"}) {
			rooms++
		}
	}
	if rooms != 3 {
		t.Fatalf("%d consulting room audit entries, want 3 (set, lengthened, cleared; not the refused): %+v", rooms, audit)
	}
}

// testSearch: services, listed departments and active doctors whose name
// starts with the text, ASCII case aside, by kind then id, paged; a
// withdrawn service, a deactivated doctor and a department without
// doctors are not found.
func testSearch(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s) // Cardiology: Dr. Martin, Dr. Nguyen
	card := f.service("Cardiac check-up", 30, f.doctor.ID)
	withdrawn := f.service("Cardio stress test", 30, f.doctor.ID)
	off := false
	_, err := s.UpdateService(f.ctx, withdrawn.ID, booking.ServiceUpdate{Active: &off})
	must(t, err)
	_, err = s.CreateDepartment(f.ctx, booking.Department{Name: "Cardiac surgery"}) // no doctor
	must(t, err)
	_, err = s.UpdateDoctor(f.ctx, f.doctor2.ID, booking.DoctorUpdate{Active: &off})
	must(t, err)

	search := func(text string, p booking.Page) []booking.SearchHit {
		t.Helper()
		hits, err := s.Search(f.ctx, booking.SearchQuery{Prefix: text, Page: p})
		must(t, err)
		return hits
	}
	got := search("CARD", booking.Page{Limit: 10})
	want := []booking.SearchHit{{Kind: booking.HitService, ID: card.ID, Name: card.Name},
		{Kind: booking.HitDepartment, ID: f.dept.ID, Name: f.dept.Name}}
	if !slices.Equal(got, want) {
		t.Fatalf("search CARD: %+v, want %+v", got, want)
	}
	if got := search("dr. m", booking.Page{Limit: 10}); !slices.Equal(got, []booking.SearchHit{{Kind: booking.HitDoctor, ID: f.doctor.ID, Name: f.doctor.Name}}) {
		t.Fatalf("search dr. m: %+v", got)
	}
	first := search("card", booking.Page{Limit: 1})
	rest := search("card", booking.Page{After: first[0].Position(), Limit: 10})
	if !slices.Equal(append(first, rest...), want) {
		t.Fatalf("paged: %+v then %+v", first, rest)
	}
	if got := search("ology", booking.Page{Limit: 10}); len(got) != 0 {
		t.Fatalf("the middle of a name matched: %+v", got)
	}
}
