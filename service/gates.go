package service

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"golang.org/x/sync/singleflight"
)

// GateOptions tune the in-memory gates that refuse hopeless booking
// attempts without touching the database.
type GateOptions struct {
	// SlotInfoTTL is how long a slot's opening time, start and status are
	// trusted from memory (default 5s). A slot closed by another instance
	// is noticed within it; the database decides anyway.
	SlotInfoTTL time.Duration
	// FullTTL is how long a slot stays marked full after a decision found no
	// room (default 1s), so that places released by other instances are
	// seen soon; this instance clears the mark itself when it releases one.
	FullTTL time.Duration
	// Disabled turns the gates off: every attempt reaches the database.
	Disabled bool
}

// gates are the cheap, memory-only layer of the rush (docs/architecture.md):
// booking window not open yet, slot known full. They only ever refuse what
// the database would refuse too; a wrong guess costs one wasted refusal of
// a retry within FullTTL, never a wrong booking.
type gates struct {
	opts GateOptions
	load func(ctx context.Context, slotID int64) (booking.Slot, error)

	mu    sync.Mutex
	slots map[int64]gateSlot
	// releases counts this instance's releases, so that a decision that
	// found a slot full can tell whether a place was freed while it ran.
	releases uint64
	// loads makes the requests that find a slot unknown at the same moment
	// (at 7:00 thousands do) wait for one read instead of each making one.
	loads singleflight.Group
}

type gateSlot struct {
	slot      booking.Slot
	loadedAt  time.Time
	fullUntil time.Time
	released  uint64 // the releases count at the slot's last release
}

// known returns slotID's slot as the gates last loaded it, if they did.
func (g *gates) known(slotID int64) (booking.Slot, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.slots[slotID]
	return e.slot, ok
}

func newGates(opts GateOptions, load func(context.Context, int64) (booking.Slot, error)) *gates {
	if opts.SlotInfoTTL <= 0 {
		opts.SlotInfoTTL = 5 * time.Second
	}
	if opts.FullTTL <= 0 {
		opts.FullTTL = time.Second
	}
	return &gates{opts: opts, load: load, slots: map[int64]gateSlot{}}
}

// check returns the refusal the gates can give for slotID at now, or nil
// to let the request through to the database. Loading a slot it does not
// know costs one read; a failed read lets the request through.
func (g *gates) check(ctx context.Context, slotID int64, now time.Time) *booking.Error {
	if g.opts.Disabled {
		return nil
	}
	g.mu.Lock()
	e, ok := g.slots[slotID]
	g.mu.Unlock()
	if !ok || now.Sub(e.loadedAt) > g.opts.SlotInfoTTL || now.Before(e.loadedAt) {
		// Shared by everyone asking meanwhile: one caller going away must not
		// fail the load for the others.
		// The wait for it ends with ctx: the request then goes on to fail
		// its own deadline rather than outlive it here.
		lctx := context.WithoutCancel(ctx)
		var res singleflight.Result
		select {
		case res = <-g.loads.DoChan(strconv.FormatInt(slotID, 10), func() (any, error) { return g.load(lctx, slotID) }):
		case <-ctx.Done():
			return nil
		}
		if res.Err != nil {
			return nil
		}
		sl := res.Val.(booking.Slot)
		g.mu.Lock()
		if len(g.slots) >= maxGateSlots {
			g.sweepLocked(now)
		}
		e = g.slots[slotID]
		e.slot, e.loadedAt = sl, now
		g.slots[slotID] = e
		g.mu.Unlock()
	}
	open := e.slot
	open.BookedCount = 0 // fullness is the database's, or the mark's
	var be *booking.Error
	if errors.As(open.Bookable(now), &be) {
		return be
	}
	if now.Before(e.fullUntil) {
		return fullRefusal(slotID)
	}
	return nil
}

// markedFull returns the full mark's refusal when slotID is marked full at
// now, else nil; unlike check it never loads the slot.
func (g *gates) markedFull(slotID int64, now time.Time) *booking.Error {
	if g.opts.Disabled {
		return nil
	}
	g.mu.Lock()
	e := g.slots[slotID]
	g.mu.Unlock()
	if now.Before(e.fullUntil) {
		return fullRefusal(slotID)
	}
	return nil
}

// fullRefusal is the full mark's refusal.
func fullRefusal(slotID int64) *booking.Error {
	return &booking.Error{Code: booking.CodeSlotFull, Message: "no place left in this slot", SlotID: slotID}
}

// epoch returns the releases count; a decision takes it before it starts.
func (g *gates) epoch() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.releases
}

// markFull records that a decision (here or, through Receive, on another
// instance), started at epoch since, found slotID full at now, and says
// whether it did. A place this instance released meanwhile may have come
// too late for that decision to see: the slot is then not marked, or the
// mark would refuse for FullTTL a place known free. A slot not known yet
// gets an entry that still loads the slot on its first check, keeping the
// mark.
func (g *gates) markFull(slotID int64, now time.Time, since uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.slots[slotID]
	if ok && e.released > since {
		return false
	}
	if !ok && len(g.slots) >= maxGateSlots {
		g.sweepLocked(now)
	}
	e.fullUntil = now.Add(g.opts.FullTTL)
	g.slots[slotID] = e
	return true
}

// released clears slotID's full mark: this instance just freed a place.
func (g *gates) released(slotID int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releases++
	if e, ok := g.slots[slotID]; ok {
		e.fullUntil, e.released = time.Time{}, g.releases
		g.slots[slotID] = e
	}
}

// releasedSpan clears the full marks of doctorID's slots starting in
// [from, to): a visit of a service that held them was given back. It
// walks every entry (a visit's release is rare beside bookings); a slot
// whose information is not loaded keeps its mark until FullTTL.
func (g *gates) releasedSpan(doctorID int64, from, to time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releases++
	for id, e := range g.slots {
		if e.slot.DoctorID == doctorID && !e.slot.StartAt.Before(from) && e.slot.StartAt.Before(to) {
			e.fullUntil, e.released = time.Time{}, g.releases
			g.slots[id] = e
		}
	}
}

// forget drops what the gates know of slotID (it was closed, reopened or
// resized by this instance).
func (g *gates) forget(slotID int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.slots, slotID)
}

// forgetAll drops everything the gates know (a repair reset counters).
func (g *gates) forgetAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.slots)
}

// maxGateSlots bounds the slots the gates remember.
const maxGateSlots = 50_000

// sweepLocked drops entries whose information has expired, or every entry
// if none has: memory stays bounded to the slots in recent use.
func (g *gates) sweepLocked(now time.Time) {
	for id, e := range g.slots {
		if now.Sub(e.loadedAt) > g.opts.SlotInfoTTL {
			delete(g.slots, id)
		}
	}
	if len(g.slots) >= maxGateSlots {
		clear(g.slots)
	}
}
