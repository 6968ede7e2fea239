// Package web is slotd's server-rendered user interface: patients choose a
// department, a doctor, a day and a slot and book it; they sign in with a
// one-time code sent to their phone; clinic staff manage the catalog,
// schedules, suspensions and a doctor's day, and watch a live dashboard
// during the rush.
//
// Pages are html/template files embedded with go:embed, one handler file per
// page (page_*.go). Every page works without JavaScript; static/app.js only
// adds a retrying booking button, the hold countdown and the dashboard's
// live refresh. Every change goes through service.Service exactly like the
// JSON API (booking with one Idempotency-Key per rendered form, so a double
// submit or a browser retry of the same form is answered with the original
// booking); pages read through a booking.Reader.
//
// Security: sessions are short-lived JWTs minted by the auth.Signer in an
// HttpOnly, SameSite=Lax cookie (Secure under https, direct or through a
// trusted proxy: edge.Secure); every POST form carries
// a CSRF token (an HMAC of a per-browser cookie and the form's action); no
// phone number, code or token is ever logged.
package web

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config wires the web UI to the domain.
type Config struct {
	// Service makes every change: bookings, cancellations, the catalog,
	// schedules, suspensions, staff transitions, payments (required).
	Service *service.Service
	// Store serves the reads of the catalog and staff pages; the Service's
	// store when nil.
	Store booking.Reader
	// Listings serves the patients' slot calendars (doctor, day), which may
	// lag (a read replica, --db-read); Store when nil.
	Listings booking.Reader
	// Accounts finds patients by phone, keeps sign-in codes and staff
	// passwords (required).
	Accounts accounts.Store
	// Signer mints and verifies session cookies (required). Keys for CSRF
	// tokens and code hashes are derived from its secret, so every instance
	// sharing the secret accepts every other's sessions and forms.
	Signer *auth.Signer
	// Signin sends and checks the patients' sign-in codes, shared with the
	// API; when nil one is made from Accounts, Notifier, Signer's keys,
	// Demo and the limits below.
	Signin *service.Signin
	// Notifier sends sign-in codes (Kind "login-code") of the Signin made
	// when Signin is nil; a log notifier when nil.
	Notifier notify.Notifier
	// Demo shows demo hints (sample phone numbers, the sign-in code on the
	// page) and the simulated payment page.
	Demo bool
	// PublicURL is the service's external base URL: where the payment
	// provider sends patients back (the request's host when empty).
	PublicURL string
	// PaymentSecret is the payment provider's HMAC key (the API's
	// PaymentSecret): the demo payment page signs its simulated callback
	// with it as the provider would (auth.SignPayment) and verifies it as
	// the API does before the Service records the payment. Without it the
	// demo records the payment unsigned, as its own provider.
	PaymentSecret []byte
	// Stats feeds the staff dashboard; an empty dashboard when nil.
	Stats Stats
	// Logger receives errors; slog.Default() when nil.
	Logger *slog.Logger
	// Now is the clock; the Service's when nil, so that what a page offers
	// (a button, a slot's state) is what the Service then decides.
	Now func() time.Time
	// SessionTTL is how long a sign-in lasts (default 12h).
	SessionTTL time.Duration
	// Calendar manages patients' calendar subscription links; without it
	// the calendar page is not found.
	Calendar CalendarLinks
	// CodesPerAddress, CodesPerMinute and FailuresPerDay are the limits of
	// the Signin made when Signin is nil (service.SigninOptions).
	CodesPerAddress, CodesPerMinute, FailuresPerDay int
	// SigninPerMinute bounds the unauthenticated sign-in form posts (the
	// staff password; the phone and code of the Signin made when Signin is
	// nil) of one client address per minute (default DefaultSigninPerMinute).
	SigninPerMinute int
	// DefaultLanguage is the clinic's language for people whose browser
	// asks for none of i18n.Languages ("en" when empty).
	DefaultLanguage string
	// Currency is the clinic's; fees are its minor units (EUR when zero).
	Currency i18n.Currency
	// ClinicZone is the clinic's IANA zone, for times not tied to a doctor
	// (Europe/Paris when empty).
	ClinicZone string
	// AppointmentICS writes one appointment's .ics (ical.Handler); no "Add
	// to calendar" link without it.
	AppointmentICS AppointmentICS
	// Place is where appointments happen (the clinic's address), shown on
	// the confirmation page and, with ClinicPhone (the clinic's booking
	// phone), on the sign-up page when sign-up is off.
	Place       string
	ClinicPhone string
	// CodeChannels are the channels sign-in codes can go by
	// (notify.ChannelSMS, ChannelEmail): with both, the sign-in page lets
	// the patient choose; with e-mail alone it says the code goes there.
	CodeChannels []string
	// Deliveries, when set, shows each channel's state on the dashboard.
	Deliveries *service.Deliveries
}

