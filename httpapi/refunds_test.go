package httpapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/slotd/slotd/booking"
)

// TestRefundsAPI: a cancel of a paid appointment is listed by GET
// /api/admin/refunds (paged, filtered by state); POST .../retry asks again
// for a failed refund only; bad input is a 4xx that changes nothing.
func TestRefundsAPI(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	f := e.fixture()
	var ids []int64
	for i := range 2 {
		a := e.hold(f, 2500)
		e.do(e.callback(paymentSecret, payment(fmt.Sprintf("RF-%d", i), a.ID, 2500))).expect(t, 200)
		e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", a.ID), token: e.admin}).expect(t, 200)
		rs, err := e.store.AppointmentRefunds(context.Background(), a.ID)
		if err != nil || len(rs) != 1 {
			t.Fatalf("refunds of %d: %+v, %v", a.ID, rs, err)
		}
		ids = append(ids, rs[0].ID)
	}

	var page []booking.Refund
	next := e.do(call{method: "GET", path: "/api/admin/refunds?limit=1", token: e.admin}).expect(t, 200).items(t, &page)
	if len(page) != 1 || page[0].ID != ids[1] || next == "" || page[0].AmountCents != 2500 || page[0].Currency != "EUR" ||
		page[0].Reason != booking.RefundStaffCancel || page[0].State != booking.RefundRequested {
		t.Fatalf("first page %+v, next %q", page, next)
	}
	if next = e.do(call{method: "GET", path: "/api/admin/refunds?limit=1&cursor=" + next, token: e.admin}).expect(t, 200).items(t, &page); len(page) != 1 || page[0].ID != ids[0] || next != "" {
		t.Fatalf("second page %+v, next %q", page, next)
	}
	e.do(call{method: "GET", path: "/api/admin/refunds?state=failed", token: e.admin}).expect(t, 200).items(t, &page)
	if len(page) != 0 {
		t.Fatalf("failed refunds %+v, want none", page)
	}
	for _, q := range []string{"?state=lost", "?limit=0", "?limit=201", "?cursor=nope", "?reason=x"} {
		e.do(call{method: "GET", path: "/api/admin/refunds" + q, token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}

	before := e.snapshot()
	retry := func(id any) call {
		return call{method: "POST", path: fmt.Sprintf("/api/admin/refunds/%v/retry", id), token: e.admin}
	}
	e.do(retry(ids[0])).expect(t, 409, booking.CodeInvalidTransition)
	e.do(retry(987654)).expect(t, 404, booking.CodeNotFound)
	c := retry("x")
	c.invalid = true
	e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	if e.snapshot() != before {
		t.Fatal("refused retries changed the database")
	}

	if _, err := e.store.SettleRefund(context.Background(), booking.RefundOutcome{ID: ids[0], Failure: "gateway down", Final: true}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.do(call{method: "GET", path: "/api/admin/refunds?state=failed", token: e.admin}).expect(t, 200).items(t, &page)
	if len(page) != 1 || page[0].ID != ids[0] || page[0].Failure != "gateway down" || page[0].Attempts != 1 {
		t.Fatalf("failed refunds %+v", page)
	}
	var r booking.Refund
	e.do(retry(ids[0])).expect(t, 200).decode(t, &r)
	if r.State != booking.RefundRequested || r.ID != ids[0] {
		t.Fatalf("retried %+v", r)
	}
}
