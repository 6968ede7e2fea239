package fhir

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/fhir/go/fhirversion"
	"github.com/google/fhir/go/jsonformat"
	bcrpb "github.com/google/fhir/go/proto/google/fhir/proto/r4/core/resources/bundle_and_contained_resource_go_proto"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// unmarshaller is google/fhir's R4 JSON parser with validation: it refuses
// unknown fields, missing required ones, codes outside their value set and
// malformed references, dates and ids. Every FHIR answer of the tests goes
// through it (fixture.call), not only hand-written assertions.
var unmarshaller = func() *jsonformat.Unmarshaller {
	u, err := jsonformat.NewUnmarshaller("UTC", fhirversion.R4)
	if err != nil {
		panic(err)
	}
	return u
}()

func validR4(t testing.TB, body []byte) *bcrpb.ContainedResource {
	t.Helper()
	m, err := unmarshaller.Unmarshal(body)
	if err != nil {
		t.Fatalf("not a valid FHIR R4 resource: %v\n%s", err, body)
	}
	cr, ok := m.(*bcrpb.ContainedResource)
	if !ok {
		t.Fatalf("parsed as %T", m)
	}
	return cr
}

// countingStore counts the slot reads, to show what the bulk files cost.
type countingStore struct {
	booking.Store
	listSlots atomic.Int64
}

func (c *countingStore) ListSlots(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Slot, error) {
	c.listSlots.Add(1)
	return c.Store.ListSlots(ctx, doctorID, from, to)
}

func (c *countingStore) ListSlotsPage(ctx context.Context, p booking.SlotPage) ([]booking.Slot, error) {
	c.listSlots.Add(1)
	return c.Store.ListSlotsPage(ctx, p)
}

type fixture struct {
	t      testing.TB
	store  *countingStore
	svc    *service.Service
	signer *auth.Signer
	h      *Handler
	srv    *httptest.Server
	clock  atomic.Int64 // unix nanoseconds
	dept   booking.Department
	doc    booking.Doctor
	doc2   booking.Doctor
	room   booking.Room
	p1, p2 booking.Patient
	// Slots of doctor 1 on 2026-12-02 (Europe/Paris).
	open, full, closed, later booking.Slot
	paris                     *time.Location
}

var start = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	must(t, st.Migrate(ctx))
	f := &fixture{t: t, store: &countingStore{Store: st}}
	f.clock.Store(start.UnixNano())
	f.paris, _ = time.LoadLocation("Europe/Paris")
	f.signer, err = auth.NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	must(t, err)
	// A budget the tests' many attempts stay within; TestBookSpendsTheSharedBudget spends it.
	f.svc = service.NewService(f.store, service.Options{Now: f.now, BookingRate: fixtureBookingRate})
	f.dept, err = st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	dept2, err := st.CreateDepartment(ctx, booking.Department{Name: "Dermatology"})
	must(t, err)
	f.doc, err = st.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Martin", DepartmentID: f.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	f.doc2, err = st.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Nguyen", DepartmentID: dept2.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	f.room, err = st.CreateRoom(ctx, booking.Room{Name: "A-101", TimeZone: "Europe/Paris", Building: "A", Floor: 1, Beds: 2})
	must(t, err)
	f.p1, err = st.CreatePatient(ctx, booking.Patient{Name: "Anh", Phone: "+33600000001"})
	must(t, err)
	f.p2, err = st.CreatePatient(ctx, booking.Patient{Name: "Bo", Phone: "+33600000002"})
	must(t, err)
	at := func(h int) time.Time { return time.Date(2026, 12, 2, h, 0, 0, 0, f.paris) }
	f.open = f.slot(f.doc.ID, at(8), 2, start.Add(-time.Hour), booking.SlotOpen)
	f.full = f.slot(f.doc.ID, at(9), 1, start.Add(-time.Hour), booking.SlotOpen)
	f.closed = f.slot(f.doc.ID, at(10), 1, start.Add(-time.Hour), booking.SlotClosed)
	f.later = f.slot(f.doc.ID, at(11), 1, start.Add(time.Hour), booking.SlotOpen)
	f.slot(f.doc2.ID, at(8), 3, start.Add(-time.Hour), booking.SlotOpen)
	f.slot(f.doc.ID, time.Date(2026, 12, 3, 8, 0, 0, 0, f.paris), 1, start.Add(-time.Hour), booking.SlotOpen)
	must(t, f.svc.Book(ctx, f.p2.ID, f.full.ID, "fill").Err)

	// As slotd serve does: the settings fill the first site.
	_, err = st.FillFirstSite(ctx, booking.Site{Name: "Clinique du Parc", Phone: "+33 1 23 45 67 89",
		Address: "1 rue du Parc, Paris", TimeZone: "Europe/Paris"})
	must(t, err)
	f.h = New(Config{Service: f.svc, Signer: f.signer, PublicURL: "https://clinic.test",
		Clinic: Clinic{Name: "Clinique du Parc", Phone: "+33 1 23 45 67 89", Address: "1 rue du Parc, Paris"},
		Zone:   f.paris})
	f.srv = httptest.NewServer(f.h)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) now() time.Time { return time.Unix(0, f.clock.Load()).UTC() }

func (f *fixture) advance(d time.Duration) { f.clock.Add(int64(d)) }

