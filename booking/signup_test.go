package booking

import (
	"strings"
	"testing"
	"time"
)

func TestCheckSignupProfile(t *testing.T) {
	today := time.Date(2026, 12, 4, 22, 0, 0, 0, time.UTC)
	ok := SignupProfile{Name: "  Lan  ", BirthDate: "2000-02-29", Sex: "other"}
	got, err := CheckSignupProfile(ok, today)
	if err != nil || got.Name != "Lan" || got.BirthDate != "2000-02-29" || got.Sex != "other" {
		t.Fatalf("%+v, %v", got, err)
	}
	if _, err := CheckSignupProfile(SignupProfile{Name: "Lan"}, today); err != nil {
		t.Fatalf("birth date and sex are optional: %v", err)
	}
	// Today is a birth date still (in a zone ahead of UTC, tomorrow too).
	for _, d := range []string{"2026-12-04", "2026-12-05", "1900-01-01"} {
		if _, err := CheckSignupProfile(SignupProfile{Name: "Lan", BirthDate: d}, today); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	for _, c := range []struct {
		p       SignupProfile
		pointer string
	}{
		{SignupProfile{Name: ""}, "/name"},
		{SignupProfile{Name: " \t "}, "/name"},
		{SignupProfile{Name: strings.Repeat("é", MaxPatientName+1)}, "/name"},
		{SignupProfile{Name: "bell\x07"}, "/name"},
		{SignupProfile{Name: "bad \xff utf-8"}, "/name"},
		{SignupProfile{Name: "Lan", BirthDate: "2001-02-29"}, "/birthDate"},
		{SignupProfile{Name: "Lan", BirthDate: "2026-12-06"}, "/birthDate"},
		{SignupProfile{Name: "Lan", BirthDate: "1899-12-31"}, "/birthDate"},
		{SignupProfile{Name: "Lan", BirthDate: "2000-1-2"}, "/birthDate"},
		{SignupProfile{Name: "Lan", BirthDate: "2000-01-02T00:00:00Z"}, "/birthDate"},
		{SignupProfile{Name: "Lan", Sex: "F"}, "/sex"},
	} {
		_, err := CheckSignupProfile(c.p, today)
		var be *Error
		if !asErr(err, &be) || be.Code != CodeInvalidRequest || be.Pointer != c.pointer {
			t.Errorf("%+v: %v, want invalid-request at %s", c.p, err, c.pointer)
		}
	}
	if _, err := CheckSignupProfile(SignupProfile{Name: strings.Repeat("é", MaxPatientName)}, today); err != nil {
		t.Errorf("a name of %d characters: %v", MaxPatientName, err)
	}
}

func asErr(err error, be **Error) bool {
	e, ok := err.(*Error)
	*be = e
	return ok
}

func TestEmailOK(t *testing.T) {
	for _, e := range []string{"a@example.org", "Kim.Lee+x@mail.example.co"} {
		if !EmailOK(e) {
			t.Errorf("%q refused", e)
		}
	}
	for _, e := range []string{"", "a", "a@", "@b", "A <a@example.org>", "a b@example.org", strings.Repeat("a", 250) + "@x.org"} {
		if EmailOK(e) {
			t.Errorf("%q taken", e)
		}
	}
}
