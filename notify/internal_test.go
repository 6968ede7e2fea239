package notify

import (
	"strings"
	"testing"
)

func TestRedactEmail(t *testing.T) {
	t.Parallel()
	got := redactEmail("550 5.1.1 <Jane.Doe@Example.com>: unknown user jane.doe@example.com", "jane.doe@example.com")
	if strings.Contains(strings.ToLower(got), "jane.doe@example.com") {
		t.Fatalf("address left in %q", got)
	}
	if want := "550 5.1.1 <j***@example.com>: unknown user j***@example.com"; got != want {
		t.Fatalf("redactEmail = %q, want %q", got, want)
	}
	if got := redactEmail("nothing here", ""); got != "nothing here" {
		t.Fatalf("empty address changed the text: %q", got)
	}
}

func TestMessageID(t *testing.T) {
	t.Parallel()
	if got, want := messageID("appt-42-confirmation", "noreply@clinic.example"), "<appt-42-confirmation.slotd@clinic.example>"; got != want {
		t.Errorf("messageID = %q, want %q", got, want)
	}
	// The same key gives the same id: that is what lets a retry be deduped.
	a, b := messageID("key with spaces>", "x@y.example"), messageID("key with spaces>", "x@y.example")
	if a != b || strings.ContainsAny(a[1:len(a)-1], " <>") {
		t.Errorf("unsafe key: got %q and %q", a, b)
	}
	if r1, r2 := messageID("", "x@y.example"), messageID("", "x@y.example"); r1 == r2 {
		t.Errorf("ids without a key should be random, got %q twice", r1)
	}
}

func TestHeaderSafe(t *testing.T) {
	t.Parallel()
	if got := headerSafe("Dr X\r\nBcc: evil@example.com"); strings.ContainsAny(got, "\r\n") {
		t.Fatalf("headerSafe kept a line break: %q", got)
	}
}
