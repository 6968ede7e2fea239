// Package httpapi is slotd's JSON API: routes on a Go 1.22 ServeMux,
// bearer-token authentication, the per-patient booking rate limit, one
// problem+json table for every error, and the OpenAPI document that
// describes it all.
//
// Handlers only translate: they validate input, call the service.Service
// for every change (or read through a booking.Reader), and render the
// answer. Bad input is always a 4xx; a 5xx means the database is down (503)
// or a bug (500, logged, generic detail).
package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// Config wires the API to the domain.
type Config struct {
	// Service makes every change: bookings, cancellations, the catalog,
	// payments, staff transitions, rounds.
	Service *service.Service
	// Store serves the reads of the catalog and admin endpoints; when nil
	// the Service's store is read.
	Store booking.Reader
	// Listings serves the slot lists and availability, which may lag (a
	// read replica, --db-read); Store when nil.
	Listings booking.Reader
	// Signer verifies bearer tokens.
	Signer *auth.Signer
	// Logger receives one line per request; slog.Default() when nil.
	Logger *slog.Logger
	// MaxBodyBytes bounds request bodies (default 16 KiB).
	MaxBodyBytes int64
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Metrics records every request and serves GET /metrics; a private
	// registry is used when nil.
	Metrics *metrics.Metrics
	// ListCacheTTL is how long a doctor's day of slots is served from memory
	// (default 2s; the spec allows a few seconds of staleness). This
	// instance's own bookings, cancels and expiries drop the entry at once.
	// Negative disables the cache.
	ListCacheTTL time.Duration
	// QuietAccessLog logs only failed (5xx) requests instead of every one.
	QuietAccessLog bool
	// BenchEndpoints adds POST /bench/echo, a handler that decodes a small
	// JSON body and answers JSON without touching the database: the ceiling
	// the booking path is measured against. Off in production.
	BenchEndpoints bool
	// Clinic serves the doctors' days, the exports and the import's patient
	// lookups; the Store's when nil and it implements ClinicReads.
	Clinic ClinicReads
	// PublicPerMinute bounds the unauthenticated requests of one client
	// address (edge.ClientAddr) per minute; 0 is no bound. Probes and the
	// documents (/healthz, /readyz, /openapi.json, /problems/) are exempt.
	// PerAddress, when set, is that limit shared with the other front ends
	// (cmd/slotd makes one for all) and PublicPerMinute is not read.
	PublicPerMinute int
	PerAddress      *edge.AddrLimiter
	// Draining, when it reports true, makes /readyz answer 503 so that a
	// load balancer stops sending requests before the listener closes.
	Draining func() bool
	// ClinicZone is the clinic's IANA zone, in which a problem's sentence
	// names a time ("booking for this slot opens at …"); UTC when empty.
	ClinicZone string
	// Signin serves POST /api/signin/code and /api/signin/verify (the
	// web pages' own), and the sign-up, POST /api/signup/code and
	// /api/signup; they answer not-found without it.
	Signin *service.Signin
	// Deliveries records the messages' deliveries: it serves the
	// channels of /readyz and applies Twilio's status callbacks.
	Deliveries *service.Deliveries
	// TwilioAuthToken and TwilioCallbackURL (the full URL Twilio was given
	// as StatusCallback, which it signs) verify POST
	// /api/sms/twilio/status; without both it answers not-found.
	TwilioAuthToken   string
	TwilioCallbackURL string
	// SigninTokenTTL is the life of the token /api/signin/verify answers
	// (DefaultSigninTokenTTL).
	SigninTokenTTL time.Duration
}

// Defaults of Config.
const (
	DefaultMaxBodyBytes = 16 << 10
	DefaultListCacheTTL = 2 * time.Second
)

// server holds the wired dependencies of the handlers.
type server struct {
	svc          *service.Service
	store        booking.Reader
	listings     booking.Reader // slot lists and availability (Config.Listings)
	signer       *auth.Signer
	log          *slog.Logger
	now          func() time.Time
	maxBody      int64
	storeTimeout time.Duration
	metrics      *metrics.Metrics
	lists        *listCache
	avail        *listCache // first-available answers by service (availability.go)
	quietLog     bool
	bench        bool
	mux          *http.ServeMux
	patterns     []string
	clinic       ClinicReads
	// perAddr limits unauthenticated requests per client address (nil: off).
	perAddr   *edge.AddrLimiter
	draining  func() bool
	zone      *time.Location // the clinic's, for the times in problem sentences
	signin    *service.Signin
	signinTTL time.Duration
	// deliveries, twilioToken and twilioURL: Config's.
	deliveries  *service.Deliveries
	twilioToken string
	twilioURL   string
}