func (f *fixture) slot(resource int64, at time.Time, capacity int, opens time.Time, status string) booking.Slot {
	f.t.Helper()
	s, err := f.store.CreateSlot(context.Background(), booking.Slot{DoctorID: resource, StartAt: at, EndAt: at.Add(30 * time.Minute),
		Capacity: capacity, OpensAt: opens, Status: status, HoldSeconds: 900})
	must(f.t, err)
	return s
}

func (f *fixture) token(role auth.Role, sub string) string {
	tok, err := f.signer.Mint(role, sub, time.Hour)
	must(f.t, err)
	return tok
}

func (f *fixture) patientToken(p booking.Patient) string {
	return f.token(auth.RolePatient, strconv.FormatInt(p.ID, 10))
}

type call struct {
	method, path, token, key, body, contentType string
}

type answer struct {
	status int
	header http.Header
	body   []byte
	res    *bcrpb.ContainedResource
}

// call sends a request and, for every FHIR JSON answer, parses it with
// the validating R4 unmarshaller.
func (f *fixture) call(c call) answer {
	f.t.Helper()
	if c.method == "" {
		c.method = "GET"
	}
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, f.srv.URL+c.path, body)
	must(f.t, err)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.key != "" {
		req.Header.Set("Idempotency-Key", c.key)
	}
	if c.body != "" {
		if c.contentType == "" {
			c.contentType = "application/fhir+json"
		}
		req.Header.Set("Content-Type", c.contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	must(f.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(f.t, err)
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/fhir+json") {
		a.res = validR4(f.t, b)
	}
	return a
}

func (f *fixture) get(path, token string) answer { return f.call(call{path: path, token: token}) }

// entries decodes a Bundle's resources for assertions (already validated).
func entries[T any](t *testing.T, a answer) []T {
	t.Helper()
	var b struct {
		ResourceType string `json:"resourceType"`
		Total        *int   `json:"total"`
		Entry        []struct {
			Resource T `json:"resource"`
		} `json:"entry"`
	}
	must(t, json.Unmarshal(a.body, &b))
	if b.ResourceType != "Bundle" || b.Total == nil || *b.Total != len(b.Entry) {
		t.Fatalf("not a full searchset: %s", a.body)
	}
	out := make([]T, 0, len(b.Entry))
	for _, e := range b.Entry {
		out = append(out, e.Resource)
	}
	return out
}

func ext(exts []Extension, url string) *Extension {
	for i := range exts {
		if exts[i].URL == url {
			return &exts[i]
		}
	}
	return nil
}

// expectOutcome checks an error answer: status, a valid OperationOutcome
// and slotd's problem code.
func expectOutcome(t *testing.T, a answer, status int, code booking.Code) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if a.res == nil || a.res.GetOperationOutcome() == nil {
		t.Fatalf("not an OperationOutcome: %s", a.body)
	}
	if got := a.res.GetOperationOutcome().GetIssue()[0].GetDetails().GetCoding()[0].GetCode().GetValue(); got != string(code) {
		t.Fatalf("problem code %q, want %q", got, code)
	}
}

func TestMetadataAndCatalogAreValidR4(t *testing.T) {
	f := newFixture(t)
	if a := f.get("/fhir/metadata", ""); a.status != 200 || a.res.GetCapabilityStatement() == nil {
		t.Fatalf("metadata: %d %s", a.status, a.body)
	}
	pr := entries[Practitioner](t, f.get("/fhir/Practitioner", ""))
	if len(pr) != 2 || pr[0].Name[0].Text != "Dr. Martin" {
		t.Fatalf("practitioners %+v", pr)
	}
	if a := f.get("/fhir/Practitioner/"+id(f.doc.ID), ""); a.res.GetPractitioner().GetId().GetValue() != id(f.doc.ID) {
		t.Fatalf("practitioner read: %s", a.body)
	}
	locs := entries[Location](t, f.get("/fhir/Location", ""))
	first := siteID(f.dept.SiteID)
	if len(locs) != 2 || locs[0].ID != first || locs[0].Telecom[0].Value != "+33 1 23 45 67 89" || locs[1].ID != id(f.room.ID) {
		t.Fatalf("locations %+v", locs)
	}
	if l := decode[Location](t, f.get("/fhir/Location/"+ClinicID, "")); l.ID != ClinicID || l.Name != "Clinique du Parc" {
		t.Fatalf("the clinic's old id: %+v", l)
	}
	f.get("/fhir/Location/"+id(f.room.ID), "")

	scheds := entries[Schedule](t, f.get("/fhir/Schedule", ""))
	if len(scheds) != 3 {
		t.Fatalf("%d schedules, want one per doctor and room", len(scheds))
	}
	if s := scheds[0]; s.ID != id(f.doc.ID) || s.Actor[0].Reference != "Practitioner/"+id(f.doc.ID) || s.Actor[1].Reference != "Location/"+first {
		t.Fatalf("doctor schedule %+v", s)
	}
	if s := scheds[2]; s.ID != id(f.room.ID) || s.Actor[0].Reference != "Location/"+id(f.room.ID) {
		t.Fatalf("room schedule %+v", s)
	}
	if got := entries[Schedule](t, f.get("/fhir/Schedule?specialty=dermatology", "")); len(got) != 1 || got[0].ID != id(f.doc2.ID) {
		t.Fatalf("by specialty: %+v", got)
	}
	if got := entries[Schedule](t, f.get("/fhir/Schedule?actor=Practitioner/"+id(f.doc.ID), "")); len(got) != 1 || got[0].ID != id(f.doc.ID) {
		t.Fatalf("by actor: %+v", got)
	}
	f.get("/fhir/Schedule/"+id(f.room.ID), "")
	expectOutcome(t, f.get("/fhir/Schedule/999999", ""), 404, booking.CodeNotFound)
	expectOutcome(t, f.get("/fhir/Practitioner/x", ""), 404, booking.CodeNotFound)
	expectOutcome(t, f.get("/fhir/Nothing", ""), 404, booking.CodeNotFound)
}

