package booking

import "testing"

func TestDecideDemo(t *testing.T) {
	for _, c := range []struct {
		marked, empty, fill bool
		code                Code
	}{
		{marked: true, empty: false, fill: false},
		{marked: true, empty: true, fill: false},
		{marked: false, empty: true, fill: true},
		{marked: false, empty: false, code: CodeConflict},
	} {
		fill, err := DecideDemo(c.marked, c.empty)
		if fill != c.fill || ErrorCode(err) != c.code {
			t.Errorf("DecideDemo(marked %v, empty %v) = %v, %v; want %v, %q", c.marked, c.empty, fill, err, c.fill, c.code)
		}
	}
}
