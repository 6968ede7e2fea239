package fhir

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// bookInput is what $book reads of its body: an Appointment, bare or as
// the "appt-resource" parameter of a Parameters resource (IHE ITI
// Scheduling); of the Appointment only slot and the Patient participant.
// A Parameters body may also carry an "invitation" parameter
// (valueString): a campaign's invitation code.
type bookInput struct {
	ResourceType string `json:"resourceType"`
	Parameter    []struct {
		Name        string          `json:"name"`
		Resource    json.RawMessage `json:"resource"`
		ValueString *string         `json:"valueString"`
	} `json:"parameter"`
	Slot        []Reference `json:"slot"`
	Participant []struct {
		Actor Reference `json:"actor"`
	} `json:"participant"`
}

// readBody decodes a FHIR JSON body.
func readBody(r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/fhir+json" && mt != "application/json") {
		return booking.Errorf(booking.CodeInvalidRequest, "the body must be application/fhir+json")
	}
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		if errors.Is(err, io.EOF) {
			return booking.Errorf(booking.CodeInvalidRequest, "the body is empty")
		}
		return booking.Errorf(booking.CodeInvalidRequest, "the body is not valid JSON")
	}
	return nil
}

// invitationOf reads the "invitation" parameter of a Parameters body ("":
// none), a code booking.ValidInvitation accepts, given at most once.
func invitationOf(in bookInput) (string, error) {
	code, seen := "", false
	for _, p := range in.Parameter {
		if p.Name != "invitation" {
			continue
		}
		if seen || p.ValueString == nil || !booking.ValidInvitation(*p.ValueString) {
			return "", booking.Errorf(booking.CodeInvalidRequest, "invitation must be one valueString of 1 to 32 letters, digits, spaces or dashes")
		}
		code, seen = *p.ValueString, true
	}
	return code, nil
}

// appointmentInput finds the Appointment of a $book body.
func appointmentInput(in bookInput) (bookInput, error) {
	switch in.ResourceType {
	case "Appointment":
		return in, nil
	case "Parameters":
		for _, p := range in.Parameter {
			if p.Name != "appt-resource" {
				continue
			}
			var a bookInput
			if err := json.Unmarshal(p.Resource, &a); err != nil || a.ResourceType != "Appointment" {
				return a, booking.Errorf(booking.CodeInvalidRequest, "appt-resource must be an Appointment")
			}
			return a, nil
		}
		return in, booking.Errorf(booking.CodeInvalidRequest, "Parameters must have an appt-resource")
	}
	return in, booking.Errorf(booking.CodeInvalidRequest, "the body must be an Appointment or Parameters")
}

// refTail reads "Kind/123", also at the end of an absolute URL.
func refTail(ref, kind string) (int64, bool) {
	i := strings.LastIndex(ref, kind+"/")
	if i < 0 || (i > 0 && ref[i-1] != '/') {
		return 0, false
	}
	n, err := refID(ref[i:], kind)
	return n, err == nil
}

// book is Appointment/$book: it takes a place in the Appointment's one
// slot for its patient through service.Service.Book, exactly as POST
// /api/appointments does, under the request's Idempotency-Key. A patient
// books for themselves; the front desk (reception, an admin) names the
// patient. It answers 201 with a
// Bundle holding the new Appointment, or 200 with the original one when
// the key was used for this slot before.
func (h *Handler) book(w http.ResponseWriter, r *http.Request) error {
	c, err := h.caller(r)
	if err != nil {
		return err
	}
	if c.Role != auth.RolePatient && !booking.Desk(string(c.Role)) {
		return booking.Errorf(booking.CodeForbidden, "only patients, reception and admins can book")
	}
	key, err := booking.IdempotencyKey(r.Header.Values("Idempotency-Key"))
	if err != nil {
		return err
	}
	var raw bookInput
	if err := readBody(r, &raw); err != nil {
		return err
	}
	in, err := appointmentInput(raw)
	if err != nil {
		return err
	}
	invitation, err := invitationOf(raw)
	if err != nil {
		return err
	}
	if len(in.Slot) != 1 {
		return booking.Errorf(booking.CodeInvalidRequest, "the Appointment must name exactly one slot (Slot/<id>)")
	}
	slotID, ok := refTail(in.Slot[0].Reference, "Slot")
	if !ok {
		return booking.Errorf(booking.CodeInvalidRequest, "the slot must be a reference Slot/<id>")
	}
	var named int64
	for _, p := range in.Participant {
		if !strings.Contains(p.Actor.Reference, "Patient/") {
			continue
		}
		n, ok := refTail(p.Actor.Reference, "Patient")
		if !ok || named != 0 {
			return booking.Errorf(booking.CodeInvalidRequest, "the Appointment must name at most one patient participant (Patient/<id>)")
		}
		named = n
	}
	if booking.Desk(string(c.Role)) && named == 0 {
		return booking.Errorf(booking.CodeInvalidRequest, "the front desk must name the patient (participant actor Patient/<id>)")
	}
	caller := booking.Actor{Role: string(c.Role), ID: c.Subject}
	acting, err := h.svc.ActFor(r.Context(), caller, named)
	if err != nil {
		return err
	}
	acting.Invitation = invitation
	// The one per-patient budget of every front end (API, pages, FHIR):
	// a patient's own, whoever of their people they book for.
	spend := acting.PatientID
	if self, ok := c.PatientID(); ok {
		spend = self
	}
	if err := h.svc.AttemptBooking(spend).Err(); err != nil {
		return err
	}
	// Audited as the token's caller, like the API's bookings; an admin
	// books as staff there too.
	res := h.svc.BookFor(booking.WithActor(r.Context(), caller), acting, slotID, key)
	if res.Err != nil {
		return res.Err
	}
	a := appointment(res.Appointment)
	total := 1
	b := Bundle{ResourceType: "Bundle", Type: "searchset", Timestamp: instant(h.svc.Now()), Total: &total,
		Entry: []BundleEntry{{FullURL: h.base + "/Appointment/" + a.ID, Resource: a, Search: &BundleSearch{Mode: "match"}}}}
	status := http.StatusCreated
	if res.Replayed {
		status = http.StatusOK
	} else {
		w.Header().Set("Location", h.base+"/Appointment/"+a.ID)
	}
	writeResource(w, status, b)
	return nil
}