// Defaults of Config.
const (
	DefaultSessionTTL = 12 * time.Hour

	DefaultCodesPerAddress = service.DefaultCodesPerAddress
	DefaultCodesPerMinute  = service.DefaultCodesPerMinute
	DefaultSigninPerMinute = service.DefaultSigninPerMinute
)

// server holds the wired dependencies of the pages.
type server struct {
	svc          *service.Service
	store        booking.Reader
	listings     booking.Reader // the patients' slot calendars (Config.Listings)
	accounts     accounts.Store
	signer       *auth.Signer
	signin       *service.Signin
	demo         bool
	publicURL    string
	paySecret    []byte
	stats        Stats
	log          *slog.Logger
	now          func() time.Time
	sessionTTL   time.Duration
	storeTimeout time.Duration
	calendar     CalendarLinks
	defaultLang  string
	currency     i18n.Currency
	clinicZone   *time.Location
	ics          AppointmentICS
	place        string
	clinicPhone  string
	codeChannels []string
	deliveries   *service.Deliveries

	csrfKey []byte // CSRF tokens
	// displayKey signs the waiting room boards' links (page_queue.go);
	// boards counts their open event streams, wake rings them.
	displayKey []byte
	boards     chan struct{}
	wake       *boardWake

	pages map[string]*template.Template
	mux   *http.ServeMux

	signinAddr *edge.KeyLimiter // staff sign-in form posts per client address

	catalog catalogCache // catalog_cache.go
}

// New returns the web UI handler, to be mounted at "/" beside the JSON API.
// It panics when Service, Accounts or Signer is missing: a wiring bug.
func New(cfg Config) http.Handler {
	s := newServer(cfg)
	return s.middleware(s.mux)
}

