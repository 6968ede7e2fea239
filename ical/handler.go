package ical

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// Tokens keeps each patient's calendar subscription token, as its hash
// only (postgres/calendar.go, sqlite/calendar.go; icaltest holds both to
// the same behaviour).
type Tokens interface {
	// SetCalendarToken makes hash patientID's only token, replacing an
	// older one; an unknown patient is not found.
	SetCalendarToken(ctx context.Context, patientID int64, hash string, now time.Time) error
	// RevokeCalendarToken deletes patientID's token; none is no error.
	RevokeCalendarToken(ctx context.Context, patientID int64) error
	// CalendarTokenPatient returns whose token has hash, or not found.
	CalendarTokenPatient(ctx context.Context, hash string) (int64, error)
	// CalendarTokenCreated returns when patientID's token was made, or not found.
	CalendarTokenCreated(ctx context.Context, patientID int64) (time.Time, error)
}

// DoctorDays lists the appointments in a doctor's slots starting in
// [from, to), by start (both stores implement it).
type DoctorDays interface {
	DoctorAppointments(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Appointment, error)
}

// Config wires the calendars.
type Config struct {
	Service *service.Service
	Tokens  Tokens
	Days    DoctorDays
	Signer  *auth.Signer
	// PublicURL is the service's external base URL ("https://clinic.example"),
	// used in subscription links and event URLs; without it links are built
	// from the request's Host.
	PublicURL string
	// Domain ends every UID; it must never change (default "slotd").
	Domain string
	Logger *slog.Logger
}

// Limits of a doctor's calendar.
const (
	DefaultDays = 14
	MaxDays     = 92
	// Refresh is what feeds suggest as their polling interval.
	Refresh = time.Hour
)

// Handler serves /ical/ and manages subscription tokens for the web UI.
type Handler struct {
	svc     *service.Service
	store   booking.Reader
	tokens  Tokens
	days    DoctorDays
	signer  *auth.Signer
	base    string
	domain  string
	timeout time.Duration
	log     *slog.Logger
	mux     *http.ServeMux
	// Patterns lists the routes, for the OpenAPI comparison test.
	patterns []string
}

// New returns the handler; it panics on missing wiring.
func New(cfg Config) *Handler {
	if cfg.Service == nil || cfg.Tokens == nil || cfg.Days == nil || cfg.Signer == nil {
		panic("ical: Service, Tokens, Days and Signer are required")
	}
	if cfg.Domain == "" {
		cfg.Domain = "slotd"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Handler{timeout: cfg.Service.Timeout(), svc: cfg.Service, store: cfg.Service.Reader(), tokens: cfg.Tokens, days: cfg.Days,
		signer: cfg.Signer, base: strings.TrimSuffix(cfg.PublicURL, "/"), domain: cfg.Domain,
		log: cfg.Logger, mux: http.NewServeMux()}
	h.handle("GET /ical/feed/{token}", h.feed)
	h.handle("GET /ical/subscription", h.subscription)
	h.handle("POST /ical/subscription", h.subscribe)
	h.handle("DELETE /ical/subscription", h.revoke)
	h.handle("GET /ical/appointments/{id}", h.appointment)
	h.handle("GET /ical/doctors/{id}", h.doctor)
	h.mux.HandleFunc("/ical/", func(w http.ResponseWriter, r *http.Request) {
		h.problem(w, r, booking.Errorf(booking.CodeNotFound, "no such calendar"))
	})
	return h
}

func (h *Handler) handle(pattern string, fn func(http.ResponseWriter, *http.Request) error) {
	h.patterns = append(h.patterns, pattern)
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		if err := fn(w, r); err != nil {
			if ctx.Err() != nil && booking.ErrorCode(err) == booking.CodeInternal {
				err = &booking.Error{Code: booking.CodeUnavailable, Message: "the database did not answer in time; retry later", Err: err}
			}
			h.problem(w, r, err)
		}
	})
}

// Patterns lists the routes served.
func (h *Handler) Patterns() []string { return append([]string(nil), h.patterns...) }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// tokenBytes is the entropy of a subscription token: 256 bits.
const tokenBytes = 32

