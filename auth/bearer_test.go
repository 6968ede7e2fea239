package auth

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"
)

func TestFromRequest(t *testing.T) {
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	patient, _ := s.Mint(RolePatient, "7", time.Hour)
	badPatient, _ := s.Mint(RolePatient, "seven", time.Hour)
	for _, tc := range []struct {
		name    string
		headers []string
		want    error
	}{
		{"none", nil, ErrNoToken},
		{"basic", []string{"Basic abc"}, ErrBadHeader},
		{"twice", []string{"Bearer " + patient, "Bearer " + patient}, ErrBadHeader},
		{"forged", []string{"Bearer " + patient + "x"}, ErrInvalidToken},
		{"patient without id", []string{"Bearer " + badPatient}, ErrInvalidToken},
		{"ok", []string{"bearer " + patient}, nil},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		c, err := s.FromRequest(r)
		if (tc.want == nil && err != nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if tc.want == nil && (c.Role != RolePatient || c.Subject != "7") {
			t.Errorf("%s: claims %+v", tc.name, c)
		}
	}
}
