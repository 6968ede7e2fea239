// Package web is slotd's server-rendered user interface: patients choose a
// department, a doctor, a day and a slot and book it; they sign in with a
// one-time code sent to their phone; clinic staff manage the catalog,
// schedules, suspensions and a doctor's day, and watch a live dashboard
// during the rush.
//
// Pages are html/template files embedded with go:embed, one handler file per
// page (page_*.go). Every page works without JavaScript; static/app.js only
// adds a retrying booking button, the hold countdown and the dashboard's
// live refresh. Every change goes through booking.Service exactly like the
// JSON API (booking with one Idempotency-Key per rendered form, so a double
// submit or a browser retry of the same form is answered with the original
// booking); pages read through a booking.Reader.
//
// Security: sessions are short-lived JWTs minted by the auth.Signer in an
// HttpOnly, SameSite=Lax cookie (Secure under TLS); every POST form carries
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
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config wires the web UI to the domain.
type Config struct {
	// Service makes every change: bookings, cancellations, the catalog,
	// schedules, suspensions, staff transitions, payments (required).
	Service *booking.Service
	// Store serves the reads of the catalog and staff pages; the Service's
	// store when nil.
	Store booking.Reader
	// Accounts finds patients by phone, keeps sign-in codes and staff
	// passwords (required).
	Accounts accounts.Store
	// Signer mints and verifies session cookies (required). Keys for CSRF
	// tokens and code hashes are derived from its secret, so every instance
	// sharing the secret accepts every other's sessions and forms.
	Signer *auth.Signer
	// Notifier sends sign-in codes (Kind "login-code"); a log notifier when nil.
	Notifier notify.Notifier
	// Demo shows demo hints (sample phone numbers, the sign-in code on the
	// page) and the simulated payment page.
	Demo bool
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
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// SessionTTL is how long a sign-in lasts (default 12h).
	SessionTTL time.Duration
	// Calendar manages patients' calendar subscription links; without it
	// the calendar page is not found.
	Calendar CalendarLinks
}

// Defaults of Config.
const (
	DefaultSessionTTL = 12 * time.Hour
)

