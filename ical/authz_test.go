package ical_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/ical"
)

// class is who may call an /ical/ operation.
type class int

const (
	// ownSubscription: any patient, for their own subscription only;
	// doctors and admins are forbidden.
	ownSubscription class = iota + 1
	// ownAppointment: the path names patient A's appointment: A and the
	// front desk (reception, admins) get it, another patient is told it
	// does not exist, doctors are forbidden.
	ownAppointment
	// doctorDays: the path names a doctor: admins and that doctor get the
	// calendar (a subscription follows its doctor), everyone else, reception
	// too, is forbidden.
	doctorDays
	// feedToken: the token in the path alone decides (calendar apps send no
	// bearer token): a live one is served, an unknown or revoked one is not
	// found, whatever the Authorization header says.
	feedToken
)

// icalAuthorization classifies every /ical/ operation of openapi.json. A new
// operation without an entry fails TestICalAuthorizationMatrix: classify it
// here.
var icalAuthorization = map[string]class{
	"GET /ical/subscription":      ownSubscription,
	"POST /ical/subscription":     ownSubscription,
	"DELETE /ical/subscription":   ownSubscription,
	"GET /ical/appointments/{id}": ownAppointment,
	"GET /ical/doctors/{id}":      doctorDays,
	"GET /ical/feed/{token}":      feedToken,
}

// The callers, the columns of the matrix.
const (
	noToken = iota
	expiredToken
	forgedToken
	patientA // the owner of the ids in the paths
	patientB // another owner
	theDoctor
	otherDoctor
	admin
	signedOut   // an admin's token, signed out
	departedPat // a deactivated patient's token
	reception   // the front desk
	callerCount
)

var callerNames = [callerCount]string{"no token", "expired token", "forged token", "patient A (the owner)",
	"patient B (another owner)", "the doctor", "another doctor", "admin", "signed-out token", "deactivated patient", "reception"}

