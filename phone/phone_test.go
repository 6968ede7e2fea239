package phone

import "testing"

func TestNormalize(t *testing.T) {
	cases := []struct{ in, region, want string }{
		{"06 00 00 00 00", "FR", "+33600000000"},
		{"+33 6 00 00 00 00", "FR", "+33600000000"},
		{"+33 (6) 12 34 56 78", "CN", "+33612345678"},
		{"0033 6 12 34 56 78", "FR", "+33612345678"},
		{"06.12.34.56.78", "FR", "+33612345678"},
		{"138 0013 8000", "CN", "+8613800138000"},
		{"090 123 45 67", "VN", "+84901234567"},
		{"+84 90 123 45 67", "FR", "+84901234567"},
		{"0901234567", "VN", "+84901234567"},
		{"12", "FR", ""},
		{"call me", "FR", ""},
		{"", "FR", ""},
	}
	for _, c := range cases {
		if got := Normalize(c.in, c.region); got != c.want {
			t.Errorf("Normalize(%q, %s) = %q, want %q", c.in, c.region, got, c.want)
		}
	}
}

func TestValidRegion(t *testing.T) {
	for _, r := range []string{"FR", "CN", "VN", "fr"} {
		if !ValidRegion(r) {
			t.Errorf("%s refused", r)
		}
	}
	if ValidRegion("XX") || ValidRegion("") {
		t.Error("an unknown region was accepted")
	}
}
