package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// bus connects Services as booking.Peers in memory: what one publishes the
// others Receive, and a key is claimed once among all. (redisstate is the
// Redis form, tested against a real redis-server in its own package.)
type bus struct {
	mu     sync.Mutex
	svcs   []*service.Service
	claims map[string]bool
}

type busPeer struct {
	b    *bus
	self *atomic.Pointer[service.Service]
}

func (p busPeer) ClaimKey(_ context.Context, patientID int64, key string, _ time.Duration) (func(), bool) {
	k := key
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	if p.b.claims[k] {
		return func() {}, false
	}
	p.b.claims[k] = true
	return func() { p.b.mu.Lock(); delete(p.b.claims, k); p.b.mu.Unlock() }, true
}

func (p busPeer) Publish(sig booking.Signal) {
	p.b.mu.Lock()
	svcs := p.b.svcs
	p.b.mu.Unlock()
	for _, s := range svcs {
		if s != p.self.Load() {
			s.Receive(sig)
		}
	}
}

// testServicePeers: with Peers, a slot found full on one instance is
// refused from memory by the others, any instance's release clears the
// mark at once, another instance's list caches are told, and a key in
// flight on one instance is in use on the others.
func testServicePeers(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	b := &bus{claims: map[string]bool{}}
	rec := &gateRecorder{}
	newSvc := func() *service.Service {
		self := &atomic.Pointer[service.Service]{}
		svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Observer: rec,
			Gates: service.GateOptions{FullTTL: time.Hour, SlotInfoTTL: time.Hour}, Peers: busPeer{b, self}})
		self.Store(svc)
		b.mu.Lock()
		b.svcs = append(b.svcs, svc)
		b.mu.Unlock()
		return svc
	}
	one, two := newSvc(), newSvc()
	var told atomic.Int64
	two.Watch(func(c service.Change) { told.Store(c.SlotID) })
	ctx := context.Background()

	sl := f.slot(1)
	p1, p2, p3 := f.patient(), f.patient(), f.patient()
	a := wantOK(t, one.Book(ctx, p1.ID, sl.ID, "k1"))
	if told.Load() != sl.ID {
		t.Fatal("the other instance's watchers were not told of the booking")
	}
	wantCode(t, one.Book(ctx, p2.ID, sl.ID, "k2").Err, booking.CodeSlotFull)
	wantCode(t, two.Book(ctx, p3.ID, sl.ID, "k3").Err, booking.CodeSlotFull)
	if _, gated := rec.last(); !gated {
		t.Fatal("a slot found full on one instance must be refused from memory on the other")
	}
	_, err := two.Cancel(ctx, a.ID, p1.ID)
	must(t, err)
	r := one.Book(ctx, p2.ID, sl.ID, "k2")
	wantOK(t, r)
	if _, gated := rec.last(); gated {
		t.Fatal("the other instance's release did not clear the mark")
	}

	release, ok := busPeer{b, &atomic.Pointer[service.Service]{}}.ClaimKey(ctx, p3.ID, "busy", time.Minute)
	if !ok {
		t.Fatal("claim")
	}
	wantCode(t, two.Book(ctx, p3.ID, f.slot(1).ID, "busy").Err, booking.CodeKeyInUse)
	release()
	wantOK(t, two.Book(ctx, p3.ID, f.slot(1).ID, "busy"))
}
