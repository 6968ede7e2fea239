package booking

import (
	"errors"
	"testing"
	"time"
)

func TestStaffLockFor(t *testing.T) {
	for failures, want := range map[int]time.Duration{
		0: 0, 4: 0, 5: time.Minute, 6: 2 * time.Minute, 7: 4 * time.Minute,
		10: 32 * time.Minute, 11: time.Hour, 12: time.Hour, 1000: time.Hour,
	} {
		if got := StaffLockFor(failures); got != want {
			t.Errorf("StaffLockFor(%d) = %v, want %v", failures, got, want)
		}
	}
}

func TestDecideStaffAttempt(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	var lock StaffLock
	// Four failures count without locking.
	for i := 1; i < StaffFreeFailures; i++ {
		d := DecideStaffAttempt(lock, 0, StaffAttempt{}, now)
		if d.Outcome != StaffRefused || d.Lock.Failures != i || d.RetryAfter != 0 || d.NewLock {
			t.Fatalf("failure %d: %+v", i, d)
		}
		if ErrorCode(d.Err()) != CodeUnauthorized {
			t.Fatalf("failure %d: %v", i, d.Err())
		}
		lock = d.Lock
	}
	// The fifth locks for a minute; it is answered as wrong.
	d := DecideStaffAttempt(lock, 0, StaffAttempt{}, now)
	if !d.NewLock || d.RetryAfter != time.Minute || !d.Lock.LockedUntil.Equal(now.Add(time.Minute)) {
		t.Fatalf("fifth failure: %+v", d)
	}
	if err := d.Err(); ErrorCode(err) != CodeUnauthorized {
		t.Fatalf("fifth failure's error: %v", err)
	}
	lock = d.Lock
	// Locked: the right password is refused, nothing counted.
	d = DecideStaffAttempt(lock, 0, StaffAttempt{Verified: true}, now.Add(20*time.Second))
	if d.Outcome != StaffLocked || d.Lock != lock || d.RetryAfter != 40*time.Second {
		t.Fatalf("locked: %+v", d)
	}
	var e *Error
	if err := d.Err(); ErrorCode(err) != CodeRateLimited || !errors.As(err, &e) || e.RetryAfter != 40*time.Second {
		t.Fatalf("locked: %v", err)
	}
	// After the lock a failure locks for twice as long.
	d = DecideStaffAttempt(lock, 0, StaffAttempt{}, now.Add(time.Minute))
	if d.Lock.Failures != 6 || d.RetryAfter != 2*time.Minute {
		t.Fatalf("sixth failure: %+v", d)
	}
	lock = d.Lock
	// A success after the lock resets everything.
	d = DecideStaffAttempt(lock, 0, StaffAttempt{Verified: true}, now.Add(3*time.Minute))
	if d.Outcome != StaffAccepted || d.Lock != (StaffLock{}) || d.Err() != nil {
		t.Fatalf("success: %+v", d)
	}
}

func TestDecideStaffAttemptSteps(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	d := DecideStaffAttempt(StaffLock{}, 100, StaffAttempt{Verified: true, TOTPStep: 101}, now)
	if d.Outcome != StaffAccepted || d.LastStep != 101 {
		t.Fatalf("new step: %+v", d)
	}
	for _, step := range []int64{101, 100} {
		d = DecideStaffAttempt(StaffLock{}, 101, StaffAttempt{Verified: true, TOTPStep: step}, now)
		if d.Outcome != StaffReplayed || d.LastStep != 101 || d.Lock.Failures != 1 || ErrorCode(d.Err()) != CodeUnauthorized {
			t.Fatalf("step %d replayed: %+v", step, d)
		}
	}
	// No second factor: the step stays.
	d = DecideStaffAttempt(StaffLock{}, 101, StaffAttempt{Verified: true}, now)
	if d.Outcome != StaffAccepted || d.LastStep != 101 {
		t.Fatalf("no code: %+v", d)
	}
}

func TestDecideStaffAttemptForgets(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	old := StaffLock{Failures: 4, LastFailure: now.Add(-StaffFailureMemory - time.Second)}
	d := DecideStaffAttempt(old, 0, StaffAttempt{}, now)
	if d.Lock.Failures != 1 || d.RetryAfter != 0 {
		t.Fatalf("old failures not forgotten: %+v", d)
	}
	if StaffLockKey("Alice.B") != "alice.b" {
		t.Fatal(StaffLockKey("Alice.B"))
	}
}
