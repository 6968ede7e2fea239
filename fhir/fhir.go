// Package fhir is slotd's FHIR R4 interface under /fhir/: the inventory as
// Practitioner, Location, Schedule and Slot, a patient's Appointments, the
// IHE-style Appointment/$find and Appointment/$book operations, and the
// SMART Scheduling Links bulk publication ($bulk-publish).
//
// It is an adapter like httpapi: it translates, and books only through
// service.Service.Book, the path of POST /api/appointments, with the same
// Idempotency-Key rules. It accepts the API's bearer tokens (auth.Signer).
// Errors are OperationOutcome with the status of slotd's error code.
package fhir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// ContentType is the media type of every answer.
const ContentType = "application/fhir+json; charset=utf-8"

// Config wires the FHIR interface.
type Config struct {
	Service *service.Service
	Signer  *auth.Signer
	// PublicURL is the service's external base URL: FHIR fullUrls, the
	// bulk manifest and the booking deep links are absolute (required).
	PublicURL string
	Clinic    Clinic
	// Zone reads dates without a time (start=ge2026-12-02) for appointment
	// searches; slot searches use the schedule's own zone. UTC when nil.
	Zone *time.Location
	// Bulk tunes the SMART Scheduling Links publication.
	Bulk   BulkOptions
	Logger *slog.Logger
}

// Search limits: a search reads at most MaxSearchDays of slots, a list
// parameter takes at most MaxListValues distinct values, and $find over
// every doctor spans at most MaxFindAllDays.
const (
	MaxSearchDays     = 31
	MaxListValues     = 20
	MaxFindAllDays    = 7
	DefaultSearchDays = 14
	maxBodyBytes      = 16 << 10
)

// Handler serves /fhir/.
type Handler struct {
	svc     *service.Service
	store   booking.Reader
	signer  *auth.Signer
	base    string // PublicURL + "/fhir"
	web     string // PublicURL
	clinic  Clinic
	zone    *time.Location
	timeout time.Duration
	log     *slog.Logger
	mux     *http.ServeMux
	bulk    *publisher
}

// New returns the handler; it panics on missing wiring. Run the bulk
// publisher with Run.
func New(cfg Config) *Handler {
	if cfg.Service == nil || cfg.Signer == nil || cfg.PublicURL == "" {
		panic("fhir: Service, Signer and PublicURL are required")
	}
	if cfg.Zone == nil {
		cfg.Zone = time.UTC
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clinic.Name == "" {
		cfg.Clinic.Name = "slotd clinic"
	}
	web := strings.TrimSuffix(cfg.PublicURL, "/")
	h := &Handler{svc: cfg.Service, store: cfg.Service.Reader(), signer: cfg.Signer, base: web + "/fhir", web: web,
		clinic: cfg.Clinic, zone: cfg.Zone, timeout: cfg.Service.Timeout(), log: cfg.Logger, mux: http.NewServeMux()}
	h.bulk = newPublisher(h, cfg.Bulk)
	cfg.Service.Watch(func(service.Change) { h.bulk.changed() })
	h.routes()
	return h
}

func (h *Handler) routes() {
	h.handle("GET /fhir/metadata", h.metadata)
	h.handle("GET /fhir/Practitioner", h.searchPractitioners)
	h.handle("GET /fhir/Practitioner/{id}", h.readPractitioner)
	h.handle("GET /fhir/Location", h.searchLocations)
	h.handle("GET /fhir/Location/{id}", h.readLocation)
	h.handle("GET /fhir/HealthcareService", h.searchHealthcareServices)
	h.handle("GET /fhir/HealthcareService/{id}", h.readHealthcareService)
	h.handle("GET /fhir/Schedule", h.searchSchedules)
	h.handle("GET /fhir/Schedule/{id}", h.readSchedule)
	h.handle("GET /fhir/Slot", h.searchSlots)
	h.handle("GET /fhir/Slot/{id}", h.readSlot)
	h.handle("GET /fhir/Appointment", h.searchAppointments)
	h.handle("GET /fhir/Appointment/{id}", h.readAppointment)
	h.handle("GET /fhir/Appointment/$find", h.find)
	h.handle("POST /fhir/Appointment/$find", h.find)
	h.handle("POST /fhir/Appointment/$book", h.book)
	h.handle("GET /fhir/$bulk-publish", h.bulkManifest)
	h.handle("GET /fhir/bulk/{file}", h.bulkFile)
	h.handle("GET /fhir/bulk/sites/{site}/{file}", h.bulkSiteFile)
	h.mux.HandleFunc("/fhir/", func(w http.ResponseWriter, r *http.Request) {
		h.outcome(w, r, booking.Errorf(booking.CodeNotFound, "no such FHIR endpoint"))
	})
}

func (h *Handler) handle(pattern string, fn func(http.ResponseWriter, *http.Request) error) {
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		}
		if err := fn(w, r); err != nil {
			h.outcome(w, r, err)
		}
	})
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Run keeps the bulk publication fresh until ctx ends: it regenerates
// shortly after this instance's changes and every BulkOptions.Refresh for
// the others', at most once per BulkOptions.MinInterval.
func (h *Handler) Run(ctx context.Context) { h.bulk.run(ctx) }

