package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// TestRefundPages: the cancel confirmation says what will be refunded, the
// appointment page shows the refund, and the staff refunds page lists the
// failed refund with a Retry that only an admin may press.
func TestRefundPages(t *testing.T) {
	ctx := context.Background()
	ws := newSite(t, withoutSamples())
	srv, st, svc, signer, pages := ws.srv, ws.store, ws.svc, ws.signer, ws.pages
	dep, _ := st.CreateDepartment(ctx, booking.Department{Name: "GP"})
	doc, _ := st.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: dep.ID, TimeZone: "UTC"})
	p, _ := st.CreatePatient(ctx, booking.Patient{Name: "P", Phone: "+33600000077"})
	if _, err := svc.SetClinicPolicy(ctx, booking.Policy{MaxActive: 10, MaxPerDay: 3, RefundFullHours: 24, RefundPartialPercent: 50, RefundPartialHours: 2}); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(10 * time.Hour).Truncate(time.Minute)
	sl, err := st.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: start, EndAt: start.Add(time.Hour), Capacity: 1,
		OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, FeeCents: 2000, HoldSeconds: 900})
	if err != nil {
		t.Fatal(err)
	}
	held := svc.Book(ctx, p.ID, sl.ID, "k")
	if held.Err != nil {
		t.Fatal(held.Err)
	}
	a := held.Appointment
	if _, err := svc.ConfirmPayment(ctx, booking.Payment{TradeNo: "WEB-1", AppointmentID: a.ID, AmountCents: 2000}); err != nil {
		t.Fatal(err)
	}

	mint := func(role auth.Role, sub string) string {
		tok, err := signer.MintPage(role, sub, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	patient, admin := mint(auth.RolePatient, fmt.Sprint(p.ID)), mint(auth.RoleAdmin, staffPrefix+"admin")
	client := &http.Client{CheckRedirect: noRedirect}
	const csrf = "0123456789abcdef0123456789abcdef"
	do := func(method, path, session string) (int, string) {
		t.Helper()
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(url.Values{"csrf": {pages.csrfToken(csrf, path)}}.Encode())
		}
		req, _ := http.NewRequest(method, srv.URL+path, body)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrf})
		if session != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: session})
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	// 10 h before the start: half back, said before confirming.
	code, page := do("GET", fmt.Sprintf("/appointments/%d/cancel", a.ID), patient)
	if code != http.StatusOK || !strings.Contains(page, `data-refund="1000"`) || !strings.Contains(page, "€ 10.00 of it will be refunded") {
		t.Fatalf("cancel confirmation %d lacks the refund:\n%s", code, page)
	}
	if code, _ := do("POST", fmt.Sprintf("/appointments/%d/cancel", a.ID), patient); code != http.StatusSeeOther {
		t.Fatalf("cancel: %d", code)
	}
	code, page = do("GET", fmt.Sprintf("/appointments/%d", a.ID), patient)
	if code != http.StatusOK || !strings.Contains(page, `data-refund-state="requested"`) || !strings.Contains(page, "€ 10.00 to be refunded") {
		t.Fatalf("appointment page %d lacks the refund:\n%s", code, page)
	}

	rs, err := svc.AppointmentRefunds(ctx, a.ID, 0)
	if err != nil || len(rs) != 1 {
		t.Fatalf("refunds %+v, %v", rs, err)
	}
	id := rs[0].ID
	retry := fmt.Sprintf("/staff/refunds/%d/retry", id)
	// A requested refund is listed without a Retry; retrying it is refused.
	code, page = do("GET", "/staff/reconciliation", admin)
	if code != http.StatusOK || !strings.Contains(page, fmt.Sprintf(`data-refund="%d"`, id)) || strings.Contains(page, retry) {
		t.Fatalf("staff refunds page %d:\n%s", code, page)
	}
	if code, _ := do("POST", retry, admin); code != http.StatusConflict {
		t.Fatalf("retry of a requested refund: %d, want 409", code)
	}
	// No provider: the last attempt fails it; the page offers Retry.
	if got, _ := svc.ProcessRefund(ctx, id, true); got.State != booking.RefundFailed {
		t.Fatalf("refund after its last attempt: %+v", got)
	}
	if _, page = do("GET", "/staff/reconciliation", admin); !strings.Contains(page, retry) {
		t.Fatalf("a failed refund without its Retry:\n%s", page)
	}
	for who, session := range map[string]string{"nobody": "", "patient": patient, "doctor": mint(auth.RoleDoctor, fmt.Sprint(doc.ID))} {
		if code, _ := do("POST", retry, session); code != http.StatusUnauthorized {
			t.Errorf("retry as %s: %d, want 401", who, code)
		}
	}
	if r, _ := st.GetRefund(ctx, id); r.State != booking.RefundFailed {
		t.Fatalf("a refused retry changed the refund: %+v", r)
	}
	if code, _ := do("POST", retry, admin); code != http.StatusSeeOther {
		t.Fatalf("retry as admin: %d", code)
	}
	if r, _ := st.GetRefund(ctx, id); r.State != booking.RefundRequested {
		t.Fatalf("retried refund: %+v", r)
	}
	if code, _ := do("POST", "/staff/refunds/99999/retry", admin); code != http.StatusNotFound {
		t.Fatalf("retry of no refund: %d", code)
	}
}
