package service

import (
	"cmp"
	"context"

	"github.com/slotd/slotd/booking"
)

// Transition moves an appointment to COMPLETED or NO_SHOW for staff;
// repeating it changes nothing.
func (s *Service) Transition(ctx context.Context, appointmentID int64, to booking.Status) (booking.Appointment, error) {
	if err := s.onSite(ctx, booking.ActorOf(ctx), booking.SiteRef{AppointmentID: appointmentID}); err != nil {
		return booking.Appointment{}, err
	}
	a, err := bounded(s, ctx, func(ctx context.Context) (booking.Appointment, error) {
		return s.store.Transition(ctx, appointmentID, to, s.now())
	})
	if err == nil {
		s.slotChanged(a.SlotID, a.DoctorID) // a final state holds no place
	}
	return a, err
}

// MarkNoShows makes up to limit BOOKED appointments NO_SHOW that were not
// checked in by their start and the policy's grace (Store.MarkNoShows).
func (s *Service) MarkNoShows(ctx context.Context, limit int) ([]booking.Appointment, error) {
	as, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
		return s.store.MarkNoShows(ctx, s.now(), limit)
	})
	for _, a := range as {
		s.slotChanged(a.SlotID, a.DoctorID) // a final state holds no place
	}
	return as, err
}

// ExpireHolds expires up to limit holds past their deadline (see
// Store.ExpireHolds) and releases their places in the gates.
func (s *Service) ExpireHolds(ctx context.Context, limit int) ([]booking.Appointment, error) {
	as, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
		return s.store.ExpireHolds(ctx, s.now(), limit)
	})
	offers, leftovers := 0, 0
	for _, a := range as {
		s.released(a)
		switch {
		case booking.IsLeftoverOffer(a):
			leftovers++
		case booking.IsOffer(a):
			offers++
		}
	}
	s.observeOffers(booking.OfferExpired, offers)
	s.observeLeftovers(booking.OfferExpired, leftovers)
	return as, err
}

// Cancel cancels an appointment of patientID (any patient's when patientID
// is 0, for staff), or of a person patientID's account manages (found by
// a read only when it is not patientID's own). Repeating it returns the
// cancelled appointment unchanged.
func (s *Service) Cancel(ctx context.Context, appointmentID, patientID int64) (booking.Appointment, error) {
	if patientID == 0 {
		if err := s.onSite(ctx, booking.ActorOf(ctx), booking.SiteRef{AppointmentID: appointmentID}); err != nil {
			return booking.Appointment{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	a, err := s.store.Cancel(ctx, appointmentID, patientID, s.now())
	if patientID != 0 && booking.ErrorCode(err) == booking.CodeNotFound {
		var of booking.Appointment
		if of, err = s.Appointment(ctx, appointmentID, patientID); err == nil {
			a, err = s.store.Cancel(ctx, appointmentID, of.PatientID, s.now())
		}
	}
	if err != nil {
		return a, s.storeErr(ctx, err)
	}
	s.released(a)
	return a, nil
}

// Appointment returns one appointment of patientID or of a person its
// account manages (any patient's when patientID is 0). Another account's
// appointment is not found.
func (s *Service) Appointment(ctx context.Context, id, patientID int64) (booking.Appointment, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if patientID == 0 {
		if err := s.onSite(ctx, booking.ActorOf(ctx), booking.SiteRef{AppointmentID: id}); err != nil {
			return booking.Appointment{}, err
		}
	}
	a, err := s.store.GetAppointment(ctx, id)
	if err != nil {
		return booking.Appointment{}, s.storeErr(ctx, err)
	}
	if patientID != 0 && a.PatientID != patientID {
		if ok, err := s.manages(ctx, patientID, a.PatientID); err != nil || !ok {
			return booking.Appointment{}, cmp.Or(err, error(booking.NotFound("appointment")))
		}
	}
	return a, nil
}

// AccountAppointments lists the appointments of account and of every
// person it manages, newest first, as Appointments does for one patient.
func (s *Service) AccountAppointments(ctx context.Context, account int64, status booking.Status, p booking.Page) ([]booking.Appointment, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	as, err := s.store.ListAccountAppointments(ctx, account, status, p)
	return as, s.storeErr(ctx, err)
}

// Appointments lists a patient's appointments, newest first, optionally in
// one state, one page at a time (booking.Page; the zero Page lists all).
// A staff caller limited to sites sees those of its sites only, narrowed
// in the store's query (booking.SiteAllowed), so each page is whole.
func (s *Service) Appointments(ctx context.Context, patientID int64, status booking.Status, p booking.Page) ([]booking.Appointment, error) {
	caller, err := s.Caller(ctx, booking.ActorOf(ctx))
	if err != nil {
		return nil, err
	}
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
		return s.store.ListAppointments(ctx, booking.AppointmentQuery{PatientID: patientID, Status: status, Sites: caller.Sites, Page: p})
	})
}
