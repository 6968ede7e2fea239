package main

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/jobs"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/web"
)

// serveFlags configure `slotd serve`.
type serveFlags struct {
	db          dbFlags
	addr        string
	demo        bool
	logFormat   string
	dbTimeout   time.Duration
	bookingRate int
	admitRate   int
	bookingPer  time.Duration
	reminders   string
	// reminderOffsets is reminders parsed, by check.
	reminderOffsets []time.Duration
	shutdownWait    time.Duration
	engine          string
	lanes           service.LaneOptions
	fullTTL         time.Duration
	listTTL         time.Duration
	bench           bool
	quietLog        bool
	metricsAddr     string

	// operations (deploy/)
	tlsCert, tlsKey string
	trustedProxies  string
	corsOrigins     string
	drain           time.Duration
	publicPerMinute int
	reconcileEvery  time.Duration
	codesPerAddress int
	codesPerMinute  int
	failuresPerDay  int
	signup          bool

	// notifications and payments
	notifier       string
	webhookURL     string
	webhookSecret  string
	webhookContact string
	smtpAddr       string
	smtpFrom       string
	smtpUser       string
	smtpPassword   string
	smtpRequireTLS optionalBool
	smtpImplicit   bool
	smsProvider    string
	twilio         twilioFlags
	// allowUndelivered acknowledges --notifier log outside --demo.
	allowUndelivered bool
	expiryInterval   time.Duration
	rescueAfter      time.Duration
	paymentSecret    string
	refundURL        string
	// payment provider (payments.go)
	paymentProvider     string
	stripeSecretKey     string
	stripeWebhookSecret string
	stripeAPIURL        string
	wechat              wechatFlags

	// staff sign-in
	staffTOTPRequired bool

	interop interopFlags
	locale  localeFlags
	cluster clusterFlags
}

