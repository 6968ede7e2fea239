package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
)

// access is who may call an operation.
type access int

const (
	// public: anyone; a token, even an expired or forged one, changes nothing.
	public access = iota + 1
	// adminOnly: admins; patients and doctors are forbidden.
	adminOnly
	// patientOrAdmin: a patient for themselves or a person their account
	// manages (another account's patient in the body does not exist for
	// them), the front desk (reception, an admin) for anyone; doctors are
	// forbidden. The "owner or admin" classes let reception in as admins.
	patientOrAdmin
	// ownerOrAdmin: the path names patient A's object: A and admins find it,
	// another patient is told it does not exist, doctors are forbidden.
	ownerOrAdmin
	// patientOnly: a patient's own list; doctors and admins are forbidden.
	patientOnly
	// signed: the payment provider, authenticated by its signature alone.
	signed
	// doctorOnly: a doctor token for its own doctor's data; patients and
	// admins are forbidden (clinic_test.go proves another doctor's ids).
	doctorOnly
	// patientWrite: a patient acting for themselves only (the waitlist);
	// doctors and admins are forbidden.
	patientWrite
	// ownerOnly: the path names patient A's object that only its patient
	// may act on: A finds it, another patient is told it does not exist,
	// doctors and admins are forbidden.
	ownerOnly
	// anyCaller: any admitted token, whatever its role (signing out).
	anyCaller
	// ownerDoctorOrAdmin: the path names patient A's appointment with the
	// fixture's doctor: A, that doctor and admins find it, another patient
	// is told it does not exist (check-in).
	ownerDoctorOrAdmin
	// desk: the front desk, reception and admins (booking.Desk); patients
	// and doctors are forbidden.
	desk
	// doctorOrAdmin: the path names the fixture's doctor or one of its
	// appointments: that doctor and admins find it, patients are forbidden
	// (the queue's console; queue_test.go proves another doctor's ids are
	// 404).
	doctorOrAdmin
)

