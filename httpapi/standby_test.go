package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func TestStandbyOverHTTP(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 2)
	site := "/api/admin/sites/" + strconv.FormatInt(f.dept.SiteID, 10)

	p := e.patient()
	tok := e.patientToken(p.ID)
	day := sl.StartAt.Truncate(24 * time.Hour)
	body := map[string]any{"siteId": f.dept.SiteID, "from": day.Format(time.RFC3339), "to": day.Add(24 * time.Hour).Format(time.RFC3339)}
	join := call{method: "POST", path: "/api/standby", token: tok, body: body, header: map[string]string{"Idempotency-Key": "s1"}}
	var sb booking.WaitlistEntry
	e.do(join).expect(t, http.StatusCreated).decode(t, &sb)
	if sb.SiteID != f.dept.SiteID || sb.State != booking.EntryWaiting {
		t.Fatalf("%+v", sb)
	}
	e.do(join).expect(t, http.StatusOK)
	for name, b := range map[string]map[string]any{
		"no site":   {"from": day.Format(time.RFC3339), "to": day.Add(time.Hour).Format(time.RFC3339)},
		"too long":  {"siteId": f.dept.SiteID, "from": day.Format(time.RFC3339), "to": day.Add(15 * 24 * time.Hour).Format(time.RFC3339)},
		"backwards": {"siteId": f.dept.SiteID, "from": day.Format(time.RFC3339), "to": day.Add(-time.Hour).Format(time.RFC3339)},
		"unknown":   {"siteId": f.dept.SiteID, "from": day.Format(time.RFC3339), "to": day.Add(time.Hour).Format(time.RFC3339), "doctorId": 1},
	} {
		a := e.do(call{method: "POST", path: "/api/standby", token: tok, body: b, invalid: true, header: map[string]string{"Idempotency-Key": "bad-" + name}})
		if a.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, a.status, a.body)
		}
	}
	e.do(call{method: "POST", path: "/api/standby", token: tok, invalid: true, header: map[string]string{"Idempotency-Key": "s404"},
		body: map[string]any{"siteId": 999999, "from": day.Format(time.RFC3339), "to": day.Add(time.Hour).Format(time.RFC3339)}}).
		expect(t, http.StatusNotFound, booking.CodeNotFound)
	e.do(call{method: "POST", path: "/api/standby", token: e.admin, body: body, invalid: true, header: map[string]string{"Idempotency-Key": "s3"}}).
		expect(t, http.StatusForbidden, booking.CodeForbidden)

	// The policy: off by default, set by an admin, bad values refused.
	var pol booking.StandbyPolicy
	e.do(call{method: "GET", path: site + "/standby-policy", token: e.admin}).expect(t, http.StatusOK).decode(t, &pol)
	if pol.Enabled || pol.HoldMinutes != booking.DefaultLeftoverHoldMinutes {
		t.Fatalf("default %+v", pol)
	}
	e.do(call{method: "PUT", path: site + "/standby-policy", token: e.admin, invalid: true, body: map[string]any{"enabled": true, "holdMinutes": 0}}).
		expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	e.do(call{method: "PUT", path: "/api/admin/sites/999999/standby-policy", token: e.admin, invalid: true, body: map[string]any{"enabled": true}}).
		expect(t, http.StatusNotFound, booking.CodeNotFound)
	e.do(call{method: "PUT", path: site + "/standby-policy", token: e.admin, body: map[string]any{"enabled": true}}).expect(t, http.StatusOK).decode(t, &pol)
	if !pol.Enabled || pol.HoldMinutes != booking.DefaultLeftoverHoldMinutes {
		t.Fatalf("set %+v", pol)
	}

	// The check-in window closes with both places left: the scan offers one
	// to the standby, who accepts it over the waitlist's route.
	e.clock.set(sl.StartAt.Add(20 * time.Minute))
	as, err := e.svc.OfferLeftovers(context.Background())
	if err != nil || len(as) != 1 || as[0].PatientID != p.ID {
		t.Fatalf("offers %+v, %v", as, err)
	}
	var mine []booking.WaitlistEntry
	e.do(call{method: "GET", path: "/api/me/standby", token: tok}).expect(t, http.StatusOK).items(t, &mine)
	if len(mine) != 1 || mine[0].State != booking.EntryOffered || mine[0].OfferExpiresAt == nil {
		t.Fatalf("%+v", mine)
	}
	var count booking.StandbyDay
	e.do(call{method: "GET", path: site + "/standby/" + sl.StartAt.Format(time.DateOnly), token: e.admin}).expect(t, http.StatusOK).decode(t, &count)
	if count.Offered != 1 {
		t.Fatalf("day count %+v", count)
	}
	e.do(call{method: "GET", path: site + "/standby/not-a-day", token: e.admin, invalid: true}).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	var ans offerAnswer
	e.do(call{method: "POST", path: "/api/waitlist/" + strconv.FormatInt(sb.ID, 10) + "/accept", token: tok}).expect(t, http.StatusOK).decode(t, &ans)
	if ans.Entry.State != booking.EntryAccepted || ans.Appointment.Status != booking.StatusBooked {
		t.Fatalf("%+v", ans)
	}

	// Leaving: another patient's standby is not found, a waitlist entry is
	// not a standby, leaving twice is leaving once.
	q := e.patient()
	qtok := e.patientToken(q.ID)
	var qs booking.WaitlistEntry
	e.do(call{method: "POST", path: "/api/standby", token: qtok, body: body, header: map[string]string{"Idempotency-Key": "q1"}}).
		expect(t, http.StatusCreated).decode(t, &qs)
	path := "/api/standby/" + strconv.FormatInt(qs.ID, 10)
	e.do(call{method: "DELETE", path: path, token: tok, invalid: true}).expect(t, http.StatusNotFound, booking.CodeNotFound)
	e.do(call{method: "DELETE", path: path, token: qtok}).expect(t, http.StatusOK)
	e.do(call{method: "DELETE", path: path, token: qtok}).expect(t, http.StatusOK)
}
