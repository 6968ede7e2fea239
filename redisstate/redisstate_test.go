package redisstate

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
)

// redisServer runs a real redis-server on a free port for the test. Where
// there is none it skips, except under CI=true, where it fails.
type redisServer struct {
	t    *testing.T
	port int
	dir  string
	cmd  *exec.Cmd
}

func startRedis(t *testing.T) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed (.ci/run installs it)")
		}
		t.Skip("redis-server is not installed: skipping the Redis tests (apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	r := &redisServer{t: t, port: port, dir: t.TempDir()}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir, "--logfile", filepath.Join(r.dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	var err error
	if !testkit.Poll(30*time.Second, func() bool {
		var c net.Conn
		if c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.port)); err == nil {
			c.Close()
		}
		return err == nil
	}) {
		r.t.Fatalf("redis-server did not start: %v", err)
	}
}

func (r *redisServer) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

func newState(t *testing.T, url string) *State {
	t.Helper()
	s, err := New(url, Options{Rate: 5, Window: 10 * time.Second,
		Fallback: service.NewRateLimiter(5, 10*time.Second, 1000),
		Backoff:  50 * time.Millisecond,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The limit is one budget for every instance: whichever answers, the 6th
// attempt within the window is refused.
func TestLimitIsShared(t *testing.T) {
	r := startRedis(t)
	a, b := newState(t, r.url()), newState(t, r.url())
	now := time.Now()
	for i := range 5 {
		s := []*State{a, b}[i%2]
		if d := s.Allow(42, now); !d.Allowed {
			t.Fatalf("attempt %d refused: %+v", i+1, d)
		}
	}
	d := a.Allow(42, now)
	if d.Allowed || d.RetryAfter < time.Second || d.Err() == nil {
		t.Fatalf("6th attempt: %+v", d)
	}
	if d := b.Allow(43, now); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("another patient: %+v", d)
	}
	if a.Fallbacks(LayerLimit) != 0 {
		t.Fatal("fell back with Redis up")
	}
}

func TestKeyInFlightOnOneInstanceIsRefusedOnAnother(t *testing.T) {
	r := startRedis(t)
	a, b := newState(t, r.url()), newState(t, r.url())
	ctx := context.Background()
	release, ok := a.ClaimKey(ctx, 7, "key-1", time.Minute)
	if !ok {
		t.Fatal("first claim refused")
	}
	if _, ok := b.ClaimKey(ctx, 7, "key-1", time.Minute); ok {
		t.Fatal("a key in flight on a was granted on b")
	}
	if _, ok := b.ClaimKey(ctx, 8, "key-1", time.Minute); !ok {
		t.Fatal("another patient's key refused")
	}
	release()
	if rel, ok := b.ClaimKey(ctx, 7, "key-1", time.Minute); !ok {
		t.Fatal("a released key refused")
	} else {
		rel()
	}
}

type receiver chan booking.Signal

func (r receiver) Receive(s booking.Signal) { r <- s }

func TestSignalsReachTheOtherInstancesOnly(t *testing.T) {
	r := startRedis(t)
	a, b := newState(t, r.url()), newState(t, r.url())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ra, rb := make(receiver, 16), make(receiver, 16)
	go a.Run(ctx, ra)
	go b.Run(ctx, rb)
	want := booking.Signal{Kind: booking.SignalReleased, SlotID: 9, DoctorID: 3}
	// The subscription may not be ready yet: publish until b has one.
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for got := false; !got; {
		select {
		case s := <-rb:
			if s != want {
				t.Fatalf("b received %+v, want %+v", s, want)
			}
			got = true
		case <-tick.C:
			a.Publish(want)
		case <-deadline:
			t.Fatal("b never received a's signal")
		}
	}
	select {
	case s := <-ra:
		t.Fatalf("a received its own signal %+v", s)
	default:
	}
}

// Redis down: every layer answers from its in-process form, counts it, and
// shares again once Redis is back, by itself.
func TestRedisDownFallsBackAndRecovers(t *testing.T) {
	r := startRedis(t)
	s := newState(t, r.url())
	now := time.Now()
	if d := s.Allow(1, now); !d.Allowed {
		t.Fatal(d)
	}
	r.stop()
	d := s.Allow(1, now)
	if !d.Allowed || s.Fallbacks(LayerLimit) == 0 || s.Up() {
		t.Fatalf("with Redis down: %+v, fallbacks %v, up %v", d, s.Fallbacks(LayerLimit), s.Up())
	}
	if _, ok := s.ClaimKey(context.Background(), 1, "k", time.Minute); !ok {
		t.Fatal("a key claim failed because of Redis")
	}
	r.start()
	testkit.Eventually(t, "an answer by Redis again", 60*time.Second, func() bool {
		before := s.Fallbacks(LayerLimit)
		s.Allow(2, now)
		return s.Fallbacks(LayerLimit) == before
	})
	// Shared again: a second instance sees the budget spent on the first.
	b := newState(t, r.url())
	for range 4 {
		s.Allow(2, now)
	}
	if d := b.Allow(2, now); d.Allowed {
		t.Fatalf("after recovery the budget is not shared: %+v", d)
	}
}

// lockedBuffer is a log sink the State writes from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A Redis that answers nothing (CLIENT PAUSE WRITE holds every write and
// script, for ten minutes) is left within Options.Timeout: the limit and the key claim
// are answered in-process, counted and logged once, and the shared state
// comes back by itself once Redis answers again, logged too.
func TestRedisSlowFallsBackAndRecovers(t *testing.T) {
	r := startRedis(t)
	var logs lockedBuffer
	s, err := New(r.url(), Options{Rate: 5, Window: 10 * time.Second,
		Fallback: service.NewRateLimiter(5, 10*time.Second, 1000),
		Timeout:  100 * time.Millisecond, Backoff: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	if d := s.Allow(1, now); !d.Allowed || s.Fallbacks(LayerLimit) != 0 {
		t.Fatalf("before the pause: %+v, fallbacks %v", d, s.Fallbacks(LayerLimit))
	}

	// UNPAUSE is no write: the pausing connection can still send it.
	rc := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer rc.Close()
	ctx := context.Background()
	admin := rc.Conn()
	defer admin.Close()
	if err := admin.Do(ctx, "CLIENT", "PAUSE", 600000, "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	paused := true
	defer func() {
		if paused {
			admin.Do(ctx, "CLIENT", "UNPAUSE")
		}
	}()
	if d := s.Allow(1, now); !d.Allowed || s.Fallbacks(LayerLimit) != 1 || s.Up() {
		t.Fatalf("with Redis paused: %+v, fallbacks %v, up %v", d, s.Fallbacks(LayerLimit), s.Up())
	}
	// Past the backoff, Redis is tried (and given up on) again.
	testkit.Eventually(t, "the backoff to pass", 10*time.Second, s.usable)
	if _, ok := s.ClaimKey(ctx, 1, "k", time.Minute); !ok {
		t.Fatal("a key claim failed because Redis is slow")
	}
	if s.Fallbacks(LayerKey) < 1 {
		t.Fatalf("the key claim did not fall back: %v", s.Fallbacks(LayerKey))
	}
	if err := admin.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	paused = false
	testkit.Eventually(t, "an answer by Redis again", 60*time.Second, func() bool {
		before := s.Fallbacks(LayerLimit)
		s.Allow(2, now)
		return s.Fallbacks(LayerLimit) == before
	})
	if !s.Up() {
		t.Fatal("answered by Redis again, but Up is false")
	}
	out := logs.String()
	if n := strings.Count(out, "redis unavailable: falling back to in-process admission state"); n != 1 {
		t.Errorf("%d outage lines, want 1 for one outage:\n%s", n, out)
	}
	if !strings.Contains(out, "redis available again") {
		t.Errorf("no recovery line:\n%s", out)
	}
}

type nopReceiver struct{}

func (nopReceiver) Receive(booking.Signal) {}

// After an outage, Run's probe finds Redis back without any request
// calling it: Up (the slotd_redis_up gauge) turns true by itself.
func TestRedisBackByItself(t *testing.T) {
	r := startRedis(t)
	s := newState(t, r.url())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, nopReceiver{}) }()
	defer func() { cancel(); <-done }()
	r.stop()
	s.Allow(1, time.Now())
	if s.Up() {
		t.Fatal("Up with Redis stopped")
	}
	r.start()
	testkit.Eventually(t, "Up with Redis back and no calls", 60*time.Second, s.Up)
}
