package notify_test

import (
	"testing"

	"github.com/slotd/slotd/notify"
)

func TestMaskPhone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"+33612345678", "+33******78"},
		{"+33 6 12 34 56 78", "+33******78"},
		{"+1 (415) 555-0199", "+14******99"},
		{"0612345678", "******78"},
		{"06.12.34.56.78", "******78"},
		{"  +441632960961 ", "+44******61"},
		{"123456", "******56"},
		{"+1234567", "******67"}, // too short to keep a prefix safely
		{"12345", "******"},
		{"12", "******"},
		{"not a number", "******"},
		{"", ""},
		{"   ", ""},
	} {
		if got := notify.MaskPhone(tc.in); got != tc.want {
			t.Errorf("MaskPhone(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskEmail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"jane.doe@example.com", "j***@example.com"},
		{"J@example.org", "J***@example.org"},
		{" élodie@exemple.fr ", "é***@exemple.fr"},
		{`"a@b"@example.com`, "***@example.com"},
		{"@example.com", "***@example.com"},
		{"no-at-sign", "***"},
		{"", ""},
	} {
		if got := notify.MaskEmail(tc.in); got != tc.want {
			t.Errorf("MaskEmail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
