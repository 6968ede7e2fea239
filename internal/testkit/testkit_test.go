package testkit

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestMust(t *testing.T) {
	if got := Must(t, 7, nil); got != 7 {
		t.Fatalf("Must = %d, want 7", got)
	}
	NoError(t, nil)
}

func TestPoll(t *testing.T) {
	var n atomic.Int32
	if !Poll(5*time.Second, func() bool { return n.Add(1) >= 3 }) {
		t.Fatal("Poll gave up on a condition that holds on the third look")
	}
	if Poll(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("Poll reported a condition that never holds")
	}
	Eventually(t, "a true condition", time.Second, func() bool { return true })
}
