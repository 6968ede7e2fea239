package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/fhir"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/ical"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/service"
)

// interopFlags configure the FHIR and iCalendar interfaces of `serve`.
type interopFlags struct {
	publicURL     string
	clinicName    string
	clinicPhone   string
	clinicAddress string
	clinicZone    string
}

func (f *interopFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.publicURL, "public-url", "", "the service's external base URL, for FHIR, bulk-publish and calendar links (default: the listen URL)")
	fs.StringVar(&f.clinicName, "clinic-name", "slotd clinic", "the clinic's name (FHIR Location)")
	fs.StringVar(&f.clinicPhone, "clinic-phone", "", "the clinic's booking phone number (FHIR Location, SMART booking-phone)")
	fs.StringVar(&f.clinicAddress, "clinic-address", "", "the clinic's postal address, one line (FHIR Location)")
	fs.StringVar(&f.clinicZone, "clinic-timezone", "Europe/Paris", "IANA zone of dates without a time in FHIR appointment searches and $find")
}

// interop is the FHIR and iCalendar handlers.
type interop struct {
	fhir *fhir.Handler
	ical *ical.Handler
}

// newInterop builds the handlers; listenURL stands in for --public-url.
func newInterop(f interopFlags, svc *service.Service, store booking.Store, signer *auth.Signer, listenURL string, logger *slog.Logger) (interop, error) {
	zone, err := time.LoadLocation(f.clinicZone)
	if err != nil {
		return interop{}, fmt.Errorf("--clinic-timezone: %w", err)
	}
	tokens, ok := store.(ical.Tokens)
	if !ok {
		return interop{}, fmt.Errorf("the %T store does not implement ical.Tokens", store)
	}
	days, ok := store.(ical.DoctorDays)
	if !ok {
		return interop{}, fmt.Errorf("the %T store does not implement ical.DoctorDays", store)
	}
	public := f.publicURL
	if public == "" {
		public = listenURL
	}
	// UIDs must never change: the public host names them, or "slotd".
	domain := "slotd"
	if u, err := url.Parse(f.publicURL); err == nil && u.Hostname() != "" {
		domain = u.Hostname()
	}
	return interop{
		fhir: fhir.New(fhir.Config{Service: svc, Signer: signer, PublicURL: public, Zone: zone, Logger: logger,
			Clinic: fhir.Clinic{Name: f.clinicName, Phone: f.clinicPhone, Address: f.clinicAddress}}),
		ical: ical.New(ical.Config{Service: svc, Tokens: tokens, Days: days, Signer: signer, PublicURL: f.publicURL, Domain: domain, Logger: logger}),
	}, nil
}

// run keeps the FHIR bulk publication fresh until ctx ends.
func (i interop) run(ctx context.Context) { i.fhir.Run(ctx) }

// mount serves /fhir/ and /ical/ on mux (beside the API and the web UI),
// each request counted in m and logged like the API's: by route pattern,
// never by path (a feed's path is its secret token). Both are under the
// per-address limit: FHIR's requests without a valid bearer token (as the
// API's public ones), every feed request.
func (i interop) mount(mux *http.ServeMux, perAddr *edge.AddrLimiter, signer *auth.Signer, m *metrics.Metrics, logger *slog.Logger, quiet bool) {
	anonymous := func(r *http.Request) bool {
		_, err := signer.Caller(r)
		return err != nil
	}
	mux.Handle("/fhir/", observed(perAddr.Limit(i.fhir, anonymous, httpapi.WriteAddrLimited), m, logger, quiet))
	mux.Handle("/ical/", observed(perAddr.Limit(i.ical, nil, httpapi.WriteAddrLimited), m, logger, quiet))
}

// observed counts and logs each request of h (the web pages, FHIR, iCal)
// like the API does its own: by route pattern, never by path.
func observed(h http.Handler, m *metrics.Metrics, logger *slog.Logger, quiet bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		route := r.Pattern // set by the handler's own mux
		if route == "" {
			route = "unmatched"
		}
		took := time.Since(start)
		m.Request(route, sw.status, took)
		level := slog.LevelInfo
		if sw.status >= 500 {
			level = slog.LevelError
		} else if quiet {
			return
		}
		logger.LogAttrs(r.Context(), level, "http", slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", sw.status), slog.Duration("duration", took), slog.String("client", edge.ClientAddr(r)))
	})
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}
