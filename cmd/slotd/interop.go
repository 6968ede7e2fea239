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
	"github.com/slotd/slotd/fhir"
	"github.com/slotd/slotd/ical"
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
func newInterop(f interopFlags, svc *booking.Service, store booking.Store, signer *auth.Signer, listenURL string, logger *slog.Logger) (interop, error) {
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

// mount serves /fhir/ and /ical/ beside next (the API and the web UI).
func (i interop) mount(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/fhir/", i.fhir)
	mux.Handle("/ical/", i.ical)
	mux.Handle("/", next)
	return mux
}
