package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// refundRule is the policy of the refund tests: everything back until 24 h
// before the start, half until 2 h before, nothing after.
var refundRule = booking.Policy{MaxActive: booking.DefaultMaxActive, MaxPerDay: booking.DefaultMaxPerDay,
	RefundFullHours: 24, RefundPartialPercent: 50, RefundPartialHours: 2}

// paidPlace books p a place in sl (a slot with a fee) and pays it.
func (f *fixture) paidPlace(sl booking.Slot, p booking.Patient, tradeNo string) booking.Appointment {
	f.t.Helper()
	held := wantOK(f.t, f.book(sl.ID, req(p, sl.ID, "pay-"+tradeNo)))
	res, err := f.s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: tradeNo, AppointmentID: held.ID, AmountCents: sl.FeeCents}, now)
	must(f.t, err)
	if res.Appointment.Status != booking.StatusBooked {
		f.t.Fatalf("paid appointment is %s", res.Appointment.Status)
	}
	return res.Appointment
}

// refundsOf reads appointment id's refunds.
func (f *fixture) refundsOf(id int64) []booking.Refund {
	f.t.Helper()
	rs, err := f.s.AppointmentRefunds(f.ctx, id)
	must(f.t, err)
	return rs
}

// refundJobs counts the refund jobs written for refund id.
func refundJobs(t *testing.T, h Harness, s booking.Store, id int64) int {
	t.Helper()
	return countNotifications(t, h, s, func(n booking.Notification) bool { return n.Kind == booking.NotifyRefundDue && n.RefundID == id })
}

// wantNoLostRefund fails when reconciliation finds a paid cancel without
// its refund.
func wantNoLostRefund(t *testing.T, s booking.Store) {
	t.Helper()
	rep, err := s.Reconcile(t.Context(), now, false)
	must(t, err)
	if len(rep.UnrefundedCancels) != 0 || rep.Violations() != 0 {
		t.Fatalf("reconciliation after refunds: %d unrefunded, %d violations", len(rep.UnrefundedCancels), rep.Violations())
	}
}

// testRefundOnCancel: a patient's cancel of a paid appointment writes
// exactly one refund of the policy's amount, with its job (none when
// nothing is paid back); a second cancel writes none; staff cancelling pay
// everything back; a free appointment has none.
func testRefundOnCancel(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	_, err := s.SetClinicPolicy(f.ctx, refundRule)
	must(t, err)
	for i, c := range []struct {
		before time.Duration
		staff  bool
		want   int64
	}{{30 * time.Hour, false, 2000}, {10 * time.Hour, false, 1000}, {time.Hour, false, 0}, {time.Hour, true, 2000}} {
		sl := f.slot(2, withFee(2000), startsAt(now.Add(time.Duration(48+i)*time.Hour)))
		p := f.patient()
		a := f.paidPlace(sl, p, fmt.Sprintf("C%d", i))
		by, reason := p.ID, booking.RefundPatientCancel
		if c.staff {
			by, reason = 0, booking.RefundStaffCancel
		}
		at := sl.StartAt.Add(-c.before)
		_, err := s.Cancel(f.ctx, a.ID, by, at)
		must(t, err)
		_, err = s.Cancel(f.ctx, a.ID, 0, at) // again, by staff: nothing more
		must(t, err)
		rs := f.refundsOf(a.ID)
		if len(rs) != 1 {
			t.Fatalf("case %d: %d refunds, want 1", i, len(rs))
		}
		r := rs[0]
		if r.AmountCents != c.want || r.PaidCents != 2000 || r.Reason != reason || r.TradeNo != fmt.Sprintf("C%d", i) ||
			r.AppointmentID != a.ID || !r.CreatedAt.Equal(at) {
			t.Fatalf("case %d (%v before): refund %+v, want %d for %s", i, c.before, r, c.want, reason)
		}
		wantState, wantJobs := booking.RefundRequested, 1
		if c.want == 0 {
			wantState, wantJobs = booking.RefundSucceeded, 0
		}
		if r.State != wantState || refundJobs(t, h, s, r.ID) != wantJobs {
			t.Fatalf("case %d: state %s with %d jobs, want %s with %d", i, r.State, refundJobs(t, h, s, r.ID), wantState, wantJobs)
		}
	}
	free := f.slot(2)
	a := f.mustBook(free.ID, f.patient())
	_, err = s.Cancel(f.ctx, a.ID, a.PatientID, now)
	must(t, err)
	if rs := f.refundsOf(a.ID); len(rs) != 0 {
		t.Fatalf("a free appointment was refunded: %+v", rs)
	}
	wantNoLostRefund(t, s)
	checkInvariants(t, h, s)
}

