package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// WaitlistObserver is what an Options.Observer may also implement to count
// the waitlist's offers and the reminders (cmd/slotd's metrics do).
type WaitlistObserver interface {
	// Offers counts n offers by outcome: OfferMade, OfferAccepted,
	// OfferDeclined, OfferExpired.
	Offers(outcome string, n int)
	// Reminders counts n reminders by outcome: ReminderEnqueued,
	// ReminderPassed (the scans), ReminderDelivered, ReminderDropped (the
	// notification worker).
	Reminders(outcome string, n int)
}

func (s *Service) observeOffers(outcome string, n int) {
	if o, ok := s.observer.(WaitlistObserver); ok && n > 0 {
		o.Offers(outcome, n)
	}
}

// WaitlistCounts counts the live entries by state (Store.WaitlistCounts).
func (s *Service) WaitlistCounts(ctx context.Context) (map[string]int, error) {
	return bounded(s, ctx, func(ctx context.Context) (map[string]int, error) { return s.store.WaitlistCounts(ctx) })
}

// JoinWaitlist adds patientID's entry (doctor or department, period, part
// of day) under the client's Idempotency-Key; a retry returns the entry
// with existed set.
//
// A party (e.PartySize above 1, or e.PatientIDs naming people) waits for
// that many places together: its people are of patientID's account
// (booking.ResolveParty over the account's people, one bounded read) and
// are offered places all at once.
func (s *Service) JoinWaitlist(ctx context.Context, e booking.WaitlistEntry) (booking.WaitlistEntry, bool, error) {
	if e.PartySize > 1 || len(e.PatientIDs) > 0 {
		ids, err := s.party(ctx, e.PatientID, booking.PartyAsk{PartySize: e.PartySize, PatientIDs: e.PatientIDs})
		if err != nil {
			return booking.WaitlistEntry{}, false, err
		}
		e.PatientIDs, e.PartySize = ids, len(ids)
	}
	if err := booking.CheckWaitlistEntry(&e, s.now()); err != nil {
		return booking.WaitlistEntry{}, false, err
	}
	return s.join(ctx, e)
}

// join writes a checked entry (a waitlist's or a standby's) for a patient
// who has not left.
func (s *Service) join(ctx context.Context, e booking.WaitlistEntry) (booking.WaitlistEntry, bool, error) {
	if err := s.present(ctx, e.PatientID); err != nil {
		return booking.WaitlistEntry{}, false, err
	}
	type joined struct {
		e       booking.WaitlistEntry
		existed bool
	}
	j, err := bounded(s, ctx, func(ctx context.Context) (joined, error) {
		e, existed, err := s.store.JoinWaitlist(ctx, e, s.now())
		return joined{e, existed}, err
	})
	return j.e, j.existed, err
}

// Waitlist lists a patient's entries with their positions.
func (s *Service) Waitlist(ctx context.Context, patientID int64) ([]booking.WaitlistEntry, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.WaitlistEntry, error) {
		return s.store.ListWaitlist(ctx, patientID)
	})
}

// LeaveWaitlist cancels a patient's entry, declining its offer if it holds one.
func (s *Service) LeaveWaitlist(ctx context.Context, id, patientID int64) (booking.WaitlistEntry, error) {
	e, err := bounded(s, ctx, func(ctx context.Context) (booking.WaitlistEntry, error) {
		return s.store.LeaveWaitlist(ctx, id, patientID, s.now())
	})
	if err == nil && e.SlotID != 0 {
		s.slotChanged(e.SlotID, 0)
	}
	return e, err
}

// AnswerOffer accepts (BOOKED, or HELD awaiting payment when the slot has a
// fee) or declines (the place passes to the next entry) an entry's offer.
func (s *Service) AnswerOffer(ctx context.Context, id, patientID int64, accept bool) (booking.WaitlistEntry, booking.Appointment, error) {
	if accept {
		if err := s.present(ctx, patientID); err != nil {
			return booking.WaitlistEntry{}, booking.Appointment{}, err
		}
	}
	type answered struct {
		e booking.WaitlistEntry
		a booking.Appointment
	}
	r, err := bounded(s, ctx, func(ctx context.Context) (answered, error) {
		e, a, err := s.store.AnswerOffer(ctx, booking.OfferAnswer{EntryID: id, PatientID: patientID, Accept: accept}, s.now())
		return answered{e, a}, err
	})
	if err == nil {
		s.slotChanged(r.a.SlotID, r.a.DoctorID)
		outcome := booking.OfferDeclined
		if accept {
			outcome = booking.OfferAccepted
		}
		if r.e.IsStandby() {
			s.observeLeftovers(outcome, 1)
		} else {
			s.observeOffers(outcome, r.e.Size())
		}
	}
	return r.e, r.a, err
}

// MakeOffers is the offer job's work for one slot (Store.MakeOffers).
func (s *Service) MakeOffers(ctx context.Context, slotID int64) ([]booking.Appointment, error) {
	as, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
		return s.store.MakeOffers(ctx, slotID, s.now())
	})
	if err == nil {
		s.slotChanged(slotID, 0)
		s.observeOffers(booking.OfferMade, len(as))
		s.observeOffers(booking.OfferParty, booking.Parties(as))
	}
	return as, err
}

// party resolves the people of lead's party from ask over the people of
// lead's account (booking.ResolveParty).
func (s *Service) party(ctx context.Context, lead int64, ask booking.PartyAsk) ([]int64, error) {
	if ask.PartySize > booking.MaxGroup || len(ask.PatientIDs) > booking.MaxGroup {
		return nil, booking.Errorf(booking.CodeInvalidRequest, "a party is at most %d people", booking.MaxGroup)
	}
	p, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.GetPatient(ctx, lead) })
	if err != nil {
		return nil, err
	}
	account := p.ID
	if p.ManagerID != 0 {
		account = p.ManagerID
	}
	people, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Patient, error) {
		return s.store.People(ctx, account, booking.Page{Limit: booking.MaxPageLimit})
	})
	if err != nil {
		return nil, err
	}
	ids, err := booking.ResolveParty(lead, ask, people)
	if err == nil && len(ids) == 0 {
		ids = []int64{lead}
	}
	return ids, err
}
