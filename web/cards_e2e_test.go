package web

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
)

// TestE2EServicesFirst: at phone width a signed-in patient goes from the
// home page (the clinic's name in the header, the services first) through
// the search box to a service's first free times and books the first
// one, the service chosen on the review; the confirmation has the site's
// address and a map link; the department lists the doctor's card with
// profile, site and next free time. axe finds nothing serious on the way;
// with SLOTD_SCREENSHOTS=1 the pages go to docs/screenshots.
func TestE2EServicesFirst(t *testing.T) {
	axe := axeSource(t)
	b := browser(t)
	s := newSite(t)
	ctx0 := context.Background()
	visit, err := s.svc.CreateService(ctx0, booking.Service{Name: "Heart check-up", Minutes: 30, Level: booking.LevelSpecialist,
		DoctorIDs: []int64{s.doctor.ID}, Active: true, Notes: "Bring your last ECG if you have one."})
	must(t, err)
	title, bio := "Prof.", "Fifteen years of cardiology in Lyon; takes time to explain every result."
	specs, langs := []string{"Cardiology", "Echocardiography"}, []string{"Français", "English"}
	_, err = s.svc.UpdateDoctor(ctx0, s.doctor.ID, booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{
		Title: &title, Specialties: &specs, Languages: &langs, Bio: &bio}})
	must(t, err)
	m := image.NewRGBA(image.Rect(0, 0, 96, 96))
	for i := range m.Pix {
		m.Pix[i] = []uint8{0x3d, 0x8b, 0x6d, 0xff}[i%4]
	}
	m.Set(48, 48, color.White)
	var photo bytes.Buffer
	must(t, png.Encode(&photo, m))
	_, err = s.svc.SetDoctorPhoto(ctx0, s.doctor.ID, "image/png", photo.Bytes())
	must(t, err)
	sites, err := s.store.ListSites(ctx0, booking.Page{Limit: 1})
	must(t, err)
	name, addr := "Clinique Lumière", "12 Rue de la Santé, 75013 Paris"
	_, err = s.svc.UpdateSite(ctx0, sites[0].ID, booking.SiteUpdate{Name: &name, Address: &addr,
		Position: &booking.Position{Lat: 48.8352, Lon: 2.3422}})
	must(t, err)
	s.pages.catalog = catalogCache{} // the site was renamed after the fixture's first page

	ctx := tabFor(t, b, 3*time.Minute)
	s.signIn(t, ctx, s.patients[0], "/", false)
	check := func(shot string) {
		t.Helper()
		do(t, ctx, chromedp.EmulateViewport(390, 844))
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true"))
		must(t, err)
		for _, v := range runAxe(t, ctx) {
			t.Errorf("%s at 390px: %s %s: %s %+v", shot, v.Impact, v.ID, v.Help, v.Nodes)
		}
		phoneShot(t, ctx, shot)
	}

	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS("#q")))
	if got := text(t, ctx, ".brand"); !strings.HasPrefix(got, name) {
		t.Fatalf("the header names %q, want the clinic %q", got, name)
	}
	if got := text(t, ctx, "#svcs + ul li"); !strings.Contains(got, visit.Name) {
		t.Fatalf("the home page's first service reads %q", got)
	}
	check("home-services-phone")

	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#q"), "heart"),
		chromedp.Click(chromedp.CSS(`form[role=search] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#r-svcs")),
	)
	check("search-phone")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/first-available?service=%d"]`, visit.ID))),
		chromedp.WaitVisible(chromedp.CSS(".places")),
	)
	if got := text(t, ctx, ".place .who"); !strings.Contains(got, title+" "+s.doctor.Name) || !strings.Contains(got, name) {
		t.Fatalf("the first place names %q", got)
	}
	check("first-available-phone")

	do(t, ctx,
		chromedp.Click(chromedp.CSS(".place a.button")),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#review[data-review="%d"]`, s.slots[1].ID))),
	)
	chosen, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector("#svc%d").checked`, visit.ID)))
	must(t, err)
	if !chosen {
		t.Fatal("the review did not keep the service the first-available page chose")
	}
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#review button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".ticket")),
	)
	if got := text(t, ctx, ".ticket"); !strings.Contains(got, addr) {
		t.Fatalf("the confirmation does not give the site's address: %q", got)
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.ticket a[href*="openstreetmap.org"]').href`))
	if err != nil || !strings.Contains(href, "mlat=48.83520") {
		t.Fatalf("the confirmation's map link %q (%v)", href, err)
	}
	check("confirmation-site-phone")
	as, err := s.svc.Appointments(ctx0, s.patients[0].ID, "", booking.Page{})
	must(t, err)
	if len(as) != 1 || as[0].SlotID != s.slots[1].ID || as[0].ServiceID != visit.ID {
		t.Fatalf("booked %+v", as)
	}

	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/departments/%d", s.url, s.dept.ID)), chromedp.WaitVisible(chromedp.CSS(".doctor-card")))
	card := text(t, ctx, ".doctor-card")
	for _, want := range []string{title + " " + s.doctor.Name, "Cardiology, Echocardiography", "Français, English", name} {
		if !strings.Contains(card, want) {
			t.Errorf("the doctor's card lacks %q: %q", want, card)
		}
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const i = document.querySelector(".doctor-card img"); return !!i && i.complete && i.naturalWidth === 96 })()`))
	must(t, err)
	if !loaded {
		t.Error("the doctor's card shows no photo")
	}
	check("doctor-card-phone")
}