// New returns the API handler. It panics when Service or Signer is missing,
// since that is a wiring bug that no request could survive.
func New(cfg Config) http.Handler {
	s := newServer(cfg)
	return s.middleware(http.HandlerFunc(s.dispatch))
}

// newServer applies the defaults of cfg and registers the routes.
func newServer(cfg Config) *server {
	if cfg.Service == nil || cfg.Signer == nil {
		panic("httpapi: Config.Service and Config.Signer are required")
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
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	if cfg.ListCacheTTL == 0 {
		cfg.ListCacheTTL = DefaultListCacheTTL
	}
	s := &server{
		svc:          cfg.Service,
		store:        cfg.Store,
		listings:     cfg.Listings,
		signer:       cfg.Signer,
		log:          cfg.Logger,
		now:          cfg.Now,
		maxBody:      cfg.MaxBodyBytes,
		storeTimeout: cfg.Service.Timeout(), // the Service owns the bound of every database call
		metrics:      cfg.Metrics,
		lists:        newListCache(cfg.ListCacheTTL),
		avail:        newListCache(cfg.ListCacheTTL),
		quietLog:     cfg.QuietAccessLog,
		bench:        cfg.BenchEndpoints,
		mux:          http.NewServeMux(),
		clinic:       cfg.Clinic,
		draining:     cfg.Draining,
		signin:       cfg.Signin,
		signinTTL:    cfg.SigninTokenTTL,
		deliveries:   cfg.Deliveries,
		twilioToken:  cfg.TwilioAuthToken,
		twilioURL:    cfg.TwilioCallbackURL,
	}
	if s.signinTTL <= 0 {
		s.signinTTL = DefaultSigninTokenTTL
	}
	if s.clinic == nil {
		s.clinic, _ = cfg.Store.(ClinicReads)
	}
	s.zone = time.UTC
	if loc, err := time.LoadLocation(cfg.ClinicZone); err == nil && cfg.ClinicZone != "" {
		s.zone = loc
	}
	s.perAddr = cfg.PerAddress
	if s.perAddr == nil {
		s.perAddr = edge.NewAddrLimiter(cfg.PublicPerMinute, time.Minute, s.now)
	}
	cfg.Service.Watch(func(c service.Change) { s.lists.drop(c.DoctorID) })
	s.routes()
	return s
}

// routes registers every endpoint; the OpenAPI document lists the same set
// and a test compares the two.
func (s *server) routes() {
	// Operations.
	s.handle("GET /healthz", s.unlimited(s.healthz))
	s.handle("GET /readyz", s.unlimited(s.readyz))
	s.handle("GET /openapi.json", s.unlimited(s.openapi))
	s.handle("GET /problems/{code}", s.unlimited(s.problemDoc))
	s.handle("GET /metrics", s.metrics.Handler())
	if s.bench {
		s.handle("POST /bench/echo", s.public(s.benchEcho))
	}

	// Public catalog.
	s.handle("GET /api/departments", s.public(s.listDepartments))
	s.handle("GET /api/doctors", s.public(s.listDoctors))
	s.handle("GET /api/doctors/{id}", s.public(s.getDoctor))
	s.handle("GET /api/doctors/{id}/slots", s.public(s.listSlots))
	s.handle("GET /api/doctors/{id}/photo", s.public(s.getDoctorPhoto))
	s.handle("GET /api/search", s.public(s.search))
	s.handle("GET /api/doctors/{id}/availability", s.public(s.availability))
	s.handle("GET /api/slots/{id}", s.public(s.getSlot))
	s.handle("GET /api/services", s.public(s.listServices))
	s.handle("GET /api/sites", s.public(s.listSites))
	s.handle("GET /api/services/{id}", s.public(s.getService))
	s.handle("GET /api/availability", s.public(s.firstAvailable))
	s.handle("GET /api/dose-series", s.public(s.listDoseSeries))

	// Admin.
	s.handle("POST /api/admin/departments", s.admin(s.createDepartment))
	s.handle("GET /api/admin/departments", s.admin(s.listAllDepartments))
	s.handle("POST /api/admin/doctors", s.admin(s.createDoctor))
	s.handle("GET /api/admin/doctors", s.desk(s.listAllDoctors))
	s.handle("POST /api/admin/services", s.admin(s.createService))
	s.handle("GET /api/admin/services", s.admin(s.listAllServices))
	s.handle("PATCH /api/admin/services/{id}", s.admin(s.updateService))
	s.handle("POST /api/admin/sites", s.admin(s.createSite))
	s.handle("PATCH /api/admin/sites/{id}", s.admin(s.updateSite))
	s.handle("GET /api/admin/staff/{name}/sites", s.admin(s.staffSites))
	s.handle("PUT /api/admin/staff/{name}/sites", s.admin(s.setStaffSites))
	s.handle("GET /api/admin/sites/{id}/standby-policy", s.admin(s.getStandbyPolicy))
	s.handle("PUT /api/admin/sites/{id}/standby-policy", s.admin(s.putStandbyPolicy))
	s.handle("GET /api/admin/sites/{id}/standby/{date}", s.desk(s.standbyDay))
	s.handle("POST /api/admin/patients", s.desk(s.createPatient))
	s.handle("GET /api/admin/patients", s.desk(s.findPatients))
	s.handle("GET /api/admin/patients/{id}", s.desk(s.getPatient))
	s.handle("DELETE /api/admin/patients/{id}", s.admin(s.erasePatient))
	s.handle("GET /api/admin/patients/{id}/data", s.admin(s.patientData))
	s.handle("GET /api/admin/patients/{id}/messages", s.admin(s.patientMessages))
	s.handle("POST /api/admin/doctors/{id}/schedules", s.admin(s.createSchedule))
	s.handle("GET /api/admin/doctors/{id}/schedules", s.admin(s.listSchedules))
	s.handle("POST /api/admin/doctors/{id}/slots/generate", s.admin(s.generateSlots))
	s.handle("POST /api/admin/slots", s.admin(s.createSlot))
	s.handle("PATCH /api/admin/slots/{id}", s.admin(s.updateSlot))
	s.handle("POST /api/admin/slots/{id}/walk-ins", s.desk(s.addWalkIn))
	s.handle("POST /api/admin/doctors/{id}/suspensions", s.admin(s.suspend))
	s.handle("POST /api/admin/appointments/{id}/complete", s.admin(s.complete))
	s.handle("POST /api/admin/appointments/{id}/no-show", s.admin(s.noShow))
	s.handle("GET /api/admin/reconciliation", s.admin(s.reconciliation))
	s.handle("POST /api/admin/dose-series", s.admin(s.createDoseSeries))
	s.handle("GET /api/admin/refunds", s.admin(s.listRefunds))
	s.handle("POST /api/admin/refunds/{id}/retry", s.admin(s.retryRefund))

	// Running a clinic (docs/clinic.md): editing, policies, closures.
	s.handle("PATCH /api/admin/departments/{id}", s.admin(s.updateDepartment))
	s.handle("PATCH /api/admin/doctors/{id}", s.admin(s.updateDoctor))
	s.handle("PUT /api/admin/doctors/{id}/photo", s.admin(s.putDoctorPhoto))
	s.handle("PATCH /api/admin/patients/{id}", s.admin(s.updatePatient))
	s.handle("PUT /api/admin/schedules/{id}", s.admin(s.updateSchedule))
	s.handle("GET /api/admin/policy", s.admin(s.getPolicy))
	s.handle("PUT /api/admin/policy", s.admin(s.setPolicy))
	s.handle("POST /api/admin/closures", s.admin(s.createClosure))
	s.handle("GET /api/admin/suspensions", s.admin(s.listSuspensions))
	s.handle("POST /api/admin/suspensions/{id}/lift", s.admin(s.liftSuspension))

	// Patients' sign-in with a one-time code: public, limited per address,
	// phone and clinic by the Signin.
	s.handle("POST /api/signin/code", s.public(s.signinCode))
	s.handle("POST /api/signin/verify", s.public(s.signinVerify))
	// Sign-up with the same codes and limits (signup.go).
	s.handle("POST /api/signup/code", s.public(s.signupCode))
	s.handle("POST /api/signup", s.public(s.signup))

	// The payment provider: authenticated by its signature, not a token.
	s.handle("POST /api/payments/callback", s.public(s.paymentCallback))
	// Twilio's status callbacks: authenticated by X-Twilio-Signature.
	s.handle("POST "+TwilioStatusPath, s.public(s.twilioStatus))
	// Stripe's webhooks: authenticated by Stripe-Signature.
	s.handle("POST /api/payments/stripe", s.public(s.stripeWebhook))
	// WeChat Pay's notifications: authenticated by the Wechatpay-* headers.
	s.handle("POST /api/payments/wechat", s.public(s.wechatNotify))

	// Patients (and admins acting for them).
	s.handle("POST /api/appointments", s.authed(s.book))
	s.handle("GET /api/appointments/{id}", s.authed(s.getAppointment))
	s.handle("DELETE /api/appointments/{id}", s.authed(s.cancel))
	s.handle("POST /api/appointments/{id}/checkout", s.authed(s.checkout))
	s.handle("GET /api/me/appointments", s.authed(s.myAppointments))
	s.handle("GET /api/me/people", s.authed(s.myPeople))
	s.handle("POST /api/me/people", s.authed(s.addPerson))
	s.handle("PATCH /api/me/people/{id}", s.authed(s.updatePerson))
	s.handle("DELETE /api/me/people/{id}", s.authed(s.removePerson))
	s.handle("GET /api/me/data", s.authed(s.myData))
	s.handle("POST /api/signout", s.authed(s.signOut))
	s.handle("POST /api/appointments/{id}/reschedule", s.authed(s.reschedule))
	s.handle("POST /api/series-bookings", s.authed(s.bookSeries))
	s.handle("POST /api/series-bookings/{id}/doses", s.authed(s.bookNextDose))
	s.handle("GET /api/me/series-bookings", s.authed(s.mySeriesBookings))
	s.handle("POST /api/group-bookings", s.authed(s.bookGroup))
	s.handle("POST /api/appointments/{id}/check-in", s.authed(s.checkIn))
	s.handle("GET /api/appointments/{id}/queue", s.authed(s.queuePosition))
	s.handle("POST /api/admin/doctors/{id}/queue/call", s.authed(s.queueCall))
	s.handle("POST /api/admin/appointments/{id}/recall", s.authed(s.queueStep(booking.QueueActionRecall)))
	s.handle("POST /api/admin/appointments/{id}/skip", s.authed(s.queueStep(booking.QueueActionSkip)))
	s.handle("POST /api/admin/appointments/{id}/start", s.authed(s.queueStep(booking.QueueActionStart)))
	s.handle("POST /api/waitlist", s.authed(s.joinWaitlist))
	s.handle("GET /api/me/waitlist", s.authed(s.myEntries(s.svc.Waitlist)))
	s.handle("DELETE /api/waitlist/{id}", s.authed(s.leaveEntry(s.svc.LeaveWaitlist)))
	s.handle("POST /api/waitlist/{id}/accept", s.authed(s.answerOffer(true)))
	s.handle("POST /api/waitlist/{id}/decline", s.authed(s.answerOffer(false)))
	s.handle("POST /api/standby", s.authed(s.joinStandby))
	s.handle("GET /api/me/standby", s.authed(s.myEntries(s.svc.Standbys)))
	s.handle("DELETE /api/standby/{id}", s.authed(s.leaveEntry(s.svc.LeaveStandby)))
	s.handle("GET /api/admin/doctors/{id}/offers", s.admin(s.doctorOffers))

	// Rounds (docs/clinic.md, rounds): admin preparation and results, public listings,
	// applications and their polls.
	s.handle("POST /api/admin/rooms", s.admin(s.createRoom))
	s.handle("POST /api/admin/rounds", s.admin(s.createRound))
	s.handle("POST /api/admin/rounds/{id}/slots", s.admin(s.addRoundSlots))
	s.handle("POST /api/admin/rounds/{id}/open", s.admin(s.openRound))
	s.handle("POST /api/admin/rounds/{id}/close", s.admin(s.closeRound))
	s.handle("GET /api/admin/rounds/{id}/results", s.admin(s.roundResults))
	s.handle("GET /api/rounds/{id}", s.public(s.getRound))
	s.handle("GET /api/rounds/{id}/slots", s.public(s.listRoundSlots))
	s.handle("POST /api/rounds/{id}/applications", s.authed(s.apply))
	s.handle("GET /api/rounds/{id}/applications/{appId}", s.authed(s.getApplication))
	// Lottery rounds (docs/clinic.md, lottery rounds).
	s.handle("POST /api/rounds/{id}/registration", s.authed(s.register))
	s.handle("GET /api/rounds/{id}/registration", s.authed(s.myRegistration))
	s.handle("GET /api/rounds/{id}/draw", s.public(s.getDraw))
	s.handle("POST /api/admin/rounds/{id}/draw", s.admin(s.drawRound))
	s.handle("GET /api/admin/rounds/{id}/registrations", s.admin(s.roundRegistrations))
	// Waiting rooms (docs/clinic.md, waiting rooms).
	s.handle("POST /api/admin/openings", s.admin(s.announceOpening))
	s.handle("GET /api/admin/openings/{id}/report", s.admin(s.openingReport))
	s.handle("GET /api/openings", s.public(s.listOpenings))
	s.handle("GET /api/openings/{id}", s.public(s.getOpening))
	s.handle("GET /api/openings/{id}/draw", s.public(s.openingDraw))
	s.handle("GET /api/openings/{id}/summary", s.public(s.openingSummary))
	s.handle("POST /api/openings/{id}/queue", s.authed(s.joinOpening))
	s.handle("GET /api/openings/{id}/queue", s.authed(s.myPlace))
	s.handle("GET /api/openings/{id}/queue/events", s.authed(s.placeEvents))

	s.clinicRoutes()
	s.eligibilityRoutes()
}

func (s *server) handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
	s.patterns = append(s.patterns, pattern)
}