func TestSlotSearchReflectsTheCounter(t *testing.T) {
	f := newFixture(t)
	a := f.get("/fhir/Slot?schedule=Schedule/"+id(f.doc.ID)+"&start=ge2026-12-02&start=lt2026-12-03", "")
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	slots := entries[Slot](t, a)
	if len(slots) != 4 {
		t.Fatalf("%d slots on 2026-12-02, want 4: %s", len(slots), a.body)
	}
	want := map[string]struct {
		status              string
		capacity, remaining int
	}{
		id(f.open.ID): {"free", 2, 2}, id(f.full.ID): {"busy", 1, 0},
		id(f.closed.ID): {"busy-unavailable", 1, 1}, id(f.later.ID): {"busy-unavailable", 1, 1},
	}
	for _, s := range slots {
		w := want[s.ID]
		if s.Status != w.status || *ext(s.Extension, ExtCapacity).ValueInteger != w.capacity || *ext(s.Extension, ExtRemaining).ValueInteger != w.remaining {
			t.Errorf("slot %s: %s %d/%d, want %+v", s.ID, s.Status, *ext(s.Extension, ExtRemaining).ValueInteger, *ext(s.Extension, ExtCapacity).ValueInteger, w)
		}
		if l := ext(s.Extension, ExtDeepLink); l == nil || l.ValueURL != "https://clinic.test/doctors/"+id(f.doc.ID)+"/days/2026-12-02" {
			t.Errorf("slot %s deep link %+v", s.ID, l)
		}
	}
	// The 8:00 Paris slot is 07:00Z: a dateTime bound is exact.
	if got := entries[Slot](t, f.get("/fhir/Slot?schedule="+id(f.doc.ID)+"&start=gt2026-12-02T07:00:00Z&start=lt2026-12-02T09:00:00Z", "")); len(got) != 1 || got[0].ID != id(f.full.ID) {
		t.Fatalf("dateTime bounds: %+v", got)
	}
	if got := entries[Slot](t, f.get("/fhir/Slot?schedule="+id(f.doc.ID)+"&start=2026-12-02&status=free", "")); len(got) != 1 || got[0].ID != id(f.open.ID) {
		t.Fatalf("status=free: %+v", got)
	}
	// Booking changes what the next search says.
	must(t, f.svc.Book(context.Background(), f.p1.ID, f.open.ID, "k1").Err)
	s := f.get("/fhir/Slot/"+id(f.open.ID), "")
	if got := s.res.GetSlot(); got == nil || *ext(decode[Slot](t, s).Extension, ExtRemaining).ValueInteger != 1 {
		t.Fatalf("after a booking: %s", s.body)
	}

	for _, bad := range []string{
		"/fhir/Slot?start=ge2026-12-02",                                                  // no schedule
		"/fhir/Slot?schedule=" + id(f.doc.ID) + "&start=ne2026-12-02",                    // unsupported prefix
		"/fhir/Slot?schedule=" + id(f.doc.ID) + "&start=ge02/12/2026",                    // not a date
		"/fhir/Slot?schedule=" + id(f.doc.ID) + "&start=ge2026-01-01&start=lt2026-12-31", // too long
		"/fhir/Slot?schedule=" + id(f.doc.ID) + "&status=maybe",
		"/fhir/Slot?schedule=Practitioner/1",
		"/fhir/Slot?schedule=" + id(f.doc.ID) + "&colour=red",
	} {
		expectOutcome(t, f.get(bad, ""), 400, booking.CodeInvalidRequest)
	}
	expectOutcome(t, f.get("/fhir/Slot?schedule=999999", ""), 404, booking.CodeNotFound)
}

func decode[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	must(t, json.Unmarshal(a.body, &v))
	return v
}