// newServeFlagSet registers serve's flags into f.
func newServeFlagSet(f *serveFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f.db.register(fs)
	f.db.registerWarm(fs)
	f.db.registerAuth(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.BoolVar(&f.demo, "demo", false, "load a small demo data set into an empty database and print demo tokens")
	fs.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fs.DurationVar(&f.dbTimeout, "db-timeout", 5*time.Second, "longest wait for one database call before answering 503")
	fs.IntVar(&f.bookingRate, "booking-rate", 5, "booking attempts allowed per patient per --booking-window")
	fs.IntVar(&f.admitRate, "admit-rate", 20, "the least rate (a second) at which the waiting rooms admit while the lanes have room; above it admission follows the bookings answered")
	fs.DurationVar(&f.bookingPer, "booking-window", 10*time.Second, "window of the per-patient booking rate limit")
	fs.StringVar(&f.reminders, "reminders", "24h,2h", "offsets before a BOOKED appointment at which a reminder is sent (empty: none; a schedule may override)")
	fs.DurationVar(&f.shutdownWait, "shutdown-timeout", 15*time.Second, "how long to let requests finish on SIGINT/SIGTERM")
	fs.StringVar(&f.engine, "engine", service.EngineBatched, "booking engine: batched (group commit per slot) or direct (one transaction per request)")
	fs.IntVar(&f.lanes.MaxBatch, "batch-max", 128, "most booking requests decided in one transaction")
	fs.DurationVar(&f.lanes.MaxWait, "batch-wait", 0, "how long a lane waits for more requests before deciding (0: only what queued meanwhile)")
	fs.IntVar(&f.lanes.Depth, "batch-depth", 0, "batches of one slot decided at once (0: 2 on PostgreSQL, whose next batch waits for the row lock; 1 on SQLite, whose one writer serializes anyway)")
	fs.IntVar(&f.lanes.MaxQueue, "lane-queue", 1024, "requests waiting per slot before 503 overloaded")
	fs.IntVar(&f.lanes.MaxPending, "max-pending", 20000, "requests waiting in all lanes before 503 overloaded")
	fs.DurationVar(&f.fullTTL, "full-ttl", time.Second, "how long a slot found full is refused from memory")
	fs.DurationVar(&f.listTTL, "list-cache-ttl", httpapi.DefaultListCacheTTL, "how long slot lists are served from memory (negative: off)")
	fs.BoolVar(&f.bench, "bench-endpoints", false, "serve POST /bench/echo, the no-database ceiling for 'slotd rush --scenario echo'")
	fs.BoolVar(&f.quietLog, "quiet-access-log", false, "log only failed requests, not one line per request")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve /metrics and Go's /debug/pprof on this other address (e.g. 127.0.0.1:9090) instead of the public one")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve https with this PEM certificate (chain) file, reloaded on SIGHUP (with --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated CIDRs whose X-Forwarded-For/-Proto are believed (client address, https)")
	fs.StringVar(&f.corsOrigins, "cors-origins", "", "comma-separated origins (https://app.example) whose browser apps may call /api/")
	fs.DurationVar(&f.reconcileEvery, "reconcile-interval", 5*time.Minute, "how often the scheduled reconciliation (a job, no repair) checks the invariants and pending actions for the dashboard and slotd_reconciliation_issues")
	fs.DurationVar(&f.drain, "drain", 5*time.Second, "on SIGTERM, how long /readyz answers 503 before the listener closes")
	fs.IntVar(&f.publicPerMinute, "public-rate", 1200, "requests allowed per client address (an IPv6 client: its /64) per minute, one budget across the API's unauthenticated requests, /fhir/ without a token, /ical/ and web page GETs (0: no limit)")
	fs.IntVar(&f.codesPerAddress, "signin-codes-per-address", web.DefaultCodesPerAddress, "sign-in code requests allowed per client address per 15 minutes")
	fs.IntVar(&f.codesPerMinute, "signin-codes-per-minute", web.DefaultCodesPerMinute, "sign-in codes sent per minute in all (the SMS budget; only codes sent to registered phones spend it)")
	fs.IntVar(&f.failuresPerDay, "signin-failures-per-day", accounts.DefaultFailuresPerDay, "wrong sign-in codes allowed per day (UTC) in all, shared by every instance; beyond it every code check answers 429 until midnight UTC")
	fs.BoolVar(&f.signup, "signup", true, "patients may sign up themselves with a code sent to their phone or e-mail address; false: the clinic registers them, and the sign-up page says to call or visit (--clinic-phone, --clinic-address)")
	fs.StringVar(&f.notifier, "notifier", "", "how patients are notified besides --sms-provider: webhook, smtp, both (webhook,smtp), or log (delivers nothing: --demo or --allow-undelivered only); default log, none with --sms-provider")
	fs.StringVar(&f.smsProvider, "sms-provider", "", "SMS channel built in: twilio (with --twilio-account-sid, --twilio-auth-token, --twilio-from); any other gateway: --notifier webhook --webhook-contact phone")
	f.twilio.register(fs)
	fs.BoolVar(&f.allowUndelivered, "allow-undelivered", false, "start with --notifier log outside --demo: sign-in codes and messages then reach nobody (a test rig, a staff-only trial)")
	fs.StringVar(&f.webhookURL, "webhook-url", "", "webhook notifier: the receiver's http(s) URL")
	fs.StringVar(&f.webhookSecret, "webhook-secret", "", "webhook notifier: HMAC-SHA256 key signing each request")
	fs.StringVar(&f.webhookContact, "webhook-contact", "none", "webhook notifier: the contact data its receiver delivers to and is sent: none, phone (an SMS gateway), email (a mail gateway) or both")
	fs.StringVar(&f.smtpAddr, "smtp-addr", "", "smtp notifier: mail server host:port")
	fs.StringVar(&f.smtpFrom, "smtp-from", "", "smtp notifier: From address")
	fs.StringVar(&f.smtpUser, "smtp-user", "", "smtp notifier: AUTH PLAIN user (with --smtp-password)")
	fs.StringVar(&f.smtpPassword, "smtp-password", "", "smtp notifier: AUTH PLAIN password")
	fs.Var(&f.smtpRequireTLS, "smtp-require-tls", "smtp notifier: refuse to send unless the server offers STARTTLS or --smtp-implicit-tls (default: on, off for a loopback --smtp-addr)")
	fs.BoolVar(&f.smtpImplicit, "smtp-implicit-tls", false, "smtp notifier: speak TLS from the connection's start (SMTPS, usually port 465) instead of STARTTLS")
	fs.DurationVar(&f.expiryInterval, "expiry-interval", jobs.DefaultExpiryInterval, "how often unpaid holds past their deadline are expired")
	fs.DurationVar(&f.rescueAfter, "jobs-rescue-after", jobs.DefaultRescueAfter, "how long a job may run before it is taken for dead (its process killed) and retried; at least 1m and longer than the longest job (30m)")
	fs.BoolVar(&f.staffTOTPRequired, "staff-totp-required", false, "refuse the staff sign-in of admins without a second factor (enrol one with 'slotd staff-totp --user NAME'); doctors' accounts are not asked")
	fs.StringVar(&f.paymentSecret, "payment-secret", "", "HMAC-SHA256 key of the payment provider's callback signatures (callbacks are refused without it)")
	fs.StringVar(&f.refundURL, "payment-refund-url", "", "the payment gateway's http(s) URL that refunds are POSTed to, signed with --payment-secret (without it refunds fail after their attempts and wait for staff; the demo's simulated provider refunds at once)")
	f.registerPayments(fs)
	f.interop.register(fs)
	f.locale.register(fs)
	f.cluster.register(fs)
	return fs
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f serveFlags
	fs := newServeFlagSet(&f)
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := f.locale.check(); err != nil {
		return err
	}
	logger, err := newLogger(f.logFormat, stderr)
	if err != nil {
		return err
	}
	warnings, err := f.check()
	if err != nil {
		return err
	}
	for _, w := range warnings {
		logger.Warn(w.msg, "flag", w.flag)
	}
	proxies, err := edge.ParseProxies(f.trustedProxies)
	if err != nil {
		return err
	}
	build := readBuildInfo()
	tracing, err := edge.SetupTracing(ctx, build.Version, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tracing.Shutdown(context.Background()) }()
	if err := mkdirFor(f.db.url); err != nil {
		return err
	}
	signer, err := f.db.signer()
	if err != nil {
		return err
	}
	store, startJobs, err := f.db.openServing(ctx, f.cluster.events())
	if err != nil {
		return err
	}
	defer store.Close()
	// The clinic's settings `slotd init` kept fill the flags not set.
	if err := useClinicSettings(ctx, fs, store); err != nil {
		return err
	}
	if err := f.locale.check(); err != nil {
		return err
	}
	channels, err := f.newChannels(logger)
	if err != nil {
		return err
	}
	// The demo claims its database before anything else runs: on one that
	// holds real data it stops here, before a token is printed or the
	// demo's staff user exists.
	var demoFill bool
	if f.demo {
		if demoFill, err = claimDemo(ctx, store, dbKind(f.db.url)); err != nil {
			return err
		}
	}

	m := metrics.New()
	m.BuildInfo(build.Version, build.Revision, build.GoVersion)
	dash := web.NewRecorder(nil) // the web UI's rush dashboard
	shared, err := f.cluster.sharedState(&f, logger)
	if err != nil {
		return err
	}
	provider, err := f.newPaymentProvider()
	if err != nil {
		return err
	}
	opts := service.Options{
		Timeout: f.dbTimeout, Engine: f.engine, Lanes: f.lanes,
		Gates: service.GateOptions{FullTTL: f.fullTTL}, Observer: observers{m, dash}, BookingRate: f.bookingRate, BookingWindow: f.bookingPer,
		PhoneRegion: f.locale.phoneRegion, Reminders: f.reminderOffsets, StaffTOTPRequired: f.staffTOTPRequired,
		OnRefusedToken: m.TokenRefused, LoginKey: service.SigninPhoneKey(signer.DeriveKey(service.SigninPhoneKeyPurpose)),
		Payments: provider, Currency: f.locale.cur.Code,
		CheckInCodes: booking.NewCheckInCodes(signer.DeriveKey(booking.CheckInKeyPurpose)),
		WaitingRoom: service.WaitingRoomOptions{Tokens: booking.NewAdmissionTokens(signer.DeriveKey(booking.AdmissionKeyPurpose)),
			AdmitPerSecond: f.admitRate},
	}
	useShared(&opts, shared)
	svc := service.NewService(store, opts)
	if err := fillFirstSite(ctx, svc, f.interop, logger); err != nil {
		return err
	}
	// Every message, sign-in codes and the jobs' alike, records its delivery.
	deliveries := svc.Deliveries(service.DeliveriesOptions{Notifier: channels.notifier, Channels: channels.names, Observer: m, Logger: logger})
	m.MessageChannels(channels.names, service.MessageOutcomes)
	defer runShared(ctx, shared, svc, m)()
	stopEvents, err := f.cluster.runEvents(ctx, store, m, logger)
	if err != nil {
		return err
	}
	defer stopEvents()
	replica, err := f.db.openReplica(ctx, f.cluster.dbRead)
	if err != nil {
		return err
	}
	var listings booking.Reader = store
	if replica != nil {
		defer replica.Close()
		listings = replica
	}
	registerQueryCounters(m, store, replica)
	svc.Watch(dash.Changed)
	m.GaugeFunc("slotd_lane_queue_depth", "Booking requests waiting in the per-slot lanes.", func() float64 { return float64(svc.QueueDepth()) })
	m.WaitlistEntries(func() (map[string]int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return svc.WaitlistCounts(ctx)
	})
	registerPoolGauges(m, store)
	registerReconcileGauges(m, svc)
	// Jobs start before the first request: from then on every booking
	// writes its confirmation job in its own transaction.
	runner, err := startJobs(ctx, jobs.Config{
		Service: svc, Notifier: deliveries, Logger: logger,
		ExpiryInterval: f.expiryInterval, ReconcileInterval: f.reconcileEvery, RescueAfter: f.rescueAfter,
	})
	if err != nil {
		return err
	}
	registerJobGauges(m, runner, logger)
	// Deferred after store.Close, so it runs before it; and after the
	// HTTP server's shutdown below, so requests finish (and enqueue their
	// notifications) before the workers stop.
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), f.shutdownWait)
		defer cancel()
		if err := runner.Stop(sctx); err != nil {
			logger.Warn("stopping jobs", "err", err)
		}
		logger.Info("jobs stopped")
	}()
	// Round applications answered 202 are decided by this processor, also
	// those submitted on another instance or left pending by a crash. It
	// ends with ctx; what it had not decided stays PENDING in the database.
	// The store closes only after it has returned (defers run last first).
	pctx, stopProcessor := context.WithCancel(ctx)
	processorDone := make(chan struct{})
	go func() { defer close(processorDone); svc.RunRoundProcessor(pctx, 0) }()
	defer func() { stopProcessor(); <-processorDone }()
	// The waiting rooms draw and admit at every tick, on every instance
	// (the store lets one of them move an opening per tick).
	wctx, stopRooms := context.WithCancel(ctx)
	roomsDone := make(chan struct{})
	go func() { defer close(roomsDone); svc.RunWaitingRooms(wctx) }()
	defer func() { stopRooms(); <-roomsDone }()
	var draining atomic.Bool
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	scheme := "http"
	var certs *certReloader
	if f.tlsCert != "" {
		if certs, err = newCertReloader(f.tlsCert, f.tlsKey); err != nil {
			ln.Close()
			return err
		}
		ln = tls.NewListener(ln, certs.config())
		scheme = "https"
		go reloadOnHangup(ctx, certs, logger)
	}
	url := scheme + "://" + ln.Addr().String()
	if f.demo {
		if err := loadDemo(ctx, store, signer, url, demoFill, f.locale.language, stdout); err != nil {
			ln.Close()
			return err
		}
		if err := demoStaff(ctx, store, stdout); err != nil {
			ln.Close()
			return err
		}
	}
	inter, err := newInterop(f.interop, svc, store, signer, url, logger)
	if err != nil {
		ln.Close()
		return err
	}
	ictx, stopInterop := context.WithCancel(ctx)
	interopDone := make(chan struct{})
	go func() { defer close(interopDone); inter.run(ictx) }()
	defer func() { stopInterop(); <-interopDone }()
	if f.paymentSecret == "" && f.demo {
		// The demo pays on its simulated provider page, so only the API's callback is off.
		logger.Info("demo: held appointments are paid on the simulated payment page; a real provider's callbacks need --payment-secret")
	}
	handler := frontDoor(&f, frontParts{
		svc: svc, store: store, listings: listings, signer: signer, deliveries: deliveries, logger: logger, metrics: m, dash: dash,
		inter: inter, proxies: proxies, tracing: tracing, draining: draining.Load,
	})
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("slotd listening", "url", url, "db", dbKind(f.db.url), "engine", f.engine)
	if f.metricsAddr != "" {
		go serveMetrics(f.metricsAddr, m, logger)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Not ready any more, but still serving: the load balancer sees the
	// 503 and stops sending before the listener closes.
	draining.Store(true)
	logger.Info("draining: /readyz answers 503", "drain", f.drain)
	select {
	case <-time.After(f.drain):
	case err := <-errc:
		return err
	}
	logger.Info("shutting down: letting requests finish", "timeout", f.shutdownWait)
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownWait)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// errDemoRefused is the start of --demo's refusal of a database holding
// real data.
const errDemoRefused = "--demo refuses a database that holds real data"