// testRaceCancelRefund: many cancels of one paid appointment, its patient
// and staff at once, refund it exactly once.
func testRaceCancelRefund(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1, withFee(3000))
	a := f.paidPlace(sl, f.patient(), "RACE")
	release(16, func(i int) {
		by := a.PatientID
		if i%2 == 1 {
			by = 0 // staff
		}
		if _, err := s.Cancel(f.ctx, a.ID, by, now); err != nil {
			t.Errorf("cancel %d: %v", i, err)
		}
	})
	rs := f.refundsOf(a.ID)
	if len(rs) != 1 || rs[0].AmountCents != 3000 || refundJobs(t, h, s, rs[0].ID) != 1 {
		t.Fatalf("16 racing cancels wrote %d refunds (%+v), want one of 3000 with one job", len(rs), rs)
	}
	all, err := s.ListRefunds(f.ctx, nil, booking.Page{})
	must(t, err)
	if len(all) != 1 {
		t.Fatalf("%d refunds in all, want 1", len(all))
	}
	wantNoLostRefund(t, s)
	checkInvariants(t, h, s)
}

// testSuspendRefunds: a suspension refunds every paid appointment it
// cancels in full, whatever the policy, once; a closure says so.
func testSuspendRefunds(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	_, err := s.SetClinicPolicy(f.ctx, refundRule)
	must(t, err)
	day := now.Add(3 * time.Hour) // inside the policy's "nothing back" window
	sl := f.slot(6, withFee(1500), startsAt(day))
	var paid []booking.Appointment
	for i := range 5 {
		paid = append(paid, f.paidPlace(sl, f.patient(), fmt.Sprintf("S%d", i)))
	}
	held := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "unpaid")))
	sus := booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day.Add(time.Hour), Reason: "ill"}
	res, err := s.Suspend(f.ctx, sus, now)
	must(t, err)
	if res.Cancelled != 6 {
		t.Fatalf("suspension cancelled %d, want 6", res.Cancelled)
	}
	_, err = s.Suspend(f.ctx, sus, now) // the same again: nothing more
	must(t, err)
	for _, a := range paid {
		rs := f.refundsOf(a.ID)
		if len(rs) != 1 || rs[0].AmountCents != 1500 || rs[0].Reason != booking.RefundSuspension || rs[0].State != booking.RefundRequested ||
			refundJobs(t, h, s, rs[0].ID) != 1 {
			t.Fatalf("appointment %d: refunds %+v, want one of 1500 for the suspension", a.ID, rs)
		}
	}
	if rs := f.refundsOf(held.ID); len(rs) != 0 {
		t.Fatalf("an unpaid hold was refunded: %+v", rs)
	}

	// A department's closure is a closure.
	later := f.slot(2, withFee(800), startsAt(day.Add(24*time.Hour)), onDoctor(f.doctor2.ID))
	b := f.paidPlace(later, f.patient(), "CL1")
	_, err = s.Suspend(f.ctx, booking.Suspension{Scope: booking.ScopeDepartment, DepartmentID: f.dept.ID,
		From: later.StartAt, To: later.EndAt, Reason: "works"}, now)
	must(t, err)
	if rs := f.refundsOf(b.ID); len(rs) != 1 || rs[0].Reason != booking.RefundClosure || rs[0].AmountCents != 800 {
		t.Fatalf("closure refunds %+v", rs)
	}
	wantNoLostRefund(t, s)
	checkInvariants(t, h, s)
}