// TestAppointmentsPerRole: a patient sees only their own; an admin names
// the patient; doctors and anonymous callers are refused.
func TestAppointmentsPerRole(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mine := f.svc.Book(ctx, f.p1.ID, f.open.ID, "m1")
	must(t, mine.Err)
	p1, p2 := f.patientToken(f.p1), f.patientToken(f.p2)
	admin := f.token(auth.RoleAdmin, "a")
	doctor := f.token(auth.RoleDoctor, id(f.doc.ID))

	a := f.get("/fhir/Appointment/"+id(mine.Appointment.ID), p1)
	if ap := a.res.GetAppointment(); a.status != 200 || ap == nil || ap.GetParticipant()[0].GetActor().GetPatientId().GetValue() != id(f.p1.ID) {
		t.Fatalf("own appointment: %d %s", a.status, a.body)
	}
	expectOutcome(t, f.get("/fhir/Appointment/"+id(mine.Appointment.ID), p2), 404, booking.CodeNotFound)
	expectOutcome(t, f.get("/fhir/Appointment/"+id(mine.Appointment.ID), doctor), 403, booking.CodeForbidden)
	expectOutcome(t, f.get("/fhir/Appointment/"+id(mine.Appointment.ID), ""), 401, booking.CodeUnauthorized)
	if a := f.get("/fhir/Appointment/"+id(mine.Appointment.ID), admin); a.status != 200 {
		t.Fatalf("admin read: %d", a.status)
	}

	if got := entries[Appointment](t, f.get("/fhir/Appointment", p1)); len(got) != 1 || got[0].ID != id(mine.Appointment.ID) {
		t.Fatalf("own search: %+v", got)
	}
	if got := entries[Appointment](t, f.get("/fhir/Appointment?patient=Patient/"+id(f.p2.ID), p2)); len(got) != 1 || got[0].Slot[0].Reference != "Slot/"+id(f.full.ID) {
		t.Fatalf("p2's own search: %+v", got)
	}
	expectOutcome(t, f.get("/fhir/Appointment?patient=Patient/"+id(f.p2.ID), p1), 403, booking.CodeForbidden)
	expectOutcome(t, f.get("/fhir/Appointment", admin), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/Appointment?patient="+id(f.p1.ID), doctor), 403, booking.CodeForbidden)
	if got := entries[Appointment](t, f.get("/fhir/Appointment?patient="+id(f.p1.ID)+"&date=2026-12-02&status=booked", admin)); len(got) != 1 {
		t.Fatalf("admin search by date and status: %+v", got)
	}
	for _, q := range []string{"&date=2026-12-03", "&date=lt2026-12-02", "&status=cancelled"} {
		if got := entries[Appointment](t, f.get("/fhir/Appointment?patient="+id(f.p1.ID)+q, admin)); len(got) != 0 {
			t.Fatalf("%s: %+v", q, got)
		}
	}
	_, err := f.svc.Cancel(ctx, mine.Appointment.ID, f.p1.ID)
	must(t, err)
	if got := entries[Appointment](t, f.get("/fhir/Appointment?status=cancelled", p1)); len(got) != 1 || got[0].Status != "cancelled" {
		t.Fatalf("cancelled: %+v", got)
	}
	expectOutcome(t, f.get("/fhir/Appointment?status=gone", p1), 400, booking.CodeInvalidRequest)
}

func bookBody(slotID, patientID int64) string {
	parts := `{"actor":{"reference":"Practitioner/1"},"status":"needs-action"}`
	if patientID != 0 {
		parts = `{"actor":{"reference":"Patient/` + id(patientID) + `"},"status":"accepted"},` + parts
	}
	return `{"resourceType":"Parameters","parameter":[{"name":"appt-resource","resource":{"resourceType":"Appointment","status":"proposed","slot":[{"reference":"Slot/` + id(slotID) + `"}],"participant":[` + parts + `]}}]}`
}

// TestBookIsTheAPIsBooking: $book goes through service.Service.Book with
// the API's Idempotency-Key rules and refusals.
func TestBookIsTheAPIsBooking(t *testing.T) {
	f := newFixture(t)
	p1 := f.patientToken(f.p1)
	admin := f.token(auth.RoleAdmin, "a")
	book := func(token, key, body string) answer {
		return f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: token, key: key, body: body})
	}
	a := book(p1, "k-1", bookBody(f.open.ID, f.p1.ID))
	if a.status != 201 || a.res.GetBundle() == nil {
		t.Fatalf("book: %d %s", a.status, a.body)
	}
	got := entries[Appointment](t, a)
	if len(got) != 1 || got[0].Status != "booked" || got[0].Slot[0].Reference != "Slot/"+id(f.open.ID) {
		t.Fatalf("booked %+v", got)
	}
	if loc := a.header.Get("Location"); loc != "https://clinic.test/fhir/Appointment/"+got[0].ID {
		t.Fatalf("Location %q", loc)
	}
	// The retry replays: 200, the same appointment, no second place.
	r := book(p1, "k-1", bookBody(f.open.ID, 0))
	if r.status != 200 || entries[Appointment](t, r)[0].ID != got[0].ID {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	if s, _ := f.store.GetSlot(context.Background(), f.open.ID); s.BookedCount != 1 {
		t.Fatalf("booked count %d after a replay, want 1", s.BookedCount)
	}
	expectOutcome(t, book(p1, "k-1", bookBody(f.later.ID, 0)), 422, booking.CodeKeyReused)
	expectOutcome(t, book(p1, "k-2", bookBody(f.full.ID, 0)), 409, booking.CodeSlotFull)
	expectOutcome(t, book(p1, "k-3", bookBody(f.later.ID, 0)), 409, booking.CodeNotOpenYet)
	expectOutcome(t, book(p1, "k-4", bookBody(f.open.ID, 0)), 409, booking.CodeAlreadyBooked)
	expectOutcome(t, book(p1, "k-5", bookBody(f.open.ID, f.p2.ID)), 404, booking.CodeNotFound) // another account's patient does not exist for p1
	expectOutcome(t, book(p1, "", bookBody(f.open.ID, 0)), 400, booking.CodeMissingIdempotencyKey)
	expectOutcome(t, book(p1, "k 6", bookBody(f.open.ID, 0)), 400, booking.CodeInvalidRequest)
	expectOutcome(t, book("", "k-7", bookBody(f.open.ID, 0)), 401, booking.CodeUnauthorized)
	expectOutcome(t, book(f.token(auth.RoleDoctor, "1"), "k-8", bookBody(f.open.ID, 0)), 403, booking.CodeForbidden)
	expectOutcome(t, book(admin, "k-9", bookBody(f.open.ID, 0)), 400, booking.CodeInvalidRequest)
	expectOutcome(t, book(admin, "k-10", bookBody(f.open.ID, 999999)), 404, booking.CodeNotFound)
	for _, body := range []string{`{`, `{"resourceType":"Patient"}`, `{"resourceType":"Parameters","parameter":[]}`,
		`{"resourceType":"Appointment","slot":[]}`, `{"resourceType":"Appointment","slot":[{"reference":"Schedule/1"}]}`} {
		expectOutcome(t, book(p1, "k-11", body), 400, booking.CodeInvalidRequest)
	}
	expectOutcome(t, f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: p1, key: "k-12", body: bookBody(f.open.ID, 0), contentType: "text/plain"}), 400, booking.CodeInvalidRequest)
	expectOutcome(t, book(p1, "k-13", `{"resourceType":"Appointment","x":"`+strings.Repeat("a", maxBodyBytes)+`"}`), 413, booking.CodePayloadTooLarge)

	// An admin books for a patient with a bare Appointment.
	bare := `{"resourceType":"Appointment","status":"proposed","slot":[{"reference":"https://clinic.test/fhir/Slot/` + id(f.open.ID) + `"}],"participant":[{"actor":{"reference":"Patient/` + id(f.p2.ID) + `"},"status":"accepted"}]}`
	if a := book(admin, "k-14", bare); a.status != 201 {
		t.Fatalf("admin book: %d %s", a.status, a.body)
	}
}