// findParams reads $find's parameters from the query (GET) or a
// Parameters body (POST) as one url.Values.
func findParams(r *http.Request) (url.Values, error) {
	if r.Method == http.MethodGet {
		return r.URL.Query(), nil
	}
	var p struct {
		ResourceType string `json:"resourceType"`
		Parameter    []struct {
			Name           string     `json:"name"`
			ValueString    string     `json:"valueString"`
			ValueDate      string     `json:"valueDate"`
			ValueDateTime  string     `json:"valueDateTime"`
			ValueReference *Reference `json:"valueReference"`
			ValueCoding    *Coding    `json:"valueCoding"`
		} `json:"parameter"`
	}
	if err := readBody(r, &p); err != nil {
		return nil, err
	}
	if p.ResourceType != "Parameters" {
		return nil, booking.Errorf(booking.CodeInvalidRequest, "the body must be Parameters")
	}
	q := url.Values{}
	for _, x := range p.Parameter {
		v := x.ValueString + x.ValueDate + x.ValueDateTime
		if x.ValueReference != nil {
			v = x.ValueReference.Reference
		}
		if x.ValueCoding != nil {
			v = x.ValueCoding.Code
		}
		q.Add(x.Name, v)
	}
	return q, nil
}

// find is Appointment/$find: the free slots of the named practitioners, or
// of a specialty's, or of everyone, in [start, end) (default: from now for
// DefaultSearchDays days; dates are days of the clinic's zone, an end date
// included).
func (h *Handler) find(w http.ResponseWriter, r *http.Request) error {
	q, err := findParams(r)
	if err != nil {
		return err
	}
	if err := checkParams(q, "start", "end", "practitioner", "specialty"); err != nil {
		return err
	}
	var p period
	if v := q.Get("start"); v != "" {
		lo, _, err := dateValue(v, h.zone)
		if err != nil {
			return err
		}
		p.From = lo
	}
	if v := q.Get("end"); v != "" {
		lo, hi, err := dateValue(v, h.zone)
		if err != nil {
			return err
		}
		p.To = hi
		if strings.Contains(v, "T") {
			p.To = lo
		}
	}
	if p, err = p.bounded(h.svc.Now()); err != nil {
		return err
	}
	doctors, err := refIDs(q, "practitioner", "Practitioner")
	if err != nil {
		return err
	}
	specs, err := tokens(q, "specialty")
	if err != nil {
		return err
	}
	// Over every doctor the cost grows with the clinic: only a short period.
	if len(doctors) == 0 && len(specs) == 0 && p.To.Sub(p.From) > MaxFindAllDays*24*time.Hour {
		return booking.Errorf(booking.CodeInvalidRequest, "$find without a practitioner or a specialty may span at most %d days", MaxFindAllDays)
	}
	pg, err := pagerOf(q)
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	all, err := h.schedules(ctx)
	if err != nil {
		return service.Classify(ctx, err)
	}
	var sources []slotSource
	for _, sc := range sortedBy(all, schedOf.key) {
		if sc.doctor == nil || (len(doctors) > 0 && !slices.Contains(doctors, sc.doctor.ID)) || (len(specs) > 0 && !hasSpecialty(sc.res, specs)) {
			continue
		}
		sources = append(sources, slotSource{resource: sc.doctor.ID, sched: sc, period: p})
	}
	page := newPage(pg, "Slot")
	if err := h.pageSlots(ctx, page, sources, func(s Slot) bool { return s.Status == "free" }); err != nil {
		return service.Classify(ctx, err)
	}
	// A POST's next page is a GET of the same parameters.
	writeResource(w, http.StatusOK, h.bundle(r, q, page))
	return nil
}