// testRefundSettle: a refused attempt keeps the refund requested, the last
// one fails it; staff retry writes a new job; success records the
// provider's id and tells the patient; the list pages and filters; the
// database refuses a refund above what was paid.
func testRefundSettle(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	var ids []int64
	for i := range 3 {
		sl := f.slot(1, withFee(1200))
		a := f.paidPlace(sl, f.patient(), fmt.Sprintf("P%d", i))
		_, err := s.Cancel(f.ctx, a.ID, 0, now)
		must(t, err)
		ids = append(ids, f.refundsOf(a.ID)[0].ID)
	}
	id := ids[0]
	r, err := s.SettleRefund(f.ctx, booking.RefundOutcome{ID: id, Failure: "gateway down"}, now)
	must(t, err)
	if r.State != booking.RefundRequested || r.Attempts != 1 || r.Failure != "gateway down" {
		t.Fatalf("after a refused attempt: %+v", r)
	}
	_, err = s.RetryRefund(f.ctx, id, now)
	wantCode(t, err, booking.CodeInvalidTransition)
	r, err = s.SettleRefund(f.ctx, booking.RefundOutcome{ID: id, Failure: "still down", Final: true}, now)
	must(t, err)
	if r.State != booking.RefundFailed || r.Attempts != 2 {
		t.Fatalf("after the last attempt: %+v", r)
	}
	failed, err := s.ListRefunds(f.ctx, []string{booking.RefundFailed}, booking.Page{})
	must(t, err)
	if len(failed) != 1 || failed[0].ID != id {
		t.Fatalf("failed refunds %+v", failed)
	}
	r, err = s.RetryRefund(f.ctx, id, now)
	must(t, err)
	if r.State != booking.RefundRequested || refundJobs(t, h, s, id) != 2 {
		t.Fatalf("retried: %+v with %d jobs, want requested with 2", r, refundJobs(t, h, s, id))
	}
	r, err = s.SettleRefund(f.ctx, booking.RefundOutcome{ID: id, ProviderRef: "re_1"}, now.Add(time.Minute))
	must(t, err)
	if r.State != booking.RefundSucceeded || r.ProviderRef != "re_1" || r.Failure != "" || r.SettledAt == nil || r.Attempts != 3 {
		t.Fatalf("succeeded: %+v", r)
	}
	told := countNotifications(t, h, s, func(n booking.Notification) bool { return n.Kind == booking.NotifyRefunded && n.RefundID == id })
	if told != 1 {
		t.Fatalf("%d refund notices, want 1", told)
	}
	again, err := s.SettleRefund(f.ctx, booking.RefundOutcome{ID: id, ProviderRef: "re_2"}, now.Add(time.Hour))
	must(t, err)
	if again.ProviderRef != "re_1" || again.Attempts != 3 {
		t.Fatalf("a stale attempt changed a succeeded refund: %+v", again)
	}
	got, err := s.GetRefund(f.ctx, id)
	must(t, err)
	if got.ProviderRef != "re_1" || got.State != booking.RefundSucceeded {
		t.Fatalf("GetRefund = %+v", got)
	}
	_, err = s.GetRefund(f.ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.RetryRefund(f.ctx, 999999, now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.SettleRefund(f.ctx, booking.RefundOutcome{ID: 999999}, now)
	wantCode(t, err, booking.CodeNotFound)

	// Pages, newest first; the open ones without the succeeded.
	first, err := s.ListRefunds(f.ctx, nil, booking.Page{Limit: 2})
	must(t, err)
	rest, err := s.ListRefunds(f.ctx, nil, booking.Page{After: first[len(first)-1].ID, Limit: 2})
	must(t, err)
	if len(first) != 2 || first[0].ID != ids[2] || len(rest) != 1 || rest[0].ID != ids[0] {
		t.Fatalf("pages %+v then %+v", first, rest)
	}
	open, err := s.ListRefunds(f.ctx, []string{booking.RefundRequested, booking.RefundFailed}, booking.Page{})
	must(t, err)
	if len(open) != 2 {
		t.Fatalf("%d open refunds, want 2", len(open))
	}
	if err := h.Inspect(t, s).SetRefundAmount(t, ids[1], 1201); err == nil {
		t.Fatal("the database let a refund exceed what was paid")
	}
}

// testLostRefund: reconciliation reports a paid cancel whose refund is
// missing as a violation.
func testLostRefund(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1, withFee(900))
	a := f.paidPlace(sl, f.patient(), "LOST")
	_, err := s.Cancel(f.ctx, a.ID, 0, now)
	must(t, err)
	wantNoLostRefund(t, s)
	h.Inspect(t, s).DeleteRefunds(t)
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if len(rep.UnrefundedCancels) != 1 || rep.UnrefundedCancels[0].ID != a.ID || rep.Violations() != 1 || rep.Kinds()["refund_missing"] != 1 {
		t.Fatalf("lost refund: %+v, violations %d", rep.UnrefundedCancels, rep.Violations())
	}
}

// testPaymentRefunds: a payment that cannot be applied (too late, wrong
// amount) is refunded in full by a refund written with it; the refund's
// success settles the payment, and staff settling the payment by hand
// settles its refund.
func testPaymentRefunds(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3, withFee(2500))
	late := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "late")))
	_, err := s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: "LATE", AppointmentID: late.ID, AmountCents: 2500}, now.Add(time.Hour))
	wantCode(t, err, booking.CodePaymentRejected)
	wrong := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "wrong")))
	_, err = s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: "WRONG", AppointmentID: wrong.ID, AmountCents: 999}, now)
	wantCode(t, err, booking.CodePaymentRejected)

	lr, wr := f.refundsOf(late.ID), f.refundsOf(wrong.ID)
	if len(lr) != 1 || lr[0].Reason != booking.RefundLatePayment || lr[0].AmountCents != 2500 || lr[0].TradeNo != "LATE" || refundJobs(t, h, s, lr[0].ID) != 1 {
		t.Fatalf("late payment's refunds %+v", lr)
	}
	if len(wr) != 1 || wr[0].Reason != booking.RefundAmountMismatch || wr[0].AmountCents != 999 || wr[0].PaidCents != 999 {
		t.Fatalf("mismatched payment's refunds %+v", wr)
	}
	// The same callback again records nothing more.
	_, err = s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: "WRONG", AppointmentID: wrong.ID, AmountCents: 999}, now)
	must(t, err)
	if got := f.refundsOf(wrong.ID); len(got) != 1 {
		t.Fatalf("a repeated callback: %d refunds", len(got))
	}

	_, err = s.SettleRefund(f.ctx, booking.RefundOutcome{ID: lr[0].ID, ProviderRef: "re_late"}, now)
	must(t, err)
	_, err = s.MarkRefunded(f.ctx, "WRONG", "BANK-7", now)
	must(t, err)
	if got, _ := s.GetRefund(f.ctx, wr[0].ID); got.State != booking.RefundSucceeded || got.ProviderRef != "BANK-7" {
		t.Fatalf("refund of a payment settled by hand: %+v", got)
	}
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if len(rep.RefundsNeeded) != 0 {
		t.Fatalf("payments still needing a refund: %+v", rep.RefundsNeeded)
	}
}

