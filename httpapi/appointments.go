package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// idempotencyKey returns the request's Idempotency-Key (booking.IdempotencyKey).
func idempotencyKey(r *http.Request) (string, error) {
	return booking.IdempotencyKey(r.Header.Values("Idempotency-Key"))
}

// bookRequest is the body of POST /api/appointments.
type bookRequest struct {
	SlotID    int64  `json:"slotId"`
	PatientID *int64 `json:"patientId"`
	// Service names the service booked from the slot (a visit of its
	// duration); a plain body without it books the one slot.
	Service *int64 `json:"service"`
	// Invitation is a campaign's invitation code, where the slot's
	// schedule asks for one.
	Invitation *string `json:"invitation"`
}

// book takes a place.
func (s *server) book(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	at, err := s.readBooking(w, r, c)
	if err != nil {
		return err
	}
	return s.answerBooking(w, r, at)
}

// bookingAttempt is a checked booking request: whose, under which key,
// for which slot.
type bookingAttempt struct {
	acting    booking.Acting
	key       string
	slotID    int64
	serviceID int64 // 0: the slot alone
}

// mayBook is who may ask for a booking of any kind (one place, a series,
// a group): a patient for the people they manage, the front desk for
// anyone; which patient is the Service's caller rule.
func mayBook(c auth.Claims) error {
	if c.Role != auth.RolePatient && !booking.Desk(string(c.Role)) {
		return errorf(booking.CodeForbidden, "only patients, reception and admins can book")
	}
	return nil
}

// readBooking checks a booking request (POST /api/appointments, and the
// applications to a round, which are bookings too). The request is read
// and checked first: a malformed one is answered 400 and spends nothing, so
// a client's mistakes never eat the patient's budget. A well-formed attempt
// then spends one booking attempt of the patient it is for (the token's, or
// the one an admin names) before anything reads the database.
func (s *server) readBooking(w http.ResponseWriter, r *http.Request, c auth.Claims) (bookingAttempt, error) {
	if err := mayBook(c); err != nil {
		return bookingAttempt{}, err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return bookingAttempt{}, err
	}
	var in bookRequest
	if err := decodeBookRequest(r, &in); err != nil {
		return bookingAttempt{}, err
	}
	if !validID(in.SlotID) {
		return bookingAttempt{}, fieldErrorf("/slotId", "slotId must be an id 1 to %d", int64(booking.MaxID))
	}
	if in.Service != nil && !validID(*in.Service) {
		return bookingAttempt{}, fieldErrorf("/service", "service must be an id 1 to %d", int64(booking.MaxID))
	}
	if in.PatientID != nil && !validID(*in.PatientID) {
		return bookingAttempt{}, fieldErrorf("/patientId", "patientId must be an id 1 to %d", int64(booking.MaxID))
	}
	invitation, err := invitationOf(in.Invitation, "/invitation")
	if err != nil {
		return bookingAttempt{}, err
	}
	var named int64
	if in.PatientID != nil {
		named = *in.PatientID
	}
	spend := named
	if c.Role == auth.RolePatient {
		spend, _ = c.PatientID()
	} else if named == 0 {
		return bookingAttempt{}, fieldErrorf("/patientId", "the front desk must name the patient (patientId)")
	}
	if err := s.rateLimit(w, spend); err != nil {
		return bookingAttempt{}, err
	}
	acting, err := s.svc.ActFor(r.Context(), actorOf(c), named)
	if err != nil {
		return bookingAttempt{}, err
	}
	// A waiting room's admission (docs/clinic.md, "Waiting rooms"); the
	// Service verifies it, and a slot without a room never looks at it.
	acting.Admission = r.Header.Get(AdmissionHeader)
	acting.Invitation = invitation
	at := bookingAttempt{acting: acting, key: key, slotID: in.SlotID}
	if in.Service != nil {
		at.serviceID = *in.Service
	}
	return at, nil
}

// answerBooking decides a checked attempt through the Service (lanes,
// gates, idempotency) and answers 201 with the new appointment or 200
// with the original one of a retry.
func (s *server) answerBooking(w http.ResponseWriter, r *http.Request, at bookingAttempt) error {
	var res booking.BookResult
	if at.serviceID != 0 {
		res = s.svc.BookVisitFor(r.Context(), at.acting, booking.Visit{SlotID: at.slotID, ServiceID: at.serviceID}, at.key)
	} else {
		res = s.svc.BookFor(r.Context(), at.acting, at.slotID, at.key)
	}
	if res.Err != nil {
		return res.Err
	}
	if res.Replayed {
		writeJSON(w, http.StatusOK, res.Appointment)
		return nil
	}
	w.Header().Set("Location", "/api/appointments/"+strconv.FormatInt(res.Appointment.ID, 10))
	writeJSON(w, http.StatusCreated, res.Appointment)
	return nil
}

// rateLimit spends one booking attempt of patient (the Service's budget,
// shared with the web pages) and sets the RateLimit headers; beyond the
// limit it answers rate-limited with Retry-After.
func (s *server) rateLimit(w http.ResponseWriter, patient int64) error {
	d := s.svc.AttemptBooking(patient)
	if !d.Full {
		setRateHeaders(w.Header(), d)
	}
	return d.Err()
}

// owner returns whose appointments c may see: its own patient id, or 0 (all)
// for the front desk (booking.Desk). Doctors have no appointments of their
// own here.
func owner(c auth.Claims) (int64, error) {
	if booking.Desk(string(c.Role)) {
		return 0, nil
	}
	if c.Role == auth.RolePatient {
		id, _ := c.PatientID()
		return id, nil
	}
	return 0, errorf(booking.CodeForbidden, "only patients, reception and admins can see appointments")
}

func (s *server) getAppointment(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := owner(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	a, err := s.svc.Appointment(r.Context(), id, patient)
	if err != nil {
		return err
	}
	out := appointmentAnswer{Appointment: a}
	if a.Status == booking.StatusBooked {
		out.CheckInCode = s.svc.CheckInCode(a.ID)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// appointmentAnswer is one appointment as its patient (or an admin) reads
// it: with the code to check in with on the day while it is BOOKED.
type appointmentAnswer struct {
	booking.Appointment
	CheckInCode string `json:"checkInCode,omitempty"`
}

func (s *server) cancel(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := owner(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	a, err := s.svc.Cancel(r.Context(), id, patient)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (s *server) myAppointments(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, ok := c.PatientID()
	if !ok {
		return errorf(booking.CodeForbidden, "only patients have their own appointments")
	}
	q, err := parseQuery(r, withPage("status")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	var st booking.Status
	if v, ok := q["status"]; ok {
		if st, ok = enumValue(v, booking.Statuses...); !ok {
			return paramErrorf("status", "status must be one of %s", statusNames())
		}
	}
	as, err := s.svc.AccountAppointments(r.Context(), patient, st, p.store())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(as, p, func(a booking.Appointment) int64 { return a.ID }))
	return nil
}

// statusNames lists the appointment states for a validation message.
func statusNames() string {
	names := make([]string, len(booking.Statuses))
	for i, st := range booking.Statuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}
