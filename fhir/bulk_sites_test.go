package fhir

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestBulkPerSite: SMART Scheduling Links per site. The manifest with
// site=<id> names that site's three files, each entry naming its site;
// the files hold exactly that site's Location, schedules and slots (cut
// from the whole files of the same generation, no read of their own);
// each site's ETag moves only with its own changes; _since keeps only the
// site's changed resources; an unknown site is 404.
func TestBulkPerSite(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first := f.dept.SiteID
	saigon, err := f.store.CreateSite(ctx, booking.Site{Name: "Sài Gòn", TimeZone: "Asia/Ho_Chi_Minh", Phone: "+84 28 0000 0000"})
	must(t, err)
	dept, err := f.store.CreateDepartment(ctx, booking.Department{Name: "Nhi khoa", SiteID: saigon.ID})
	must(t, err)
	doc, err := f.store.CreateDoctor(ctx, booking.Doctor{Name: "BS. Trần", DepartmentID: dept.ID, TimeZone: "Asia/Ho_Chi_Minh"})
	must(t, err)
	there := f.slot(doc.ID, time.Date(2026, 12, 3, 9, 0, 0, 0, mustZone(t, "Asia/Ho_Chi_Minh")), 1, start.Add(-time.Hour), booking.SlotOpen)
	empty, err := f.store.CreateSite(ctx, booking.Site{Name: "Empty", TimeZone: "UTC"})
	must(t, err)
	_, err = f.h.bulk.regenerate(ctx)
	must(t, err)

	// The whole manifest keeps its three files, naming no site.
	for _, o := range f.manifest("").Output {
		if o.Extension != nil || strings.Contains(o.URL, "/sites/") {
			t.Fatalf("the whole manifest lists %+v", o)
		}
	}

	reads := f.store.listSlots.Load()
	ms := f.manifest("?site=" + id(saigon.ID))
	for i, kind := range bulkTypes {
		o := ms.Output[i]
		if o.Type != kind || o.URL != "https://clinic.test/fhir/bulk/sites/"+id(saigon.ID)+"/"+kind+".ndjson" ||
			o.Extension["site"] != "Location/"+siteID(saigon.ID) {
			t.Fatalf("the site's manifest entry %d: %+v", i, o)
		}
	}
	if m := f.manifest("?site=" + siteID(saigon.ID)); m.Output[2].URL != ms.Output[2].URL {
		t.Fatalf("site=site-<id> names the same files: %+v", m.Output)
	}
	locs := ndjson[Location](t, f.file(ms, "Location"))
	scheds := ndjson[Schedule](t, f.file(ms, "Schedule"))
	slots := ndjson[Slot](t, f.file(ms, "Slot"))
	if len(locs) != 1 || locs[0].ID != siteID(saigon.ID) || len(scheds) != 1 || scheds[0].ID != id(doc.ID) ||
		len(slots) != 1 || slots[0].ID != id(there.ID) {
		t.Fatalf("Saigon's files: %+v %+v %+v", locs, scheds, slots)
	}

	mf := f.manifest("?site=" + id(first))
	locs = ndjson[Location](t, f.file(mf, "Location"))
	scheds = ndjson[Schedule](t, f.file(mf, "Schedule"))
	slots = ndjson[Slot](t, f.file(mf, "Slot"))
	if len(locs) != 1 || locs[0].ID != siteID(first) || len(scheds) != 2 || len(slots) != 6 {
		t.Fatalf("the first site's files: %d locations, %d schedules, %d slots; want 1, the 2 doctors, their 6 slots", len(locs), len(scheds), len(slots))
	}
	for _, s := range slots {
		if s.Schedule.Reference != "Schedule/"+id(f.doc.ID) && s.Schedule.Reference != "Schedule/"+id(f.doc2.ID) {
			t.Fatalf("a slot of another site in the first site's file: %+v", s)
		}
	}
	me := f.manifest("?site=" + id(empty.ID))
	if n := len(ndjson[Location](t, f.file(me, "Location"))); n != 1 || len(f.file(me, "Schedule")) != 0 || len(f.file(me, "Slot")) != 0 {
		t.Fatalf("a site without doctors: %d locations and its Schedule and Slot files not empty", n)
	}
	// Every line of the whole Slot file is in exactly one site's file.
	whole := f.get("/fhir/bulk/Slot.ndjson", "").body
	var parts []byte
	for _, site := range []int64{first, saigon.ID, empty.ID} {
		parts = append(parts, f.get("/fhir/bulk/sites/"+id(site)+"/Slot.ndjson", "").body...)
	}
	if string(parts) != string(whole) {
		t.Fatalf("the sites' Slot files are not the whole file:\n%s\n---\n%s", parts, whole)
	}
	if got := f.store.listSlots.Load(); got != reads {
		t.Fatalf("%d slot reads while serving the sites' files", got-reads)
	}

	// ETag and 304, per site.
	saigonTag := f.get("/fhir/bulk/sites/"+id(saigon.ID)+"/Slot.ndjson", "").header.Get("ETag")
	firstTag := f.get("/fhir/bulk/sites/"+id(first)+"/Slot.ndjson", "").header.Get("ETag")
	if saigonTag == "" || saigonTag == firstTag || saigonTag == f.get("/fhir/bulk/sites/"+id(saigon.ID)+"/Schedule.ndjson", "").header.Get("ETag") {
		t.Fatalf("ETags: Saigon %s, the first site %s", saigonTag, firstTag)
	}
	if st := f.conditional("/fhir/bulk/sites/"+id(saigon.ID)+"/Slot.ndjson", saigonTag); st != http.StatusNotModified {
		t.Fatalf("If-None-Match on a site's file: %d, want 304", st)
	}

	// A booking at the first site: its files change, Saigon's keep their
	// ETag; _since keeps the one booked slot at the first site, none at
	// Saigon.
	f.advance(2 * time.Second)
	must(t, f.svc.Book(ctx, f.p1.ID, f.open.ID, "b1").Err)
	_, err = f.h.bulk.regenerate(ctx)
	must(t, err)
	if st := f.conditional("/fhir/bulk/sites/"+id(saigon.ID)+"/Slot.ndjson", saigonTag); st != http.StatusNotModified {
		t.Fatalf("Saigon's file after a booking elsewhere: %d, want 304", st)
	}
	if st := f.conditional("/fhir/bulk/sites/"+id(first)+"/Slot.ndjson", firstTag); st != http.StatusOK {
		t.Fatalf("the first site's file after its booking: %d, want 200", st)
	}
	changed := ndjson[Slot](t, f.file(f.manifest("?site="+id(first)+"&_since="+mf.TransactionTime), "Slot"))
	if len(changed) != 1 || changed[0].ID != id(f.open.ID) {
		t.Fatalf("the first site's slots since %s: %+v", mf.TransactionTime, changed)
	}
	m2 := f.manifest("?site=" + id(saigon.ID) + "&_since=" + mf.TransactionTime)
	if !strings.HasSuffix(m2.Output[2].URL, "?_since="+strings.ReplaceAll(mf.TransactionTime, ":", "%3A")) {
		t.Fatalf("the site's output URLs must carry _since: %+v", m2.Output)
	}
	if n := len(f.file(m2, "Slot")); n != 0 {
		t.Fatalf("Saigon's slots since the booking elsewhere: %d bytes, want none", n)
	}

	for _, p := range []string{"/fhir/bulk/sites/999999/Slot.ndjson", "/fhir/bulk/sites/x/Slot.ndjson",
		"/fhir/bulk/sites/0/Slot.ndjson", "/fhir/$bulk-publish?site=999999", "/fhir/bulk/sites/" + id(saigon.ID) + "/Patient.ndjson"} {
		expectOutcome(t, f.get(p, ""), 404, booking.CodeNotFound)
	}
	expectOutcome(t, f.get("/fhir/$bulk-publish?site=Saigon", ""), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/bulk/sites/"+id(saigon.ID)+"/Slot.ndjson?_since=yesterday", ""), 400, booking.CodeInvalidRequest)
}

// conditional GETs path with If-None-Match and answers the status.
func (f *fixture) conditional(path, etag string) int {
	f.t.Helper()
	req, err := http.NewRequest("GET", f.srv.URL+path, nil)
	must(f.t, err)
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	must(f.t, err)
	resp.Body.Close()
	return resp.StatusCode
}
