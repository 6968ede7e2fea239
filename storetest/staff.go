package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
)

// testStaffSignIn holds both stores' staff sign-in to the same behaviour:
// the second factor sealed and removed, the failures of a name counted
// and locked as booking.DecideStaffAttempt decides (also for names that
// are no user's), a used step refused, and concurrent attempts on one
// name each counted exactly once.
func testStaffSignIn(t *testing.T, h Harness) {
	newStore := func(t testing.TB) accountsStore {
		t.Helper()
		acc, ok := h.New(t).(accountsStore)
		if !ok {
			t.Fatal("the store does not implement accounts.Store")
		}
		return acc
	}
	now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	wrong := booking.StaffAttempt{}
	right := booking.StaffAttempt{Verified: true}

	t.Run("Account", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		if _, err := s.StaffAccount(ctx, "admin"); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown user: %v, want not-found", err)
		}
		if err := s.SetStaffTOTP(ctx, "admin", "JBSWY3DPEHPK3PXP", now); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("second factor of an unknown user: %v, want not-found", err)
		}
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$hash"), now))
		a, err := s.StaffAccount(ctx, "admin")
		must(t, err)
		if a.Name != "admin" || string(a.PasswordHash) != "$2a$10$hash" || a.DoctorID != 0 || a.TOTPSecret != "" {
			t.Fatalf("new account %+v", a)
		}
		secret, _, err := accounts.NewTOTP("admin")
		must(t, err)
		must(t, s.SetStaffTOTP(ctx, "admin", secret, now))
		if a, err = s.StaffAccount(ctx, "admin"); err != nil || a.TOTPSecret != secret {
			t.Fatalf("enrolled: %+v, %v", a, err)
		}
		must(t, s.SetStaffTOTP(ctx, "admin", "", now))
		if a, err = s.StaffAccount(ctx, "admin"); err != nil || a.TOTPSecret != "" {
			t.Fatalf("removed: %+v, %v", a, err)
		}
	})

	t.Run("Lockout", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$hash"), now))
		for i := 1; i < booking.StaffFreeFailures; i++ {
			d, err := s.StaffAttempt(ctx, "admin", wrong, now)
			must(t, err)
			if d.Outcome != booking.StaffRefused || d.RetryAfter != 0 || d.Lock.Failures != i {
				t.Fatalf("failure %d: %+v", i, d)
			}
		}
		// The fifth failure, in another case: the name's key is one.
		d, err := s.StaffAttempt(ctx, "ADMIN", wrong, now)
		must(t, err)
		if !d.NewLock || d.RetryAfter != booking.StaffLockBase {
			t.Fatalf("fifth failure: %+v", d)
		}
		// Locked: the right password is refused until the lock ends.
		d, err = s.StaffAttempt(ctx, "admin", right, now.Add(30*time.Second))
		must(t, err)
		if d.Outcome != booking.StaffLocked || d.RetryAfter != 30*time.Second || booking.ErrorCode(d.Err()) != booking.CodeRateLimited {
			t.Fatalf("locked: %+v", d)
		}
		// Then a failure locks twice as long: the count was kept.
		d, err = s.StaffAttempt(ctx, "admin", wrong, now.Add(booking.StaffLockBase))
		must(t, err)
		if d.Lock.Failures != booking.StaffFreeFailures+1 || d.RetryAfter != 2*booking.StaffLockBase {
			t.Fatalf("sixth failure: %+v", d)
		}
		// A success after it resets the count.
		later := now.Add(booking.StaffLockBase + 2*booking.StaffLockBase)
		d, err = s.StaffAttempt(ctx, "admin", right, later)
		must(t, err)
		if d.Outcome != booking.StaffAccepted {
			t.Fatalf("after the lock: %+v", d)
		}
		d, err = s.StaffAttempt(ctx, "admin", wrong, later)
		must(t, err)
		if d.Lock.Failures != 1 || d.RetryAfter != 0 {
			t.Fatalf("after a success: %+v", d)
		}
	})

	t.Run("UnknownNamesCount", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		var d booking.StaffDecision
		var err error
		for range booking.StaffFreeFailures {
			d, err = s.StaffAttempt(ctx, "nobody", wrong, now)
			must(t, err)
		}
		if !d.NewLock {
			t.Fatalf("an unknown name is locked like a user's: %+v", d)
		}
		// Old failures of other names are forgotten as new ones come.
		d, err = s.StaffAttempt(ctx, "someone", wrong, now.Add(booking.StaffFailureMemory+time.Hour))
		must(t, err)
		if d.Lock.Failures != 1 {
			t.Fatalf("someone: %+v", d)
		}
		d, err = s.StaffAttempt(ctx, "nobody", wrong, now.Add(booking.StaffFailureMemory+time.Hour))
		must(t, err)
		if d.Lock.Failures != 1 || d.RetryAfter != 0 {
			t.Fatalf("a day later the old failures are forgotten: %+v", d)
		}
	})

	t.Run("UsedStep", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$hash"), now))
		must(t, s.SetStaffTOTP(ctx, "admin", "JBSWY3DPEHPK3PXP", now))
		step := now.Unix() / accounts.TOTPPeriod
		d, err := s.StaffAttempt(ctx, "admin", booking.StaffAttempt{Verified: true, TOTPStep: step}, now)
		must(t, err)
		if d.Outcome != booking.StaffAccepted || d.LastStep != step {
			t.Fatalf("first use: %+v", d)
		}
		for _, st := range []int64{step, step - 1} {
			d, err = s.StaffAttempt(ctx, "admin", booking.StaffAttempt{Verified: true, TOTPStep: st}, now)
			must(t, err)
			if d.Outcome != booking.StaffReplayed || d.Lock.Failures == 0 {
				t.Fatalf("step %d again: %+v", st, d)
			}
		}
		d, err = s.StaffAttempt(ctx, "admin", booking.StaffAttempt{Verified: true, TOTPStep: step + 1}, now)
		must(t, err)
		if d.Outcome != booking.StaffAccepted {
			t.Fatalf("the next step: %+v", d)
		}
		// Enrolling again forgets the used step (a new secret's codes).
		must(t, s.SetStaffTOTP(ctx, "admin", "JBSWY3DPEHPK3PXQ", now))
		d, err = s.StaffAttempt(ctx, "admin", booking.StaffAttempt{Verified: true, TOTPStep: step}, now)
		must(t, err)
		if d.Outcome != booking.StaffAccepted {
			t.Fatalf("after enrolling again: %+v", d)
		}
	})

	t.Run("ConcurrentFailures", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$hash"), now))
		const n = 40
		outcomes := make([]booking.StaffDecision, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				outcomes[i], errs[i] = s.StaffAttempt(ctx, "admin", wrong, now)
			})
		}
		close(start)
		wg.Wait()
		refused, locked, newLocks := 0, 0, 0
		for i, d := range outcomes {
			must(t, errs[i])
			switch d.Outcome {
			case booking.StaffRefused:
				refused++
			case booking.StaffLocked:
				locked++
			default:
				t.Fatalf("a wrong password: %+v", d)
			}
			if d.NewLock {
				newLocks++
			}
		}
		if refused != booking.StaffFreeFailures || locked != n-booking.StaffFreeFailures || newLocks != 1 {
			t.Fatalf("%d refused, %d locked, %d locks; want %d, %d, 1", refused, locked, newLocks, booking.StaffFreeFailures, n-booking.StaffFreeFailures)
		}
		// The lock holds against the right password.
		d, err := s.StaffAttempt(ctx, "admin", right, now)
		must(t, err)
		if d.Outcome != booking.StaffLocked {
			t.Fatalf("right password while locked: %+v", d)
		}
		// Exactly StaffFreeFailures were counted: the next failure after
		// the lock is the one past them.
		d, err = s.StaffAttempt(ctx, "admin", wrong, now.Add(booking.StaffLockBase))
		must(t, err)
		if d.Lock.Failures != booking.StaffFreeFailures+1 {
			t.Fatalf("failures counted %d, want %d", d.Lock.Failures-1, booking.StaffFreeFailures)
		}
	})

	t.Run("ConcurrentSameCode", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$hash"), now))
		must(t, s.SetStaffTOTP(ctx, "admin", "JBSWY3DPEHPK3PXP", now))
		step := now.Unix() / accounts.TOTPPeriod
		const n = 20
		outcomes := make([]booking.StaffOutcome, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				var d booking.StaffDecision
				d, errs[i] = s.StaffAttempt(ctx, "admin", booking.StaffAttempt{Verified: true, TOTPStep: step}, now)
				outcomes[i] = d.Outcome
			})
		}
		close(start)
		wg.Wait()
		accepted := 0
		for i, o := range outcomes {
			must(t, errs[i])
			if o == booking.StaffAccepted {
				accepted++
			}
		}
		if accepted != 1 {
			t.Fatalf("one code signed in %d times, want once", accepted)
		}
	})
}