// testScheduleRefundRule: a schedule's own refund rule overrides the
// clinic's for its slots, and is kept with the schedule.
func testScheduleRefundRule(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	full, none := 48, 0
	sc, err := s.CreateSchedule(f.ctx, booking.Schedule{DoctorID: f.doctor2.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7,
		Policy: booking.PolicyOverride{RefundFullHours: &full, RefundPartialPercent: &none}})
	must(t, err)
	got, err := s.GetSchedule(f.ctx, sc.ID)
	must(t, err)
	if o := got.Policy; o.RefundFullHours == nil || *o.RefundFullHours != 48 || o.RefundPartialPercent == nil || *o.RefundPartialPercent != 0 || o.RefundPartialHours != nil {
		t.Fatalf("schedule's refund rule %+v", o)
	}
	// The clinic's default pays everything back until the start; the
	// schedule's nothing under 48 hours.
	ofSchedule := f.slot(1, withFee(1000), onDoctor(f.doctor2.ID), startsAt(now.Add(30*time.Hour)), func(sl *booking.Slot) { sl.ScheduleID = sc.ID })
	clinic := f.slot(1, withFee(1000), startsAt(now.Add(30*time.Hour)))
	for _, c := range []struct {
		sl   booking.Slot
		want int64
	}{{ofSchedule, 0}, {clinic, 1000}} {
		a := f.paidPlace(c.sl, f.patient(), fmt.Sprintf("SCH-%d", c.sl.ID))
		_, err := s.Cancel(f.ctx, a.ID, a.PatientID, now)
		must(t, err)
		if rs := f.refundsOf(a.ID); len(rs) != 1 || rs[0].AmountCents != c.want {
			t.Fatalf("slot %d: refunds %+v, want %d", c.sl.ID, rs, c.want)
		}
		paid, p, err := s.RefundBasis(f.ctx, a.ID)
		must(t, err)
		if paid != 1000 || booking.RefundAmount(booking.RefundCase{Policy: p, Paid: paid, Reason: booking.RefundPatientCancel, StartAt: c.sl.StartAt, At: now}) != c.want {
			t.Fatalf("slot %d: basis %d, %+v", c.sl.ID, paid, p)
		}
	}
}