func newServer(cfg Config) *server {
	if cfg.Service == nil || cfg.Accounts == nil || cfg.Signer == nil {
		panic("web: Config.Service, Config.Accounts and Config.Signer are required")
	}
	if cfg.Store == nil {
		cfg.Store = cfg.Service.Reader()
	}
	if cfg.Listings == nil {
		cfg.Listings = cfg.Store
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Notifier == nil {
		cfg.Notifier = &notify.Log{Logger: cfg.Logger, ShowCodes: cfg.Demo}
	}
	if cfg.Now == nil {
		cfg.Now = cfg.Service.Now
	}
	if cfg.Stats == nil {
		cfg.Stats = NewRecorder(cfg.Now)
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.SigninPerMinute <= 0 {
		cfg.SigninPerMinute = DefaultSigninPerMinute
	}
	s := &server{
		svc: cfg.Service, store: cfg.Store, listings: cfg.Listings, accounts: cfg.Accounts, signer: cfg.Signer,
		signin: cfg.Signin, demo: cfg.Demo, publicURL: strings.TrimSuffix(cfg.PublicURL, "/"), paySecret: cfg.PaymentSecret,
		stats: cfg.Stats, log: cfg.Logger, now: cfg.Now, sessionTTL: cfg.SessionTTL, storeTimeout: cfg.Service.Timeout(),
		csrfKey:     cfg.Signer.DeriveKey("web-csrf"),
		displayKey:  cfg.Signer.DeriveKey(displayKeyPurpose),
		boards:      make(chan struct{}, MaxBoardStreams),
		wake:        newBoardWake(),
		mux:         http.NewServeMux(),
		signinAddr:  edge.NewKeyLimiter(cfg.SigninPerMinute, time.Minute),
		calendar:    cfg.Calendar,
		defaultLang: cfg.DefaultLanguage, currency: cfg.Currency, clinicZone: zone(cfg.ClinicZone), ics: cfg.AppointmentICS, place: cfg.Place, clinicPhone: cfg.ClinicPhone,
		codeChannels: cfg.CodeChannels, deliveries: cfg.Deliveries,
	}
	if s.signin == nil {
		s.signin = cfg.Service.NewSignin(service.SigninOptions{
			Accounts: cfg.Accounts, Notifier: cfg.Notifier, Demo: cfg.Demo,
			PhoneKey: cfg.Signer.DeriveKey(service.SigninPhoneKeyPurpose), CodeKey: cfg.Signer.DeriveKey(service.SigninCodeKeyPurpose),
			CodesPerAddress: cfg.CodesPerAddress, CodesPerMinute: cfg.CodesPerMinute,
			AttemptsPerMinute: cfg.SigninPerMinute, FailuresPerDay: cfg.FailuresPerDay, Logger: cfg.Logger,
		})
	}
	if s.currency.Code == "" {
		s.currency = i18n.MustCurrency("EUR")
	}
	if cfg.ClinicZone == "" {
		s.clinicZone = zone("Europe/Paris")
	}
	s.pages = parsePages()
	s.routes()
	cfg.Service.Watch(func(c service.Change) { s.wake.ring(c.DoctorID) })
	return s
}

// routes registers every page. Handlers are in page_*.go, one file a page.
func (s *server) routes() {
	static, _ := fs.Sub(staticFS, "static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(http.FileServerFS(static))))

	// Patients.
	s.mux.HandleFunc("GET /{$}", s.handleHome)
	s.mux.HandleFunc("GET /search", s.handleSearch)
	s.mux.HandleFunc("GET /first-available", s.handleFirstAvailable)
	s.mux.HandleFunc("GET /departments/{id}", s.handleDepartment)
	s.mux.HandleFunc("GET /doctors/{id}", s.handleDoctor)
	s.mux.HandleFunc("GET /doctors/{id}/days/{date}", s.handleDay)
	s.mux.HandleFunc("POST /book", s.handleBook)
	s.mux.HandleFunc("POST /book-group", s.handleBookGroup)
	s.mux.HandleFunc("GET /appointments", s.handleAppointments)
	s.mux.HandleFunc("GET /appointments/{id}", s.handleAppointment)
	s.mux.HandleFunc("POST /appointments/{id}/cancel", s.handleCancel)
	s.mux.HandleFunc("GET /appointments/{id}/reschedule", s.handleReschedulePage)
	s.mux.HandleFunc("POST /appointments/{id}/reschedule", s.handleReschedule)
	s.mux.HandleFunc("GET /people", s.handlePeople)
	s.mux.HandleFunc("POST /people", s.handlePersonAdd)
	s.mux.HandleFunc("POST /people/{id}/{action}", s.handlePersonAction)
	s.mux.HandleFunc("GET /waitlist", s.handleWaitlist)
	s.mux.HandleFunc("POST /waitlist", s.handleWaitlistJoin)
	s.mux.HandleFunc("POST /waitlist/{id}/{action}", s.handleWaitlistAction)
	s.mux.HandleFunc("POST /waitlist/standby", s.handleStandbyJoin)
	s.mux.HandleFunc("GET /appointments/{id}/pay", s.handlePay)
	s.mux.HandleFunc("POST /appointments/{id}/pay", s.handlePaySubmit)
	s.mux.HandleFunc("POST /appointments/{id}/checkout", s.handleCheckout)
	s.mux.HandleFunc("GET /calendar", s.handleCalendar)
	s.mux.HandleFunc("POST /calendar", s.handleCalendarSubscribe)
	s.mux.HandleFunc("POST /calendar/revoke", s.handleCalendarRevoke)
	s.mux.HandleFunc("GET /rounds/{id}", s.handleRound)
	s.mux.HandleFunc("GET /openings/{id}", s.handleOpening)
	s.mux.HandleFunc("GET /openings/{id}/events", s.handleOpeningEvents)
	s.mux.HandleFunc("GET /openings/{id}/summary", s.handleOpeningSummary)
	s.mux.HandleFunc("POST /openings/{id}/queue", s.handleOpeningJoin)
	s.mux.HandleFunc("GET /staff/openings/{id}", s.staff(s.handleStaffOpening))
	s.mux.HandleFunc("POST /rounds/{id}/register", s.handleRoundRegister)
	s.mux.HandleFunc("POST /rounds/{id}/apply", s.handleRoundApply)
	s.mux.HandleFunc("GET /rounds/{id}/applications/{appId}", s.handleRoundApplication)
	s.mux.HandleFunc("GET /staff/rounds/{id}", s.staff(s.handleStaffRound))
	s.mux.HandleFunc("GET /staff/rounds/new", s.staff(s.handleStaffNewRound))
	s.mux.HandleFunc("POST /staff/rounds", s.staff(s.handleStaffCreateRound))
	s.mux.HandleFunc("POST /staff/rounds/{id}/rooms", s.staff(s.handleStaffRoundRooms))
	s.mux.HandleFunc("POST /staff/rounds/{id}/state", s.staff(s.handleStaffRoundState))
	s.mux.HandleFunc("POST /staff/rounds/{id}/draw", s.staff(s.handleStaffDraw))
	s.mux.HandleFunc("GET /lang", s.handleLanguage)
	s.mux.HandleFunc("POST /lang", s.handleLanguage)
	s.mux.HandleFunc("GET /appointments/{id}/cancel", s.handleCancelConfirm)
	s.mux.HandleFunc("GET /appointments/{id}/ics", s.handleAppointmentICS)
	s.mux.HandleFunc("GET /appointments/{id}/check-in.png", s.handleCheckInQR)
	s.mux.HandleFunc("GET /signin", s.handleSignin)
	s.mux.HandleFunc("POST /signin", s.handleSigninPhone)
	s.mux.HandleFunc("POST /signin/verify", s.handleSigninVerify)
	s.mux.HandleFunc("GET /signup", s.handleSignup)
	s.mux.HandleFunc("POST /signup", s.handleSignupAddress)
	s.mux.HandleFunc("POST /signup/create", s.handleSignupCreate)
	s.mux.HandleFunc("POST /signout", s.handleSignout)

	// Staff.
	s.mux.HandleFunc("GET /staff/signin", s.handleStaffSignin)
	s.mux.HandleFunc("POST /staff/signin", s.handleStaffSigninSubmit)
	s.mux.HandleFunc("GET /staff", s.desk(s.handleStaffHome))
	s.mux.HandleFunc("POST /staff/departments", s.staff(s.handleStaffCreateDepartment))
	s.mux.HandleFunc("POST /staff/doctors", s.staff(s.handleStaffCreateDoctor))
	s.mux.HandleFunc("GET /staff/patients", s.desk(s.handleStaffPatients))
	s.mux.HandleFunc("POST /staff/patients", s.desk(s.handleStaffCreatePatient))
	s.mux.HandleFunc("POST /staff/patients/find", s.desk(s.handleStaffFindPatient))
	s.mux.HandleFunc("GET /staff/patients/{id}", s.staff(s.handleStaffPatient))
	s.mux.HandleFunc("GET /staff/patients/{id}/data", s.staff(s.handleStaffPatientData))
	s.mux.HandleFunc("GET /staff/patients/{id}/messages", s.staff(s.handleStaffPatientMessages))
	s.mux.HandleFunc("GET /staff/patients/{id}/erase", s.staff(s.handleStaffEraseConfirm))
	s.mux.HandleFunc("POST /staff/patients/{id}/erase", s.staff(s.handleStaffErase))
	s.mux.HandleFunc("GET /my-data", s.handleMyData)
	s.mux.HandleFunc("GET /staff/doctors/{id}", s.staff(s.handleStaffDoctor))
	s.mux.HandleFunc(photoFormPattern, s.staff(s.handleStaffDoctorPhoto))
	s.mux.HandleFunc("POST /staff/doctors/{id}/schedules", s.staff(s.handleStaffCreateSchedule))
	s.mux.HandleFunc("POST /staff/doctors/{id}/suspensions", s.staff(s.handleStaffSuspend))
	s.mux.HandleFunc("GET /staff/doctors/{id}/days/{date}", s.desk(s.handleStaffDay))
	s.mux.HandleFunc("POST /staff/appointments/{id}/status", s.staff(s.handleStaffTransition))
	s.mux.HandleFunc("POST /staff/appointments/{id}/check-in", s.desk(s.handleDayCheckIn))
	s.mux.HandleFunc("GET /kiosk", s.desk(s.handleKiosk))
	s.mux.HandleFunc("POST /kiosk", s.desk(s.handleKioskCheckIn))
	s.mux.HandleFunc("POST /staff/slots/{id}/book", s.desk(s.handleDeskBook))
	s.mux.HandleFunc("POST /staff/slots/{id}/walk-in", s.desk(s.handleDeskWalkIn))
	s.mux.HandleFunc("POST /staff/appointments/{id}/cancel", s.desk(s.handleDeskCancel))
	s.mux.HandleFunc("POST /staff/appointments/{id}/reschedule", s.desk(s.handleDeskReschedule))
	s.mux.HandleFunc("GET /staff/dashboard", s.staff(s.handleStaffDashboard))
	s.mux.HandleFunc("GET /queue/doctors/{id}", s.staffOrDoctor(s.handleQueueConsole))
	s.mux.HandleFunc("POST /queue/doctors/{id}/call", s.staffOrDoctor(s.handleQueueCall))
	s.mux.HandleFunc("POST /queue/appointments/{id}/{action}", s.staffOrDoctor(s.handleQueueStep))
	s.mux.HandleFunc("GET /display/doctors/{id}", s.handleDisplay)
	s.mux.HandleFunc("GET /display/doctors/{id}/events", s.handleDisplayEvents)
	s.mux.HandleFunc("GET /display/departments/{id}", s.handleDepartmentDisplay)
	s.mux.HandleFunc("GET /display/departments/{id}/events", s.handleDepartmentDisplayEvents)
	s.mux.HandleFunc("GET /appointments/{id}/queue", s.handleAppointmentQueue)
	s.clinicRoutes()
	s.campaignRoutes()
	s.mux.HandleFunc("GET /staff/{kinds}/{id}/edit", s.staff(s.handleStaffEdit))
	s.mux.HandleFunc("POST /staff/{kinds}/{id}/edit", s.staff(s.handleStaffEditPost))
	s.mux.HandleFunc("POST /staff/doctors/{doctor}/schedules/{id}/end", s.staff(s.handleStaffScheduleEnd))
	s.mux.HandleFunc("GET /staff/clinic", s.staff(s.handleStaffClinic))
	s.mux.HandleFunc("POST /staff/clinic/policy", s.staff(s.handleStaffPolicy))
	s.mux.HandleFunc("POST /staff/clinic/closures", s.staff(s.handleStaffClosure))
	s.mux.HandleFunc("POST /staff/clinic/staff-sites", s.staff(s.handleStaffSites))
	s.mux.HandleFunc("POST /staff/clinic/closures/{id}/lift", s.staff(s.handleStaffLift))

	s.mux.HandleFunc("/", s.handleNotFound)
}

// staticHandler lets browsers keep the CSS and script for an hour.
func staticHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		h.ServeHTTP(w, r)
	})
}

