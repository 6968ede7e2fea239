package booking

import (
	"errors"
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
		got := DecideCodeUse(CodeCheck{Code: c.code, Found: c.found, TypedHash: c.typed, Now: c.at, MaxAttempts: 5,
			PhoneFailures: 9, MaxPhoneFailures: 10, ClinicFailures: 99, MaxClinicFailures: 100})
		if got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if CodeAccepted.Err(now) != nil || ErrorCode(CodeWrong.Err(now)) != CodeInvalidRequest ||
		ErrorCode(CodeExhausted.Err(now)) != CodeRateLimited || ErrorCode(CodeExpired.Err(now)) != CodeNotFound {
		t.Fatal("refusals do not match the problem table")
	}
}

// A day whose wrong codes ran out refuses even a right fresh code, the
// phone's before the clinic's, until the next day.
func TestDecideCodeUseDayLimits(t *testing.T) {
	now := time.Date(2026, 11, 2, 23, 0, 0, 0, time.UTC)
	fresh := LoginCode{Hash: "h", ExpiresAt: now.Add(time.Minute)}
	check := CodeCheck{Code: fresh, Found: true, TypedHash: "h", Now: now, MaxAttempts: 5, MaxPhoneFailures: 10, MaxClinicFailures: 100}
	phone, clinic, both := check, check, check
	phone.PhoneFailures = 10
	clinic.ClinicFailures = 100
	both.PhoneFailures, both.ClinicFailures = 10, 100
	if got := DecideCodeUse(phone); got != CodePhoneDayExhausted {
		t.Fatalf("phone's day: %v", got)
	}
	if got := DecideCodeUse(clinic); got != CodeClinicDayExhausted {
		t.Fatalf("clinic's day: %v", got)
	}
	if got := DecideCodeUse(both); got != CodePhoneDayExhausted {
		t.Fatalf("both: %v, want the phone's first", got)
	}
	unlimited := check
	unlimited.MaxPhoneFailures, unlimited.MaxClinicFailures, unlimited.PhoneFailures = 0, 0, 1000
	if got := DecideCodeUse(unlimited); got != CodeAccepted {
		t.Fatalf("no day limits: %v", got)
	}
	err := CodePhoneDayExhausted.Err(now)
	var be *Error
	if !errors.As(err, &be) || be.Code != CodeRateLimited || be.RetryAfter != time.Hour || !errors.Is(err, ErrPhoneDayFailures) {
		t.Fatalf("phone's day refusal: %#v", err)
	}
	if err := CodeClinicDayExhausted.Err(now); ErrorCode(err) != CodeRateLimited || !errors.Is(err, ErrClinicDayFailures) {
		t.Fatalf("clinic's day refusal: %v", err)
	}
	if SigninDay(now) == SigninDay(now.Add(time.Hour)) || !SigninDayEnd(now).Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("the day rolls at midnight UTC")
	}
}
