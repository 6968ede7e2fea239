package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
	"github.com/slotd/slotd/schedule"
)

// Running a clinic (docs/clinic.md): the audit log, refunds and reconciliation,
// import and export, a doctor's own days and a patient's history.

func (s *server) clinicRoutes() {
	s.mux.HandleFunc("GET /staff/audit", s.staff(s.handleStaffAudit))
	s.mux.HandleFunc("GET /staff/reconciliation", s.staff(s.handleStaffReconciliation))
	s.mux.HandleFunc("POST /staff/payments/{tradeNo}/refund", s.staff(s.handleStaffRefund))
	s.mux.HandleFunc("POST /staff/refunds/{id}/retry", s.staff(s.handleStaffRetryRefund))
	s.mux.HandleFunc("POST /staff/reconciliation/statement", s.staff(s.handleStaffStatement))
	s.mux.HandleFunc("GET /staff/import", s.staff(s.handleStaffImport))
	s.mux.HandleFunc("POST /staff/import", s.staff(s.handleStaffImport))
	s.mux.HandleFunc("GET /staff/appointments.csv", s.staff(s.handleStaffExport))
	s.mux.HandleFunc("GET /doctor", s.doctorPage(func(w http.ResponseWriter, r *http.Request, _ session) {
		redirect(w, r, "/doctor/days/today")
	}))
	s.mux.HandleFunc("GET /doctor/days/{date}", s.doctorPage(s.handleDoctorDay))
	s.mux.HandleFunc("POST /doctor/appointments/{id}/status", s.doctorPage(s.handleDoctorTransition))
	s.mux.HandleFunc("POST /doctor/appointments/{id}/check-in", s.doctorPage(s.handleDayCheckIn))
	s.mux.HandleFunc("GET /history", s.handleHistory)
}

// auditRow is one audit entry as a page shows it.
type auditRow struct {
	booking.AuditEntry
	When string
	// Appt names the entry's appointment by its time (the patient's
	// history): an id is no queue number.
	Appt string
}

// auditRows shows each entry's time in the clinic's zone, in the page's
// language; the table's header names the zone once.
func (s *server) auditRows(p *page, es []booking.AuditEntry) []auditRow {
	out := make([]auditRow, len(es))
	for i, e := range es {
		at := e.At.In(s.clinicZone)
		out[i] = auditRow{AuditEntry: e, When: p.pr.DateTime(at) + at.Format(":05")}
	}
	return out
}

// ClinicZone names the clinic's zone, for pages that show times not tied
// to one doctor.
func (p *page) ClinicZone() string { return p.srv.clinicZone.String() }

const auditPageSize = 50

// handleStaffAudit lists the audit log, filtered by entity, id and actor,
// newest first, a page at a time.
func (s *server) handleStaffAudit(w http.ResponseWriter, r *http.Request, _ session) {
	q := r.URL.Query()
	f := booking.AuditFilter{Entity: strings.TrimSpace(q.Get("entity")), Limit: auditPageSize}
	if len(f.Entity) > 32 {
		f.Entity = ""
	}
	if v := q.Get("id"); v != "" {
		f.EntityID, _ = strconv.ParseInt(v, 10, 64)
	}
	if v := q.Get("before"); v != "" {
		f.BeforeID, _ = strconv.ParseInt(v, 10, 64)
	}
	actor := strings.TrimSpace(q.Get("actor"))
	if len(actor) <= 100 {
		f.ActorRole, f.ActorID, _ = strings.Cut(actor, ":")
	}
	es, err := s.svc.Audit(r.Context(), f)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	next := ""
	if len(es) == f.Limit {
		v := url.Values{"before": {itoa(es[len(es)-1].ID)}}
		for _, k := range []string{"entity", "id", "actor"} {
			if q.Get(k) != "" {
				v.Set(k, q.Get(k))
			}
		}
		next = "/staff/audit?" + v.Encode()
	}
	p := s.newPage(w, r, "Audit log")
	p.Data = struct {
		Entity, ID, Actor string
		Rows              []auditRow
		Next              string
	}{f.Entity, q.Get("id"), actor, s.auditRows(p, es), next}
	s.render(w, r, http.StatusOK, "staff_audit", p)
}

