package booking

import (
	"strings"
	"testing"
)

func TestCheckNationalID(t *testing.T) {
	for _, c := range []struct {
		in       string
		required bool
		want     string
		code     Code
	}{
		{"", false, "", ""},
		{"  ", false, "", ""},
		{"", true, "", CodeNationalIDRequired},
		{" ", true, "", CodeNationalIDRequired},
		{"11010519900101123x", true, "11010519900101123X", ""},
		{"1101 0519-9001.01123X", false, "11010519900101123X", ""},
		{"ab12", false, "AB12", ""},
		{"a-b-1", false, "", CodeInvalidRequest}, // three characters left
		{"12#45", false, "", CodeInvalidRequest},
		{"１２３４５", false, "", CodeInvalidRequest}, // full-width digits are not ASCII
		{strings.Repeat("9", MaxNationalID), false, strings.Repeat("9", MaxNationalID), ""},
		{strings.Repeat("9", MaxNationalID+1), false, "", CodeInvalidRequest},
	} {
		got, err := CheckNationalID(c.in, c.required)
		if got != c.want || ErrorCode(err) != c.code {
			t.Errorf("CheckNationalID(%q, %v) = %q, %v; want %q, %q", c.in, c.required, got, err, c.want, c.code)
		}
		if err != nil && strings.Contains(err.Error(), strings.TrimSpace(c.in)) && strings.TrimSpace(c.in) != "" {
			t.Errorf("the refusal of %q echoes it: %v", c.in, err)
		}
	}
}