// ctx bounds a store call.
func (h *Handler) ctx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), h.timeout)
}

// caller verifies the bearer token.
// caller is the verified caller of r, once the Service admitted its token
// (service.Service.Admit: not signed out, revoked or of a departed patient).
func (h *Handler) caller(r *http.Request) (auth.Claims, error) {
	c, err := h.signer.Caller(r)
	if err != nil {
		return c, err
	}
	if err := h.svc.Admit(r.Context(), string(c.Role), c.Subject, c.Issued); err != nil {
		return auth.Claims{}, err
	}
	return c, nil
}

func writeResource(w http.ResponseWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		panic(err) // our own resource types always marshal
	}
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// marshal is json.Marshal without HTML escaping, so URLs keep their "&",
// followed by a newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// issueCodes maps slotd's codes to OperationOutcome issue types (R4
// issue-type value set); the HTTP status comes from package codes.
var issueCodes = map[booking.Code]string{
	booking.CodeInvalidRequest:        "invalid",
	booking.CodeMissingIdempotencyKey: "required",
	booking.CodePayloadTooLarge:       "too-long",
	booking.CodeUnauthorized:          "login",
	booking.CodeForbidden:             "forbidden",
	booking.CodeNotFound:              "not-found",
	booking.CodeKeyReused:             "duplicate",
	booking.CodeRateLimited:           "throttled",
	booking.CodeOverloaded:            "transient",
	booking.CodeUnavailable:           "transient",
	booking.CodeInternal:              "exception",
}

// outcome answers err as an OperationOutcome. Internal causes are logged,
// never shown. Its texts (details.text, diagnostics) follow Accept-Language
// as the API's problem+json does, since a portal shows them to the patient;
// the coded details (the problem's code) are what programs match.
func (h *Handler) outcome(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = booking.Errorf(booking.CodePayloadTooLarge, "the request body is larger than %d bytes", maxBodyBytes)
	}
	code := booking.ErrorCode(err)
	spec := problem.Of(code)
	pr := i18n.New(i18n.Pick("", r.Header.Get("Accept-Language"), "en"))
	w.Header().Add("Vary", "Accept-Language")
	if pr.Lang() != "en" {
		w.Header().Set("Content-Language", pr.Lang())
	}
	msg := pr.T(spec.Title)
	var be *booking.Error
	if errors.As(err, &be) && code != booking.CodeInternal {
		msg = pr.Sentence(be.Message, be.Format, be.Args, h.zone)
		if be.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(be.RetryAfter.Seconds()))))
		}
	}
	if spec.Status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "fhir", slog.String("route", r.Pattern), slog.String("err", err.Error()))
		if code == booking.CodeUnavailable || code == booking.CodeOverloaded {
			w.Header().Set("Retry-After", "1")
		}
	}
	if code == booking.CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="slotd"`)
	}
	issue, ok := issueCodes[code]
	if !ok {
		issue = "conflict" // slot-full, already-booked, not-open-yet, …
	}
	writeResource(w, spec.Status, OperationOutcome{ResourceType: "OperationOutcome", Issue: []Issue{{
		Severity: "error", Code: issue, Diagnostics: msg,
		Details: &CodeableConcept{Coding: []Coding{{System: ProblemSystem, Code: string(code)}}, Text: pr.T(spec.Title)},
	}}})
}

// searchset wraps resources in a search Bundle.
func (h *Handler) searchset(r *http.Request, kind string, ids []string, resources []any) Bundle {
	total := len(resources)
	b := Bundle{ResourceType: "Bundle", Type: "searchset", Timestamp: instant(h.svc.Now()), Total: &total,
		Link: []BundleLink{{Relation: "self", URL: h.web + r.URL.Path + queryOf(r)}}}
	for i, res := range resources {
		b.Entry = append(b.Entry, BundleEntry{FullURL: h.base + "/" + kind + "/" + ids[i], Resource: res, Search: &BundleSearch{Mode: "match"}})
	}
	return b
}

func queryOf(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}