const fixtureBookingRate = 100

// TestBookSpendsTheSharedBudget: $book spends the patient's one booking
// budget, the one the API and the pages spend (Service.AttemptBooking):
// once another front end has used it up, $book answers 429 with
// Retry-After and books nothing.
func TestBookSpendsTheSharedBudget(t *testing.T) {
	f := newFixture(t)
	for range fixtureBookingRate {
		f.svc.AttemptBooking(f.p1.ID)
	}
	a := f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: f.patientToken(f.p1), key: "k-1", body: bookBody(f.open.ID, 0)})
	expectOutcome(t, a, 429, booking.CodeRateLimited)
	if a.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	if s, _ := f.store.GetSlot(context.Background(), f.open.ID); s.BookedCount != 0 {
		t.Fatalf("booked count %d after a refused attempt", s.BookedCount)
	}
}

// TestBookRush: many patients $book the same slot at once; exactly its
// capacity succeed, the others are told slot-full.
func TestBookRush(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n, capacity = 24, 3
	s := f.slot(f.doc2.ID, time.Date(2026, 12, 4, 8, 0, 0, 0, f.paris), capacity, start.Add(-time.Hour), booking.SlotOpen)
	tokens := make([]string, n)
	for i := range tokens {
		p, err := f.store.CreatePatient(ctx, booking.Patient{Name: "P" + strconv.Itoa(i)})
		must(t, err)
		tokens[i] = f.patientToken(p)
	}
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range tokens {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, _ := http.NewRequest("POST", f.srv.URL+"/fhir/Appointment/$book", strings.NewReader(bookBody(s.ID, 0)))
			req.Header.Set("Authorization", "Bearer "+tokens[i])
			req.Header.Set("Idempotency-Key", "rush")
			req.Header.Set("Content-Type", "application/fhir+json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}(i)
	}
	wg.Wait()
	created, full := 0, 0
	for _, st := range statuses {
		switch st {
		case 201:
			created++
		case 409:
			full++
		default:
			t.Errorf("status %d", st)
		}
	}
	got, err := f.store.GetSlot(ctx, s.ID)
	must(t, err)
	if created != capacity || full != n-capacity || got.BookedCount != capacity {
		t.Fatalf("%d created, %d refused, counter %d; want %d, %d, %d", created, full, got.BookedCount, capacity, n-capacity, capacity)
	}
}

func TestFindFreeSlots(t *testing.T) {
	f := newFixture(t)
	got := entries[Slot](t, f.get("/fhir/Appointment/$find?practitioner=Practitioner/"+id(f.doc.ID)+"&start=2026-12-02&end=2026-12-02", ""))
	if len(got) != 1 || got[0].ID != id(f.open.ID) || got[0].Status != "free" {
		t.Fatalf("practitioner's free slots on 12-02: %+v", got)
	}
	if got := entries[Slot](t, f.get("/fhir/Appointment/$find?specialty=Dermatology&start=2026-12-01&end=2026-12-05", "")); len(got) != 1 || got[0].Schedule.Reference != "Schedule/"+id(f.doc2.ID) {
		t.Fatalf("by specialty: %+v", got)
	}
	if got := entries[Slot](t, f.get("/fhir/Appointment/$find?start=2026-12-01&end=2026-12-05", "")); len(got) != 3 {
		t.Fatalf("everyone's free slots: %+v", got)
	}
	post := f.call(call{method: "POST", path: "/fhir/Appointment/$find", body: `{"resourceType":"Parameters","parameter":[{"name":"practitioner","valueReference":{"reference":"Practitioner/` + id(f.doc.ID) + `"}},{"name":"start","valueDate":"2026-12-03"},{"name":"end","valueDate":"2026-12-03"}]}`})
	if got := entries[Slot](t, post); len(got) != 1 {
		t.Fatalf("POST $find: %s", post.body)
	}
	expectOutcome(t, f.get("/fhir/Appointment/$find?start=2026-01-01&end=2026-12-31", ""), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/Appointment/$find?practitioner=me", ""), 400, booking.CodeInvalidRequest)
}

// ndjson reads a bulk file, validating every line as R4.
func ndjson[T any](t *testing.T, body []byte) []T {
	t.Helper()
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		validR4(t, sc.Bytes())
		var v T
		must(t, json.Unmarshal(sc.Bytes(), &v))
		out = append(out, v)
	}
	return out
}

type manifest struct {
	TransactionTime string `json:"transactionTime"`
	Request         string `json:"request"`
	Output          []struct {
		Type      string            `json:"type"`
		URL       string            `json:"url"`
		Extension map[string]string `json:"extension"`
	} `json:"output"`
	Error []any `json:"error"`
}

func (f *fixture) manifest(query string) manifest {
	f.t.Helper()
	a := f.get("/fhir/$bulk-publish"+query, "")
	if a.status != 200 {
		f.t.Fatalf("manifest: %d %s", a.status, a.body)
	}
	var m manifest
	must(f.t, json.Unmarshal(a.body, &m))
	if len(m.Output) != 3 || m.Error == nil {
		f.t.Fatalf("manifest %s", a.body)
	}
	return m
}

func (f *fixture) file(m manifest, kind string) []byte {
	f.t.Helper()
	for _, o := range m.Output {
		if o.Type == kind {
			a := f.get(strings.TrimPrefix(o.URL, "https://clinic.test"), "")
			if a.status != 200 || a.header.Get("Content-Type") != "application/fhir+ndjson" {
				f.t.Fatalf("%s: %d %s", o.URL, a.status, a.header.Get("Content-Type"))
			}
			return a.body
		}
	}
	f.t.Fatalf("no %s in the manifest", kind)
	return nil
}

// TestBulkPublish: the manifest, its three files (every line valid R4),
// booking links, _since after a change, and files served without reading
// the database again.
func TestBulkPublish(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	m := f.manifest("")
	locs := ndjson[Location](t, f.file(m, "Location"))
	scheds := ndjson[Schedule](t, f.file(m, "Schedule"))
	slots := ndjson[Slot](t, f.file(m, "Slot"))
	if len(locs) != 1 || len(scheds) != 2 || len(slots) != 6 {
		t.Fatalf("%d locations, %d schedules, %d slots; want the clinic, the 2 doctors, their 6 slots", len(locs), len(scheds), len(slots))
	}
	if e := ext(scheds[0].Extension, ExtBookingPhone); e == nil || e.ValueString != "+33 1 23 45 67 89" {
		t.Fatalf("schedule booking phone %+v", scheds[0].Extension)
	}
	for _, s := range slots {
		if s.Status != "free" && s.Status != "busy" {
			t.Fatalf("slot %s is %s; SMART Scheduling Links knows only free and busy", s.ID, s.Status)
		}
		if ext(s.Extension, ExtDeepLink) == nil || ext(s.Extension, ExtBookingPhone) == nil || ext(s.Extension, ExtSmartCapacity) == nil {
			t.Fatalf("slot %s lacks the SMART extensions: %+v", s.ID, s.Extension)
		}
	}

	// Served from memory: reading the files again reads no slots.
	reads := f.store.listSlots.Load()
	for i := 0; i < 20; i++ {
		f.file(m, "Slot")
		f.manifest("")
	}
	if got := f.store.listSlots.Load(); got != reads {
		t.Fatalf("%d slot reads while serving the cached files", got-reads)
	}
	etag := f.get("/fhir/bulk/Slot.ndjson", "").header.Get("ETag")
	if a := f.call(call{path: "/fhir/bulk/Slot.ndjson"}); a.header.Get("ETag") != etag {
		t.Fatal("ETag changed without a change")
	}

	// A booking changes one slot; after the next generation only it is
	// newer than the first transactionTime.
	f.advance(2 * time.Second)
	must(t, f.svc.Book(ctx, f.p1.ID, f.open.ID, "b1").Err)
	_, err := f.h.bulk.regenerate(ctx)
	must(t, err)
	m2 := f.manifest("?_since=" + m.TransactionTime)
	if !strings.Contains(m2.Output[2].URL, "_since=") {
		t.Fatalf("output URLs must carry _since: %+v", m2.Output)
	}
	changed := ndjson[Slot](t, f.file(m2, "Slot"))
	if len(changed) != 1 || changed[0].ID != id(f.open.ID) || *ext(changed[0].Extension, ExtRemaining).ValueInteger != 1 {
		t.Fatalf("slots since %s: %+v", m.TransactionTime, changed)
	}
	if n := len(ndjson[Schedule](t, f.file(m2, "Schedule"))); n != 0 {
		t.Fatalf("%d schedules changed, want 0", n)
	}
	if len(ndjson[Slot](t, f.file(f.manifest(""), "Slot"))) != 6 {
		t.Fatal("without _since every slot is published")
	}
	if a := f.call(call{path: "/fhir/bulk/Slot.ndjson"}); a.header.Get("ETag") == etag {
		t.Fatal("ETag unchanged after a change")
	}
	a := f.get("/fhir/bulk/Slot.ndjson", "")
	req, _ := http.NewRequest("GET", f.srv.URL+"/fhir/bulk/Slot.ndjson", nil)
	req.Header.Set("If-None-Match", a.header.Get("ETag"))
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d, want 304", resp.StatusCode)
	}
	expectOutcome(t, f.get("/fhir/$bulk-publish?_since=yesterday", ""), 400, booking.CodeInvalidRequest)
	expectOutcome(t, f.get("/fhir/bulk/Patient.ndjson", ""), 404, booking.CodeNotFound)
}