// authorization classifies every operation of openapi.json. A new operation
// without an entry fails TestAuthorizationMatrix: classify it here.
var authorization = map[string]access{
	"GET /healthz":                                 public,
	"GET /readyz":                                  public,
	"GET /metrics":                                 public,
	"GET /openapi.json":                            public,
	"GET /problems/{code}":                         public,
	"GET /api/departments":                         public,
	"GET /api/doctors":                             public,
	"GET /api/doctors/{id}":                        public,
	"GET /api/doctors/{id}/slots":                  public,
	"GET /api/doctors/{id}/photo":                  public,
	"GET /api/search":                              public,
	"GET /api/doctors/{id}/availability":           public,
	"GET /api/slots/{id}":                          public,
	"GET /api/services":                            public,
	"GET /api/services/{id}":                       public,
	"GET /api/sites":                               public,
	"GET /api/availability":                        public,
	"GET /api/rounds/{id}":                         public,
	"GET /api/rounds/{id}/slots":                   public,
	"GET /api/rounds/{id}/draw":                    public,
	"POST /api/admin/departments":                  adminOnly,
	"GET /api/admin/departments":                   adminOnly,
	"POST /api/admin/services":                     adminOnly,
	"GET /api/admin/services":                      adminOnly,
	"PATCH /api/admin/services/{id}":               adminOnly,
	"POST /api/admin/sites":                        adminOnly,
	"PATCH /api/admin/sites/{id}":                  adminOnly,
	"GET /api/admin/staff/{name}/sites":            adminOnly,
	"PUT /api/admin/staff/{name}/sites":            adminOnly,
	"GET /api/admin/schedules/{id}/eligibility":    adminOnly,
	"PUT /api/admin/schedules/{id}/eligibility":    adminOnly,
	"DELETE /api/admin/schedules/{id}/eligibility": adminOnly,
	"GET /api/admin/services/{id}/eligibility":     adminOnly,
	"PUT /api/admin/services/{id}/eligibility":     adminOnly,
	"DELETE /api/admin/services/{id}/eligibility":  adminOnly,
	"POST /api/admin/cohorts/import":               adminOnly,
	"POST /api/admin/invitations":                  adminOnly,
	"POST /api/admin/doctors":                      adminOnly,
	"GET /api/admin/doctors":                       desk,
	"POST /api/admin/patients":                     desk,
	"GET /api/admin/patients":                      desk,
	"GET /api/admin/patients/{id}":                 desk,
	"DELETE /api/admin/patients/{id}":              adminOnly,
	"GET /api/admin/patients/{id}/data":            adminOnly,
	"GET /api/admin/patients/{id}/messages":        adminOnly,
	"GET /api/me/data":                             patientOnly,
	"POST /api/admin/doctors/{id}/schedules":       adminOnly,
	"GET /api/admin/doctors/{id}/schedules":        adminOnly,
	"POST /api/admin/doctors/{id}/slots/generate":  adminOnly,
	"POST /api/admin/slots":                        adminOnly,
	"PATCH /api/admin/slots/{id}":                  adminOnly,
	"POST /api/admin/slots/{id}/walk-ins":          desk,
	"POST /api/admin/doctors/{id}/suspensions":     adminOnly,
	"POST /api/admin/appointments/{id}/complete":   adminOnly,
	"POST /api/admin/appointments/{id}/no-show":    adminOnly,
	"GET /api/admin/reconciliation":                adminOnly,
	"GET /api/admin/refunds":                       adminOnly,
	"POST /api/admin/refunds/{id}/retry":           adminOnly,
	"PATCH /api/admin/departments/{id}":            adminOnly,
	"PATCH /api/admin/doctors/{id}":                adminOnly,
	"PUT /api/admin/doctors/{id}/photo":            adminOnly,
	"PATCH /api/admin/patients/{id}":               adminOnly,
	"PUT /api/admin/schedules/{id}":                adminOnly,
	"GET /api/admin/policy":                        adminOnly,
	"PUT /api/admin/policy":                        adminOnly,
	"POST /api/admin/closures":                     adminOnly,
	"GET /api/admin/suspensions":                   adminOnly,
	"POST /api/admin/suspensions/{id}/lift":        adminOnly,
	"POST /api/admin/rooms":                        adminOnly,
	"POST /api/admin/rounds":                       adminOnly,
	"POST /api/admin/rounds/{id}/slots":            adminOnly,
	"POST /api/admin/rounds/{id}/open":             adminOnly,
	"POST /api/admin/rounds/{id}/close":            adminOnly,
	"GET /api/admin/rounds/{id}/results":           adminOnly,
	"POST /api/admin/rounds/{id}/draw":             adminOnly,
	"GET /api/admin/rounds/{id}/registrations":     adminOnly,
	"POST /api/rounds/{id}/registration":           patientWrite,
	"GET /api/rounds/{id}/registration":            patientWrite,
	"POST /api/admin/openings":                     adminOnly,
	"GET /api/admin/openings/{id}/report":          adminOnly,
	"GET /api/openings":                            public,
	"GET /api/openings/{id}":                       public,
	"GET /api/openings/{id}/draw":                  public,
	"GET /api/openings/{id}/summary":               public,
	"POST /api/openings/{id}/queue":                patientWrite,
	"GET /api/openings/{id}/queue":                 patientWrite,
	"GET /api/openings/{id}/queue/events":          patientWrite,
	"POST /api/appointments":                       patientOrAdmin,
	"POST /api/series-bookings":                    patientOrAdmin,
	"POST /api/series-bookings/{id}/doses":         ownerOrAdmin,
	"GET /api/me/series-bookings":                  patientOnly,
	"POST /api/group-bookings":                     patientOrAdmin,
	"GET /api/dose-series":                         public,
	"POST /api/admin/dose-series":                  adminOnly,
	"POST /api/rounds/{id}/applications":           patientOrAdmin,
	"GET /api/appointments/{id}":                   ownerOrAdmin,
	"DELETE /api/appointments/{id}":                ownerOrAdmin,
	"POST /api/appointments/{id}/checkout":         ownerOrAdmin,
	"GET /api/rounds/{id}/applications/{appId}":    ownerOrAdmin,
	"GET /api/me/appointments":                     patientOnly,
	"GET /api/me/people":                           patientOnly,
	"POST /api/me/people":                          patientWrite,
	"PATCH /api/me/people/{id}":                    ownerOnly,
	"DELETE /api/me/people/{id}":                   ownerOnly,
	"POST /api/payments/callback":                  signed,
	"POST /api/sms/twilio/status":                  signed,
	"POST /api/payments/stripe":                    signed,
	"POST /api/payments/wechat":                    signed,

	"POST /api/admin/payments/{tradeNo}/refund":      adminOnly,
	"GET /api/admin/reconciliation/last":             adminOnly,
	"POST /api/admin/reconciliation/statement":       adminOnly,
	"GET /api/admin/holdings":                        adminOnly,
	"GET /api/admin/audit":                           adminOnly,
	"POST /api/admin/import":                         adminOnly,
	"GET /api/admin/appointments/export":             adminOnly,
	"GET /api/admin/doctors/{id}/days/{date}/export": adminOnly,
	"GET /api/me/history":                            patientOnly,
	"GET /api/doctor/days/{date}":                    doctorOnly,
	"GET /api/doctor/days/{date}/export":             doctorOnly,
	"POST /api/doctor/appointments/{id}/complete":    doctorOnly,
	"POST /api/doctor/appointments/{id}/no-show":     doctorOnly,
	"POST /api/appointments/{id}/reschedule":         ownerOrAdmin,
	"POST /api/appointments/{id}/check-in":           ownerDoctorOrAdmin,
	"GET /api/appointments/{id}/queue":               ownerDoctorOrAdmin,
	"POST /api/admin/doctors/{id}/queue/call":        doctorOrAdmin,
	"POST /api/admin/appointments/{id}/recall":       doctorOrAdmin,
	"POST /api/admin/appointments/{id}/skip":         doctorOrAdmin,
	"POST /api/admin/appointments/{id}/start":        doctorOrAdmin,
	"POST /api/waitlist":                             patientWrite,
	"GET /api/me/waitlist":                           patientOnly,
	"DELETE /api/waitlist/{id}":                      ownerOnly,
	"POST /api/waitlist/{id}/accept":                 ownerOnly,
	"POST /api/waitlist/{id}/decline":                ownerOnly,
	"POST /api/standby":                              patientWrite,
	"GET /api/me/standby":                            patientOnly,
	"DELETE /api/standby/{id}":                       ownerOnly,
	"GET /api/admin/sites/{id}/standby-policy":       adminOnly,
	"PUT /api/admin/sites/{id}/standby-policy":       adminOnly,
	"GET /api/admin/sites/{id}/standby/{date}":       desk,
	"GET /api/admin/doctors/{id}/offers":             adminOnly,
	"POST /api/signin/code":                          public,
	"POST /api/signin/verify":                        public,
	"POST /api/signup/code":                          public,
	"POST /api/signup":                               public,
	"POST /api/signout":                              anyCaller,
}

