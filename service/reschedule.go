package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/slotd/slotd/booking"
)

// RescheduleRequest asks to move PatientID's appointment AppointmentID,
// or that of a person PatientID's account manages (any patient's with
// PatientID 0, for staff), to SlotID; Key is the
// client's Idempotency-Key.
type RescheduleRequest struct {
	AppointmentID int64
	PatientID     int64
	SlotID        int64
	Key           string
}

// Reschedule moves req's appointment to its slot; a retry with the same
// key returns the moved appointment with Replayed set. Into a hot slot (one
// whose bookings are being batched in a lane of this instance) the move
// queues in that lane, so that it competes with the rush in arrival order
// rather than for the slot's row; elsewhere it is one transaction of its
// own. See Store.Reschedule and DecideReschedule.
func (s *Service) Reschedule(ctx context.Context, req RescheduleRequest) (booking.RescheduleResult, error) {
	appointmentID, patientID, slotID, key := req.AppointmentID, req.PatientID, req.SlotID, req.Key
	if patientID != 0 {
		if err := s.present(ctx, patientID); err != nil {
			return booking.RescheduleResult{}, err
		}
		// The move acts for the appointment's own person, who may be one
		// the caller's account manages (another account's is not found):
		// its idempotency record and overlap rule are that person's.
		a, err := s.Appointment(ctx, appointmentID, patientID)
		if err != nil {
			return booking.RescheduleResult{}, err
		}
		patientID = a.PatientID
	} else {
		// The desk moves an appointment of its sites to a slot of its
		// sites.
		for _, ref := range []booking.SiteRef{{AppointmentID: appointmentID}, {SlotID: slotID}} {
			if err := s.onSite(ctx, booking.ActorOf(ctx), ref); err != nil {
				return booking.RescheduleResult{}, err
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ik := inflightKey{patientID, key}
	s.mu.Lock()
	if _, busy := s.inflight[ik]; busy {
		s.mu.Unlock()
		return booking.RescheduleResult{}, booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")
	}
	s.inflight[ik] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}()

	r := booking.RescheduleRequest{AppointmentID: appointmentID, PatientID: patientID, SlotID: slotID,
		IdempotencyKey: key, Fingerprint: booking.RescheduleFingerprint(appointmentID, slotID)}
	var res booking.RescheduleResult
	since := s.gates.epoch()
	run := func(ctx context.Context) booking.BookResult {
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		var err error
		res, err = s.store.Reschedule(ctx, r, s.now())
		return booking.BookResult{Err: s.storeErr(ctx, err)}
	}
	var out booking.BookResult
	laned := false
	if s.lanes != nil {
		out, laned = s.lanes.through(ctx, slotID, run)
		if laned && out.Err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.Err = fmt.Errorf("%w: the reschedule was not decided in time", booking.ErrUnavailable)
		}
	}
	if !laned {
		out = run(ctx)
	}
	if out.Err != nil {
		// res is not read: a lane that timed out may still be writing it.
		if booking.ErrorCode(out.Err) == booking.CodeSlotFull {
			s.gates.markFull(slotID, s.now(), since)
		}
		return booking.RescheduleResult{}, out.Err
	}
	if !res.Replayed {
		// A visit's places are all its doctor's (booking/visit.go).
		for _, id := range res.Released {
			s.released(booking.Appointment{SlotID: id, DoctorID: res.FromDoctorID})
		}
		s.slotChanged(res.Appointment.SlotID, res.Appointment.DoctorID)
	}
	return res, nil
}