// TestBulkRunRegeneratesAfterAChange: the background run rebuilds the
// files after this instance's booking (without waiting for Refresh).
func TestBulkRunRegeneratesAfterAChange(t *testing.T) {
	f := newFixture(t)
	f.h.bulk.opts.Debounce = time.Millisecond
	f.h.bulk.opts.Refresh = time.Hour
	f.h.bulk.opts.MinInterval = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	first := f.waitSnapshot(nil)
	must(t, f.svc.Book(context.Background(), f.p1.ID, f.open.ID, "r1").Err)
	next := f.waitSnapshot(first)
	if pub := next.res["Slot/"+id(f.open.ID)]; pub.hash == first.res["Slot/"+id(f.open.ID)].hash {
		t.Fatal("the booked slot is unchanged in the new generation")
	}
}

// waitSnapshot waits for a generation other than prev (the test's own
// deadline bounds it; nothing here measures time).
func (f *fixture) waitSnapshot(prev *snapshot) *snapshot {
	var s *snapshot
	testkit.Poll(time.Duration(1<<63-1), func() bool {
		f.h.bulk.mu.Lock()
		s = f.h.bulk.snap
		f.h.bulk.mu.Unlock()
		return s != nil && s != prev
	})
	return s
}

// must fails the test at once on an error.
var must = testkit.NoError