// claimDemo lets --demo use only an empty database, which it marks as the
// demo's, or one it marked before (booking.DecideDemo); fill says the
// database was empty. db names the database for the message.
func claimDemo(ctx context.Context, store booking.DemoStore, db string) (fill bool, err error) {
	fill, err = store.ClaimDemo(ctx)
	if booking.ErrorCode(err) == booking.CodeConflict {
		return false, fmt.Errorf("%s: %s holds departments, doctors, patients, slots or staff users that the demo did not load "+
			"(it has no demo marker); the demo's printed admin tokens and its staff user with a well-known password "+
			"must never reach a clinic's data. Start without --demo, or give --demo an empty database", errDemoRefused, db)
	}
	if err != nil {
		return false, fmt.Errorf("--demo: %w", err)
	}
	return fill, nil
}

// loadDemo fills a database claimDemo found empty (or a demo database
// left empty) with a small sample and prints how to use it: the URL and a
// demo admin and patient token. Only a demo database gets here.
func loadDemo(ctx context.Context, store booking.Store, signer *auth.Signer, url string, fill bool, lang string, stdout io.Writer) error {
	depts, err := store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return err
	}
	var patientID int64 = 1
	if fill || len(depts) == 0 {
		sum, err := demo.Load(ctx, store, demo.Options{Doctors: 12, Days: 14, Patients: 20, Language: lang})
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		patientID = sum.FirstPatientID
		if err := demo.Showcase(ctx, store, lang); err != nil {
			return fmt.Errorf("demo profiles and services: %w", err)
		}
		fmt.Fprintf(stdout, "demo data: %d doctors, %d slots, %d patients\n", sum.Doctors, sum.Slots, sum.Patients)
	}
	admin, err := signer.Mint(auth.RoleAdmin, "demo-admin", 7*24*time.Hour)
	if err != nil {
		return err
	}
	patient, err := signer.Mint(auth.RolePatient, strconv.FormatInt(patientID, 10), 7*24*time.Hour)
	if err != nil {
		return err
	}
	// Shell lines, so that the README's examples run as pasted.
	fmt.Fprintf(stdout, "\nslotd demo is running at %s\n\nfor the API, paste into a shell (the README's examples use them):\n"+
		"export B=%s\nexport ADMIN_TOKEN=%s\nexport PATIENT_TOKEN=%s   # patient %d\n\ntry: curl $B/api/doctors\n\n",
		url, url, admin, patient, patientID)
	return nil
}

