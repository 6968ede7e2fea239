package web

import (
	"sort"
	"sync"
	"time"

	"github.com/slotd/slotd/service"
)

// Stats feeds the staff dashboard. The server wires it from the booking
// metrics; Recorder is an implementation that keeps its own counts.
type Stats interface {
	Snapshot() DashboardStats
}

// DashboardStats is what the dashboard draws.
type DashboardStats struct {
	// At is when the snapshot was taken.
	At time.Time
	// PerSecond is the number of bookings created in each of the last
	// seconds, oldest first (the last entry is the current second).
	PerSecond []int
	// Rejections counts refused booking attempts by problem code since start.
	Rejections map[string]int64
	// Created and Replayed count successful and replayed bookings since start.
	Created, Replayed int64
	// HotSlots are the slots with the most booking activity lately, most
	// active first; the dashboard reads their fill level from the store.
	HotSlots []int64
}

// statsSeconds is how many seconds the bookings-per-second chart covers.
const statsSeconds = 60

// Recorder counts booking outcomes for the dashboard. It implements Stats,
// booking.Observer (pass it as booking.Options.Observer) and a watcher for
// service.Service.Watch (Changed) that tracks the hottest slots.
type Recorder struct {
	now func() time.Time

	mu         sync.Mutex
	buckets    [statsSeconds]int
	bucketAt   [statsSeconds]int64 // the unix second each bucket counts
	rejections map[string]int64
	created    int64
	replayed   int64
	heat       map[int64]float64 // slot id → decaying activity
	heatAt     time.Time
}

// NewRecorder returns an empty Recorder on clock now (time.Now when nil).
func NewRecorder(now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{now: now, rejections: map[string]int64{}, heat: map[int64]float64{}}
}

var _ service.Observer = (*Recorder)(nil)

// Booked records one booking attempt's outcome: "created", "replayed" or
// a problem code.
func (r *Recorder) Booked(outcome string, gated bool, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch outcome {
	case "created":
		r.created++
		sec := r.now().Unix()
		i := int(sec % statsSeconds)
		if r.bucketAt[i] != sec {
			r.bucketAt[i], r.buckets[i] = sec, 0
		}
		r.buckets[i]++
	case "replayed":
		r.replayed++
	default:
		r.rejections[outcome]++
	}
}

// Batch is part of booking.Observer; the dashboard does not draw batches.
func (r *Recorder) Batch(size int, took time.Duration) {}

// Changed records activity on a slot (booked or released); register it with
// service.Service.Watch.
func (r *Recorder) Changed(c service.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.decay()
	r.heat[c.SlotID]++
}

// decay halves activity every 30 seconds and forgets cold slots, so the
// list shows what is hot now.
func (r *Recorder) decay() {
	now := r.now()
	if r.heatAt.IsZero() {
		r.heatAt = now
		return
	}
	for now.Sub(r.heatAt) >= 30*time.Second {
		r.heatAt = r.heatAt.Add(30 * time.Second)
		for id, h := range r.heat {
			if h /= 2; h < 0.1 {
				delete(r.heat, id)
			} else {
				r.heat[id] = h
			}
		}
		if len(r.heat) == 0 {
			r.heatAt = now
		}
	}
}

// Snapshot returns the current counts.
func (r *Recorder) Snapshot() DashboardStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.decay()
	now := r.now()
	st := DashboardStats{At: now, PerSecond: make([]int, statsSeconds), Rejections: map[string]int64{},
		Created: r.created, Replayed: r.replayed}
	sec := now.Unix()
	for k := 0; k < statsSeconds; k++ {
		s := sec - int64(statsSeconds-1-k)
		i := int(s % statsSeconds)
		if r.bucketAt[i] == s {
			st.PerSecond[k] = r.buckets[i]
		}
	}
	for k, v := range r.rejections {
		st.Rejections[k] = v
	}
	for id := range r.heat {
		st.HotSlots = append(st.HotSlots, id)
	}
	sort.Slice(st.HotSlots, func(i, j int) bool {
		hi, hj := r.heat[st.HotSlots[i]], r.heat[st.HotSlots[j]]
		if hi != hj {
			return hi > hj
		}
		return st.HotSlots[i] < st.HotSlots[j]
	})
	if len(st.HotSlots) > 10 {
		st.HotSlots = st.HotSlots[:10]
	}
	return st
}