// HashToken is what the store keeps of a token. A plain SHA-256 suffices:
// the token is 256 random bits, not a guessable password.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Subscribe makes a new subscription token for patientID, revoking the old
// one, and returns the feed's URL under base (the service's external URL;
// PublicURL wins when set). The token is shown only now: only its hash
// is kept. A deactivated or erased patient gets none (the departed
// patient's refusal, booking-blocked).
func (h *Handler) Subscribe(ctx context.Context, patientID int64, base string) (string, error) {
	if err := h.svc.Present(ctx, patientID); err != nil {
		return "", err
	}
	var raw [tokenBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	if err := h.tokens.SetCalendarToken(ctx, patientID, HashToken(token), h.svc.Now()); err != nil {
		return "", err
	}
	if h.base != "" {
		base = h.base
	}
	return base + "/ical/feed/" + token + ".ics", nil
}

// Revoke ends patientID's subscription: the old URL answers 404.
func (h *Handler) Revoke(ctx context.Context, patientID int64) error {
	return h.tokens.RevokeCalendarToken(ctx, patientID)
}

// Subscribed tells whether patientID has a subscription and since when.
func (h *Handler) Subscribed(ctx context.Context, patientID int64) (time.Time, bool, error) {
	at, err := h.tokens.CalendarTokenCreated(ctx, patientID)
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return time.Time{}, false, nil
	}
	return at, err == nil, err
}

// feed serves a patient's appointments to whoever holds the token: the
// calendar apps that subscribe cannot send a bearer token. An erased
// patient's link is gone (the erasure deleted it) and a deactivated
// patient's answers nothing: both are 404, which calendar apps take as a
// subscription that ended.
func (h *Handler) feed(w http.ResponseWriter, r *http.Request) error {
	token := strings.TrimSuffix(r.PathValue("token"), ".ics")
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return booking.NotFound("calendar")
	}
	patientID, err := h.tokens.CalendarTokenPatient(r.Context(), HashToken(token))
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return booking.NotFound("calendar")
	}
	if err != nil {
		return err
	}
	if err := h.svc.Present(r.Context(), patientID); booking.ErrorCode(err) == booking.CodeBookingBlocked {
		return booking.NotFound("calendar")
	} else if err != nil {
		return err
	}
	as, err := h.svc.Appointments(r.Context(), patientID, "", booking.Page{})
	if err != nil {
		return err
	}
	return h.write(w, r, "My appointments", as, false)
}

// subscriptionView is the JSON of /ical/subscription.
type subscriptionView struct {
	Active    bool       `json:"active"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
	// URL is given once, when the token is made.
	URL string `json:"url,omitempty"`
}

func (h *Handler) subscription(w http.ResponseWriter, r *http.Request) error {
	id, err := h.patient(r)
	if err != nil {
		return err
	}
	at, ok, err := h.Subscribed(r.Context(), id)
	if err != nil {
		return err
	}
	v := subscriptionView{Active: ok}
	if ok {
		v.CreatedAt = &at
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (h *Handler) subscribe(w http.ResponseWriter, r *http.Request) error {
	id, err := h.patient(r)
	if err != nil {
		return err
	}
	url, err := h.Subscribe(r.Context(), id, requestBase(r))
	if err != nil {
		return err
	}
	now := h.svc.Now().UTC()
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, subscriptionView{Active: true, CreatedAt: &now, URL: url})
	return nil
}

func (h *Handler) revoke(w http.ResponseWriter, r *http.Request) error {
	id, err := h.patient(r)
	if err != nil {
		return err
	}
	if err := h.Revoke(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// appointment serves one appointment: a patient's own, or any for the
// front desk (booking.Desk: reception, an admin), as the JSON API does.
func (h *Handler) appointment(w http.ResponseWriter, r *http.Request) error {
	c, err := h.caller(r)
	if err != nil {
		return err
	}
	var owner int64
	switch {
	case c.Role == auth.RolePatient:
		owner, _ = c.PatientID()
	case booking.Desk(string(c.Role)):
	default:
		return booking.Errorf(booking.CodeForbidden, "only the patient and the front desk see an appointment")
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	// With its caller: the front desk limited to sites is refused another
	// site's appointment (booking.SiteAllowed).
	a, err := h.svc.Appointment(booking.WithActor(r.Context(), booking.Actor{Role: string(c.Role), ID: c.Subject}), id, owner)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="appointment-%d.ics"`, a.ID))
	return h.write(w, r, "Appointment", []booking.Appointment{a}, false)
}

