package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Input bounds of the admin endpoints: generous for real use, small enough
// that no request can ask the store for something absurd.
const (
	maxNameLen         = 200
	maxGenerateDays    = 366
	defaultHoldSeconds = booking.DefaultHoldMinutes * 60
)

// cleanName trims and checks a display name.
func cleanName(s, field string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > maxNameLen || !utf8.ValidString(s) || strings.ContainsFunc(s, isControl) {
		return "", errorf(booking.CodeInvalidRequest, "%s must be 1 to %d printable characters", field, maxNameLen)
	}
	return s, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func (s *server) createDepartment(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Name   string `json:"name"`
		SiteID int64  `json:"siteId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, err := cleanName(in.Name, "name")
	if err != nil {
		return err
	}
	if in.SiteID < 0 || in.SiteID > booking.MaxID {
		return errorf(booking.CodeInvalidRequest, "siteId must be a positive id")
	}
	d, err := s.svc.CreateDepartment(r.Context(), booking.Department{Name: name, SiteID: in.SiteID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, d)
	return nil
}

func (s *server) createDoctor(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Name         string `json:"name"`
		DepartmentID int64  `json:"departmentId"`
		TimeZone     string `json:"timezone"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, err := cleanName(in.Name, "name")
	if err != nil {
		return err
	}
	if !validID(in.DepartmentID) {
		return errorf(booking.CodeInvalidRequest, "departmentId must be an id 1 to %d", int64(booking.MaxID))
	}
	// "" and "Local" load too, but mean UTC or this machine's zone: never
	// what a clinic meant.
	if in.TimeZone == "" || in.TimeZone == "Local" || len(in.TimeZone) > 64 {
		return errorf(booking.CodeInvalidRequest, "timezone must be an IANA time zone such as Europe/Berlin")
	}
	if _, err := time.LoadLocation(in.TimeZone); err != nil {
		return errorf(booking.CodeInvalidRequest, "timezone must be an IANA time zone such as Europe/Berlin")
	}
	d, err := s.svc.CreateDoctor(r.Context(), booking.Doctor{Name: name, DepartmentID: in.DepartmentID, TimeZone: in.TimeZone})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/doctors/"+strconv.FormatInt(d.ID, 10))
	writeJSON(w, http.StatusCreated, d)
	return nil
}

// validPhone is a light check: digits with the usual separators, so that a
// typo is caught without rejecting any real numbering plan.
func validPhone(p string) bool {
	digits := 0
	for i, c := range p {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '+' && i == 0:
		case c == ' ' || c == '-' || c == '(' || c == ')' || c == '.':
		default:
			return false
		}
	}
	return digits >= 3 && digits <= 20 && len(p) <= 32
}