// dispatch serves the request through the mux, answering unknown paths and
// wrong methods with problem+json instead of the mux's plain text.
func (s *server) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// The mux's own answer tells 404 from 405 (and carries Allow); run it
	// against a throw-away writer and re-render it as a problem.
	rec := &statusRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	switch rec.status {
	case http.StatusMethodNotAllowed:
		if allow := rec.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		writeProblem(w, booking.Errorf(booking.CodeMethodNotAllowed, "method %s is not allowed here", r.Method), problem.Status(booking.CodeMethodNotAllowed))
	case http.StatusBadRequest:
		writeProblem(w, booking.Errorf(booking.CodeInvalidRequest, "bad request"), problem.Status(booking.CodeInvalidRequest))
	default:
		writeProblem(w, booking.Errorf(booking.CodeNotFound, "no such resource"), problem.Status(booking.CodeNotFound))
	}
}

// statusRecorder captures the status and headers of the mux's fallback
// answers; the body is discarded.
type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header { return r.header }
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return len(b), nil
}
func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

// handlerFunc is a handler that returns its error for the common renderer;
// c is the verified caller (zero for public routes).
type handlerFunc func(w http.ResponseWriter, r *http.Request, c auth.Claims) error

// public serves h without authentication, within the per-address limit
// of unauthenticated callers (a caller with a valid token is not counted:
// patients of one clinic network share an address).
func (s *server) public(h handlerFunc) http.Handler {
	return s.unlimited(func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		if s.perAddr != nil {
			if _, err := s.authenticate(r); err != nil {
				if ok, wait := s.perAddr.Allow(r); !ok {
					return addrLimited(wait)
				}
			}
		}
		return h(w, r, c)
	})
}

