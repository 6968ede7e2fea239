package main

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/web"
)

// frontParts are what the handlers of `serve` are built from.
type frontParts struct {
	svc      *service.Service
	store    store
	listings booking.Reader // slot lists and availability (--db-read)
	signer   *auth.Signer
	// deliveries sends every message and records its delivery.
	deliveries *service.Deliveries
	logger     *slog.Logger
	metrics    *metrics.Metrics
	dash       *web.Recorder
	inter      interop
	proxies    edge.Proxies
	tracing    *edge.Tracing
	draining   func() bool
}

// frontDoor is the path of every request, outermost first: the server
// span and the proxies' word (edge), FHIR and iCal, the web UI beside the
// API's paths, CORS, the API. A benchmark serves requests through it.
//
// One per-address limiter (--public-rate) is shared by every front end,
// so an address's requests to the API, FHIR, iCal and the pages spend one
// bucket: the API's unauthenticated requests, FHIR requests without a
// valid bearer token, every iCal feed request and every page GET (the
// static assets aside).
func frontDoor(f *serveFlags, p frontParts) http.Handler {
	perAddr := edge.NewAddrLimiter(f.publicPerMinute, time.Minute, nil)
	// One sign-in for the pages and the API: one set of limits per process
	// (the day's wrong codes are the database's, shared by every instance).
	so := service.SigninOptions{
		Accounts: p.store, Demo: f.demo,
		PhoneKey: p.signer.DeriveKey(service.SigninPhoneKeyPurpose), CodeKey: p.signer.DeriveKey(service.SigninCodeKeyPurpose),
		CodesPerAddress: f.codesPerAddress, CodesPerMinute: f.codesPerMinute, FailuresPerDay: f.failuresPerDay, Logger: p.logger,
		SignupOff: !f.signup,
	}
	if p.deliveries != nil {
		so.Notifier = p.deliveries
	} else {
		so.Notifier = &notify.Log{Logger: p.logger, ShowCodes: f.demo}
	}
	if p.metrics != nil {
		so.Observer, so.SignupObserver = p.metrics, p.metrics
	}
	signin := p.svc.NewSignin(so)
	var handler http.Handler = httpapi.New(httpapi.Config{
		Service: p.svc, Store: p.store, Listings: p.listings, Signer: p.signer, Logger: p.logger,
		Metrics: p.metrics, ListCacheTTL: f.listTTL, BenchEndpoints: f.bench, QuietAccessLog: f.quietLog,
		PerAddress: perAddr, Draining: p.draining,
		ClinicZone: f.interop.clinicZone, Signin: signin,
		Deliveries: p.deliveries, TwilioAuthToken: f.twilio.authToken, TwilioCallbackURL: f.twilioCallback(),
	})
	handler = edge.CORS(splitList(f.corsOrigins), handler)
	// One mux routes to the API, FHIR, iCal and the web UI: each mux on
	// the way was a routing pass and allocations per request.
	mux := http.NewServeMux()
	withWeb(mux, handler, observed(perAddr.Limit(web.New(web.Config{
		Service: p.svc, Store: p.store, Listings: p.listings, Accounts: p.store, Signer: p.signer, Notifier: so.Notifier, Demo: f.demo,
		PaymentSecret: []byte(f.paymentSecret), PublicURL: f.interop.publicURL, Stats: p.dash, Logger: p.logger,
		Calendar: p.inter.ical, AppointmentICS: p.inter.ical,
		Signin:          signin,
		DefaultLanguage: f.locale.language, Currency: f.locale.cur, ClinicZone: f.interop.clinicZone, Place: f.interop.clinicAddress,
		ClinicPhone:  f.interop.clinicPhone,
		CodeChannels: f.codeChannelNames(), Deliveries: p.deliveries,
	}), pageGET, httpapi.WriteAddrLimited), p.metrics, p.logger, f.quietLog))
	p.inter.mount(mux, perAddr, p.signer, p.metrics, p.logger, f.quietLog)
	handler = mux
	if f.metricsAddr != "" {
		handler = withoutMetrics(handler)
	}
	return p.tracing.Handler(p.proxies.Handler(handler))
}

// pageGET is what the per-address limit counts of the web UI: page
// reads. Its forms have their own limits (sign-in), and the static assets
// a page loads are not requests of their own to bound.
func pageGET(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, "/static/")
}
