package fhir

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"

	"github.com/slotd/slotd/booking"
)

// A Practitioner carries the doctor's profile: the title and specialties
// as qualifications, the languages as communication and the photo as the
// URL of GET /api/doctors/{id}/photo; a doctor without one has none of
// them. Every answer passes the R4 validation of fixture.call.
func TestPractitionerCarriesTheProfile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	title, specialties, languages := "Professor of cardiology", []string{"Heart failure", "Echocardiography"}, []string{"Français", "Tiếng Việt"}
	u := booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{Title: &title, Specialties: &specialties, Languages: &languages}}
	must(t, u.Validate())
	_, err := f.store.UpdateDoctor(ctx, f.doc.ID, u)
	must(t, err)
	var img bytes.Buffer
	must(t, png.Encode(&img, image.NewGray(image.Rect(0, 0, 2, 2))))
	ph, err := booking.CheckPhoto(f.doc.ID, img.Bytes())
	must(t, err)
	must(t, f.store.SetPhoto(ctx, ph))

	p := decode[Practitioner](t, f.get("/fhir/Practitioner/"+id(f.doc.ID), ""))
	var quals []string
	for _, q := range p.Qualification {
		quals = append(quals, q.Code.Text)
	}
	if len(quals) != 3 || quals[0] != title || quals[1] != specialties[0] || quals[2] != specialties[1] {
		t.Fatalf("qualifications %q", quals)
	}
	if len(p.Communication) != 2 || p.Communication[0].Text != "Français" || p.Communication[1].Text != "Tiếng Việt" {
		t.Fatalf("communication %+v", p.Communication)
	}
	if want := "https://clinic.test/api/doctors/" + id(f.doc.ID) + "/photo"; len(p.Photo) != 1 || p.Photo[0].URL != want {
		t.Fatalf("photo %+v, want %s", p.Photo, want)
	}
	// The search answers the same resource; the other doctor has no profile.
	pr := entries[Practitioner](t, f.get("/fhir/Practitioner", ""))
	if len(pr) != 2 || len(pr[0].Qualification) != 3 || len(pr[0].Photo) != 1 {
		t.Fatalf("search: %+v", pr)
	}
	if o := pr[1]; o.Qualification != nil || o.Communication != nil || o.Photo != nil {
		t.Fatalf("a doctor without a profile: %+v", o)
	}
}
