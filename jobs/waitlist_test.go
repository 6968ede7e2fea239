package jobs

import (
	"testing"

	"github.com/slotd/slotd/booking"
)

// An offer-due entry of the outbox becomes the slot's offer job, never a
// message; the messages of the same transaction still go out.
func TestEnqueueParamsRoutesOfferJobs(t *testing.T) {
	ps := enqueueParams([]booking.Notification{
		{Kind: booking.NotifyCancellation, AppointmentID: 4},
		{Kind: booking.NotifyOfferDue, SlotID: 9},
	})
	if len(ps) != 2 {
		t.Fatalf("%d jobs", len(ps))
	}
	if o, ok := ps[0].Args.(OfferArgs); !ok || o.SlotID != 9 {
		t.Fatalf("%#v", ps[0].Args)
	}
	if n, ok := ps[1].Args.(NotifyArgs); !ok || n.AppointmentID != 4 {
		t.Fatalf("%#v", ps[1].Args)
	}
	if ps := enqueueParams([]booking.Notification{{Kind: booking.NotifyOfferDue, SlotID: 1}}); len(ps) != 1 {
		t.Fatalf("%d jobs", len(ps))
	}
}
