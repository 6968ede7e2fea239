package service

import (
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

var rt0 = time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)

func TestRateLimiterEvictsIdleBuckets(t *testing.T) {
	l := NewRateLimiter(5, 10*time.Second, 3)
	now := rt0
	for id := int64(1); id <= 3; id++ {
		if d := l.Allow(id, now); !d.Allowed {
			t.Fatal("first attempt refused")
		}
	}
	// The map is full and nobody is idle: a new patient is shed.
	if d := l.Allow(4, now.Add(time.Second)); !d.Full || booking.ErrorCode(d.Err()) != booking.CodeOverloaded {
		t.Fatalf("%+v", d)
	}
	// Known patients still get their buckets.
	if d := l.Allow(1, now.Add(time.Second)); !d.Allowed {
		t.Fatalf("%+v", d)
	}
	// A window later the idle ones are gone and a new patient fits.
	if d := l.Allow(4, now.Add(11*time.Second)); !d.Allowed || d.Full {
		t.Fatalf("%+v", d)
	}
	if n := l.Size(); n > 2 {
		t.Fatalf("%d buckets after eviction", n)
	}
}

func TestRateLimiterRefill(t *testing.T) {
	l := NewRateLimiter(5, 10*time.Second, 100)
	for i := 0; i < 5; i++ {
		if !l.Allow(1, rt0).Allowed {
			t.Fatalf("attempt %d refused", i)
		}
	}
	d := l.Allow(1, rt0)
	if d.Allowed || d.RetryAfter != 2*time.Second || d.Remaining != 0 || d.Reset != 10*time.Second {
		t.Fatalf("%+v", d)
	}
	if booking.ErrorCode(d.Err()) != booking.CodeRateLimited {
		t.Fatalf("err %v", d.Err())
	}
	if !l.Allow(1, rt0.Add(2*time.Second)).Allowed {
		t.Fatal("refused after refill")
	}
}
