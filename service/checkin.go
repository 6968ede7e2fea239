package service

import (
	"context"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// CheckInObserver is what an Options.Observer may also implement to count
// check-ins (cmd/slotd's metrics do).
type CheckInObserver interface {
	// CheckIn counts one check-in by who (booking.CheckInByPatient or
	// CheckInByStaff) and outcome (booking.CheckInOutcome).
	CheckIn(by, outcome string)
}

// MaxKioskCandidates bounds the appointments a kiosk's code is matched
// against in one look-up (clinic-wide; a code is one HMAC to compare).
const MaxKioskCandidates = 5000

// CheckInCode is appointment id's check-in code as people read it
// ("K7M2-9QXD"), "" when the server signs none. Whoever is shown it must
// be allowed to see the appointment.
func (s *Service) CheckInCode(id int64) string {
	if !s.checkInCodes.Valid() {
		return ""
	}
	return s.checkInCodes.Display(id)
}

// CheckIn checks appointment id in for caller: a patient with their own
// appointment's code, an admin, or the appointment's doctor (code
// optional; checked when given). Anyone else is forbidden. repeat says the
// appointment was ARRIVED already (answered as it is). See
// booking.DecideCheckIn for the refusals.
func (s *Service) CheckIn(ctx context.Context, caller booking.Actor, id int64, code string) (a booking.Appointment, repeat bool, err error) {
	r := booking.CheckInRequest{AppointmentID: id, Code: code, Codes: s.checkInCodes}
	switch caller.Role {
	case booking.RolePatient:
		r.PatientID, _ = strconv.ParseInt(caller.ID, 10, 64)
	case booking.RoleDoctor:
		r.DoctorID, _ = strconv.ParseInt(caller.ID, 10, 64)
	}
	if !booking.Desk(caller.Role) && r.PatientID <= 0 && r.DoctorID <= 0 {
		return booking.Appointment{}, false, booking.Errorf(booking.CodeForbidden, "only the patient, the doctor or the front desk can check in")
	}
	if err := s.onSite(ctx, caller, booking.SiteRef{AppointmentID: id}); err != nil {
		return booking.Appointment{}, false, err
	}
	tctx, cancel := context.WithTimeout(booking.WithActor(ctx, caller), s.timeout)
	defer cancel()
	a, repeat, err = s.store.CheckIn(tctx, r, s.now())
	err = s.storeErr(tctx, err)
	if err == nil && !repeat {
		s.slotChanged(a.SlotID, a.DoctorID) // the day pages and caches show the state
	}
	if o, ok := s.observer.(CheckInObserver); ok {
		o.CheckIn(r.By(), booking.CheckInOutcome(repeat, err))
	}
	return a, repeat, err
}

// CheckInByCode checks in, for staff at the kiosk, the appointment whose
// code is code. The code names the appointment: it is looked for among the
// appointments whose check-in window is open now, then among those of the
// twelve hours around now (so that a code typed too early or too late is
// answered so, by CheckIn). No such appointment is bad-check-in-code.
func (s *Service) CheckInByCode(ctx context.Context, caller booking.Actor, code string) (booking.Appointment, bool, error) {
	fail := func(err error) (booking.Appointment, bool, error) {
		if o, ok := s.observer.(CheckInObserver); ok {
			o.CheckIn(booking.CheckInByStaff, booking.CheckInOutcome(false, err))
		}
		return booking.Appointment{}, false, err
	}
	norm, ok := booking.NormalizeCheckInCode(code)
	if !ok || !s.checkInCodes.Valid() {
		return fail(booking.Errorf(booking.CodeBadCheckInCode, "this is not a check-in code"))
	}
	now := s.now()
	p, err := bounded(s, ctx, s.store.ClinicPolicy)
	if err != nil {
		return fail(err)
	}
	// The appointments whose window holds now start in
	// [now - after, now + before].
	ranges := [][2]time.Time{
		{now.Add(-time.Duration(p.CheckInAfterMinutes) * time.Minute), now.Add(time.Duration(p.CheckInBeforeMinutes) * time.Minute)},
		{now.Add(-kioskSpan), now.Add(kioskSpan)},
	}
	for _, rg := range ranges {
		as, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
			return s.store.ArrivalCandidates(ctx, rg[0], rg[1], MaxKioskCandidates)
		})
		if err != nil {
			return fail(err)
		}
		for _, a := range as {
			if s.checkInCodes.Verify(a.ID, norm) {
				return s.CheckIn(ctx, caller, a.ID, norm)
			}
		}
	}
	return fail(booking.Errorf(booking.CodeBadCheckInCode, "no appointment due now has this check-in code"))
}

// kioskSpan is how far from now the kiosk looks for a code outside its
// window, to tell too early or too late from wrong.
const kioskSpan = 12 * time.Hour