// TestICalAuthorizationMatrix sends every /ical/ operation of openapi.json
// as every kind of caller and checks the answer against the operation's
// class. The expired and forged tokens claim to be a caller the class lets
// in, so only the token's fault can refuse them.
func TestICalAuthorizationMatrix(t *testing.T) {
	ops := openAPIOperations(t)
	for op := range icalAuthorization {
		if _, ok := ops[op]; !ok {
			t.Errorf("%s is in the authorization table but not in openapi.json", op)
		}
	}
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	cells := 0
	for _, op := range names {
		cl, ok := icalAuthorization[op]
		if !ok {
			t.Errorf("%s has no entry in the authorization table (ical/authz_test.go): classify it", op)
			continue
		}
		var doc struct {
			Security  []map[string][]string      `json:"security"`
			Responses map[string]json.RawMessage `json:"responses"`
		}
		must(t, json.Unmarshal(ops[op], &doc))
		if bearer := len(doc.Security) > 0; bearer != (cl != feedToken) {
			t.Errorf("%s: openapi.json says bearer security %v, its class the opposite", op, bearer)
		}
		f := newFixture(t)
		other, err := f.store.CreateDoctor(context.Background(), booking.Doctor{Name: "Dr. Other", DepartmentID: f.doctor.DepartmentID, TimeZone: "Europe/Paris"})
		must(t, err)
		a, b := strconv.FormatInt(f.p1.ID, 10), strconv.FormatInt(f.p2.ID, 10)
		doc1 := strconv.FormatInt(f.doctor.ID, 10)
		tokens := [callerCount]string{
			patientA:    f.token(auth.RolePatient, a),
			patientB:    f.token(auth.RolePatient, b),
			theDoctor:   f.token(auth.RoleDoctor, doc1),
			otherDoctor: f.token(auth.RoleDoctor, strconv.FormatInt(other.ID, 10)),
			admin:       f.token(auth.RoleAdmin, "1"),
			signedOut:   f.token(auth.RoleAdmin, "9"),
			reception:   f.token(auth.RoleReception, "staff:rita"),
		}
		must(t, f.svc.SignOut(context.Background(), string(auth.RoleAdmin), "9"))
		gone, err := f.store.CreatePatient(context.Background(), booking.Patient{Name: "Gone", Phone: "+33600000009"})
		must(t, err)
		tokens[departedPat] = f.token(auth.RolePatient, strconv.FormatInt(gone.ID, 10))
		off := false
		_, err = f.svc.UpdatePatient(context.Background(), gone.ID, booking.PatientUpdate{Active: &off})
		must(t, err)
		insider := auth.RolePatient
		sub := a
		if cl == doctorDays {
			insider, sub = auth.RoleDoctor, doc1
		}
		tokens[expiredToken] = signRaw(t, []byte(testSecret), insider, sub, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
		tokens[forgedToken] = signRaw(t, []byte(strings.Repeat("f", auth.MinSecretLen)), insider, sub, time.Now(), time.Now().Add(time.Hour))

		method, tmpl, _ := strings.Cut(op, " ")
		paths := map[string]string{"": tmpl}
		switch cl {
		case ownAppointment:
			paths[""] = strings.Replace(tmpl, "{id}", strconv.FormatInt(f.before.ID, 10)+".ics", 1)
		case doctorDays:
			paths[""] = strings.Replace(tmpl, "{id}", doc1+".ics", 1)
		case feedToken:
			revoked := f.subscribe(f.p2.ID)
			must(t, f.h.Revoke(context.Background(), f.p2.ID))
			replaced := f.subscribe(f.p1.ID)
			paths = map[string]string{
				"live":     f.subscribe(f.p1.ID),
				"replaced": replaced,
				"revoked":  revoked,
				"unknown":  "/ical/feed/" + strings.Repeat("A", 43) + ".ics",
			}
		}
		for variant, path := range paths {
			for c := range callerCount {
				cells++
				name := callerNames[c]
				if variant != "" {
					name = variant + " token, " + name
				}
				// A's live subscription, to see that no one else's call
				// touches it.
				feedA := ""
				if cl == ownSubscription {
					feedA = f.subscribe(f.p1.ID)
				}
				resp, body := f.do(method, path, tokens[c])
				if why := judgeICal(cl, method, variant, c, resp.StatusCode); why != "" {
					t.Errorf("%s as %s: %d, want %s: %.200s", op, name, resp.StatusCode, why, body)
					continue
				}
				if _, ok := doc.Responses[strconv.Itoa(resp.StatusCode)]; !ok {
					t.Errorf("%s as %s: %d is not among the responses openapi.json documents", op, name, resp.StatusCode)
				}
				if resp.StatusCode >= 400 && resp.Header.Get("Content-Type") != "application/problem+json" {
					t.Errorf("%s as %s: %d with content type %q", op, name, resp.StatusCode, resp.Header.Get("Content-Type"))
				}
				f.checkOwnership(t, op, name, cl, c, feedA, resp.StatusCode, body)
			}
		}
	}
	t.Logf("ical authorization matrix: %d operations (the feed with 4 tokens) × %d callers = %d requests", len(names), callerCount, cells)
}

// judgeICal says what is wrong with status for the class, the method, the
// feed's token variant and the caller, or "".
func judgeICal(cl class, method, variant string, caller, status int) string {
	want := func(w int, why string) string {
		if status == w {
			return ""
		}
		return fmt.Sprintf("%d (%s)", w, why)
	}
	if cl == feedToken {
		if variant == "live" {
			return want(http.StatusOK, "a live subscription token, whatever the bearer")
		}
		return want(http.StatusNotFound, "a dead subscription token, whatever the bearer")
	}
	switch caller {
	case noToken, expiredToken, forgedToken, signedOut:
		return want(http.StatusUnauthorized, "no valid bearer token")
	case departedPat:
		return want(http.StatusConflict, "the departed patient's refusal")
	}
	switch cl {
	case ownSubscription:
		if caller == patientA || caller == patientB {
			return want(map[string]int{"GET": 200, "POST": 201, "DELETE": 204}[method], "a patient's own subscription")
		}
		return want(http.StatusForbidden, "only patients have subscriptions")
	case ownAppointment:
		switch caller {
		case patientA, admin, reception:
			return want(http.StatusOK, "the owner or the front desk")
		case patientB:
			return want(http.StatusNotFound, "another owner's appointment does not exist for them")
		}
		return want(http.StatusForbidden, "doctors do not get a patient's appointment")
	case doctorDays:
		if caller == theDoctor || caller == admin {
			return want(http.StatusOK, "that doctor or an admin")
		}
		return want(http.StatusForbidden, "only that doctor and admins")
	}
	return "an unknown class"
}

// checkOwnership checks what a status cannot show: whose data an allowed
// answer holds, and that A's subscription changes only by A's own call.
func (f *fixture) checkOwnership(t *testing.T, op, name string, cl class, caller int, feedA string, status int, body string) {
	t.Helper()
	switch {
	case cl == ownSubscription:
		want := http.StatusOK
		if caller == patientA && op != "GET /ical/subscription" {
			want = http.StatusNotFound // rotated or revoked
		}
		if resp, _ := f.get(feedA, ""); resp.StatusCode != want {
			t.Errorf("%s as %s: patient A's feed then answers %d, want %d", op, name, resp.StatusCode, want)
		}
		if op == "GET /ical/subscription" && status == http.StatusOK {
			active := strings.Contains(body, `"active":true`)
			if active != (caller == patientA) {
				t.Errorf("%s as %s: %s, but only patient A is subscribed", op, name, body)
			}
		}
	case status != http.StatusOK:
	case cl == feedToken || cl == ownAppointment:
		evs := eventsByUID(t, parse(t, body))
		if evs[ical.UID(f.before.ID, "clinic.test")] == nil || evs[ical.UID(f.ofOther.ID, "clinic.test")] != nil {
			t.Errorf("%s as %s: events %v, want patient A's only", op, name, evs)
		}
	case cl == doctorDays:
		if n := len(parse(t, body).Events()); n != 3 {
			t.Errorf("%s as %s: %d events, want the doctor's 3", op, name, n)
		}
	}
}

// subscribe makes patientID a new subscription and returns its feed's path.
func (f *fixture) subscribe(patientID int64) string {
	f.t.Helper()
	url, err := f.h.Subscribe(context.Background(), patientID, f.srv.URL)
	must(f.t, err)
	return strings.TrimPrefix(url, f.srv.URL)
}

// signRaw signs a token with any secret and times, which auth.Signer will
// not mint: expired or forged ones.
func signRaw(tb testing.TB, secret []byte, role auth.Role, sub string, iat, exp time.Time) string {
	tb.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"role": string(role), "sub": sub, "iat": iat.Unix(), "exp": exp.Unix(),
	}).SignedString(secret)
	must(tb, err)
	return tok
}