// middleware sets the security headers of every page and recovers panics
// into an error page.
func (s *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "web: panic", "path", r.URL.Path, "panic", v)
				s.renderError(w, r, &booking.Error{Code: booking.CodeInternal, Message: "internal error"})
			}
		}()
		// Every change a page makes is audited as its session's.
		if a := s.sessionOf(r).actor(); a.Role != "" {
			r = r.WithContext(booking.WithActor(r.Context(), a))
		}
		next.ServeHTTP(w, r)
	})
}

// storeCtx bounds one store call of a page.
func (s *server) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.storeTimeout)
}

func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.renderError(w, r, booking.Errorf(booking.CodeNotFound, "no such page"))
}

// errorCode is the code of err, with a timeout of a page's own read
// counted as unavailable (booking.Classify).
func errorCode(err error) booking.Code {
	if errors.Is(err, context.DeadlineExceeded) {
		err = service.Classify(context.Background(), err)
	}
	return booking.ErrorCode(err)
}

// safeNext returns next when it is a local path, else fallback, so that a
// sign-in link cannot redirect anywhere else.
func safeNext(next, fallback string) string {
	// A backslash is a slash to some browsers, and a control character or
	// broken UTF-8 has no business in a path: none of them may pass.
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsRune(next, '\\') || !utf8.ValidString(next) ||
		strings.IndexFunc(next, unicode.IsControl) >= 0 {
		return fallback
	}
	return next
}
