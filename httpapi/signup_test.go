package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

func askSignupCode(phone string) call {
	return call{method: "POST", path: "/api/signup/code", body: map[string]string{"phone": phone}}
}

func signupCall(body map[string]string) call {
	return call{method: "POST", path: "/api/signup", body: body}
}

type signupToken struct {
	Token     string
	ExpiresAt time.Time
	PatientID int64
	Created   bool
}

// A new phone and a registered one get the same answer; the code creates
// the new patient (201) and signs the registered one in (200), unchanged.
func TestSignupCreatesOrSignsIn(t *testing.T) {
	e := newEnv(t)
	known := e.patient()
	const fresh = "+4930555000111"
	a := e.do(askSignupCode(known.Phone)).expect(t, 202)
	b := e.do(askSignupCode(fresh)).expect(t, 202)
	if string(a.body) != string(b.body) {
		t.Fatalf("known %s, new %s: the answers differ", a.body, b.body)
	}
	code, _ := e.codes.code(fresh)
	var tok signupToken
	ans := e.do(call{method: "POST", path: "/api/signup", header: map[string]string{"Accept-Language": "fr"}, body: map[string]string{
		"phone": fresh, "code": code, "name": "Léa Nouvelle", "birthDate": "1985-07-14", "sex": "female"}}).expect(t, 201)
	ans.decode(t, &tok)
	if !tok.Created || tok.PatientID == 0 || tok.Token == "" || ans.header.Get("Location") != "/api/me/data" {
		t.Fatalf("sign-up answer %+v, Location %q", tok, ans.header.Get("Location"))
	}
	var data struct{ Patient booking.Patient }
	e.do(call{method: "GET", path: "/api/me/data", token: tok.Token}).expect(t, 200).decode(t, &data)
	if p := data.Patient; p.ID != tok.PatientID || p.Name != "Léa Nouvelle" || p.Phone != fresh || p.BirthDate != "1985-07-14" ||
		p.Sex != "female" || p.Language != "fr" {
		t.Fatalf("the new patient's data: %+v", p)
	}

	code, _ = e.codes.code(known.Phone)
	e.do(signupCall(map[string]string{"phone": known.Phone, "code": code, "name": "Not Anna"})).expect(t, 200).decode(t, &tok)
	if tok.Created || tok.PatientID != known.ID {
		t.Fatalf("a registered phone's sign-up: %+v, want patient %d signed in", tok, known.ID)
	}
	if p, err := e.db.GetPatient(context.Background(), known.ID); err != nil || p.Name != "Anna" {
		t.Fatalf("the registered patient became %+v (%v)", p, err)
	}
	e.do(call{method: "GET", path: "/api/me/appointments", token: tok.Token}).expect(t, 200)

	// By e-mail.
	e.do(call{method: "POST", path: "/api/signup/code", body: map[string]string{"email": "new.one@example.org"}}).expect(t, 202)
	code, _ = e.codes.code("new.one@example.org")
	e.do(signupCall(map[string]string{"email": "new.one@example.org", "code": code, "name": "New One"})).expect(t, 201).decode(t, &tok)
	if p, err := e.db.GetPatient(context.Background(), tok.PatientID); err != nil || p.Email != "new.one@example.org" || p.Phone != "" {
		t.Fatalf("the e-mail's patient %+v (%v)", p, err)
	}
}

