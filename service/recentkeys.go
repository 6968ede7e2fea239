package service

import (
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
)

// maxRecentKeys bounds the refusals remembered; beyond it the memory
// starts again empty (the next retries read the database, as before).
const maxRecentKeys = 50000

// recentKeys remembers, for a short while (the gates' FullTTL), the
// requests this instance refused with the slot full after reading that
// their Idempotency-Key had made no appointment and that the patient held
// no place in the slot. A retry of such a request that the gates refuse
// again is answered without the database read: in a sold-out rush most
// attempts are retries, and each read costs a pooled connection. Only
// refusals are remembered, never appointments (their state changes), and a
// patient's memory is dropped as soon as this instance books for them.
// Across instances the answer may be up to the TTL stale, like the full
// gate's own.
type recentKeys struct {
	ttl time.Duration

	mu sync.Mutex
	m  map[int64]map[recentKey]time.Time // by patient: when the refusal was decided
	n  int
}

type recentKey struct {
	slotID int64
	key    string
}

func newRecentKeys(ttl time.Duration) *recentKeys {
	return &recentKeys{ttl: ttl, m: map[int64]map[recentKey]time.Time{}}
}

// refused reports whether req was refused, and its key found unused, within
// the TTL before now.
func (k *recentKeys) refused(req booking.BookRequest, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	at, ok := k.m[req.PatientID][recentKey{req.SlotID, req.IdempotencyKey}]
	return ok && now.Sub(at) < k.ttl
}

// remember records that req was refused at now with its key unused.
func (k *recentKeys) remember(req booking.BookRequest, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.n >= maxRecentKeys {
		clear(k.m)
		k.n = 0
	}
	p := k.m[req.PatientID]
	if p == nil {
		p = map[recentKey]time.Time{}
		k.m[req.PatientID] = p
	}
	rk := recentKey{req.SlotID, req.IdempotencyKey}
	if _, ok := p[rk]; !ok {
		k.n++
	}
	p[rk] = now
}

// booked forgets what was remembered for patientID: one of its keys has
// just made an appointment.
func (k *recentKeys) booked(patientID int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n -= len(k.m[patientID])
	delete(k.m, patientID)
}