// doctor serves a doctor's days (?from=YYYY-MM-DD in the doctor's zone,
// &days=N) to admins and to that doctor (a doctor token's subject is the
// doctor's id).
func (h *Handler) doctor(w http.ResponseWriter, r *http.Request) error {
	c, err := h.caller(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if c.Role != auth.RoleAdmin && !(c.Role == auth.RoleDoctor && c.Subject == strconv.FormatInt(id, 10)) {
		return booking.Errorf(booking.CodeForbidden, "a doctor's calendar is for admins and that doctor")
	}
	d, err := h.store.GetDoctor(r.Context(), id)
	if err != nil {
		return err
	}
	loc, err := d.Location()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	from := h.svc.Now().In(loc)
	from = time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc)
	if v := q.Get("from"); v != "" {
		if from, err = time.ParseInLocation(time.DateOnly, v, loc); err != nil {
			return booking.Errorf(booking.CodeInvalidRequest, "from must be a date YYYY-MM-DD")
		}
	}
	days := DefaultDays
	if v := q.Get("days"); v != "" {
		if days, err = strconv.Atoi(v); err != nil || days < 1 || days > MaxDays {
			return booking.Errorf(booking.CodeInvalidRequest, "days must be an integer from 1 to %d", MaxDays)
		}
	}
	as, err := h.days.DoctorAppointments(r.Context(), id, from, from.AddDate(0, 0, days))
	if err != nil {
		return err
	}
	return h.write(w, r, d.Name, as, true)
}

// write renders appointments as a calendar; staff calendars name the
// patient, a patient's own do not need to.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, name string, as []booking.Appointment, staff bool) error {
	cal := Calendar{Name: name, Domain: h.domain, Refresh: Refresh}
	doctors := map[int64]booking.Doctor{}
	patients := map[int64]booking.Patient{}
	base := h.base
	if base == "" {
		base = requestBase(r)
	}
	rounds := map[int64]roundPlaces{}
	sites := map[int64]booking.Site{} // by department
	for _, a := range as {
		var ev Event
		if a.RoundID != 0 {
			// A round allocation's slot is a room's term, which no doctor
			// holds: the event names the round and the room.
			rp, ok := rounds[a.RoundID]
			if !ok {
				var err error
				if rp, err = h.roundPlaces(r.Context(), a.RoundID); err != nil {
					return err
				}
				rounds[a.RoundID] = rp
			}
			ev = rp.event(a)
		} else {
			d, ok := doctors[a.DoctorID]
			if !ok {
				var err error
				if d, err = h.store.GetDoctor(r.Context(), a.DoctorID); err != nil {
					return err
				}
				doctors[a.DoctorID] = d
			}
			loc, err := d.Location()
			if err != nil {
				return err
			}
			ev = Event{Appointment: a, Zone: loc, Summary: fmt.Sprintf("Appointment with %s (No. %d)", d.Name, a.QueueNumber)}
			site, ok := sites[d.DepartmentID]
			if !ok {
				if site, err = h.svc.SiteOfDepartment(r.Context(), d.DepartmentID); err != nil && booking.ErrorCode(err) != booking.CodeNotFound {
					return err
				}
				sites[d.DepartmentID] = site
			}
			ev.Location = site.Where()
			if u := site.MapURL(); u != "" {
				ev.Description += "Map: " + u + "\n"
			}
		}
		ev.Description += "Status: " + strings.ToLower(string(a.Status))
		if code := h.svc.CheckInCode(a.ID); code != "" && a.Status == booking.StatusBooked && !staff {
			// The patient's own calendar carries the code to type at the
			// kiosk on the day; staff calendars check in without one.
			ev.Description += "\nCheck-in code: " + code
		}
		ev.URL = base + "/appointments/" + strconv.FormatInt(a.ID, 10)
		if staff {
			p, ok := patients[a.PatientID]
			if !ok {
				var err error
				if p, err = h.store.GetPatient(r.Context(), a.PatientID); err != nil {
					return err
				}
				patients[a.PatientID] = p
			}
			ev.Summary = fmt.Sprintf("No. %d: %s", a.QueueNumber, p.Name)
			ev.URL = ""
		}
		cal.Events = append(cal.Events, ev)
	}
	var buf bytes.Buffer
	if err := Write(&buf, cal); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Cache-Control", "private, max-age=60")
	_, err := w.Write(buf.Bytes())
	return err
}