func (s *server) createPatient(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Name      string `json:"name"`
		Phone     string `json:"phone"`
		Email     string `json:"email"`
		BirthDate string `json:"birthDate"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, err := cleanName(in.Name, "name")
	if err != nil {
		return err
	}
	if _, err := booking.CheckSignupProfile(booking.SignupProfile{Name: name, BirthDate: in.BirthDate}, s.now()); err != nil {
		return err
	}
	// Personal data: the messages below never echo the value.
	phone := strings.TrimSpace(in.Phone)
	if phone != "" && !validPhone(phone) {
		return errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
	}
	email := strings.TrimSpace(in.Email)
	if email != "" && !booking.EmailOK(email) {
		return errorf(booking.CodeInvalidRequest, "email must be an e-mail address")
	}
	p, err := s.svc.CreatePatient(r.Context(), booking.Patient{Name: name, Phone: phone, Email: email, BirthDate: in.BirthDate})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/patients/"+strconv.FormatInt(p.ID, 10))
	writeJSON(w, http.StatusCreated, p)
	return nil
}

func (s *server) getPatient(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p, err := s.store.GetPatient(ctx, id)
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// findPatients is GET /api/admin/patients?q=: the staff's search (a name's
// start, a phone or an e-mail; Service.FindPatients), paged by id. The
// answer is personal data: never cached on the way, never logged.
func (s *server) findPatients(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	q, err := parseQuery(r, withPage("q", "birthDate")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	if !booking.ValidPatientQuery(q["q"]) {
		return errorf(booking.CodeInvalidRequest, "q must be at most %d characters", booking.MaxPatientQuery)
	}
	found, err := s.svc.FindPatients(r.Context(), booking.PatientQuery{Q: q["q"], BirthDate: q["birthDate"], Role: string(c.Role),
		Page: booking.Page{After: p.After, Limit: p.Limit}})
	if err != nil {
		return err
	}
	page := listPage[booking.Patient]{Items: orEmpty(found.Patients)}
	if found.Next != 0 {
		next := encodeCursor(found.Next)
		page.Next = &next
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, page)
	return nil
}

// scheduleRequest is the body of POST /api/admin/doctors/{id}/schedules.
// Weekdays are plain ints so that 7 or -1 is refused here, not wrapped.
type scheduleRequest struct {
	Weekdays    []int  `json:"weekdays"`
	StartTime   string `json:"startTime"`
	EndTime     string `json:"endTime"`
	SlotMinutes int    `json:"slotMinutes"`
	Capacity    int    `json:"capacity"`
	Fee         int64  `json:"fee"`
	HorizonDays int    `json:"horizonDays"`
	OpensAtTime string `json:"opensAtTime"`
	HoldMinutes int    `json:"holdMinutes"`
	// Reminders ("24h,2h") and OfferMinutes override the server's.
	Reminders    string `json:"reminders"`
	OfferMinutes int    `json:"offerMinutes"`
	// EndDate ("YYYY-MM-DD") ends the schedule; Policy overrides the
	// clinic's for its slots.
	EndDate string                 `json:"endDate"`
	Policy  booking.PolicyOverride `json:"policy"`
}

// schedule checks the body of a schedule and turns it into one.
func (in scheduleRequest) schedule(doctorID int64) (booking.Schedule, error) {
	if len(in.Weekdays) == 0 || len(in.Weekdays) > 7 {
		return booking.Schedule{}, errorf(booking.CodeInvalidRequest, "weekdays must list 1 to 7 days (0 = Sunday)")
	}
	sc := booking.Schedule{
		DoctorID: doctorID, StartTime: in.StartTime, EndTime: in.EndTime, SlotMinutes: in.SlotMinutes,
		Capacity: in.Capacity, FeeCents: in.Fee, HorizonDays: in.HorizonDays,
		OpensAtTime: in.OpensAtTime, HoldMinutes: in.HoldMinutes, Policy: in.Policy,
		Reminders: in.Reminders, OfferMinutes: in.OfferMinutes,
	}
	for _, d := range in.Weekdays {
		if d < 0 || d > 6 {
			return booking.Schedule{}, errorf(booking.CodeInvalidRequest, "weekdays must be 0 (Sunday) to 6 (Saturday)")
		}
		sc.Weekdays = append(sc.Weekdays, time.Weekday(d))
	}
	if in.EndDate != "" {
		d, err := parseDate(in.EndDate, "endDate")
		if err != nil {
			return booking.Schedule{}, inBody(err, "/endDate")
		}
		sc.EndDate = d.String()
	}
	if err := in.Policy.Validate(); err != nil {
		return booking.Schedule{}, err
	}
	return sc, nil
}

// scheduleAnswer is a created schedule with the number of slots generated.
type scheduleAnswer struct {
	booking.Schedule
	SlotsCreated int `json:"slotsCreated"`
}

func (s *server) createSchedule(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in scheduleRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	sc, err := in.schedule(id)
	if err != nil {
		return err
	}
	sc, created, err := s.svc.CreateSchedule(r.Context(), sc)
	if err != nil {
		// When only the generation failed the schedule exists; POST
		// .../slots/generate completes the slots.
		return err
	}
	w.Header().Set("Location", "/api/admin/doctors/"+strconv.FormatInt(id, 10)+"/schedules")
	writeJSON(w, http.StatusCreated, scheduleAnswer{Schedule: sc, SlotsCreated: created})
	return nil
}

func (s *server) listSchedules(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	d, _, err := s.doctor(r)
	if err != nil {
		return err
	}
	// Another site's doctor is not found for an admin limited to sites.
	if err := s.svc.OnSite(r.Context(), actorOf(c), booking.SiteRef{DoctorID: d.ID}); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	// A doctor has a few schedules (they may not overlap): read whole, by id.
	ss, err := s.store.ListSchedules(ctx, d.ID)
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, pageAfter(ss, p, func(sc booking.Schedule) int64 { return sc.ID }, true))
	return nil
}

// generateAnswer counts the slots a (re)generation made and found.
type generateAnswer struct {
	Created  int `json:"created"`
	Existing int `json:"existing"`
}

func (s *server) generateSlots(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	from, err := parseDate(in.From, "from")
	if err != nil {
		return inBody(err, "/from")
	}
	to, err := parseDate(in.To, "to")
	if err != nil {
		return inBody(err, "/to")
	}
	if to.Before(from) {
		return errorf(booking.CodeInvalidRequest, "to must not be before from")
	}
	if from.AddDays(maxGenerateDays - 1).Before(to) {
		return errorf(booking.CodeInvalidRequest, "at most %d days can be generated at once", maxGenerateDays)
	}
	var ans generateAnswer
	ans.Created, ans.Existing, err = s.svc.GenerateSlots(r.Context(), id, from.Midnight(), to.Midnight())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ans)
	return nil
}

func (s *server) createSlot(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		DoctorID        int64    `json:"doctorId"`
		StartAt         instant  `json:"startAt"`
		DurationMinutes int      `json:"durationMinutes"`
		Capacity        int      `json:"capacity"`
		OpensAt         *instant `json:"opensAt"`
		Fee             int64    `json:"fee"`
		// ScheduleID adds the slot to one of the doctor's schedules, so
		// that an opening of the schedule (a waiting room) covers it.
		ScheduleID *int64 `json:"scheduleId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	now := s.now()
	switch {
	case !validID(in.DoctorID):
		return errorf(booking.CodeInvalidRequest, "doctorId must be an id 1 to %d", int64(booking.MaxID))
	case in.ScheduleID != nil && !validID(*in.ScheduleID):
		return fieldErrorf("/scheduleId", "scheduleId must be an id 1 to %d", int64(booking.MaxID))
	case in.StartAt.IsZero():
		return errorf(booking.CodeInvalidRequest, "startAt is required (RFC 3339)")
	case !in.StartAt.After(now):
		return errorf(booking.CodeInvalidRequest, "startAt must be in the future")
	case in.DurationMinutes < booking.MinSlotMinutes || in.DurationMinutes > booking.MaxSlotMinutes:
		return errorf(booking.CodeInvalidRequest, "durationMinutes must be %d to %d", booking.MinSlotMinutes, booking.MaxSlotMinutes)
	case in.Capacity < booking.MinCapacity || in.Capacity > booking.MaxCapacity:
		return errorf(booking.CodeInvalidRequest, "capacity must be %d to %d", booking.MinCapacity, booking.MaxCapacity)
	case in.Fee < 0 || in.Fee > booking.MaxFeeCents:
		return errorf(booking.CodeInvalidRequest, "fee must be 0 to %d", booking.MaxFeeCents)
	}
	opens := now
	if in.OpensAt != nil {
		opens = in.OpensAt.Time
		if !opens.Before(in.StartAt.Time) {
			return errorf(booking.CodeInvalidRequest, "opensAt must be before startAt")
		}
	}
	sl := booking.Slot{
		DoctorID: in.DoctorID,
		StartAt:  in.StartAt.UTC(), EndAt: in.StartAt.UTC().Add(time.Duration(in.DurationMinutes) * time.Minute),
		Capacity: in.Capacity, OpensAt: opens.UTC(), Status: booking.SlotOpen,
		FeeCents: in.Fee, HoldSeconds: defaultHoldSeconds,
	}
	if in.ScheduleID != nil {
		sl.ScheduleID = *in.ScheduleID
	}
	sl, err := s.svc.CreateSlot(r.Context(), sl)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/slots/"+strconv.FormatInt(sl.ID, 10))
	writeJSON(w, http.StatusCreated, newSlotView(sl, s.now()))
	return nil
}

func (s *server) updateSlot(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Capacity *int    `json:"capacity"`
		Status   *string `json:"status"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Capacity == nil && in.Status == nil {
		return errorf(booking.CodeInvalidRequest, "give capacity, status or both")
	}
	if in.Capacity != nil && (*in.Capacity < booking.MinCapacity || *in.Capacity > booking.MaxCapacity) {
		return fieldErrorf("/capacity", "capacity must be %d to %d", booking.MinCapacity, booking.MaxCapacity)
	}
	if in.Status != nil {
		st, ok := enumValue(*in.Status, booking.SlotOpen, booking.SlotClosed)
		if !ok {
			return fieldErrorf("/status", "status must be OPEN or CLOSED")
		}
		in.Status = &st
	}
	sl, err := s.svc.UpdateSlot(r.Context(), id, booking.SlotUpdate{Capacity: in.Capacity, Status: in.Status})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newSlotView(sl, s.now()))
	return nil
}