// server holds the wired dependencies of the pages.
type server struct {
	svc          *booking.Service
	store        booking.Reader
	accounts     accounts.Store
	signer       *auth.Signer
	notifier     notify.Notifier
	demo         bool
	paySecret    []byte
	stats        Stats
	log          *slog.Logger
	now          func() time.Time
	sessionTTL   time.Duration
	storeTimeout time.Duration
	calendar     CalendarLinks

	csrfKey  []byte // CSRF tokens
	codeKey  []byte // sign-in code hashes
	phoneKey []byte // phone keys of sign-in codes

	pages map[string]*template.Template
	mux   *http.ServeMux

	staffLimit *keyLimiter // staff sign-in attempts per user name
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
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Notifier == nil {
		cfg.Notifier = &notify.Log{Logger: cfg.Logger, ShowCodes: cfg.Demo}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Stats == nil {
		cfg.Stats = NewRecorder(cfg.Now)
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	s := &server{
		svc: cfg.Service, store: cfg.Store, accounts: cfg.Accounts, signer: cfg.Signer,
		notifier: cfg.Notifier, demo: cfg.Demo, paySecret: cfg.PaymentSecret,
		stats: cfg.Stats, log: cfg.Logger, now: cfg.Now, sessionTTL: cfg.SessionTTL, storeTimeout: cfg.Service.Timeout(),
		csrfKey:    cfg.Signer.DeriveKey("web-csrf"),
		codeKey:    cfg.Signer.DeriveKey("web-login-code"),
		phoneKey:   cfg.Signer.DeriveKey("web-login-phone"),
		mux:        http.NewServeMux(),
		staffLimit: newKeyLimiter(5, time.Minute),
		calendar:   cfg.Calendar,
	}
	s.pages = parsePages()
	s.routes()
	return s
}

// routes registers every page. Handlers are in page_*.go, one file a page.
func (s *server) routes() {
	static, _ := fs.Sub(staticFS, "static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(http.FileServerFS(static))))

	// Patients.
	s.mux.HandleFunc("GET /{$}", s.handleHome)
	s.mux.HandleFunc("GET /departments/{id}", s.handleDepartment)
	s.mux.HandleFunc("GET /doctors/{id}", s.handleDoctor)
	s.mux.HandleFunc("GET /doctors/{id}/days/{date}", s.handleDay)
	s.mux.HandleFunc("POST /book", s.handleBook)
	s.mux.HandleFunc("GET /appointments", s.handleAppointments)
	s.mux.HandleFunc("GET /appointments/{id}", s.handleAppointment)
	s.mux.HandleFunc("POST /appointments/{id}/cancel", s.handleCancel)
	s.mux.HandleFunc("GET /appointments/{id}/pay", s.handlePay)
	s.mux.HandleFunc("POST /appointments/{id}/pay", s.handlePaySubmit)
	s.mux.HandleFunc("GET /calendar", s.handleCalendar)
	s.mux.HandleFunc("POST /calendar", s.handleCalendarSubscribe)
	s.mux.HandleFunc("POST /calendar/revoke", s.handleCalendarRevoke)
	s.mux.HandleFunc("GET /signin", s.handleSignin)
	s.mux.HandleFunc("POST /signin", s.handleSigninPhone)
	s.mux.HandleFunc("POST /signin/verify", s.handleSigninVerify)
	s.mux.HandleFunc("POST /signout", s.handleSignout)

	// Staff.
	s.mux.HandleFunc("GET /staff/signin", s.handleStaffSignin)
	s.mux.HandleFunc("POST /staff/signin", s.handleStaffSigninSubmit)
	s.mux.HandleFunc("GET /staff", s.staff(s.handleStaffHome))
	s.mux.HandleFunc("POST /staff/departments", s.staff(s.handleStaffCreateDepartment))
	s.mux.HandleFunc("POST /staff/doctors", s.staff(s.handleStaffCreateDoctor))
	s.mux.HandleFunc("GET /staff/patients", s.staff(s.handleStaffPatients))
	s.mux.HandleFunc("POST /staff/patients", s.staff(s.handleStaffCreatePatient))
	s.mux.HandleFunc("GET /staff/doctors/{id}", s.staff(s.handleStaffDoctor))
	s.mux.HandleFunc("POST /staff/doctors/{id}/schedules", s.staff(s.handleStaffCreateSchedule))
	s.mux.HandleFunc("POST /staff/doctors/{id}/suspensions", s.staff(s.handleStaffSuspend))
	s.mux.HandleFunc("GET /staff/doctors/{id}/days/{date}", s.staff(s.handleStaffDay))
	s.mux.HandleFunc("POST /staff/appointments/{id}/status", s.staff(s.handleStaffTransition))
	s.mux.HandleFunc("GET /staff/dashboard", s.staff(s.handleStaffDashboard))

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
				s.log.Error("web: panic", "path", r.URL.Path, "panic", v)
				s.renderError(w, r, &booking.Error{Code: booking.CodeInternal, Message: "internal error"})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// storeCtx bounds one store call of a page.
func (s *server) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.storeTimeout)
}

// keyLimiter is a token bucket per key: burst n, refilled at n per window.
type keyLimiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// maxKeyBuckets bounds the memory of a keyLimiter.
const maxKeyBuckets = 100_000

func newKeyLimiter(n int, window time.Duration) *keyLimiter {
	return &keyLimiter{limit: rate.Limit(float64(n) / window.Seconds()), burst: n, buckets: map[string]*rate.Limiter{}}
}

// allow spends one attempt of key at now, or tells how long to wait.
func (l *keyLimiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok && len(l.buckets) >= maxKeyBuckets {
		// Forget only buckets that have refilled (their key is owed
		// nothing): flooding with new names must not reset a name under
		// attack. If none has, refuse the new name until one does.
		for k, x := range l.buckets {
			if x.TokensAt(now) >= float64(l.burst) {
				delete(l.buckets, k)
			}
		}
		if len(l.buckets) >= maxKeyBuckets {
			return false, time.Second
		}
	}
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	res := b.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.renderError(w, r, booking.Errorf(booking.CodeNotFound, "no such page"))
}

// errorCode is the code of err, with a timeout of a page's own read
// counted as unavailable (booking.Classify).
func errorCode(err error) booking.Code {
	if errors.Is(err, context.DeadlineExceeded) {
		err = booking.Classify(context.Background(), err)
	}
	return booking.ErrorCode(err)
}

// safeNext returns next when it is a local path, else fallback, so that a
// sign-in link cannot redirect anywhere else.
func safeNext(next, fallback string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n\t") {
		return fallback
	}
	return next
}
