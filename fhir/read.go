package fhir

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// metadata is the CapabilityStatement: what this server reads, searches
// and operates, generated from the same tables the handlers use.
func (h *Handler) metadata(w http.ResponseWriter, r *http.Request) error {
	type param struct {
		Name          string `json:"name"`
		Type          string `json:"type"`
		Documentation string `json:"documentation,omitempty"`
	}
	type interaction struct {
		Code string `json:"code"`
	}
	type operation struct {
		Name       string `json:"name"`
		Definition string `json:"definition"`
	}
	type resource struct {
		Type        string        `json:"type"`
		Interaction []interaction `json:"interaction"`
		SearchParam []param       `json:"searchParam,omitempty"`
		Operation   []operation   `json:"operation,omitempty"`
	}
	rs := []interaction{{"read"}, {"search-type"}}
	date := "prefixes eq, ge, gt, le, lt; YYYY, YYYY-MM, YYYY-MM-DD or a dateTime with zone"
	cs := map[string]any{
		"resourceType": "CapabilityStatement",
		"status":       "active",
		"date":         instant(h.svc.Now()),
		"kind":         "instance",
		"software":     map[string]string{"name": "slotd"},
		"implementation": map[string]string{
			"description": "slotd: capacity-limited slots. Slots carry extensions " + ExtCapacity + " and " + ExtRemaining +
				" (places and free places from the real counter), " + ExtOpensAt + " and the SMART Scheduling Links ones." +
				" Every search is paged: _count (default " + strconv.Itoa(DefaultCount) + ", at most " + strconv.Itoa(MaxCount) +
				") and a next link carrying _cursor.",
			"url": h.base,
		},
		"fhirVersion": "4.0.1",
		"format":      []string{"application/fhir+json"},
		"rest": []map[string]any{{
			"mode":      "server",
			"operation": []operation{{"bulk-publish", "urn:slotd:fhir:OperationDefinition:bulk-publish"}},
			"security": map[string]any{
				"description": "Bearer tokens of the slotd API (Authorization: Bearer <token>) for Appointment and $book; the inventory is public.",
			},
			"resource": []resource{
				{Type: "Practitioner", Interaction: rs},
				{Type: "Location", Interaction: rs},
				{Type: "HealthcareService", Interaction: rs, SearchParam: []param{
					{"location", "reference", "Location/site-<id>: the services offered at a site"}}},
				{Type: "Schedule", Interaction: rs, SearchParam: []param{
					{"actor", "reference", "Practitioner/<id> or Location/<id>"},
					{"specialty", "token", "department id, name or " + DepartmentSystem + "|<id>"}}},
				{Type: "Slot", Interaction: rs, SearchParam: []param{
					{"schedule", "reference", "required; Schedule/<id>, comma-separated for several"},
					{"start", "date", date + "; at most " + strconv.Itoa(MaxSearchDays) + " days, from now for " + strconv.Itoa(DefaultSearchDays) + " days by default"},
					{"status", "token", "free, busy, busy-unavailable"}}},
				{Type: "Appointment", Interaction: rs, SearchParam: []param{
					{"patient", "reference", "a patient sees only their own; an admin names one"},
					{"date", "date", date},
					{"status", "token", strings.Join(appointmentStatuses, ", ")}},
					Operation: []operation{
						{"find", "urn:slotd:fhir:OperationDefinition:appointment-find"},
						{"book", "urn:slotd:fhir:OperationDefinition:appointment-book"}}},
			},
		}},
	}
	writeResource(w, http.StatusOK, cs)
	return nil
}

func (h *Handler) readPractitioner(w http.ResponseWriter, r *http.Request) error {
	n, err := pathID(r.PathValue("id"), "Practitioner")
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	d, err := h.store.GetDoctor(ctx, n)
	if err != nil {
		return service.Classify(ctx, err)
	}
	writeResource(w, http.StatusOK, practitioner(d, h.web))
	return nil
}

func (h *Handler) searchPractitioners(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := checkParams(q); err != nil {
		return err
	}
	pg, err := pagerOf(q)
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	ds, err := h.store.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return service.Classify(ctx, err)
	}
	p := newPage(pg, "Practitioner")
	for _, d := range sortedBy(ds, func(d booking.Doctor) int64 { return d.ID }) {
		if !p.add(cursor{K: d.ID}, id(d.ID), practitioner(d, h.web)) {
			break
		}
	}
	writeResource(w, http.StatusOK, h.bundle(r, q, p))
	return nil
}