// testEraseRefunds: erasing a patient cancels their paid appointment that
// has not started as staff would, whatever the patient's cutoff, and
// refunds it in full (reason erasure) once, with its job, however the
// erasure races a cancel.
func testEraseRefunds(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	rule := refundRule
	rule.CancelCutoffHours = 24 // the patient could no longer cancel
	_, err := s.SetClinicPolicy(f.ctx, rule)
	must(t, err)
	sl := f.slot(1, withFee(2000), startsAt(now.Add(49*time.Hour)))
	p := f.patient()
	a := f.paidPlace(sl, p, "ERASE")
	at := sl.StartAt.Add(-time.Hour) // the rule pays a patient's cancel nothing now
	if _, err := s.Cancel(f.ctx, a.ID, p.ID, at); booking.ErrorCode(err) != booking.CodeCancelCutoff {
		t.Fatalf("the patient's own cancel inside the cutoff: %v", err)
	}
	release(8, func(i int) {
		var got booking.Appointment
		var err error
		if i%2 == 0 {
			got, err = s.CancelErased(f.ctx, a.ID, at)
		} else {
			got, err = s.Cancel(f.ctx, a.ID, 0, at)
		}
		if err != nil || got.Status != booking.StatusCancelled {
			t.Errorf("cancel %d: %s, %v", i, got.Status, err)
		}
	})
	rs := f.refundsOf(a.ID)
	if len(rs) != 1 || rs[0].AmountCents != 2000 || rs[0].State != booking.RefundRequested || refundJobs(t, h, s, rs[0].ID) != 1 ||
		(rs[0].Reason != booking.RefundErasure && rs[0].Reason != booking.RefundStaffCancel) {
		t.Fatalf("refunds %+v: want one of 2000, requested, with one job", rs)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 0 {
		t.Fatalf("the slot counts %d after the cancels, want 0", got.BookedCount)
	}

	// Alone, the erasure's cancel says so.
	b := f.paidPlace(f.slot(1, withFee(2000), startsAt(now.Add(50*time.Hour))), p, "ERASE2")
	got, err := s.CancelErased(f.ctx, b.ID, at)
	if err != nil || got.Status != booking.StatusCancelled {
		t.Fatalf("erasure cancel: %+v, %v", got, err)
	}
	if rs := f.refundsOf(b.ID); len(rs) != 1 || rs[0].Reason != booking.RefundErasure || rs[0].AmountCents != 2000 {
		t.Fatalf("refunds %+v: want the erasure's, in full", rs)
	}

	// Through the Service: the erasure of a patient whose paid place is
	// an hour away (inside the cutoff) gives it back, refunded in full.
	c := f.paidPlace(f.slot(1, withFee(2000), startsAt(now.Add(51*time.Hour))), p, "ERASE3")
	svc := service.NewService(s, service.Options{Now: func() time.Time { return c.StartAt.Add(-time.Hour) }})
	_, err = svc.ErasePatient(f.ctx, p.ID, "the patient asked")
	must(t, err)
	if got, err := s.GetAppointment(f.ctx, c.ID); err != nil || got.Status != booking.StatusCancelled {
		t.Fatalf("after the erasure: %+v, %v; want CANCELLED", got, err)
	}
	if rs := f.refundsOf(c.ID); len(rs) != 1 || rs[0].Reason != booking.RefundErasure || rs[0].AmountCents != 2000 || rs[0].State != booking.RefundRequested {
		t.Fatalf("refunds %+v: want the erasure's, in full", rs)
	}
	wantNoLostRefund(t, s)
	checkInvariants(t, h, s)
}

// testRaceCancelPay: held appointments are paid (each payment delivered
// several times) while their patient and staff cancel them, all at once.
// Whatever wins, every payment is refunded exactly once and by the rule:
// paid then cancelled by the patient 10 hours before, the policy's half;
// by staff, everything; cancelled before the payment landed, everything
// (a late payment). Nothing is refunded twice, no place is lost, and
// reconciliation finds no paid cancel without its refund.
func testRaceCancelPay(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	_, err := s.SetClinicPolicy(f.ctx, refundRule)
	must(t, err)
	const n = 12
	type place struct {
		a     booking.Appointment
		trade string
	}
	places := make([]place, n)
	for i := range places {
		sl := f.slot(1, withFee(2000), startsAt(now.Add(time.Duration(48+i)*time.Hour)))
		places[i] = place{wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, fmt.Sprintf("race-pay-%d", i)))), fmt.Sprintf("RP%d", i)}
	}
	at := now.Add(time.Minute) // within every hold
	release(n*4, func(g int) {
		p := places[g%n]
		var err error
		switch g / n {
		case 0, 1: // the provider's notification, twice
			_, err = s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: p.trade, AppointmentID: p.a.ID, AmountCents: 2000}, at)
			if c := booking.ErrorCode(err); c == booking.CodePaymentRejected {
				err = nil // recorded, to be refunded
			}
		case 2: // the patient, 10 hours before its start: half back
			_, err = s.Cancel(f.ctx, p.a.ID, p.a.PatientID, p.a.StartAt.Add(-10*time.Hour))
		case 3: // staff, on even places only
			if g%2 == 0 {
				_, err = s.Cancel(f.ctx, p.a.ID, 0, p.a.StartAt.Add(-10*time.Hour))
			}
		}
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	})
	var total int64
	for _, p := range places {
		rs := f.refundsOf(p.a.ID)
		if len(rs) != 1 {
			t.Fatalf("appointment %d: %d refunds, want exactly 1: %+v", p.a.ID, len(rs), rs)
		}
		r := rs[0]
		want := map[string]int64{booking.RefundPatientCancel: 1000, booking.RefundStaffCancel: 2000, booking.RefundLatePayment: 2000}[r.Reason]
		if want == 0 || r.AmountCents != want || r.PaidCents != 2000 || r.TradeNo != p.trade || refundJobs(t, h, s, r.ID) != 1 {
			t.Fatalf("appointment %d: refund %+v, want %d for %s with one job", p.a.ID, r, want, r.Reason)
		}
		got, err := s.GetAppointment(f.ctx, p.a.ID)
		if err != nil || got.Status != booking.StatusCancelled {
			t.Fatalf("appointment %d is %s (%v), want CANCELLED", p.a.ID, got.Status, err)
		}
		total += r.AmountCents
	}
	all, err := s.ListRefunds(f.ctx, nil, booking.Page{})
	must(t, err)
	var listed int64
	for _, r := range all {
		listed += r.AmountCents
	}
	if len(all) != n || listed != total {
		t.Fatalf("%d refunds of %d in all, want %d of %d", len(all), listed, n, total)
	}
	wantNoLostRefund(t, s)
	checkInvariants(t, h, s)
}
