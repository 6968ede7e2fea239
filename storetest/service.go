package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testServiceEngines books through booking.Service with both engines: the
// group-commit lanes must give exactly the answers one-by-one booking gives.
func testServiceEngines(t *testing.T, h Harness) {
	for _, engine := range []string{booking.EngineDirect, booking.EngineBatched} {
		t.Run(engine, func(t *testing.T) {
			s := h.New(t)
			f := newFixture(t, s)
			// The timeout is generous: this test is about answers, and -race on two
			// busy cores makes 200 one-by-one decisions slow.
			svc := booking.NewService(s, booking.Options{Now: func() time.Time { return now }, Engine: engine, Timeout: time.Minute})
			ctx := context.Background()

			sl := f.slot(10)
			ps := f.patients(200)
			var o outcomes
			release(200, func(i int) { o.add(svc.Book(ctx, ps[i].ID, sl.ID, "k")) })
			if o.n["ok"] != 10 || o.n[string(booking.CodeSlotFull)] != 190 {
				t.Fatalf("want 10 ok and 190 slot-full, got %v", o.n)
			}
			wantNumbers(t, o.as, 10)

			// Retries replay, refusals keep their codes.
			a := o.as[0]
			r := svc.Book(ctx, a.PatientID, sl.ID, "k")
			if r.Err != nil || !r.Replayed || r.Appointment.ID != a.ID {
				t.Fatalf("retry = %+v", r)
			}
			other := f.slot(1)
			wantCode(t, svc.Book(ctx, a.PatientID, other.ID, "k").Err, booking.CodeKeyReused)
			wantCode(t, svc.Book(ctx, a.PatientID, sl.ID, "k2").Err, booking.CodeAlreadyBooked)
			wantCode(t, svc.Book(ctx, a.PatientID, 999999, "k3").Err, booking.CodeNotFound)

			// Many slots at once, several patients each, all lanes busy.
			var o2 outcomes
			slots := []booking.Slot{f.slot(3), f.slot(1), f.slot(7), f.slot(2)}
			release(160, func(i int) {
				sl := slots[i%len(slots)]
				o2.add(svc.Book(ctx, ps[i].ID, sl.ID, fmt.Sprint("m", i)))
			})
			if o2.n["ok"] != 13 || o2.n[string(booking.CodeSlotFull)] != 147 {
				t.Fatalf("want 13 ok and 147 slot-full over 4 slots, got %v", o2.n)
			}
			checkInvariants(t, h, s)
		})
	}
}