func (h *Handler) readLocation(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("id") == ClinicID {
		return h.readSiteLocation(w, r, 0)
	}
	if n, ok := siteOf(r.PathValue("id")); ok {
		return h.readSiteLocation(w, r, n)
	}
	n, err := pathID(r.PathValue("id"), "Location")
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	room, err := h.room(ctx, n)
	if err != nil {
		return service.Classify(ctx, err)
	}
	writeResource(w, http.StatusOK, roomLocation(room))
	return nil
}

func (h *Handler) searchLocations(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := checkParams(q); err != nil {
		return err
	}
	pg, err := pagerOf(q)
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	rooms, err := h.store.ListRooms(ctx, booking.RoomFilter{})
	if err != nil {
		return service.Classify(ctx, err)
	}
	_, sites, err := h.sites(ctx)
	if err != nil {
		return service.Classify(ctx, err)
	}
	// The sites come first (key 0, then the site's id), then the rooms by
	// id; Location/clinic, another id of the first site, is not listed.
	p := newPage(pg, "Location")
	full := false
	for _, st := range sites {
		if full = !p.add(cursor{I: st.ID}, siteID(st.ID), siteLocation(st, h.clinic)); full {
			break
		}
	}
	for _, rm := range sortedBy(rooms, func(rm booking.Room) int64 { return rm.ID }) {
		if full || !p.add(cursor{K: rm.ID}, id(rm.ID), roomLocation(rm)) {
			break
		}
	}
	writeResource(w, http.StatusOK, h.bundle(r, q, p))
	return nil
}

// room finds a room by id (rooms are few: a round's residence).
func (h *Handler) room(ctx context.Context, n int64) (booking.Room, error) {
	rooms, err := h.store.ListRooms(ctx, booking.RoomFilter{})
	if err != nil {
		return booking.Room{}, err
	}
	for _, rm := range rooms {
		if rm.ID == n {
			return rm, nil
		}
	}
	return booking.Room{}, booking.NotFound("location")
}

// schedOf is a Schedule with what its slots need: the zone of its dates
// and, for a doctor, the doctor (booking deep links go to the doctor's day),
// the booking phone of the doctor's site and the services the doctor
// offers (the slots' serviceType).
type schedOf struct {
	res      Schedule
	zone     *time.Location
	doctor   *booking.Doctor
	site     int64
	phone    string
	services []CodeableConcept
}

// key is the Schedule's id as a number, its paging key.
func (s schedOf) key() int64 {
	n, _ := strconv.ParseInt(s.res.ID, 10, 64)
	return n
}

// sortedBy sorts xs by an ascending key (in place) and returns it.
func sortedBy[T any](xs []T, key func(T) int64) []T {
	slices.SortStableFunc(xs, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return xs
}

// schedules lists every Schedule: one per doctor, then one per room.
func (h *Handler) schedules(ctx context.Context) ([]schedOf, error) {
	ds, err := h.store.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return nil, err
	}
	deps, err := h.departments(ctx)
	if err != nil {
		return nil, err
	}
	rooms, err := h.store.ListRooms(ctx, booking.RoomFilter{})
	if err != nil {
		return nil, err
	}
	sites, _, err := h.sites(ctx)
	if err != nil {
		return nil, err
	}
	services, err := h.serviceTypes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]schedOf, 0, len(ds)+len(rooms))
	for i := range ds {
		sc, err := h.doctorSched(&ds[i], deps[ds[i].DepartmentID], sites[deps[ds[i].DepartmentID].SiteID], services)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	for _, rm := range rooms {
		loc, err := time.LoadLocation(rm.TimeZone)
		if err != nil {
			return nil, err
		}
		out = append(out, schedOf{res: roomSchedule(rm), zone: loc})
	}
	return out, nil
}

func (h *Handler) departments(ctx context.Context) (map[int64]booking.Department, error) {
	deps, err := h.store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return nil, err
	}
	m := make(map[int64]booking.Department, len(deps))
	for _, d := range deps {
		m[d.ID] = d
	}
	return m, nil
}

// schedule resolves one Schedule id: a doctor's or a room's.
func (h *Handler) schedule(ctx context.Context, n int64) (schedOf, error) {
	d, err := h.store.GetDoctor(ctx, n)
	if err == nil {
		deps, err := h.departments(ctx)
		if err != nil {
			return schedOf{}, err
		}
		site, err := h.store.GetSite(ctx, deps[d.DepartmentID].SiteID)
		if err != nil {
			return schedOf{}, err
		}
		services, err := h.serviceTypes(ctx)
		if err != nil {
			return schedOf{}, err
		}
		return h.doctorSched(&d, deps[d.DepartmentID], site, services)
	}
	if booking.ErrorCode(err) != booking.CodeNotFound {
		return schedOf{}, err
	}
	rm, err := h.room(ctx, n)
	if err != nil {
		return schedOf{}, booking.NotFound("schedule")
	}
	loc, err := time.LoadLocation(rm.TimeZone)
	if err != nil {
		return schedOf{}, err
	}
	return schedOf{res: roomSchedule(rm), zone: loc}, nil
}