// TestSlotSearchDayInTheScheduleZone: a date is a day of the schedule's
// zone, 25 hours long when summer time ends.
func TestSlotSearchDayInTheScheduleZone(t *testing.T) {
	f := newFixture(t)
	first := f.slot(f.doc2.ID, time.Date(2026, 10, 25, 0, 15, 0, 0, f.paris), 1, start.Add(-time.Hour), booking.SlotOpen)
	last := f.slot(f.doc2.ID, time.Date(2026, 10, 25, 23, 15, 0, 0, f.paris), 1, start.Add(-time.Hour), booking.SlotOpen)
	f.slot(f.doc2.ID, time.Date(2026, 10, 26, 0, 15, 0, 0, f.paris), 1, start.Add(-time.Hour), booking.SlotOpen)
	got := entries[Slot](t, f.get("/fhir/Slot?schedule="+id(f.doc2.ID)+"&start=2026-10-25", ""))
	if len(got) != 2 || got[0].ID != id(first.ID) || got[1].ID != id(last.ID) {
		t.Fatalf("slots of 2026-10-25 in Paris: %+v", got)
	}
	if got[0].Status != "busy-unavailable" {
		t.Fatalf("a past slot is %s", got[0].Status)
	}
}

// TestBookAsStaffSkipsTheNoShowBlock: $book follows the one caller rule of
// every front end (Service.ActFor): an admin books as staff, so a patient
// blocked from self-booking by a no-show is still booked by the clinic,
// as through the API; a deactivated patient is refused for both.
func TestBookAsStaffSkipsTheNoShowBlock(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	past := f.slot(f.doc.ID, start.Add(-48*time.Hour), 1, start.Add(-72*time.Hour), booking.SlotOpen)
	res, err := f.store.Book(ctx, past.ID, []booking.BookRequest{{PatientID: f.p1.ID, IdempotencyKey: "past",
		Fingerprint: booking.Fingerprint(past.ID)}}, start.Add(-50*time.Hour))
	must(t, err)
	must(t, res[0].Err)
	_, err = f.store.Transition(ctx, res[0].Appointment.ID, booking.StatusNoShow, start.Add(-47*time.Hour))
	must(t, err)
	_, err = f.svc.SetClinicPolicy(ctx, booking.Policy{MaxActive: 5, MaxPerDay: 2, NoShowLimit: 1, NoShowBlockDays: 30})
	must(t, err)
	book := func(token, key string, patient int64) answer {
		return f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: token, key: key, body: bookBody(f.open.ID, patient)})
	}
	admin := f.token(auth.RoleAdmin, "a")
	expectOutcome(t, book(f.patientToken(f.p1), "self", 0), 409, booking.CodeBookingBlocked)
	if a := book(admin, "staff", f.p1.ID); a.status != 201 {
		t.Fatalf("an admin's $book for a blocked patient: %d %s", a.status, a.body)
	}
	inactive := false
	_, err = f.svc.UpdatePatient(ctx, f.p2.ID, booking.PatientUpdate{Active: &inactive})
	must(t, err)
	expectOutcome(t, book(admin, "staff-2", f.p2.ID), 409, booking.CodeBookingBlocked)
	expectOutcome(t, book(f.patientToken(f.p2), "self-2", 0), 409, booking.CodeBookingBlocked)
}

