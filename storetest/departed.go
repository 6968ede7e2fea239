package storetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// testDepartedPatients: a deactivated or erased patient is refused by every
// path that acts for them — booking an ordinary slot and a round's, the
// caller rule for staff, joining a waitlist, accepting an offer,
// rescheduling — and their waiting entries are passed over by the offers.
func testDepartedPatients(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }})
	inactive := false
	for _, how := range []string{"deactivated", "erased"} {
		t.Run(how, func(t *testing.T) {
			p := f.patient()
			held := f.mustBook(f.slot(1).ID, p)
			waiting := f.join(p, "w-"+how)
			other := f.patient()
			f.join(other, "w-other-"+how)
			switch how {
			case "deactivated":
				_, err := svc.UpdatePatient(f.ctx, p.ID, booking.PatientUpdate{Active: &inactive})
				must(t, err)
			case "erased":
				_, err := svc.ErasePatient(f.ctx, p.ID, "asked to be forgotten")
				must(t, err)
			}
			self := booking.Actor{Role: booking.RolePatient, ID: strconv.FormatInt(p.ID, 10)}
			admin := booking.Actor{Role: booking.RoleAdmin, ID: "admin"}

			acting, err := svc.ActFor(f.ctx, self, 0)
			must(t, err) // no read for a patient acting for themselves: the change decides
			wantCode(t, svc.BookFor(f.ctx, acting, f.slot(2).ID, "book-"+how).Err, booking.CodeBookingBlocked)
			_, err = svc.ActFor(f.ctx, admin, p.ID)
			wantCode(t, err, booking.CodeBookingBlocked)
			_, err = svc.ActFor(f.ctx, self, other.ID)
			wantCode(t, err, booking.CodeNotFound)

			round, slots := f.openRound(1, 2)
			_ = round
			wantCode(t, svc.Book(f.ctx, p.ID, slots[0].ID, "round-"+how).Err, booking.CodeBookingBlocked)

			e := booking.WaitlistEntry{PatientID: p.ID, DoctorID: f.doctor.ID, From: now, To: now.Add(30 * 24 * time.Hour),
				PartOfDay: booking.PartAny, IdempotencyKey: "again-" + how}
			_, _, err = svc.JoinWaitlist(f.ctx, e)
			wantCode(t, err, booking.CodeBookingBlocked)
			_, _, err = svc.AnswerOffer(f.ctx, waiting.ID, p.ID, true)
			wantCode(t, err, booking.CodeBookingBlocked)
			if held.Status.Active() {
				_, err = svc.Reschedule(f.ctx, service.RescheduleRequest{AppointmentID: held.ID, PatientID: p.ID, SlotID: f.slot(1).ID, Key: "move-" + how})
				wantCode(t, err, booking.CodeBookingBlocked)
			}

			// A place released in a slot both wait for goes past the
			// departed patient to the other one.
			sl := f.slot(1)
			holder := f.patient()
			a := f.mustBook(sl.ID, holder)
			_, err = s.Cancel(f.ctx, a.ID, holder.ID, now)
			must(t, err)
			offers, err := s.MakeOffers(f.ctx, sl.ID, now)
			must(t, err)
			for _, o := range offers {
				if o.PatientID == p.ID {
					t.Fatalf("the %s patient was offered a place: %+v", how, o)
				}
			}
			if len(offers) != 1 || offers[0].PatientID != other.ID {
				t.Fatalf("offers %+v, want one for patient %d", offers, other.ID)
			}
		})
	}
}
