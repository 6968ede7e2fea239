package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/problem"
)

// defaultRetryAfter is what a 503 advises when the error does not say: long
// enough for a restarting database, short enough not to lose a patient.
const defaultRetryAfter = 2 * time.Second

// problemDetails is an RFC 9457 problem details document.
type problemDetails struct {
	Type       string `json:"type"`
	Title      string `json:"title"`
	Status     int    `json:"status"`
	Detail     string `json:"detail,omitempty"`
	SlotID     int64  `json:"slotId,omitempty"`
	OpensAt    string `json:"opensAt,omitempty"`
	RetryAfter int64  `json:"retryAfter,omitempty"`
	// Instance names this occurrence: urn:slotd:request:<request id>, the
	// X-Request-Id the answer carries and the log lines name.
	Instance string `json:"instance,omitempty"`
	// Errors lists the invalid inputs, each by its JSON Pointer into the
	// body or its query parameter (RFC 9457 §3.2 extension member).
	Errors []fieldProblem `json:"errors,omitempty"`
}

// fieldProblem is one invalid input of a problem's errors.
type fieldProblem struct {
	Pointer   string `json:"pointer,omitempty"`
	Parameter string `json:"parameter,omitempty"`
	Detail    string `json:"detail"`
}

// instancePrefix makes a request id the problem's instance URI.
const instancePrefix = "urn:slotd:request:"

// toBookingError turns any error into the *booking.Error that clients see.
// Errors that are not *booking.Error carry driver or programming detail:
// they become a generic unavailable or internal error, and the original is
// kept in Err for the log only.
func toBookingError(err error) *booking.Error {
	var e *booking.Error
	if errors.As(err, &e) {
		if problem.Known(e.Code) {
			return e
		}
		// An unknown code is a bug in the caller; never guess a status.
		return &booking.Error{Code: booking.CodeInternal, Message: "internal error", Err: err}
	}
	if errors.Is(err, booking.ErrUnavailable) {
		return &booking.Error{Code: booking.CodeUnavailable, Message: "the database is unavailable; retry later", Err: err}
	}
	return &booking.Error{Code: booking.CodeInternal, Message: "internal error", Err: err}
}

// writeError answers err as problem+json, logging what clients must not see.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := toBookingError(err)
	spec := problem.Of(e.Code)
	if spec.Status >= 500 {
		s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("method", r.Method),
			slog.String("route", r.Pattern),
			slog.String("requestId", requestID(r.Context())),
			slog.String("code", string(e.Code)),
			slog.Any("error", err))
	}
	writeProblemIn(w, e, spec.Status, i18n.Pick("", r.Header.Get("Accept-Language"), "en"), s.zone)
}

// writeProblem writes e with the given status (normally the table's), in
// English.
func writeProblem(w http.ResponseWriter, e *booking.Error, status int) {
	writeProblemIn(w, e, status, "en", time.UTC)
}

// writeProblemIn writes e in lang, the language the request's
// Accept-Language asked for (English when it asks for none we have, never
// the clinic's default: a program that sends no header gets the stable
// English title). RFC 9457 lets title be localized; type is what programs
// match. The detail is translated when the catalogs hold its sentence; a
// time in it reads in the clinic's zone (loc) and the language, as on the
// web pages, while opensAt keeps the RFC 3339 instant for programs.
func writeProblemIn(w http.ResponseWriter, e *booking.Error, status int, lang string, loc *time.Location) {
	spec := problem.Of(e.Code) // an unknown code reads as internal
	p := problemDetails{
		Type:   "/problems/" + string(e.Code),
		Title:  spec.Title,
		Status: status,
		SlotID: e.SlotID,
	}
	w.Header().Add("Vary", "Accept-Language")
	pr := i18n.New(lang)
	p.Detail = pr.Sentence(e.Message, e.Format, e.Args, loc)
	if lang != "en" {
		p.Title = pr.T(spec.Title)
		w.Header().Set("Content-Language", lang)
	}
	if id := w.Header().Get("X-Request-Id"); id != "" {
		p.Instance = instancePrefix + id
	}
	if e.Pointer != "" || e.Parameter != "" {
		p.Errors = []fieldProblem{{Pointer: e.Pointer, Parameter: e.Parameter, Detail: p.Detail}}
	}
	if e.OpensAt != nil {
		p.OpensAt = e.OpensAt.UTC().Format(time.RFC3339)
	}
	retry := e.RetryAfter
	if retry <= 0 && (status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests) {
		retry = defaultRetryAfter
	}
	h := w.Header()
	if retry > 0 {
		secs := int64((retry + time.Second - 1) / time.Second) // round up: never invite an early retry
		p.RetryAfter = secs
		h.Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	switch e.Code {
	case booking.CodeUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="slotd"`)
	case booking.CodeBadSignature:
		h.Set("WWW-Authenticate", `HMAC-SHA256 realm="slotd-payments", header="X-Slotd-Signature"`)
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Del("ETag")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(p)
}

// addrLimited is the error of a request past the per-address limit.
func addrLimited(wait time.Duration) *booking.Error {
	return &booking.Error{Code: booking.CodeRateLimited, Message: "too many requests from this address", RetryAfter: wait}
}

// WriteAddrLimited answers a request past the per-address limit
// (edge.AddrLimiter) as the API does its own: 429 problem+json in the
// request's language, with Retry-After. cmd/slotd gives it to the limit
// in front of /fhir/, /ical/ and the web pages, so every front end
// refuses alike.
func WriteAddrLimited(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	writeProblemIn(w, addrLimited(wait), http.StatusTooManyRequests, i18n.Pick("", r.Header.Get("Accept-Language"), "en"), time.UTC)
}

// fieldErrorf is the invalid-request error of the body member at pointer
// ("/slotId").
func fieldErrorf(pointer, format string, args ...any) error {
	e := booking.Errorf(booking.CodeInvalidRequest, format, args...)
	e.Pointer = pointer
	return e
}

// paramErrorf is the invalid-request error of the query parameter name.
func paramErrorf(name, format string, args ...any) error {
	e := booking.Errorf(booking.CodeInvalidRequest, format, args...)
	e.Parameter = name
	return e
}

// errorf is a short-hand for the *booking.Error of a handler's own checks.
func errorf(code booking.Code, format string, args ...any) error {
	return booking.Errorf(code, format, args...)
}