// TestBookForAPerson: a patient $books for a person their account manages
// (Patient/<id> as the participant), as POST /api/appointments does;
// another account naming that person is not found and books nothing.
func TestBookForAPerson(t *testing.T) {
	f := newFixture(t)
	kid, err := f.svc.AddPerson(context.Background(), f.p1.ID, booking.PersonInput{Name: "Kid", BirthDate: "2016-04-05",
		Relation: booking.RelationChild, Consent: true})
	must(t, err)
	book := func(token, key string) answer {
		return f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: token, key: key, body: bookBody(f.open.ID, kid.ID)})
	}
	expectOutcome(t, book(f.patientToken(f.p2), "k-1"), 404, booking.CodeNotFound)
	if s, _ := f.store.GetSlot(context.Background(), f.open.ID); s.BookedCount != 0 {
		t.Fatalf("booked count %d after another account's attempt", s.BookedCount)
	}
	a := book(f.patientToken(f.p1), "k-1")
	if a.status != 201 {
		t.Fatalf("book for the kid: %d %s", a.status, a.body)
	}
	got := entries[Appointment](t, a)
	var forKid bool
	for _, p := range got[0].Participant {
		forKid = forKid || p.Actor.Reference == "Patient/"+id(kid.ID)
	}
	if !forKid {
		t.Fatalf("booked %+v, not for Patient/%d", got[0].Participant, kid.ID)
	}
}

// TestReceptionAsTheFrontDesk: reception is the front desk here as in the
// JSON API (booking.Desk): it reads any appointment, searches a named
// patient's, and books for the patient it names; it must name one.
func TestReceptionAsTheFrontDesk(t *testing.T) {
	f := newFixture(t)
	desk := f.token(auth.RoleReception, "staff:rita")
	mine := f.svc.Book(context.Background(), f.p1.ID, f.open.ID, "r1")
	must(t, mine.Err)
	if a := f.get("/fhir/Appointment/"+id(mine.Appointment.ID), desk); a.status != 200 {
		t.Fatalf("reception reading an appointment: %d %s", a.status, a.body)
	}
	if got := entries[Appointment](t, f.get("/fhir/Appointment?patient=Patient/"+id(f.p1.ID), desk)); len(got) != 1 || got[0].ID != id(mine.Appointment.ID) {
		t.Fatalf("reception's search: %+v", got)
	}
	expectOutcome(t, f.get("/fhir/Appointment", desk), 400, booking.CodeInvalidRequest)
	book := func(key, body string) answer {
		return f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: desk, key: key, body: body})
	}
	expectOutcome(t, book("r-2", bookBody(f.open.ID, 0)), 400, booking.CodeInvalidRequest)
	a := book("r-3", bookBody(f.open.ID, f.p2.ID))
	if a.status != 201 {
		t.Fatalf("reception booking for a patient: %d %s", a.status, a.body)
	}
	got := entries[Appointment](t, a)
	if len(got) != 1 || got[0].Participant[0].Actor.Reference != "Patient/"+id(f.p2.ID) {
		t.Fatalf("reception booked %+v", got)
	}
}

// TestBookWithInvitation: a campaign's slot asks for an invitation code,
// which $book takes as the Parameters' "invitation" (valueString), the
// API's "invitation": without it 409 invitation-required, a malformed one
// 400, the code 201 (and once only).
func TestBookWithInvitation(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sc, err := f.store.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doc2.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, f.paris)
	sl, err := f.store.CreateSlot(ctx, booking.Slot{DoctorID: f.doc2.ID, ScheduleID: sc.ID, StartAt: at, EndAt: at.Add(30 * time.Minute),
		Capacity: 3, OpensAt: start.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	_, err = f.svc.SetEligibility(ctx, booking.EligibilityRule{ScheduleID: sc.ID, InvitationRequired: true}, false)
	must(t, err)
	codes, err := f.svc.CreateInvitations(ctx, sc.ID, 1)
	must(t, err)
	withCode := func(code string) string {
		b := bookBody(sl.ID, 0)
		return strings.TrimSuffix(b, `]}`) + `,{"name":"invitation","valueString":` + strconv.Quote(code) + `}]}`
	}
	p1, p2 := f.patientToken(f.p1), f.patientToken(f.p2)
	book := func(token, key, body string) answer {
		return f.call(call{method: "POST", path: "/fhir/Appointment/$book", token: token, key: key, body: body})
	}
	expectOutcome(t, book(p1, "i-1", bookBody(sl.ID, 0)), 409, booking.CodeInvitationRequired)
	expectOutcome(t, book(p1, "i-2", withCode("NOPE-NOPE-NOPE")), 409, booking.CodeInvitationRequired)
	expectOutcome(t, book(p1, "i-3", withCode("<script>")), 400, booking.CodeInvalidRequest)
	twice := strings.TrimSuffix(withCode(codes[0]), `]}`) + `,{"name":"invitation","valueString":"AB"}]}`
	expectOutcome(t, book(p1, "i-4", twice), 400, booking.CodeInvalidRequest)
	if a := book(p1, "i-5", withCode(strings.ToLower(codes[0]))); a.status != 201 {
		t.Fatalf("book with the code: %d %s", a.status, a.body)
	}
	expectOutcome(t, book(p2, "i-6", withCode(codes[0])), 409, booking.CodeInvitationRequired) // once only
}
