package httpapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/slotd/slotd/auth"
)

// TestSignoutEndsTheToken: a bearer token used, signed out and used again
// is refused (401) although the signer remembers it as verified; so is
// every older token of the subject, while one minted afterwards, even in
// the same second, works; another subject is untouched.
func TestSignoutEndsTheToken(t *testing.T) {
	e := newEnv(t)
	p, other := e.patient(), e.patient()
	older, tok, theirs := e.patientToken(p.ID), e.patientToken(p.ID), e.patientToken(other.ID)
	for range 2 { // the second is the verification cache's hit
		e.do(call{method: "GET", path: "/api/me/appointments", token: tok}).expect(t, 200)
	}
	e.do(call{method: "POST", path: "/api/signout", token: tok}).expect(t, 204)
	for _, tk := range []string{tok, older} {
		a := e.do(call{method: "GET", path: "/api/me/appointments", token: tk}).expect(t, 401)
		if !strings.Contains(string(a.body), "signed out or revoked") {
			t.Errorf("the refusal does not say why: %s", a.body)
		}
	}
	e.do(call{method: "POST", path: "/api/signout", token: tok}).expect(t, 401) // once is enough
	e.do(call{method: "GET", path: "/api/me/appointments", token: e.patientToken(p.ID)}).expect(t, 200)
	e.do(call{method: "GET", path: "/api/me/appointments", token: theirs}).expect(t, 200)

	// An admin signs out too; the other admins' tokens are other subjects.
	admin2 := e.token(auth.RoleAdmin, "2")
	e.do(call{method: "POST", path: "/api/signout", token: admin2}).expect(t, 204)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/patients/%d", p.ID), token: admin2}).expect(t, 401)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/patients/%d", p.ID), token: e.admin}).expect(t, 200)
}

// TestDeactivationEndsTheToken: a deactivated patient's token, old or new,
// gets the departed patient's refusal on reads too; reactivated, the old
// token stays refused (401) and a new one works.
func TestDeactivationEndsTheToken(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	tok := e.patientToken(p.ID)
	e.do(call{method: "GET", path: "/api/me/appointments", token: tok}).expect(t, 200)
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p.ID), token: e.admin, body: map[string]any{"active": false}}).expect(t, 200)
	e.do(call{method: "GET", path: "/api/me/appointments", token: tok}).expect(t, 409)
	e.do(call{method: "GET", path: "/api/me/appointments", token: e.patientToken(p.ID)}).expect(t, 409)
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p.ID), token: e.admin, body: map[string]any{"active": true}}).expect(t, 200)
	e.do(call{method: "GET", path: "/api/me/appointments", token: tok}).expect(t, 401)
	e.do(call{method: "GET", path: "/api/me/appointments", token: e.patientToken(p.ID)}).expect(t, 200)
}