func (h *Handler) readSchedule(w http.ResponseWriter, r *http.Request) error {
	n, err := pathID(r.PathValue("id"), "Schedule")
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	s, err := h.schedule(ctx, n)
	if err != nil {
		return service.Classify(ctx, err)
	}
	writeResource(w, http.StatusOK, s.res)
	return nil
}

func (h *Handler) searchSchedules(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := checkParams(q, "actor", "specialty"); err != nil {
		return err
	}
	actors, err := tokens(q, "actor")
	if err != nil {
		return err
	}
	specs, err := tokens(q, "specialty")
	if err != nil {
		return err
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
	p := newPage(pg, "Schedule")
	for _, s := range sortedBy(all, schedOf.key) {
		if (len(actors) == 0 || hasActor(s.res, actors)) && (len(specs) == 0 || hasSpecialty(s.res, specs)) {
			if !p.add(cursor{K: s.key()}, s.res.ID, s.res) {
				break
			}
		}
	}
	writeResource(w, http.StatusOK, h.bundle(r, q, p))
	return nil
}

func hasActor(s Schedule, actors []string) bool {
	for _, a := range s.Actor {
		if slices.Contains(actors, a.Reference) {
			return true
		}
	}
	return false
}

// hasSpecialty matches a department by id, by name (any case) or by
// system|code.
func hasSpecialty(s Schedule, specs []string) bool {
	for _, sp := range s.Specialty {
		for _, c := range sp.Coding {
			for _, want := range specs {
				if want == c.Code || strings.EqualFold(want, c.Display) || want == c.System+"|"+c.Code {
					return true
				}
			}
		}
	}
	return false
}

// doctorSched is a doctor's Schedule at the site of the department.
func (h *Handler) doctorSched(d *booking.Doctor, dep booking.Department, site booking.Site,
	services map[int64][]CodeableConcept) (schedOf, error) {
	loc, err := d.Location()
	if err != nil {
		return schedOf{}, err
	}
	return schedOf{res: doctorSchedule(*d, dep, site), zone: loc, doctor: d, site: site.ID,
		phone: cmp.Or(site.Phone, h.clinic.Phone), services: services[d.ID]}, nil
}

// links are a slot's booking deep link (a doctor's day page in the web
// UI), its site's phone and its services.
func (h *Handler) links(s booking.Slot, sc schedOf) slotLinks {
	l := slotLinks{phone: cmp.Or(sc.phone, h.clinic.Phone), serviceType: sc.services}
	if sc.doctor != nil {
		l.deepLink = h.web + "/doctors/" + id(sc.doctor.ID) + "/days/" + s.StartAt.In(sc.zone).Format(time.DateOnly)
	}
	return l
}

func (h *Handler) readSlot(w http.ResponseWriter, r *http.Request) error {
	n, err := pathID(r.PathValue("id"), "Slot")
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	s, err := h.store.GetSlot(ctx, n)
	if err != nil {
		return service.Classify(ctx, err)
	}
	sc, err := h.schedule(ctx, s.DoctorID)
	if err != nil {
		return service.Classify(ctx, err)
	}
	writeResource(w, http.StatusOK, slot(s, h.svc.Now(), h.links(s, sc)))
	return nil
}

// searchSlots lists the slots of one or more schedules starting in a
// period (?schedule=Schedule/3&start=ge2026-12-02&start=lt2026-12-03),
// optionally only those of some statuses.
func (h *Handler) searchSlots(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := checkParams(q, "schedule", "start", "status"); err != nil {
		return err
	}
	schedules, err := refIDs(q, "schedule", "Schedule")
	if err != nil {
		return err
	}
	if len(schedules) == 0 {
		return booking.Errorf(booking.CodeInvalidRequest, "schedule is required (Schedule/<id>); all slots are in $bulk-publish")
	}
	statuses, err := tokens(q, "status")
	if err != nil {
		return err
	}
	for _, st := range statuses {
		if st != "free" && st != "busy" && st != "busy-unavailable" {
			return booking.Errorf(booking.CodeInvalidRequest, "status must be free, busy or busy-unavailable")
		}
	}
	pg, err := pagerOf(q)
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	now := h.svc.Now()
	// By schedule id, then by start: the order the cursor keys.
	slices.Sort(schedules)
	sources := make([]slotSource, 0, len(schedules))
	for _, n := range schedules {
		sc, err := h.schedule(ctx, n)
		if err != nil {
			return service.Classify(ctx, err)
		}
		p, err := dateRange(q["start"], sc.zone)
		if err != nil {
			return err
		}
		if p, err = p.bounded(now); err != nil {
			return err
		}
		sources = append(sources, slotSource{resource: n, sched: sc, period: p})
	}
	p := newPage(pg, "Slot")
	err = h.pageSlots(ctx, p, sources, func(s Slot) bool { return len(statuses) == 0 || slices.Contains(statuses, s.Status) })
	if err != nil {
		return service.Classify(ctx, err)
	}
	writeResource(w, http.StatusOK, h.bundle(r, q, p))
	return nil
}

// owner is whose appointments c may see: its own patient id, or 0 (any)
// for the front desk (booking.Desk: reception, an admin). Doctors have no
// appointments of their own here, as in the JSON API.
func owner(c auth.Claims) (int64, error) {
	if booking.Desk(string(c.Role)) {
		return 0, nil
	}
	if c.Role == auth.RolePatient {
		n, _ := c.PatientID()
		return n, nil
	}
	return 0, booking.Errorf(booking.CodeForbidden, "only patients, reception and admins can see appointments")
}

func (h *Handler) readAppointment(w http.ResponseWriter, r *http.Request) error {
	c, err := h.caller(r)
	if err != nil {
		return err
	}
	who, err := owner(c)
	if err != nil {
		return err
	}
	n, err := pathID(r.PathValue("id"), "Appointment")
	if err != nil {
		return err
	}
	// The caller goes with the read: the Service refuses the front desk
	// limited to sites another site's appointment (booking.SiteAllowed).
	a, err := h.svc.Appointment(booking.WithActor(r.Context(), booking.Actor{Role: string(c.Role), ID: c.Subject}), n, who)
	if err != nil {
		return err
	}
	writeResource(w, http.StatusOK, appointment(a))
	return nil
}

// searchAppointments lists one patient's appointments: the caller's own
// (naming another patient is forbidden), or the named patient's for the
// front desk (of its sites when it is limited to some).
func (h *Handler) searchAppointments(w http.ResponseWriter, r *http.Request) error {
	c, err := h.caller(r)
	if err != nil {
		return err
	}
	who, err := owner(c)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if err := checkParams(q, "patient", "date", "status"); err != nil {
		return err
	}
	patient := who
	if v := q.Get("patient"); v != "" {
		n, err := refID(v, "Patient")
		if err != nil {
			return err
		}
		if who != 0 && n != who {
			return booking.Errorf(booking.CodeForbidden, "a patient sees only their own appointments")
		}
		patient = n
	}
	if patient == 0 {
		return booking.Errorf(booking.CodeInvalidRequest, "the front desk must name the patient (patient=Patient/<id>)")
	}
	p, err := dateRange(q["date"], h.zone)
	if err != nil {
		return err
	}
	statuses, err := tokens(q, "status")
	if err != nil {
		return err
	}
	for _, st := range statuses {
		if !slices.Contains(appointmentStatuses, st) {
			return booking.Errorf(booking.CodeInvalidRequest, "status must be one of %s", strings.Join(appointmentStatuses, ", "))
		}
	}
	pg, err := pagerOf(q)
	if err != nil {
		return err
	}
	// The front desk limited to sites finds those of its sites (the
	// Service narrows the store's query to them).
	as, err := h.svc.Appointments(booking.WithActor(r.Context(), booking.Actor{Role: string(c.Role), ID: c.Subject}), patient, "", booking.Page{})
	if err != nil {
		return err
	}
	// By start, then id: the order the cursor keys.
	slices.SortFunc(as, func(a, b booking.Appointment) int {
		return cmp.Or(a.StartAt.Compare(b.StartAt), cmp.Compare(a.ID, b.ID))
	})
	page := newPage(pg, "Appointment")
	for _, a := range as {
		if (!p.From.IsZero() && a.StartAt.Before(p.From)) || (!p.To.IsZero() && !a.StartAt.Before(p.To)) {
			continue
		}
		out := appointment(a)
		if len(statuses) == 0 || slices.Contains(statuses, out.Status) {
			if !page.add(cursor{T: a.StartAt.UnixMicro(), I: a.ID}, out.ID, out) {
				break
			}
		}
	}
	writeResource(w, http.StatusOK, h.bundle(r, q, page))
	return nil
}