// unlimited serves h without authentication or limit: probes and documents.
func (s *server) unlimited(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r, auth.Claims{}); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// authed serves h to any caller with a valid token; h checks the role.
// Every change h makes is audited as the token's (booking.WithActor).
func (s *server) authed(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.authenticate(r)
		if err == nil {
			r = r.WithContext(booking.WithActor(r.Context(), actorOf(c)))
			err = h(w, r, c)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// desk serves h to the front desk (booking.Desk: reception and admins).
func (s *server) desk(h handlerFunc) http.Handler {
	return s.authed(func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		if !booking.Desk(string(c.Role)) {
			return errorf(booking.CodeForbidden, "this operation requires the reception or admin role")
		}
		return h(w, r, c)
	})
}

// admin serves h to admins only.
func (s *server) admin(h handlerFunc) http.Handler {
	return s.authed(func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		if c.Role != auth.RoleAdmin {
			return errorf(booking.CodeForbidden, "this operation requires the admin role")
		}
		return h(w, r, c)
	})
}

// storeCtx bounds a read so that a database that hangs is answered with
// 503 instead of holding the request.
func (s *server) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.storeTimeout)
}

// storeErr classifies an error of a read made under ctx, as the Service
// classifies its own.
func storeErr(ctx context.Context, err error) error { return service.Classify(ctx, err) }

// writeJSON answers v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