// servedElsewhere are the path prefixes of openapi.json that another
// handler serves, with the test holding their operations to a matrix.
var servedElsewhere = map[string]string{"/ical/": "ical/authz_test.go"}

// caller is one column of the matrix.
type caller struct {
	name  string
	token string
}

// TestAuthorizationMatrix sends every operation of /openapi.json as every
// kind of caller — no token, an expired one, a forged one, patient A (the
// owner of the ids in the paths), patient B (another owner), a doctor, an
// admin, and the callers who are gone: a deactivated patient, an erased
// one, a signed-out token and a disabled staff user's — and checks the
// answer against the operation's class.
func TestAuthorizationMatrix(t *testing.T) {
	// The staff user is disabled through the store, as slotd staff-disable
	// does from another process: every request reads the marks.
	e := newEnv(t, withService(func(o *service.Options) { o.MarkRefresh = time.Nanosecond }))
	f := e.fixture()
	pa, pb := e.patient(), e.patient()
	ta, tb := e.patientToken(pa.ID), e.patientToken(pb.ID)
	sl := e.slot(f, 3)
	var appt struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/appointments", token: ta, header: map[string]string{"Idempotency-Key": "a-1"}, body: slotBody(sl.ID)}).
		expect(t, 201).decode(t, &appt)
	// A's series booked up to dose 1: the next dose's path names it.
	var series, booked struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/admin/dose-series", token: e.admin, body: map[string]any{"name": "Two doses",
		"windows": []map[string]int{{"minDays": 21, "maxDays": 28}}}}).expect(t, 201).decode(t, &series)
	e.do(call{method: "POST", path: "/api/series-bookings", token: ta, header: map[string]string{"Idempotency-Key": "s-1"},
		body: map[string]any{"seriesId": series.ID, "slotIds": []int64{e.slot(f, 3).ID}}}).expect(t, 201).decode(t, &booked)
	rd, rslots := e.makeRound("Autumn", 0, true, e.makeRoom("A-101", "A", 1, true, 2))
	e.clock.set(roundOpens.Add(time.Minute))
	var app struct{ ID int64 }
	e.do(apply(ta, rd.ID, "app-1", rslots[0].ID, true)).expect(t, 202).decode(t, &app)
	// A's child, booked (so that removing them is refused and they stay).
	var child struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/me/people", token: ta, body: map[string]any{"name": "Kid A", "birthDate": "2018-05-01", "relation": "child", "consent": true}}).
		expect(t, 201).decode(t, &child)
	e.do(call{method: "POST", path: "/api/appointments", token: ta, header: map[string]string{"Idempotency-Key": "a-kid"}, body: map[string]any{"slotId": sl.ID, "patientId": child.ID}}).
		expect(t, 201)
	waitBody := map[string]any{"doctorId": f.doctor.ID, "from": e.clock.Now().Format(time.RFC3339), "to": e.clock.Now().Add(24 * time.Hour).Format(time.RFC3339)}
	var entry struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/waitlist", token: ta, header: map[string]string{"Idempotency-Key": "w-1"}, body: waitBody}).
		expect(t, 201).decode(t, &entry)
	standbyBody := map[string]any{"siteId": 1, "from": e.clock.Now().Format(time.RFC3339), "to": e.clock.Now().Add(24 * time.Hour).Format(time.RFC3339)}
	var standby struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/standby", token: ta, header: map[string]string{"Idempotency-Key": "sb-1"}, body: standbyBody}).
		expect(t, 201).decode(t, &standby)

	// The document, as served.
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	e.do(call{method: "GET", path: "/openapi.json"}).expect(t, 200).decode(t, &doc)
	var ops []string
	for path, methods := range doc.Paths {
		if elsewhere(path) {
			continue
		}
		for m := range methods {
			if m != "parameters" {
				ops = append(ops, strings.ToUpper(m)+" "+path)
			}
		}
	}
	sort.Strings(ops)
	// Signing out ends every caller's token: it goes last.
	for i, op := range ops {
		if op == "POST /api/signout" {
			ops = append(append(ops[:i:i], ops[i+1:]...), op)
			break
		}
	}
	for op := range authorization {
		if _, ok := doc.Paths[strings.SplitN(op, " ", 2)[1]]; !ok {
			t.Errorf("%s is in the authorization table but not in openapi.json", op)
		}
	}

	// The callers who are gone, each with a token minted before it went.
	pc, pd, pe := e.patient(), e.patient(), e.patient()
	tc, td, te := e.patientToken(pc.ID), e.patientToken(pd.ID), e.patientToken(pe.ID)
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", pc.ID), token: e.admin, body: map[string]any{"active": false}}).expect(t, 200)
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/admin/patients/%d", pd.ID), token: e.admin, body: map[string]any{"reason": "asked to be forgotten"}}).expect(t, 200)
	e.do(call{method: "POST", path: "/api/signout", token: te}).expect(t, 204)
	hash, err := accounts.HashPassword("correct horse")
	testkit.NoError(t, err)
	testkit.NoError(t, e.db.SetStaffPassword(context.Background(), "carol", hash, time.Now()))
	tcarol := e.token(auth.RoleAdmin, "staff:carol")
	testkit.NoError(t, e.db.SetStaffDisabled(context.Background(), "carol", true, time.Now()))
	// bea, at reception on site B only: every id of the matrix is site A's.
	siteB, err := e.db.CreateSite(context.Background(), booking.Site{Name: "Site B", TimeZone: "Europe/Berlin"})
	testkit.NoError(t, err)
	testkit.NoError(t, e.db.SetStaffPassword(context.Background(), "bea", hash, time.Now()))
	testkit.NoError(t, e.db.SetStaffReception(context.Background(), "bea"))
	testkit.NoError(t, e.db.SetStaffSites(context.Background(), "bea", []int64{siteB.ID}, time.Now()))
	tbea := e.token(auth.RoleReception, "staff:bea")
	// bob, an admin of site B only: site A's catalog is not his to change.
	testkit.NoError(t, e.db.SetStaffPassword(context.Background(), "bob", hash, time.Now()))
	testkit.NoError(t, e.db.SetStaffSites(context.Background(), "bob", []int64{siteB.ID}, time.Now()))
	tbob := e.token(auth.RoleAdmin, "staff:bob")

	callers := []caller{
		{"no token", ""},
		{"expired token", expiredToken(t, auth.RoleAdmin, "1")},
		{"forged token", forgedToken(t, auth.RoleAdmin, "1")},
		{"doctor", e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))},
		{"patient B (another owner)", tb},
		{"patient A (the owner)", ta},
		{"admin", e.admin},
		{"deactivated patient", tc},
		{"erased patient", td},
		{"signed-out token", te},
		{"disabled staff user", tcarol},
		{"reception", e.token(auth.RoleReception, "staff:rita")},
		{"reception on site B", tbea},
		{"admin on site B", tbob},
	}
	idFor := func(path string) string {
		switch {
		case strings.Contains(path, "/waitlist/"):
			return fmt.Sprint(entry.ID)
		case strings.HasPrefix(path, "/api/standby/"):
			return fmt.Sprint(standby.ID)
		case strings.Contains(path, "/people/"):
			return fmt.Sprint(child.ID)
		case strings.Contains(path, "/doctors/"):
			return fmt.Sprint(f.doctor.ID)
		case strings.Contains(path, "/slots/"):
			return fmt.Sprint(sl.ID)
		case strings.Contains(path, "/appointments/"):
			return fmt.Sprint(appt.ID)
		case strings.Contains(path, "/patients/"):
			return fmt.Sprint(pa.ID)
		case strings.Contains(path, "/series-bookings/"):
			return fmt.Sprint(booked.ID)
		case strings.Contains(path, "/rounds/"):
			return fmt.Sprint(rd.ID)
		}
		return "1"
	}
	cells := 0
	// A slot listing for one person (?patientId=, A's patient): public
	// without it, but naming a person is acting for them. Before the
	// matrix, whose sign-out ends every token.
	for _, path := range []string{fmt.Sprintf("/api/doctors/%d/slots?patientId=%d", f.doctor.ID, pa.ID),
		fmt.Sprintf("/api/availability?service=1&patientId=%d", pa.ID)} {
		for i, c := range callers {
			if c.name == "reception on site B" || c.name == "admin on site B" {
				continue // the listing is the clinic's, of every site
			}
			cells++
			a := e.do(call{method: "GET", path: path, token: c.token, invalid: true})
			if why := judge(patientOrAdmin, i, a.status); why != "" {
				t.Errorf("GET %s as %s: %d, want %s: %s", path, c.name, a.status, why, a.body)
			}
		}
	}
	for _, op := range ops {
		class, ok := authorization[op]
		if !ok {
			t.Errorf("%s has no entry in the authorization table (httpapi/authz_test.go): classify it", op)
			continue
		}
		method, tmpl, _ := strings.Cut(op, " ")
		path := strings.ReplaceAll(strings.ReplaceAll(tmpl, "{appId}", fmt.Sprint(app.ID)), "{id}", idFor(tmpl))
		path = strings.NewReplacer("{date}", "2026-03-03", "{tradeNo}", "T-none", "{code}", "slot-full", "{name}", "rita").Replace(path)
		if op == "GET /api/admin/patients" {
			path += "?q=nobody%40example.com" // a keyed search, which the front desk may make
		}
		for i, c := range callers {
			cells++
			body := any(map[string]any{})
			h := map[string]string{"Idempotency-Key": fmt.Sprintf("authz-%d-%d", cells, i)}
			switch op {
			case "POST /api/appointments", "POST /api/rounds/{id}/applications":
				target := sl.ID
				if strings.Contains(op, "rounds") {
					target = rslots[0].ID
				}
				b := map[string]any{"slotId": target}
				if c.name == "reception on site B" {
					e.clock.add(10 * time.Second) // a fresh booking budget for A: refused by site, not by the limiter
				}
				if c.name == "patient B (another owner)" || c.name == "admin" || strings.HasPrefix(c.name, "reception") {
					b["patientId"] = pa.ID // B books for A: not found; the front desk for A: allowed
				}
				body = b
			case "POST /api/group-bookings":
				e.clock.add(10 * time.Second)                                        // a fresh booking budget: the matrix books many times
				body = map[string]any{"slotId": sl.ID, "patientIds": []int64{pa.ID}} // B names A's patient: not found
			case "POST /api/series-bookings":
				e.clock.add(10 * time.Second)
				b := map[string]any{"seriesId": 1, "slotIds": []int64{sl.ID, sl.ID}}
				if c.name == "patient B (another owner)" || c.name == "admin" {
					b["patientId"] = pa.ID
				}
				body = b
			case "POST /api/series-bookings/{id}/doses":
				e.clock.add(10 * time.Second)
				b := map[string]any{"slotId": sl.ID} // outside the window: refused, but only once found and allowed
				if c.name == "admin" || strings.HasPrefix(c.name, "reception") {
					b["patientId"] = pa.ID
				}
				body = b
			case "PUT /api/admin/staff/{name}/sites":
				body = map[string]any{"sites": []int64{}}
			case "POST /api/payments/callback":
				body = map[string]any{"tradeNo": "t-1", "appointmentId": appt.ID, "amount": 500, "currency": "EUR", "timestamp": e.clock.Now().Unix()}
			case "POST /api/appointments/{id}/checkout":
				body = map[string]any{"returnUrl": "https://clinic.example/back"}
			case "POST /api/appointments/{id}/reschedule":
				body = map[string]any{"slotId": sl.ID} // its own slot: refused, but only once found and allowed
			case "POST /api/waitlist":
				body = waitBody
			case "POST /api/standby":
				body = standbyBody
			case "PATCH /api/me/people/{id}":
				body = map[string]any{"name": "Kid A"}
			case "POST /api/admin/patients":
				body = map[string]any{"name": "Walk In", "birthDate": "1990-04-05"}
			case "POST /api/admin/slots/{id}/walk-ins":
				body = map[string]any{"patientId": pa.ID, "reason": "came without booking"} // not full: refused, but only once allowed
			case "POST /api/appointments/{id}/check-in":
				body = map[string]any{"code": "AAAA-AAAA"} // a wrong code: refused, but only once found and allowed
			}
			if c.name == "admin on site B" {
				if b, ok := siteACatalog(f.doctor.ID)[op]; ok {
					body = b // valid: refused for its site, not its shape
				}
			}
			if method == "GET" || method == "DELETE" {
				body = nil
			}
			a := e.do(call{method: method, path: path, token: c.token, body: body, header: h, invalid: true})
			why := judge(class, i, a.status)
			if c.name == "reception on site B" {
				why = judgeSiteB(op, class, a.status)
			}
			if c.name == "admin on site B" {
				why = judgeAdminSiteB(op, class, a.status)
				if (op == "GET /api/admin/departments" || op == "GET /api/admin/doctors") && strings.Contains(string(a.body), `"departmentId":1`+",") ||
					op == "GET /api/admin/departments" && strings.Contains(string(a.body), `"siteId":1`+",") {
					t.Errorf("the admin of site B's %s shows site A's: %s", op, a.body)
				}
			}
			if why != "" {
				t.Errorf("%s as %s: %d, want %s: %s", op, c.name, a.status, why, a.body)
			}
			if (op == "GET /api/me/appointments" || op == "GET /api/me/data") && c.name == "patient B (another owner)" &&
				(strings.Contains(string(a.body), fmt.Sprintf(`"id":%d,`, appt.ID)) || strings.Contains(string(a.body), pa.Phone)) {
				t.Errorf("patient B's %s shows patient A's: %s", op, a.body)
			}
		}
	}
	t.Logf("authorization matrix: %d operations × %d callers = %d requests", len(ops), len(callers), cells)
	if len(ops) < len(authorization) {
		t.Errorf("openapi.json has %d operations, the table %d", len(ops), len(authorization))
	}
}