// Every malformed request is 400 naming the member at fault, and changes
// nothing (its code stays usable).
func TestSignupBadInput(t *testing.T) {
	e := newEnv(t)
	const ph = "+4930555000222"
	e.do(askSignupCode(ph)).expect(t, 202)
	code, _ := e.codes.code(ph)
	before := e.snapshot()
	ok := map[string]string{"phone": ph, "code": code, "name": "Bao", "birthDate": "2001-02-03", "sex": "male", "language": "vi"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range ok {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tomorrow := time.Now().UTC().Add(48 * time.Hour).Format(time.DateOnly)
	for _, c := range []struct {
		body    any
		pointer string
	}{
		{`{"phone":`, ""},
		{`{"phone":"+4930555000222","code":"123456","name":"x","extra":1}`, "/extra"},
		{`[]`, ""},
		{with("name", ""), "/name"},
		{with("name", "   "), "/name"},
		{with("name", strings.Repeat("n", 201)), "/name"},
		{with("name", "tab\there"), "/name"},
		{with("code", ""), "/code"},
		{with("code", "12a456"), "/code"},
		{with("phone", ""), "/phone"},
		{with("phone", "not a phone"), "/phone"},
		{with("email", "a@example.org"), "/email"},
		{with("birthDate", "2001-02-30"), "/birthDate"},
		{with("birthDate", "1899-12-31"), "/birthDate"},
		{with("birthDate", tomorrow), "/birthDate"},
		{with("birthDate", "03/02/2001"), "/birthDate"},
		{with("sex", "yes"), "/sex"},
		{with("language", "de"), "/language"},
		{with("name", strings.Repeat("n", 2000)), ""},
	} {
		a := e.do(call{method: "POST", path: "/api/signup", body: c.body, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
		var pb struct {
			Errors []struct{ Pointer string }
		}
		if err := json.Unmarshal(a.body, &pb); err != nil {
			t.Fatal(err)
		}
		if c.pointer != "" && (len(pb.Errors) != 1 || pb.Errors[0].Pointer != c.pointer) {
			t.Errorf("%v: %s, want the problem to name %s", c.body, a.body, c.pointer)
		}
	}
	e.do(call{method: "POST", path: "/api/signup/code", body: `{"phone":"+4930","email":"a@example.org"}`, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/signup/code", body: `{}`, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/signup/code", body: map[string]string{"email": "not an address"}}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/signup/code", body: `{"phone":1}`, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused sign-up changed the database")
	}
	e.do(signupCall(ok)).expect(t, 201)
}

// A wrong code is sign-in's wrong code: counted, five end the code; an
// expired one is 404.
func TestSignupWrongAndExpiredCode(t *testing.T) {
	e := newEnv(t)
	const ph = "+4930555000333"
	e.do(signupCall(map[string]string{"phone": ph, "code": "123456", "name": "Chi"})).expect(t, 404, booking.CodeNotFound)
	e.do(askSignupCode(ph)).expect(t, 202)
	code, _ := e.codes.code(ph)
	for range 5 {
		e.do(signupCall(map[string]string{"phone": ph, "code": wrongCode(code), "name": "Chi"})).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(signupCall(map[string]string{"phone": ph, "code": code, "name": "Chi"})).expect(t, 429, booking.CodeRateLimited)
	// The code was asked through sign-up: sign-in's check counts it alike.
	e.do(askSignupCode(ph)).expect(t, 202)
	code, _ = e.codes.code(ph)
	e.clock.add(6 * time.Minute)
	e.do(signupCall(map[string]string{"phone": ph, "code": code, "name": "Chi"})).expect(t, 404, booking.CodeNotFound)
	if _, err := e.db.PatientByPhone(context.Background(), ph); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("a refused code made a patient: %v", err)
	}
}

// Sign-up shares sign-in's limits: a phone's codes of 15 minutes count
// both, and the address's limit refuses with Retry-After.
func TestSignupRateLimits(t *testing.T) {
	e := newEnv(t)
	const ph = "+4930555000444"
	e.do(askSigninCode(ph)).expect(t, 202)
	e.do(askSignupCode(ph)).expect(t, 202)
	e.do(askSignupCode(ph)).expect(t, 202)
	if a := e.do(askSignupCode(ph)).expect(t, 429, booking.CodeRateLimited); a.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	perAddr := newEnv(t, withSignin(func(o *service.SigninOptions) { o.CodesPerAddress = 2 }))
	perAddr.do(askSignupCode("+4930555000445")).expect(t, 202)
	perAddr.do(askSigninCode("+4930555000446")).expect(t, 202)
	if a := perAddr.do(askSignupCode("+4930555000447")).expect(t, 429, booking.CodeRateLimited); a.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// Turned off, both endpoints answer 403 signup-disabled and change nothing.
func TestSignupDisabled(t *testing.T) {
	e := newEnv(t, withSignin(func(o *service.SigninOptions) { o.SignupOff = true }))
	before := e.snapshot()
	e.do(askSignupCode("+4930555000555")).expect(t, 403, booking.CodeSignupDisabled)
	e.do(signupCall(map[string]string{"phone": "+4930555000555", "code": "123456", "name": "Dan"})).expect(t, 403, booking.CodeSignupDisabled)
	if e.snapshot() != before {
		t.Fatal("a refused sign-up changed the database")
	}
	// Sign-in is still served.
	e.do(askSigninCode(e.patient().Phone)).expect(t, 202)
}

// A code that cannot be sent is 503, for a new address as for a known one.
func TestSignupCodeNotSent(t *testing.T) {
	e := newEnv(t)
	e.codes.fail = true
	e.doAllow(askSignupCode("+4930555000666"), true).expect(t, 503, booking.CodeUnavailable)
	e.doAllow(askSignupCode(e.patient().Phone), true).expect(t, 503, booking.CodeUnavailable)
}

// An e-mail address several patients share signs into the oldest active
// one; an address whose only patient is deactivated signs nobody in.
func TestSignupByEmailOfSeveral(t *testing.T) {
	e := newEnv(t)
	old, newer := e.patient(), e.patient() // both anna@example.org
	inactive := false
	if _, err := e.db.UpdatePatient(context.Background(), old.ID, booking.PatientUpdate{Active: &inactive}); err != nil {
		t.Fatal(err)
	}
	e.do(call{method: "POST", path: "/api/signup/code", body: map[string]string{"email": "Anna@Example.org"}}).expect(t, 202)
	code, _ := e.codes.code("Anna@Example.org")
	var tok signupToken
	e.do(signupCall(map[string]string{"email": "anna@example.org", "code": code, "name": "Anna"})).expect(t, 200).decode(t, &tok)
	if tok.Created || tok.PatientID != newer.ID {
		t.Fatalf("%+v, want patient %d signed in", tok, newer.ID)
	}
	if _, err := e.db.UpdatePatient(context.Background(), newer.ID, booking.PatientUpdate{Active: &inactive}); err != nil {
		t.Fatal(err)
	}
	e.do(call{method: "POST", path: "/api/signup/code", body: map[string]string{"email": "anna@example.org"}}).expect(t, 202)
	code, _ = e.codes.code("anna@example.org")
	e.do(signupCall(map[string]string{"email": "anna@example.org", "code": code, "name": "Anna"})).expect(t, 409, booking.CodeBookingBlocked)
}