// newLogger logs in format to w, every line of a request with its request
// and trace ids (edge.LogHandler).
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(edge.LogHandler(slog.NewTextHandler(w, nil))), nil
	case "json":
		return slog.New(edge.LogHandler(slog.NewJSONHandler(w, nil))), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json")
}

// dbKind names the database without its credentials, for logs.
func dbKind(url string) string {
	if isPostgres(url) {
		return "postgres"
	}
	return "sqlite:" + sqlitePath(url)
}

// poolStats is a store's connection pool use in database/sql's terms
// (PostgreSQL: its pool; SQLite: its single writer connection).
type poolStats interface {
	PoolStats() sql.DBStats
}

// registerPoolGauges exposes the database connection pool's use.
func registerPoolGauges(m *metrics.Metrics, p poolStats) {
	m.GaugeFunc("slotd_db_pool_acquired_conns", "Database connections in use (SQLite: its single writer).", func() float64 { return float64(p.PoolStats().InUse) })
	m.GaugeFunc("slotd_db_pool_idle_conns", "Database connections idle.", func() float64 { return float64(p.PoolStats().Idle) })
	m.GaugeFunc("slotd_db_pool_max_conns", "Database pool size (SQLite: the writer, 1).", func() float64 { return float64(p.PoolStats().MaxOpenConnections) })
	m.CounterFunc("slotd_db_pool_wait_seconds_total", "Time spent waiting for a busy database connection.", func() float64 { return p.PoolStats().WaitDuration.Seconds() })
}

