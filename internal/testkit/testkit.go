// Package testkit holds the helpers the tests of slotd share: failing on an
// error, and waiting for a condition instead of sleeping a fixed time.
package testkit

import (
	"testing"
	"time"
)

// NoError fails the test at once when err is not nil.
func NoError(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// Must returns v, or fails the test at once when err is not nil:
// testkit.Must(t, os.ReadFile(name)).
func Must[T any](t testing.TB, v T, err error) T {
	t.Helper()
	NoError(t, err)
	return v
}

// PollInterval is how often Eventually and Poll look at their condition.
const PollInterval = 10 * time.Millisecond

// Eventually polls cond until it holds, and fails the test with "timed out
// after timeout waiting for what" when it still does not hold at the deadline.
func Eventually(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Poll polls cond until it holds (true) or timeout passes (false), for the
// callers that report a timeout their own way.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(PollInterval)
	}
}