// handleStaffReconciliation runs the reconciliation (without repair) and
// lists the refunds to make, with the last scheduled run's verdict.
func (s *server) handleStaffReconciliation(w http.ResponseWriter, r *http.Request, _ session) {
	rep, err := s.svc.Reconcile(r.Context(), false)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	open, err := s.openRefundsOf(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	last, lerr := s.svc.LastReconcileRun(r.Context())
	p := s.newPage(w, r, "Refunds and reconciliation")
	switch q := r.URL.Query(); {
	case q.Has("done"):
		p.Notice = p.T("Refund recorded.")
	case q.Has("retried"):
		p.Notice = p.T("The refund will be asked of the payment provider again.")
	case q.Has("statement"):
		p.Notice = p.T("The day was reconciled against the payment provider's statement.")
	}
	p.Data = struct {
		Report     booking.Reconciliation
		Violations int
		Pending    int
		Clean      bool
		HasLast    bool
		Last       booking.ReconcileRun
		LastAt     string
		Open       openRefunds
		Statement  statementView
	}{rep, rep.Violations(), rep.Pending(), rep.Clean(), lerr == nil, last, p.pr.DateTime(last.CheckedAt.In(s.clinicZone)) + " (" + s.clinicZone.String() + ")", open,
		s.statementViewOf(p)}
	s.render(w, r, http.StatusOK, "staff_reconciliation", p)
}

// handleStaffRefund records a refund with the provider's reference.
func (s *server) handleStaffRefund(w http.ResponseWriter, r *http.Request, _ session) {
	if _, err := s.svc.MarkRefunded(r.Context(), r.PathValue("tradeNo"), strings.TrimSpace(r.PostFormValue("reference"))); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/reconciliation?done=1")
}

// handleStaffImport shows the import form and, posted, imports (or with
// dry run checks) the pasted CSV and shows the report.
func (s *server) handleStaffImport(w http.ResponseWriter, r *http.Request, _ session) {
	p := s.newPage(w, r, "Import and export")
	data := struct {
		Posted bool
		DryRun bool
		CSV    string
		Report csvdata.Report
		Kinds  map[string]string
	}{Kinds: csvdata.Kinds(), DryRun: true}
	if r.Method == http.MethodPost {
		data.Posted, data.DryRun, data.CSV = true, r.PostFormValue("dryrun") != "", r.PostFormValue("csv")
		rep, err := csvdata.Import(r.Context(), s.svc, importFinder{s.store, s.accounts}, csvdata.File{CSV: strings.NewReader(data.CSV), DryRun: data.DryRun})
		if be, ok := errors.AsType[*booking.Error](err); ok && (be.Code == booking.CodeInvalidRequest || be.Code == booking.CodePayloadTooLarge) {
			// A refused file: on the form, with what was pasted, in the page's language.
			v, status := s.explain(r, err)
			v.Detail = detail(p.pr, be)
			p.Problem, p.Data = v, data
			s.render(w, r, status, "staff_import", p)
			return
		}
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		data.Report = rep
	}
	p.Data = data
	s.render(w, r, http.StatusOK, "staff_import", p)
}

// importFinder is what an import reads: the catalog and patients by phone.
type importFinder struct {
	booking.Reader
	accounts.Store
}

// handleStaffExport writes the appointments of the days from through to
// (dates in the clinic's zone, as every page's, to included) as CSV, times
// in that zone.
func (s *server) handleStaffExport(w http.ResponseWriter, r *http.Request, _ session) {
	from, ferr := schedule.ParseDate(r.URL.Query().Get("from"))
	to, terr := schedule.ParseDate(r.URL.Query().Get("to"))
	if ferr != nil || terr != nil || to.Before(from) || from.AddDays(92).Before(to) {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "from and to must be dates, at most 92 days apart"))
		return
	}
	if err := s.svc.RunsClinic(r.Context()); err != nil {
		s.renderError(w, r, err) // every site's appointments: not for an admin limited to sites
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 4*s.storeTimeout)
	defer cancel()
	// Deactivated doctors too: their appointments stay.
	docs, err := s.store.ListAllDoctors(ctx, 0, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	start, _ := schedule.DayBounds(from, s.clinicZone)
	_, end := schedule.DayBounds(to, s.clinicZone)
	var rows []csvdata.DayRow
	names := map[int64]string{}
	for _, d := range docs {
		as, err := s.accounts.DoctorAppointments(ctx, d.ID, start, end)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		for _, a := range as {
			name, ok := names[a.PatientID]
			if !ok {
				pt, err := s.store.GetPatient(ctx, a.PatientID)
				if err != nil {
					s.renderError(w, r, err)
					return
				}
				name, names[a.PatientID] = pt.Name, pt.Name
			}
			rows = append(rows, csvdata.DayRow{Appointment: a, DoctorName: d.Name, PatientName: name})
		}
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="appointments-`+from.String()+`-`+to.String()+`.csv"`)
	if err := csvdata.WriteAppointments(w, rows, s.clinicZone); err != nil {
		s.log.Error("web: appointments CSV", "err", err)
	}
}

// handleDoctorDay is a doctor's own day, with the same actions as the
// staff's day view.
func (s *server) handleDoctorDay(w http.ResponseWriter, r *http.Request, sess session) {
	ctx, cancel := s.storeCtx(r.Context())
	doc, err := s.store.GetDoctor(ctx, sess.DoctorID)
	cancel()
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	s.renderDay(w, r, doc, zone(doc.TimeZone), dayView{Base: "/doctor/days/", Action: "/doctor/appointments/"})
}

// handleDoctorTransition marks the doctor's own appointment; another
// doctor's is not found.
func (s *server) handleDoctorTransition(w http.ResponseWriter, r *http.Request, sess session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	to := booking.Status(r.PostFormValue("to"))
	if to != booking.StatusCompleted && to != booking.StatusNoShow {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "status"))
		return
	}
	a, err := s.svc.Appointment(r.Context(), id, 0)
	if err == nil && a.DoctorID != sess.DoctorID {
		err = booking.NotFound("appointment")
	}
	if err == nil {
		_, err = s.svc.Transition(r.Context(), id, to)
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, safeNext(r.PostFormValue("next"), "/doctor/days/today")+"?done=1")
}

// handleHistory is the history of the signed-in patient's appointments.
func (s *server) handleHistory(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, "/history")
	if !ok {
		return
	}
	es, err := s.svc.History(r.Context(), sess.PatientID, 0, 100)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "History")
	rows := s.auditRows(p, es)
	if as, err := s.svc.Appointments(r.Context(), sess.PatientID, "", booking.Page{}); err == nil {
		when := map[int64]string{}
		for _, a := range as {
			at := a.StartAt.In(s.clinicZone)
			when[a.ID] = p.pr.ShortDate(at) + " " + p.pr.Clock(at)
		}
		for i := range rows {
			rows[i].Appt = when[rows[i].EntityID]
		}
	}
	p.Data = rows
	s.render(w, r, http.StatusOK, "history", p)
}
