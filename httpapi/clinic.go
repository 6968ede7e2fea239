package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// Running a clinic (docs/clinic.md): refunds, the audit log, imports and
// exports, and the doctors' own days.

// ClinicReads is what these endpoints read beyond booking.Reader: a
// doctor's appointments and patients by phone (both stores implement it,
// see accounts.Store).
type ClinicReads interface {
	DoctorAppointments(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Appointment, error)
	PatientByPhone(ctx context.Context, phone string) (booking.Patient, error)
}

// importPath takes a CSV file, up to csvdata.MaxImportBytes rather than
// the JSON endpoints' Config.MaxBodyBytes.
const importPath = "/api/admin/import"

func (s *server) clinicRoutes() {
	s.handle("POST /api/admin/payments/{tradeNo}/refund", s.admin(s.markRefunded))
	s.handle("GET /api/admin/reconciliation/last", s.admin(s.lastReconciliation))
	s.handle("POST /api/admin/reconciliation/statement", s.admin(s.reconcileStatement))
	s.handle("GET /api/admin/audit", s.admin(s.audit))
	s.handle("GET /api/admin/holdings", s.admin(s.holdings))
	s.handle("GET /api/me/history", s.authed(s.myHistory))
	s.handle("POST "+importPath, s.admin(s.importCSV))
	s.handle("GET /api/admin/appointments/export", s.admin(s.exportAppointments))
	s.handle("GET /api/admin/doctors/{id}/days/{date}/export", s.admin(s.exportDay))
	s.handle("GET /api/doctor/days/{date}", s.doctorOnly(s.doctorDay))
	s.handle("GET /api/doctor/days/{date}/export", s.doctorOnly(s.doctorDayExport))
	s.handle("POST /api/doctor/appointments/{id}/complete", s.doctorOnly(s.doctorComplete))
	s.handle("POST /api/doctor/appointments/{id}/no-show", s.doctorOnly(s.doctorNoShow))
}

// doctorOnly serves h to doctor tokens only; h reaches that doctor's data
// only (c.DoctorID).
func (s *server) doctorOnly(h handlerFunc) http.Handler {
	return s.authed(func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		if _, ok := c.DoctorID(); !ok {
			return errorf(booking.CodeForbidden, "this operation requires a doctor token")
		}
		return h(w, r, c)
	})
}

// actorOf is who a verified token names, for the audit log.
func actorOf(c auth.Claims) booking.Actor {
	return booking.Actor{Role: string(c.Role), ID: c.Subject}
}

