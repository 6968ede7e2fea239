package service

import (
	"context"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
)

// Revocation marks (booking.Mark) are read on every authenticated request,
// so the Service keeps them in memory: every instance refreshes its copy
// with the marks moved recently (one indexed query) once it is older than
// MarkRefresh, before it answers. A move made by this instance is seen at
// once; one made by another instance is seen by every request that starts
// more than MarkRefresh after it committed. When the database cannot be
// read and the copy is older than that bound, Admit answers unavailable
// rather than trust it: the bound holds or the request is refused.

// DefaultMarkRefresh is how stale an instance's copy of the marks may be.
const DefaultMarkRefresh = time.Second

// MarkHorizon is how far back the first read of the marks goes (besides
// the closed ones, read whatever their age): a token lives at most 30 days
// (slotd token's --ttl; page sessions are bounded below it), so an older
// mark refuses nothing that is still good.
const MarkHorizon = 31 * 24 * time.Hour

// marks is one instance's copy of the revocation marks.
type marks struct {
	refresh time.Duration
	// overlap is how far back each refresh reads before the previous one
	// started: a move stamped before that start may commit after it (by
	// up to the store's timeout), and instances' clocks differ a little.
	overlap time.Duration

	mu    sync.RWMutex
	m     map[booking.Subject]booking.Mark
	fresh time.Time // when the last successful read started; zero: never
	// flight is the read in progress, nil when none (under flightMu):
	// the requests that need a read while one runs wait for it and share
	// its answer, failure included, so with the database frozen each
	// request waits one bounded read at most (a mutex would let newcomers
	// start reads ahead of those already waiting).
	flightMu sync.Mutex
	flight   *markRead
}

// markRead is one read of the marks: done is closed when err is set.
type markRead struct {
	started time.Time
	done    chan struct{}
	err     error
}

func newMarks(refresh, timeout time.Duration) *marks {
	if refresh <= 0 {
		refresh = DefaultMarkRefresh
	}
	return &marks{refresh: refresh, overlap: timeout + 30*time.Second, m: map[booking.Subject]booking.Mark{}}
}

// get returns a subject's mark and whether the copy was fresh at now.
func (k *marks) get(sub booking.Subject, now time.Time) (booking.Mark, bool, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	m, found := k.m[sub]
	return m, found, !k.fresh.IsZero() && now.Sub(k.fresh) < k.refresh
}

// merge keeps the later of each subject's marks; a read that started at
// started makes the copy fresh from then (zero: a read of some subjects,
// which leaves it).
func (k *marks) merge(ms []booking.Mark, started time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, m := range ms {
		k.put(m)
	}
	if started.After(k.fresh) {
		k.fresh = started
	}
}

// put keeps m unless a later mark is known; at equal instants the newer
// read wins (a close or an open at the same instant).
func (k *marks) put(m booking.Mark) {
	if old, ok := k.m[m.Subject]; ok && old.ValidAfter.After(m.ValidAfter) {
		return
	}
	k.m[m.Subject] = m
}

// Admit answers whether a token of role and subject, issued at issued
// (auth.Claims.Issued), is still good: nil, or the refusal of
// booking.Admission — unauthorized for a token signed out or revoked or of
// a disabled staff user, the departed patient's refusal for a deactivated
// or erased patient. Every front end calls it for every authenticated
// request, after verifying the token's signature. It reads the database
// only when this instance's copy of the marks is older than MarkRefresh
// (one query per instance per interval, whatever the traffic).
func (s *Service) Admit(ctx context.Context, role, subject string, issued time.Time) error {
	sub := booking.Subject{Role: role, ID: subject}
	now := s.wall()
	m, found, fresh := s.marks.get(sub, now)
	if !fresh {
		if err := s.refreshMarks(ctx, false); err != nil {
			return err
		}
		m, found, _ = s.marks.get(sub, now)
	}
	if refusal := booking.Admission(m, found, issued); refusal != nil {
		if s.onRefusedToken != nil {
			s.onRefusedToken(refusal.Code)
		}
		return refusal
	}
	return nil
}

// refreshMarks reads the marks moved since the last read (less the
// overlap), or on the first read those of MarkHorizon and every closed
// one. One read at a time: the requests that need one while it runs use
// its answer, unless force asks for a read that starts after this call (a
// move this instance just committed).
func (s *Service) refreshMarks(ctx context.Context, force bool) error {
	k := s.marks
	arrived := s.wall()
	for {
		k.flightMu.Lock()
		f := k.flight
		if f == nil {
			if _, _, fresh := k.get(booking.Subject{}, s.wall()); fresh && !force {
				k.flightMu.Unlock()
				return nil // another request read them meanwhile
			}
			f = &markRead{started: s.wall(), done: make(chan struct{})}
			k.flight = f
			k.flightMu.Unlock()
			// The read is every waiter's: one request's cancellation
			// must not fail the others (bounded still limits it).
			f.err = s.readMarks(context.WithoutCancel(ctx), f.started)
			k.flightMu.Lock()
			k.flight = nil
			k.flightMu.Unlock()
			close(f.done)
			return f.err
		}
		k.flightMu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return s.storeErr(ctx, ctx.Err())
		}
		if !force || f.started.After(arrived) {
			return f.err
		}
	}
}

// readMarks is one read of the marks, started at started.
func (s *Service) readMarks(ctx context.Context, started time.Time) error {
	k := s.marks
	k.mu.RLock()
	last := k.fresh
	k.mu.RUnlock()
	since, closed := last.Add(-k.overlap), false
	if last.IsZero() {
		since, closed = started.Add(-MarkHorizon), true
	}
	ms, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Mark, error) { return s.store.MarksSince(ctx, since, closed) })
	if err != nil {
		return err
	}
	k.merge(ms, started)
	return nil
}

// SignOut ends the tokens of role and subject issued until now (a
// sign-out, from the pages or the API): their mark moves to now, on this
// instance at once and on the others within MarkRefresh.
func (s *Service) SignOut(ctx context.Context, role, subject string) error {
	return s.moveMarks(ctx, booking.Subject{Role: role, ID: subject})
}

// moveMarks moves the subjects' marks to now and tells this instance's copy.
func (s *Service) moveMarks(ctx context.Context, subs ...booking.Subject) error {
	at := s.wall()
	if _, err := bounded(s, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.store.MoveMarks(ctx, at, subs...)
	}); err != nil {
		return err
	}
	return s.rereadMarks(ctx, subs...)
}

// rereadMarks reads the marks of subs again now, after a change that moved
// them (a sign-out, or an erasure or deactivation in its own
// transaction), so that this instance refuses their tokens at once: a
// probe each, where reading every mark moved lately would cost a burst of
// n sign-outs n² rows. The copy's freshness stays as it was. Without subs
// (the change does not say which it moved) every recent mark is read.
func (s *Service) rereadMarks(ctx context.Context, subs ...booking.Subject) error {
	if len(subs) == 0 {
		return s.refreshMarks(ctx, true)
	}
	ms, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Mark, error) { return s.store.MarksOf(ctx, subs...) })
	if err != nil {
		return err
	}
	s.marks.merge(ms, time.Time{})
	return nil
}