// serveMetrics serves /metrics and the profiler on their own listener,
// so that neither is exposed on the public address.
func serveMetrics(addr string, m *metrics.Metrics, logger *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	logger.Info("metrics and pprof listening", "addr", addr)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("metrics listener", "err", err)
	}
}

// withoutMetrics hides the public /metrics when --metrics-addr serves it.
func withoutMetrics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// reloadOnHangup reloads the TLS certificate on every SIGHUP until ctx ends.
func reloadOnHangup(ctx context.Context, certs *certReloader, logger *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := certs.reload(); err != nil {
				logger.Error("SIGHUP: keeping the old TLS certificate", "err", err)
				continue
			}
			logger.Info("SIGHUP: TLS certificate reloaded")
		}
	}
}

// optionalBool is a boolean flag that knows whether it was given (on the
// command line or by its environment variable), for a default that depends
// on other flags.
type optionalBool struct {
	set, value bool
}

func (b *optionalBool) String() string {
	if b == nil || !b.set {
		return ""
	}
	return strconv.FormatBool(b.value)
}

func (b *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.set, b.value = true, v
	return nil
}

// IsBoolFlag lets the flag stand alone ("--smtp-require-tls").
func (b *optionalBool) IsBoolFlag() bool { return true }

// or is the value given, else def.
func (b optionalBool) or(def bool) bool {
	if b.set {
		return b.value
	}
	return def
}

// splitList reads a comma-separated flag value.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
