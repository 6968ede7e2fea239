package booking

import (
	"testing"
	"time"
)

func TestDecideCodeUse(t *testing.T) {
	now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
	fresh := LoginCode{Hash: "h", Attempts: 0, ExpiresAt: now.Add(time.Minute)}
	used := fresh
	used.Used = true
	spent := fresh
	spent.Attempts = 5
	for _, c := range []struct {
		name  string
		code  LoginCode
		found bool
		typed string
		at    time.Time
		want  CodeUse
	}{
		{"right", fresh, true, "h", now, CodeAccepted},
		{"wrong", fresh, true, "x", now, CodeWrong},
		{"none", LoginCode{}, false, "h", now, CodeExpired},
		{"expired", fresh, true, "h", now.Add(time.Minute), CodeExpired},
		{"used", used, true, "h", now, CodeExpired},
		{"used, wrong", used, true, "x", now, CodeExpired},
		{"exhausted", spent, true, "h", now, CodeExhausted},
	} {
		if got := DecideCodeUse(c.code, c.found, c.typed, c.at, 5); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if CodeAccepted.Err() != nil || ErrorCode(CodeWrong.Err()) != CodeInvalidRequest ||
		ErrorCode(CodeExhausted.Err()) != CodeRateLimited || ErrorCode(CodeExpired.Err()) != CodeNotFound {
		t.Fatal("refusals do not match the problem table")
	}
}