// roundPlaces is what a calendar shows of a round's allocations: the
// round's name and the room of each of its slots.
type roundPlaces struct {
	round booking.Round
	rooms map[int64]booking.Room // by slot id
}

// roundPlaces reads round id and its rooms. A round that is gone (a
// patient's feed must not fail for it) is named by its id alone.
func (h *Handler) roundPlaces(ctx context.Context, id int64) (roundPlaces, error) {
	rp := roundPlaces{round: booking.Round{ID: id}, rooms: map[int64]booking.Room{}}
	rd, err := h.store.GetRound(ctx, id)
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return rp, nil
	}
	if err != nil {
		return rp, err
	}
	rp.round = rd
	slots, err := h.store.ListRoundSlots(ctx, id, booking.RoomFilter{})
	if err != nil {
		return rp, err
	}
	for _, sl := range slots {
		rp.rooms[sl.ID] = sl.Room
	}
	return rp, nil
}

// event is allocation a as a calendar event: in the room's zone (UTC
// when the room is unknown), named by the round, located at the room.
func (rp roundPlaces) event(a booking.Appointment) Event {
	name := rp.round.Name
	if name == "" {
		name = fmt.Sprintf("round %d", rp.round.ID)
	}
	ev := Event{Appointment: a, Zone: time.UTC, Summary: fmt.Sprintf("Room allocation: %s", name)}
	room, ok := rp.rooms[a.SlotID]
	if !ok {
		return ev
	}
	if loc, err := time.LoadLocation(room.TimeZone); err == nil && room.TimeZone != "" {
		ev.Zone = loc
	}
	ev.Summary = fmt.Sprintf("Room allocation: %s, room %s", name, room.Name)
	ev.Location = room.Name
	if room.Building != "" {
		ev.Location = fmt.Sprintf("%s, building %s, floor %d", room.Name, room.Building, room.Floor)
	}
	return ev
}

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

// patient returns the calling patient's id; subscriptions are a
// patient's own.
func (h *Handler) patient(r *http.Request) (int64, error) {
	c, err := h.caller(r)
	if err != nil {
		return 0, err
	}
	id, ok := c.PatientID()
	if !ok {
		return 0, booking.Errorf(booking.CodeForbidden, "only a patient has a calendar subscription")
	}
	return id, nil
}

// pathID reads a positive id, with or without ".ics".
func pathID(r *http.Request, name string) (int64, error) {
	v := strings.TrimSuffix(r.PathValue(name), ".ics")
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return 0, booking.Errorf(booking.CodeInvalidRequest, "%s must be a positive integer", name)
	}
	return id, nil
}

// requestBase is the scheme and host the request reached.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// problem answers err as RFC 9457 problem+json with the status of its code,
// its title and detail in the language Accept-Language asks for, as the
// API's problems.
func (h *Handler) problem(w http.ResponseWriter, r *http.Request, err error) {
	code := booking.ErrorCode(err)
	spec := problem.Of(code)
	pr := i18n.New(i18n.Pick("", r.Header.Get("Accept-Language"), "en"))
	w.Header().Add("Vary", "Accept-Language")
	if pr.Lang() != "en" {
		w.Header().Set("Content-Language", pr.Lang())
	}
	title := pr.T(spec.Title)
	detail := title
	var be *booking.Error
	if errors.As(err, &be) {
		detail = pr.Sentence(be.Message, be.Format, be.Args, time.UTC) // no time in its sentences
	}
	if spec.Status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "ical", slog.String("route", r.Pattern), slog.String("err", err.Error()))
		if code == booking.CodeUnavailable {
			w.Header().Set("Retry-After", "1")
		}
	}
	if code == booking.CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="slotd"`)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(spec.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "/problems/" + string(code), "title": title, "status": spec.Status, "detail": detail,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
