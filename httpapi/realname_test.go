package httpapi

import (
	"fmt"
	"testing"

	"github.com/slotd/slotd/booking"
)

// TestRealNameOverHTTP: the policy's requireNationalId, set through PUT
// /api/admin/policy, makes sign-up and POST /api/me/people ask for a
// national ID number (400 national-id-required, nothing created); a number
// another patient has is 409 national-id-taken; the patient's own data
// shows it normalized.
func TestRealNameOverHTTP(t *testing.T) {
	e := newEnv(t)
	var pol map[string]any
	e.do(call{method: "GET", path: "/api/admin/policy", token: e.admin}).expect(t, 200).decode(t, &pol)
	if pol["requireNationalId"] != false {
		t.Fatalf("policy %v: real-name registration on by default", pol)
	}
	pol["requireNationalId"] = true
	e.do(call{method: "PUT", path: "/api/admin/policy", token: e.admin, body: pol}).expect(t, 200).decode(t, &pol)
	if pol["requireNationalId"] != true {
		t.Fatalf("policy %v", pol)
	}

	const phone, second = "+4930555000333", "+4930555000444"
	e.do(askSignupCode(phone)).expect(t, 202)
	code, _ := e.codes.code(phone)
	before := e.snapshot()
	e.do(signupCall(map[string]string{"phone": phone, "code": code, "name": "Wang Fang"})).expect(t, 400, booking.CodeNationalIDRequired)
	e.do(signupCall(map[string]string{"phone": phone, "code": code, "name": "Wang Fang", "nationalId": "x"})).expect(t, 400, booking.CodeInvalidRequest)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused sign-up changed the database")
	}
	var tok signupToken
	e.do(signupCall(map[string]string{"phone": phone, "code": code, "name": "Wang Fang", "nationalId": "110105 19900101 123x"})).
		expect(t, 201).decode(t, &tok)
	var data struct{ Patient booking.Patient }
	e.do(call{method: "GET", path: "/api/me/data", token: tok.Token}).expect(t, 200).decode(t, &data)
	if data.Patient.NationalID != "11010519900101123X" {
		t.Fatalf("the patient's data: %+v", data.Patient)
	}
	e.do(askSignupCode(second)).expect(t, 202)
	code, _ = e.codes.code(second)
	e.do(signupCall(map[string]string{"phone": second, "code": code, "name": "Someone", "nationalId": "11010519900101123X"})).
		expect(t, 409, booking.CodeNationalIDTaken)

	people := "/api/me/people"
	body := personBody("Kid")
	before = e.snapshot()
	e.do(call{method: "POST", path: people, token: tok.Token, body: body}).expect(t, 400, booking.CodeNationalIDRequired)
	body["nationalId"] = "11010519900101123X"
	e.do(call{method: "POST", path: people, token: tok.Token, body: body}).expect(t, 409, booking.CodeNationalIDTaken)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused addition changed the database")
	}
	body["nationalId"] = "110105201601011234"
	var kid booking.Patient
	e.do(call{method: "POST", path: people, token: tok.Token, body: body}).expect(t, 201).decode(t, &kid)
	if kid.NationalID != "110105201601011234" {
		t.Fatalf("added %+v", kid)
	}
	one := fmt.Sprintf("%s/%d", people, kid.ID)
	e.do(call{method: "PATCH", path: one, token: tok.Token, body: map[string]any{"nationalId": ""}}).expect(t, 400, booking.CodeNationalIDRequired)
	e.do(call{method: "PATCH", path: one, token: tok.Token, body: map[string]any{"nationalId": "11010519900101123X"}}).expect(t, 409, booking.CodeNationalIDTaken)
	e.do(call{method: "PATCH", path: one, token: tok.Token, body: map[string]any{"nationalId": "110105201601015678"}}).expect(t, 200).decode(t, &kid)
	if kid.NationalID != "110105201601015678" {
		t.Fatalf("edited %+v", kid)
	}
}