// judge says what is wrong with status for the class and the caller (its
// index in the matrix), or "".
func judge(class access, caller, status int) string {
	const (
		none, expired, forged, doctor, other, owner, admin = 0, 1, 2, 3, 4, 5, 6
		deactivated, erased, signedOut, disabledStaff      = 7, 8, 9, 10
		reception                                          = 11
	)
	denied := status == http.StatusUnauthorized || status == http.StatusForbidden
	want := func(ok bool, what string) string {
		if ok {
			return ""
		}
		return what
	}
	switch {
	case class == public:
		return want(!denied, "neither 401 nor 403")
	case class == signed:
		return want(status == http.StatusUnauthorized, "401 (no provider signature)")
	case caller == none || caller == expired || caller == forged || caller == signedOut || caller == disabledStaff:
		return want(status == http.StatusUnauthorized, "401")
	case caller == deactivated || caller == erased:
		return want(status == http.StatusConflict, "409 booking-blocked (the departed patient's refusal)")
	}
	if caller == reception {
		switch class {
		case desk, patientOrAdmin:
			return want(!denied, "neither 401 nor 403")
		case ownerOrAdmin, ownerDoctorOrAdmin:
			return want(!denied && status != http.StatusNotFound, "found and allowed")
		case anyCaller:
			return want(status == http.StatusNoContent, "204")
		}
		return want(status == http.StatusForbidden, "403")
	}
	switch class {
	case desk:
		if caller == admin {
			return want(!denied, "neither 401 nor 403")
		}
		return want(status == http.StatusForbidden, "403")
	case adminOnly:
		if caller == admin {
			return want(!denied, "neither 401 nor 403")
		}
		return want(status == http.StatusForbidden, "403")
	case patientOrAdmin:
		switch caller {
		case owner, admin:
			return want(!denied, "neither 401 nor 403")
		case other:
			return want(status == http.StatusNotFound, "404 (another account's patient does not exist for them)")
		}
		return want(status == http.StatusForbidden, "403")
	case ownerOrAdmin:
		switch caller {
		case owner, admin:
			return want(!denied && status != http.StatusNotFound, "found and allowed")
		case other:
			return want(status == http.StatusNotFound, "404 (another owner's object does not exist for them)")
		}
		return want(status == http.StatusForbidden, "403")
	case patientOnly:
		switch caller {
		case owner, other:
			return want(status == http.StatusOK, "200")
		}
		return want(status == http.StatusForbidden, "403")
	case doctorOnly:
		if caller == doctor {
			return want(!denied, "neither 401 nor 403")
		}
		return want(status == http.StatusForbidden, "403")
	case patientWrite:
		switch caller {
		case owner, other:
			return want(!denied, "neither 401 nor 403")
		}
		return want(status == http.StatusForbidden, "403")
	case ownerOnly:
		switch caller {
		case owner:
			return want(!denied && status != http.StatusNotFound, "found and allowed")
		case other:
			return want(status == http.StatusNotFound, "404 (another owner's object does not exist for them)")
		}
		return want(status == http.StatusForbidden, "403")
	case anyCaller:
		return want(status == http.StatusNoContent, "204")
	case doctorOrAdmin:
		if caller == doctor || caller == admin {
			return want(!denied && status != http.StatusNotFound, "found and allowed")
		}
		return want(status == http.StatusForbidden, "403")
	case ownerDoctorOrAdmin:
		switch caller {
		case owner, admin, doctor:
			return want(!denied && status != http.StatusNotFound, "found and allowed")
		case other:
			return want(status == http.StatusNotFound, "404 (another owner's object does not exist for them)")
		}
		return want(status == http.StatusForbidden, "403")
	}
	return "an unknown class"
}

