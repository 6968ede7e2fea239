package jobs

import (
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// TestReconcileJob: the job runs at start and keeps its verdict, which
// counts a pending refund; the expiry job's changes are audited as the
// job's.
func TestReconcileJob(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sl := f.slot(2, 2500)
		later := t0.Add(time.Hour)
		svc := service.NewService(s, service.Options{Now: clock(later)})
		// The runner binds the outbox now and works once started, after
		// the payment, so that its first reconciliation sees it.
		r := runner(t, s, Config{Service: svc, Notifier: &recorder{}}, false)
		held := f.book(sl.ID, t0, f.patient())[0]
		// Paid after the deadline: a refund to make.
		if _, err := svc.ConfirmPayment(f.ctx, booking.Payment{TradeNo: "J1", AppointmentID: held.ID, AmountCents: 2500}); booking.ErrorCode(err) != booking.CodePaymentRejected {
			t.Fatalf("late payment: %v", err)
		}
		startRunner(t, r)
		var last booking.ReconcileRun
		eventually(t, "the first reconciliation", 20*time.Second, func() bool {
			var err error
			last, err = svc.LastReconcileRun(f.ctx)
			return err == nil
		})
		if last.Violations != 0 || last.Pending != 1 {
			t.Fatalf("last run = %+v, want 1 pending refund", last)
		}
		if _, err := svc.MarkRefunded(f.ctx, "J1", "RF"); err != nil {
			t.Fatal(err)
		}
		run, err := r.Reconcile(f.ctx)
		must(t, err)
		if run.Pending != 0 {
			t.Fatalf("after the refund: %+v", run)
		}

		other := f.slot(2, 2500)
		f.book(other.ID, t0, f.patient())
		if _, err := r.ExpireHolds(f.ctx); err != nil {
			t.Fatal(err)
		}
		es, err := svc.Audit(f.ctx, booking.AuditFilter{ActorRole: booking.ActorJob, ActorID: ExpireArgs{}.Kind(), Limit: 10})
		must(t, err)
		if len(es) != 1 || es[0].Action != "expire" {
			t.Fatalf("expiry job's audit = %+v", es)
		}
	})
}
