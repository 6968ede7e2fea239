package web

// The one fixture of the web tests: newSite starts the pages, the JSON API
// and the calendar feeds on one fresh SQLite store, with sample data unless
// told otherwise. Options change it before it starts.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/ical"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/phone"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// codeBox is a notifier that keeps the last sign-in code per phone, as the
// patient's phone would.
type codeBox struct {
	mu    sync.Mutex
	codes map[string]string
}

func (c *codeBox) Notify(_ context.Context, m notify.Message) error {
	if m.Kind == notify.KindLoginCode {
		c.mu.Lock()
		c.codes[phone.Normalize(m.Phone, "FR")] = m.Code
		c.mu.Unlock()
	}
	return nil
}

func (c *codeBox) code(number string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.codes[phone.Normalize(number, "FR")]
}

// site is a running slotd, with sample data unless withoutSamples.
type site struct {
	url    string
	srv    *httptest.Server
	pages  *server // the pages' server (its csrfToken, say)
	store  *sqlite.Store
	svc    *service.Service
	signer *auth.Signer
	codes  *codeBox
	now    func() time.Time // the site's clock (time.Now unless withClock)

	// The sample data.
	doctor   booking.Doctor // has slots tomorrow
	empty    booking.Doctor // has no schedule
	dept     booking.Department
	tomorrow schedule.Date
	loc      *time.Location
	slots    []booking.Slot // tomorrow's slots of doctor, by start
	patients []booking.Patient
}

const staffPassword = "correct horse battery"

// clock is a settable clock for withClock: it moves only when told.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock    { c := &clock{}; c.ns.Store(t.UnixNano()); return c }
func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

// siteSetup is what the options of newSite change before the site starts.
type siteSetup struct {
	config    []func(*Config)
	service   service.Options
	now       func() time.Time
	wrap      func(http.Handler) http.Handler
	paySecret string
	noSamples bool
	phones    []string
}

// siteOption is an option of newSite.
type siteOption func(*siteSetup)

// withConfig changes the pages' configuration after newSite has filled it
// (Service, Store, Accounts, Signer, Notifier, Stats, Calendar, ...).
func withConfig(f func(*Config)) siteOption {
	return func(s *siteSetup) { s.config = append(s.config, f) }
}

// withDemo serves the pages in demo mode.
func withDemo() siteOption { return withConfig(func(c *Config) { c.Demo = true }) }

// withClock gives the service and the pages the clock now.
func withClock(now func() time.Time) siteOption { return func(s *siteSetup) { s.now = now } }

// withService changes the service's options (newSite's: a booking budget of
// 50 a second, the pages' recorder as the observer).
func withService(f func(*service.Options)) siteOption { return func(s *siteSetup) { f(&s.service) } }

// withPaymentSecret gives the API and the pages the payment provider's
// secret.
func withPaymentSecret(secret string) siteOption { return func(s *siteSetup) { s.paySecret = secret } }

// withHandler serves the whole site through wrap (a trusted proxy, say).
func withHandler(wrap func(http.Handler) http.Handler) siteOption {
	return func(s *siteSetup) { s.wrap = wrap }
}

// withoutSamples starts the site on an empty store (no departments,
// doctors, slots, patients or staff password).
func withoutSamples() siteOption { return func(s *siteSetup) { s.noSamples = true } }

// withPatients adds a patient "A" for each phone (after the samples).
func withPatients(phones ...string) siteOption {
	return func(s *siteSetup) { s.phones = append(s.phones, phones...) }
}