// onSiteA are the front desk's operations whose path or body names the
// matrix's slot, appointment or doctor, all of site A: a reception limited
// to site B is told they do not exist (booking.SiteRefusal). The others
// name patients (no site) or list the caller's own sites.
var onSiteA = map[string]bool{
	"POST /api/appointments":                 true,
	"GET /api/appointments/{id}":             true,
	"DELETE /api/appointments/{id}":          true,
	"POST /api/appointments/{id}/checkout":   true,
	"POST /api/appointments/{id}/reschedule": true,
	"POST /api/appointments/{id}/check-in":   true,
	"GET /api/appointments/{id}/queue":       true,
	"POST /api/admin/slots/{id}/walk-ins":    true,
	"POST /api/group-bookings":               true,
	"POST /api/series-bookings/{id}/doses":   true,
}

// judgeSiteB says what is wrong with status for reception limited to site
// B: site A's ids not found, the rest as any reception.
func judgeSiteB(op string, class access, status int) string {
	if onSiteA[op] {
		if status != http.StatusNotFound {
			return "404 (site A's id does not exist for a reception of site B)"
		}
		return ""
	}
	return judge(class, 11, status)
}

// siteACatalog is, for an admin limited to site B, a valid body of each
// catalog change of site A (department 1 and the fixture's doctor): not
// found, and a clinic-wide closure refused.
func siteACatalog(doctorID int64) map[string]any {
	from, to := "2026-04-01T08:00:00Z", "2026-04-01T12:00:00Z"
	return map[string]any{
		"POST /api/admin/departments":                 map[string]any{"name": "Annex", "siteId": 1},
		"PATCH /api/admin/departments/{id}":           map[string]any{"name": "Renamed"},
		"POST /api/admin/doctors":                     map[string]any{"name": "Dr. Neu", "departmentId": 1, "timezone": "Europe/Berlin"},
		"PATCH /api/admin/doctors/{id}":               map[string]any{"active": true},
		"PATCH /api/admin/slots/{id}":                 map[string]any{"capacity": 5},
		"POST /api/admin/doctors/{id}/slots/generate": map[string]any{"from": "2026-04-01", "to": "2026-04-02"},
		"POST /api/admin/doctors/{id}/suspensions":    map[string]any{"from": from, "to": to, "reason": "ill"},
		"POST /api/admin/services":                    map[string]any{"name": "Check-up", "durationMinutes": 30, "level": "ordinary", "doctorIds": []int64{doctorID}},
		"POST /api/admin/closures":                    map[string]any{"scope": "clinic", "from": from, "to": to, "reason": "strike"},
	}
}

