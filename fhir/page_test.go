package fhir

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// pageOf decodes one page of a searchset: its entries' ids, its links and
// whether it states a total.
type pageAnswer struct {
	ids      []string
	self     string
	next     string
	hasTotal bool
}

func decodePage(t *testing.T, a answer) pageAnswer {
	t.Helper()
	if a.status != 200 {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	var b struct {
		ResourceType string       `json:"resourceType"`
		Total        *int         `json:"total"`
		Link         []BundleLink `json:"link"`
		Entry        []struct {
			Resource struct {
				ID string `json:"id"`
			} `json:"resource"`
		} `json:"entry"`
	}
	must(t, json.Unmarshal(a.body, &b))
	var p pageAnswer
	p.hasTotal = b.Total != nil
	for _, l := range b.Link {
		switch l.Relation {
		case "self":
			p.self = l.URL
		case "next":
			p.next = l.URL
		}
	}
	for _, e := range b.Entry {
		p.ids = append(p.ids, e.Resource.ID)
	}
	if p.self == "" {
		t.Fatalf("no self link: %s", a.body)
	}
	return p
}

// follow pages a search to its end through the next links, checking each
// page's bound, and returns every id in order.
func (f *fixture) follow(t *testing.T, path string, count int) ([]string, int) {
	t.Helper()
	var all []string
	pages := 0
	for path != "" {
		pages++
		if pages > 1000 {
			t.Fatalf("paging does not end")
		}
		p := decodePage(t, f.get(path, ""))
		if len(p.ids) > count {
			t.Fatalf("a page of %d entries, _count %d", len(p.ids), count)
		}
		if p.next != "" && (p.hasTotal || len(p.ids) != count) {
			t.Fatalf("a page with a next link holds %d of %d entries, total given %v", len(p.ids), count, p.hasTotal)
		}
		all = append(all, p.ids...)
		path = strings.TrimPrefix(p.next, "https://clinic.test")
	}
	return all, pages
}

func noDuplicates(t *testing.T, ids []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, x := range ids {
		if seen[x] {
			t.Fatalf("%s listed twice in %v", x, ids)
		}
		seen[x] = true
	}
}

// TestSearchesArePaged: with _count 1 every search answers one entry and a
// next link, and following the links lists exactly the unpaged answer.
func TestSearchesArePaged(t *testing.T) {
	f := newFixture(t)
	sched := "Schedule/" + id(f.doc.ID) + ",Schedule/" + id(f.doc2.ID)
	for _, path := range []string{
		"/fhir/Slot?schedule=" + sched + "&start=ge2026-12-01&start=lt2026-12-10",
		"/fhir/Slot?schedule=" + sched + "&start=ge2026-12-01&start=lt2026-12-10&status=free",
		"/fhir/Appointment/$find?start=2026-12-01&end=2026-12-07",
		"/fhir/Practitioner",
		"/fhir/Location",
		"/fhir/Schedule",
	} {
		whole := decodePage(t, f.get(path, ""))
		if whole.next != "" || !whole.hasTotal || len(whole.ids) < 2 {
			t.Fatalf("%s unpaged: %+v", path, whole)
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		got, pages := f.follow(t, path+sep+"_count=1", 1)
		if strings.Join(got, ",") != strings.Join(whole.ids, ",") || pages != len(whole.ids) {
			t.Fatalf("%s paged by one: %v in %d pages, want %v", path, got, pages, whole.ids)
		}
	}
	// Appointments too, under the patient's token.
	must(t, f.svc.Book(context.Background(), f.p1.ID, f.open.ID, "a").Err)
	later, err := f.store.CreateSlot(context.Background(), booking.Slot{DoctorID: f.doc2.ID, StartAt: time.Date(2026, 12, 4, 9, 0, 0, 0, f.paris),
		EndAt: time.Date(2026, 12, 4, 9, 30, 0, 0, f.paris), Capacity: 1, OpensAt: start.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	must(t, f.svc.Book(context.Background(), f.p1.ID, later.ID, "b").Err)
	tok := f.patientToken(f.p1)
	first := decodePage(t, f.get("/fhir/Appointment?_count=1", tok))
	if len(first.ids) != 1 || first.next == "" {
		t.Fatalf("appointments page 1: %+v", first)
	}
	second := decodePage(t, f.get(strings.TrimPrefix(first.next, "https://clinic.test"), tok))
	if len(second.ids) != 1 || second.next != "" || second.ids[0] == first.ids[0] {
		t.Fatalf("appointments page 2: %+v after %+v", second, first)
	}
}

// TestSlotPagesBoundedAndStable: the default page is DefaultCount, a
// larger _count is clamped to MaxCount, a page reads one bounded store
// page, and slots created while a client pages neither shift the pages
// nor come twice.
func TestSlotPagesBoundedAndStable(t *testing.T) {
	f := newFixture(t)
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, f.paris)
	var batch []booking.Slot
	for i := range 250 {
		at := day.Add(time.Duration(i) * 40 * time.Minute)
		batch = append(batch, booking.Slot{DoctorID: f.doc2.ID, StartAt: at, EndAt: at.Add(5 * time.Minute), Capacity: 1,
			OpensAt: start.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	}
	n, err := f.store.InsertSlots(context.Background(), batch)
	must(t, err)
	if n != 250 {
		t.Fatalf("inserted %d", n)
	}
	path := "/fhir/Slot?schedule=Schedule/" + id(f.doc2.ID) + "&start=ge2026-12-05&start=lt2026-12-20"
	before := f.store.listSlots.Load()
	p := decodePage(t, f.get(path, ""))
	if len(p.ids) != DefaultCount || p.next == "" || p.hasTotal {
		t.Fatalf("default page: %d entries, next %q, total %v", len(p.ids), p.next, p.hasTotal)
	}
	if reads := f.store.listSlots.Load() - before; reads != 1 {
		t.Fatalf("one page cost %d store reads, want 1", reads)
	}
	p = decodePage(t, f.get(path+"&_count=100000", ""))
	if len(p.ids) != MaxCount || !strings.Contains(p.next, "_count="+strconv.Itoa(MaxCount)) {
		t.Fatalf("_count beyond the maximum: %d entries, next %q", len(p.ids), p.next)
	}
	all, _ := f.follow(t, path+"&_count="+strconv.Itoa(MaxCount), MaxCount)
	if len(all) != 250 {
		t.Fatalf("paged %d slots, want 250", len(all))
	}
	noDuplicates(t, all)

	// Stable under inserts: page 1, then a slot before the cursor and one
	// after it; the rest lists the later one and nothing twice.
	first := decodePage(t, f.get(path+"&_count=100", ""))
	behind := f.slot(f.doc2.ID, day.Add(5*time.Minute), 1, start.Add(-time.Hour), booking.SlotOpen)
	ahead := f.slot(f.doc2.ID, day.Add(249*40*time.Minute+5*time.Minute), 1, start.Add(-time.Hour), booking.SlotOpen)
	rest, _ := f.follow(t, strings.TrimPrefix(first.next, "https://clinic.test"), 100)
	got := append(first.ids, rest...)
	noDuplicates(t, got)
	if len(got) != 251 || !contains(rest, id(ahead.ID)) || contains(got, id(behind.ID)) {
		t.Fatalf("after inserts: %d slots, ahead listed %v, behind listed %v", len(got), contains(rest, id(ahead.ID)), contains(got, id(behind.ID)))
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestPagingRefusesBadInput: a _count that is not a positive number and a
// cursor this server did not write are 400, before any slot is read.
func TestPagingRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	path := "/fhir/Slot?schedule=Schedule/" + id(f.doc.ID) + "&start=2026-12-02"
	before := f.store.listSlots.Load()
	for _, bad := range []string{"_count=0", "_count=-1", "_count=ten", "_cursor=x", "_cursor=" + url.QueryEscape("!!"), "_cursor=MS4y"} {
		expectOutcome(t, f.get(path+"&"+bad, ""), 400, booking.CodeInvalidRequest)
		expectOutcome(t, f.get("/fhir/Practitioner?"+bad, ""), 400, booking.CodeInvalidRequest)
	}
	if n := f.store.listSlots.Load() - before; n != 0 {
		t.Fatalf("%d slot reads for refused pages", n)
	}
}

// TestFindPostNextIsAGet: a POSTed $find's next link repeats its
// parameters as a GET, which answers the next page.
func TestFindPostNextIsAGet(t *testing.T) {
	f := newFixture(t)
	body := `{"resourceType":"Parameters","parameter":[{"name":"start","valueDate":"2026-12-01"},{"name":"end","valueDate":"2026-12-07"},{"name":"_count","valueString":"1"}]}`
	p := decodePage(t, f.call(call{method: "POST", path: "/fhir/Appointment/$find", body: body}))
	if len(p.ids) != 1 || p.next == "" {
		t.Fatalf("POST $find page 1: %+v", p)
	}
	q := decodePage(t, f.get(strings.TrimPrefix(p.next, "https://clinic.test"), ""))
	if len(q.ids) != 1 || q.ids[0] == p.ids[0] {
		t.Fatalf("POST $find page 2: %+v", q)
	}
}