func (s *server) markRefunded(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	trade := r.PathValue("tradeNo")
	if !service.ValidTradeNo(trade) {
		return errorf(booking.CodeInvalidRequest, "tradeNo must be 1 to %d visible ASCII characters", service.MaxTradeNoLen)
	}
	var in struct {
		Reference string `json:"reference"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !service.ValidTradeNo(in.Reference) || len(in.Reference) > booking.MaxRefundRefLen {
		return errorf(booking.CodeInvalidRequest, "reference must be the provider's refund reference: 1 to %d visible ASCII characters", booking.MaxRefundRefLen)
	}
	p, err := s.svc.MarkRefunded(r.Context(), trade, in.Reference)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// holdings answers whether the database is the demo's and how many
// patients and active appointments it holds (slotd rush asks before it
// writes its test data).
func (s *server) holdings(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	h, err := s.svc.Holdings(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		booking.Holdings
		Real bool `json:"real"`
	}{h, h.Real()})
	return nil
}

func (s *server) lastReconciliation(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	run, err := s.svc.LastReconcileRun(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		booking.ReconcileRun
		Clean bool `json:"clean"`
	}{run, run.Violations == 0 && run.Pending == 0})
	return nil
}

// auditView is an audit entry as the API answers it: before and after
// are the JSON objects the log recorded, not strings holding them.
type auditView struct {
	booking.AuditEntry
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// newAuditView makes e's states JSON values; a state that is not a JSON
// object (none is written so) is left out rather than answered broken.
func newAuditView(e booking.AuditEntry) auditView {
	return auditView{AuditEntry: e, Before: stateObject(e.Before), After: stateObject(e.After)}
}

// auditViews makes each entry an auditView, never nil.
func auditViews(es []booking.AuditEntry) []auditView {
	out := make([]auditView, len(es))
	for i, e := range es {
		out[i] = newAuditView(e)
	}
	return out
}

func stateObject(s string) json.RawMessage {
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
}

// auditFilter parses the audit log's query: entity, id, actor ("role" or
// "role:id"), from and to (RFC 3339, or a date: that day in the clinic's
// zone loc, to included), and the page (limit, cursor: entries come newest
// first, so the cursor is the id the next page is below).
func auditFilter(r *http.Request, loc *time.Location) (booking.AuditFilter, pageRequest, error) {
	q, err := parseQuery(r, withPage("entity", "id", "actor", "from", "to")...)
	if err != nil {
		return booking.AuditFilter{}, pageRequest{}, err
	}
	p, err := parsePage(q)
	if err != nil {
		return booking.AuditFilter{}, p, err
	}
	f := booking.AuditFilter{BeforeID: p.After, Limit: p.store().Limit}
	f, err = auditFields(q, f, loc)
	return f, p, err
}

// auditFields fills f from the audit log's filters in q.
func auditFields(q map[string]string, f booking.AuditFilter, loc *time.Location) (booking.AuditFilter, error) {
	var err error
	if v, ok := q["entity"]; ok {
		if len(v) > 32 || v == "" {
			return f, errorf(booking.CodeInvalidRequest, "entity must be a name such as appointment")
		}
		f.Entity = v
	}
	if v, ok := q["id"]; ok {
		if f.EntityID, err = parseID(v, "id"); err != nil {
			return f, inParam(err, "id")
		}
	}
	if v, ok := q["actor"]; ok {
		role, id, _ := strings.Cut(v, ":")
		if role == "" || len(v) > 100 {
			return f, errorf(booking.CodeInvalidRequest, "actor must be a role or role:id, such as admin or patient:42")
		}
		f.ActorRole, f.ActorID = role, id
	}
	if v, ok := q["from"]; ok {
		if f.From, err = parseInstant(v, "from", false, loc); err != nil {
			return f, err
		}
	}
	if v, ok := q["to"]; ok {
		if f.To, err = parseInstant(v, "to", true, loc); err != nil {
			return f, err
		}
	}
	return f, nil
}

// auditKey is the key an audit page resumes from.
func auditKey(e auditView) int64 { return e.ID }

func (s *server) audit(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	// The log is of every site: the clinic's to read.
	if err := s.svc.RunsClinic(r.Context()); err != nil {
		return err
	}
	f, p, err := auditFilter(r, s.zone)
	if err != nil {
		return err
	}
	es, err := s.svc.Audit(r.Context(), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(auditViews(es), p, auditKey))
	return nil
}

// myHistory is the history of the caller's own appointments.
func (s *server) myHistory(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, ok := c.PatientID()
	if !ok {
		return errorf(booking.CodeForbidden, "only patients have a history of their own")
	}
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	es, err := s.svc.History(r.Context(), id, p.After, p.store().Limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(auditViews(es), p, auditKey))
	return nil
}

func (s *server) importCSV(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, "dryRun")
	if err != nil {
		return err
	}
	dry := false
	switch q["dryRun"] {
	case "", "false":
	case "true":
		dry = true
	default:
		return errorf(booking.CodeInvalidRequest, "dryRun must be true or false")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		return errorf(booking.CodeInvalidRequest, "the body must be text/csv")
	}
	if s.clinic == nil {
		return errorf(booking.CodeUnavailable, "this store cannot find patients by phone")
	}
	rep, err := csvdata.Import(r.Context(), s.svc, importFinder{s.store, s.clinic}, csvdata.File{CSV: r.Body, DryRun: dry})
	if err != nil {
		return bodyOrErr(err)
	}
	// A refused line's message follows Accept-Language, as a problem's
	// detail does; its line number is what programs read.
	lang := i18n.Pick("", r.Header.Get("Accept-Language"), "en")
	w.Header().Add("Vary", "Accept-Language")
	if lang != "en" {
		pr := i18n.New(lang)
		for i, le := range rep.Errors {
			rep.Errors[i].Message = pr.Sentence(le.Message, le.Key, le.Args, s.zone)
		}
		w.Header().Set("Content-Language", lang)
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// bodyOrErr turns a body over the limit into 413, other errors as they are.
func bodyOrErr(err error) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return bodyError(err)
	}
	return err
}

type importFinder struct {
	booking.Reader
	ClinicReads
}

// dayOf parses the {date} of a day's path in the doctor's zone and
// returns the day's bounds.
func (s *server) dayOf(r *http.Request, doc booking.Doctor) (schedule.Date, time.Time, time.Time, *time.Location, error) {
	loc, err := doc.Location()
	if err != nil {
		return schedule.Date{}, time.Time{}, time.Time{}, nil, err
	}
	d, err := parseDate(r.PathValue("date"), "date")
	if err != nil {
		return d, time.Time{}, time.Time{}, nil, err
	}
	from, to := schedule.DayBounds(d, loc)
	return d, from, to, loc, nil
}

// dayRows reads a doctor's day with the patients' names.
func (s *server) dayRows(r *http.Request, doctorID int64) ([]csvdata.DayRow, booking.Doctor, *time.Location, error) {
	if s.clinic == nil {
		return nil, booking.Doctor{}, nil, errorf(booking.CodeUnavailable, "this store cannot list a doctor's day")
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	doc, err := s.store.GetDoctor(ctx, doctorID)
	if err != nil {
		return nil, doc, nil, storeErr(ctx, err)
	}
	_, from, to, loc, err := s.dayOf(r, doc)
	if err != nil {
		return nil, doc, nil, err
	}
	as, err := s.clinic.DoctorAppointments(ctx, doc.ID, from, to)
	if err != nil {
		return nil, doc, nil, storeErr(ctx, err)
	}
	rows, err := s.withNames(ctx, as, map[int64]string{doc.ID: doc.Name})
	return rows, doc, loc, storeErr(ctx, err)
}

// withNames adds the doctors' and patients' names to appointments.
func (s *server) withNames(ctx context.Context, as []booking.Appointment, doctors map[int64]string) ([]csvdata.DayRow, error) {
	patients := map[int64]string{}
	rows := make([]csvdata.DayRow, 0, len(as))
	for _, a := range as {
		name, ok := patients[a.PatientID]
		if !ok {
			p, err := s.store.GetPatient(ctx, a.PatientID)
			if err != nil {
				return nil, err
			}
			name, patients[a.PatientID] = p.Name, p.Name
		}
		rows = append(rows, csvdata.DayRow{Appointment: a, DoctorName: doctors[a.DoctorID], PatientName: name})
	}
	return rows, nil
}

func writeCSV(w http.ResponseWriter, name string, rows []csvdata.DayRow, loc *time.Location) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	return csvdata.WriteAppointments(w, rows, loc)
}

func (s *server) exportDay(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	if err := s.svc.OnSite(r.Context(), actorOf(c), booking.SiteRef{DoctorID: id}); err != nil {
		return err
	}
	rows, _, loc, err := s.dayRows(r, id)
	if err != nil {
		return err
	}
	return writeCSV(w, "doctor-"+strconv.FormatInt(id, 10)+"-"+r.PathValue("date")+".csv", rows, loc)
}

// maxExportDays bounds the period of an appointments export.
const maxExportDays = 92

// exportAppointments writes every appointment starting in [from, to) of
// every doctor as CSV, times in UTC.
func (s *server) exportAppointments(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, "from", "to")
	if err != nil {
		return err
	}
	if q["from"] == "" || q["to"] == "" {
		return errorf(booking.CodeInvalidRequest, "from and to are required RFC 3339 times")
	}
	from, err := parseInstant(q["from"], "from", false, s.zone)
	if err != nil {
		return err
	}
	to, err := parseInstant(q["to"], "to", true, s.zone)
	if err != nil {
		return err
	}
	switch {
	case !to.After(from) || to.Sub(from) > maxExportDays*24*time.Hour:
		return errorf(booking.CodeInvalidRequest, "the period must end after it starts and last at most %d days", maxExportDays)
	}
	if s.clinic == nil {
		return errorf(booking.CodeUnavailable, "this store cannot list appointments")
	}
	if err := s.svc.RunsClinic(r.Context()); err != nil {
		return err // every site's appointments: not for an admin limited to sites
	}
	ctx, cancel := context.WithTimeout(r.Context(), 4*s.storeTimeout)
	defer cancel()
	// Deactivated doctors too: their appointments stay.
	docs, err := s.store.ListAllDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return storeErr(ctx, err)
	}
	names := map[int64]string{}
	var as []booking.Appointment
	for _, d := range docs {
		names[d.ID] = d.Name
		da, err := s.clinic.DoctorAppointments(ctx, d.ID, from, to)
		if err != nil {
			return storeErr(ctx, err)
		}
		as = append(as, da...)
	}
	rows, err := s.withNames(ctx, as, names)
	if err != nil {
		return storeErr(ctx, err)
	}
	return writeCSV(w, "appointments.csv", rows, time.UTC)
}

// doctorDayAnswer is a doctor's own day.
type doctorDayAnswer struct {
	Doctor       booking.Doctor        `json:"doctor"`
	Date         string                `json:"date"`
	Appointments []booking.Appointment `json:"appointments"`
}

func (s *server) doctorDay(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, _ := c.DoctorID()
	if _, err := parseQuery(r); err != nil {
		return err
	}
	rows, doc, _, err := s.dayRows(r, id)
	if err != nil {
		return err
	}
	out := doctorDayAnswer{Doctor: doc, Date: r.PathValue("date"), Appointments: []booking.Appointment{}}
	for _, row := range rows {
		out.Appointments = append(out.Appointments, row.Appointment)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *server) doctorDayExport(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, _ := c.DoctorID()
	if _, err := parseQuery(r); err != nil {
		return err
	}
	rows, _, loc, err := s.dayRows(r, id)
	if err != nil {
		return err
	}
	return writeCSV(w, "day-"+r.PathValue("date")+".csv", rows, loc)
}

func (s *server) doctorComplete(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	return s.doctorTransition(w, r, c, booking.StatusCompleted)
}

func (s *server) doctorNoShow(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	return s.doctorTransition(w, r, c, booking.StatusNoShow)
}

// doctorTransition marks the doctor's own appointment; another doctor's
// is not found, so a doctor learns nothing of it.
func (s *server) doctorTransition(w http.ResponseWriter, r *http.Request, c auth.Claims, to booking.Status) error {
	doctorID, _ := c.DoctorID()
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	a, err := s.svc.Appointment(r.Context(), id, 0)
	if err != nil {
		return err
	}
	if a.DoctorID != doctorID {
		return booking.NotFound("appointment")
	}
	a, err = s.svc.Transition(r.Context(), id, to)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}