// clinicWide are the changes only an admin limited to no site makes.
var clinicWide = map[string]bool{
	"PUT /api/admin/policy":             true,
	"PUT /api/admin/staff/{name}/sites": true,
	"POST /api/admin/closures":          true,
	"GET /api/admin/audit":              true,
}

// adminOnSiteA are the admin's operations on site A's ids beyond the
// desk's (onSiteA): not found for an admin of site B.
var adminOnSiteA = map[string]bool{
	"POST /api/admin/departments":                    true,
	"PATCH /api/admin/departments/{id}":              true,
	"POST /api/admin/doctors":                        true,
	"PATCH /api/admin/doctors/{id}":                  true,
	"PATCH /api/admin/slots/{id}":                    true,
	"POST /api/admin/doctors/{id}/slots/generate":    true,
	"POST /api/admin/doctors/{id}/suspensions":       true,
	"POST /api/admin/services":                       true,
	"POST /api/admin/appointments/{id}/complete":     true,
	"POST /api/admin/appointments/{id}/no-show":      true,
	"POST /api/admin/appointments/{id}/recall":       true,
	"POST /api/admin/appointments/{id}/skip":         true,
	"POST /api/admin/appointments/{id}/start":        true,
	"POST /api/admin/doctors/{id}/queue/call":        true,
	"GET /api/admin/doctors/{id}/days/{date}/export": true,
	"GET /api/admin/doctors/{id}/schedules":          true,
	"GET /api/admin/doctors/{id}/offers":             true,
}

// judgeAdminSiteB says what is wrong with status for an admin limited to
// site B: site A's ids not found, the clinic-wide changes 403, the rest as
// any admin.
func judgeAdminSiteB(op string, class access, status int) string {
	switch {
	case (onSiteA[op] && op != "POST /api/appointments" && !strings.HasPrefix(op, "POST /api/series")) || adminOnSiteA[op]:
		if status != http.StatusNotFound {
			return "404 (site A's id does not exist for an admin of site B)"
		}
		return ""
	case clinicWide[op]:
		if status != http.StatusForbidden {
			return "403 (only an admin limited to no site changes the clinic)"
		}
		return ""
	}
	return judge(class, 6, status)
}

func elsewhere(path string) bool {
	for prefix := range servedElsewhere {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