// newSite starts a site for the test; it stops with the test.
func newSite(t *testing.T, opts ...siteOption) *site {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	must(t, st.Migrate(ctx))
	signer, err := auth.NewSigner([]byte("e2e-secret-e2e-secret-e2e-secret-!!"))
	must(t, err)

	rec := NewRecorder(nil)
	set := siteSetup{service: service.Options{Observer: rec, BookingRate: 50, BookingWindow: time.Second,
		CheckInCodes: booking.NewCheckInCodes(signer.DeriveKey(booking.CheckInKeyPurpose)),
		WaitingRoom:  service.WaitingRoomOptions{Tokens: booking.NewAdmissionTokens(signer.DeriveKey(booking.AdmissionKeyPurpose))}}}
	for _, o := range opts {
		o(&set)
	}
	now := time.Now
	if set.now != nil {
		now, set.service.Now = set.now, set.now
	}
	if set.paySecret != "" && set.service.Payments == nil {
		// The demo's provider, notifying in the signed callback's format.
		set.service.Payments = payments.Simulated{Secret: []byte(set.paySecret)}
	}
	svc := service.NewService(st, set.service)
	svc.Watch(rec.Changed)
	codes := &codeBox{codes: map[string]string{}}
	api := httpapi.New(httpapi.Config{Service: svc, Store: st, Signer: signer})
	mux := http.NewServeMux()
	for _, p := range []string{"/api/", "/healthz", "/readyz", "/openapi.json"} {
		mux.Handle(p, api)
	}
	cal := ical.New(ical.Config{Service: svc, Tokens: st, Days: st, Signer: signer, PublicURL: "http://slotd.test"})
	mux.Handle("/ical/", cal)
	cfg := Config{
		Service: svc, Store: st, Accounts: st, Signer: signer, Notifier: codes,
		Stats: rec, Calendar: cal, AppointmentICS: cal, Place: "12 rue de la Paix, Paris",
	}
	if set.now != nil {
		cfg.Now = set.now
	}
	if set.paySecret != "" {
		cfg.PaymentSecret = []byte(set.paySecret)
	}
	for _, f := range set.config {
		f(&cfg)
	}
	pages := newServer(cfg) // what New serves, kept for tests of its internals
	mux.Handle("/", pages.middleware(pages.mux))
	var h http.Handler = mux
	if set.wrap != nil {
		h = set.wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	s := &site{url: srv.URL, srv: srv, pages: pages, store: st, svc: svc, signer: signer, codes: codes, now: now}
	s.loc, err = time.LoadLocation("Europe/Paris")
	must(t, err)
	s.tomorrow = schedule.DateOf(now(), s.loc).AddDays(1)
	if !set.noSamples {
		s.samples(t)
	}
	for _, ph := range set.phones {
		_, err := st.CreatePatient(ctx, booking.Patient{Name: "A", Phone: ph})
		must(t, err)
	}
	return s
}

// samples fills the site's store with its sample data.
func (s *site) samples(t *testing.T) {
	t.Helper()
	ctx, st, now := context.Background(), s.store, s.now
	var err error
	s.dept, err = st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	_, err = st.CreateDepartment(ctx, booking.Department{Name: "Dermatology"})
	must(t, err)
	s.doctor, err = st.CreateDoctor(ctx, booking.Doctor{Name: "Dr Camille Martin", DepartmentID: s.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	s.empty, err = st.CreateDoctor(ctx, booking.Doctor{Name: "Dr Wei Zhang", DepartmentID: s.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	// Tomorrow 09:00–12:00 in 30-minute slots of one place, open now; the
	// 09:00 slot is already full, and a later day too.
	start, _ := schedule.DayBounds(s.tomorrow, s.loc)
	var slots []booking.Slot
	for i := 0; i < 6; i++ {
		at := start.Add(9*time.Hour + time.Duration(i)*30*time.Minute)
		slots = append(slots, booking.Slot{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 1,
			OpensAt: now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	}
	at := start.Add(3*24*time.Hour + 10*time.Hour)
	slots = append(slots, booking.Slot{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 3,
		OpensAt: now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	_, err = st.InsertSlots(ctx, slots)
	must(t, err)
	end := start.Add(24 * time.Hour)
	s.slots, err = st.ListSlots(ctx, s.doctor.ID, start, end)
	must(t, err)
	for i, name := range []string{"Anh Nguyen", "Lucas Bernard", "Léa Dubois"} {
		p, err := st.CreatePatient(ctx, booking.Patient{Name: name, Phone: fmt.Sprintf("+33 6 12 34 56 %02d", i)})
		must(t, err)
		s.patients = append(s.patients, p)
	}
	// Fill the first slot so the day shows a full, greyed time.
	res, err := st.Book(ctx, s.slots[0].ID, []booking.BookRequest{{PatientID: s.patients[2].ID, IdempotencyKey: "seed", Fingerprint: booking.Fingerprint(s.slots[0].ID)}}, now())
	must(t, err)
	must(t, res[0].Err)
	hash, err := accounts.HashPassword(staffPassword)
	must(t, err)
	must(t, st.SetStaffPassword(ctx, "admin", hash, now()))
}
