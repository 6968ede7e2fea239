package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
	"go.opentelemetry.io/otel/trace"
)

// AttemptBooking spends one of patientID's booking attempts, the one
// budget every front end shares; Err of the decision is the refusal. Front
// ends call it before anything else of a booking request (a malformed
// attempt counts too: it is the cheapest layer of a rush).
func (s *Service) AttemptBooking(patientID int64) booking.RateDecision {
	return s.limiter.Allow(patientID, s.now())
}

// Book takes a place in slotID for patientID. key is the client's
// Idempotency-Key: a retry with the same key and slot returns the original
// appointment with Replayed set; the same key for another slot is refused
// with CodeKeyReused; a retry while the first request is still being decided
// is refused with CodeKeyInUse, by this instance or, with Peers, by any (and
// without them the database's unique index makes the later one wait and
// then replay).
//
// Before the database, the gates refuse from memory what is sure to fail:
// a window not open yet, a slot closed or started, a slot known full. A
// retry of a booking that succeeded is never refused by them: it reaches the
// database and replays.
//
// The whole attempt (gates, lane queue, decision, key confirmation) is
// bounded by the service's timeout, after which it is ErrUnavailable: the
// request may still be decided, and a retry with the same key finds out.
func (s *Service) Book(ctx context.Context, patientID, slotID int64, key string) booking.BookResult {
	return s.BookFor(ctx, booking.Acting{PatientID: patientID}, slotID, key)
}

// BookFor is Book for whom ActFor decided: by staff for the patient when
// a.Staff (the no-show block does not apply to them; the caps do).
func (s *Service) BookFor(ctx context.Context, a booking.Acting, slotID int64, key string) (r booking.BookResult) {
	patientID, staff := a.PatientID, a.Staff
	if staff {
		// The desk books on its sites only; a patient costs nothing here.
		if err := s.onSite(ctx, booking.ActorOf(ctx), booking.SiteRef{SlotID: slotID}); err != nil {
			return booking.BookResult{Err: err}
		}
	}
	start := time.Now()
	// Attributes only for a span that is recorded: with tracing off each
	// was an allocation per booking for nothing.
	ctx, span := tracer().Start(ctx, "booking.Book")
	recording := span.IsRecording()
	if recording {
		span.SetAttributes(AttrSlotID.Int64(slotID))
	}
	defer func() {
		if recording {
			span.SetAttributes(AttrOutcome.String(outcomeOf(r)))
		}
		span.End()
		s.recordOpening(slotID, r, start)
	}()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ik := inflightKey{patientID, key}
	s.mu.Lock()
	for s.orphans[ik] != nil {
		// The first request with this key timed out in its lane but will
		// still be decided: answered now (from the gates, or by a decision
		// racing it) the retry could say "full" of a booking it then makes.
		// It waits for that decision, then finds its outcome as any retry.
		wait := s.orphans[ik]
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			r := booking.BookResult{Err: fmt.Errorf("%w: the first request with this Idempotency-Key is still being decided", booking.ErrUnavailable)}
			s.observe(r, false, start)
			return r
		}
		s.mu.Lock()
	}
	if _, busy := s.inflight[ik]; busy {
		s.mu.Unlock()
		r := booking.BookResult{Err: booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")}
		s.observe(r, true, start)
		return r
	}
	s.inflight[ik] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}()
	release, ok := s.claimKey(ctx, patientID, key)
	if !ok {
		r := booking.BookResult{Err: booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")}
		s.observe(r, true, start)
		return r
	}
	// An orphaned attempt (decideOne) keeps the key claimed on the other
	// instances too until its lane decides it.
	orphaned := false
	defer func() {
		if !orphaned {
			release()
		}
	}()

	req := booking.BookRequest{PatientID: patientID, IdempotencyKey: key, Fingerprint: booking.Fingerprint(slotID), SlotID: slotID, Actor: booking.ActorOf(ctx), Staff: staff}
	req.Admission = s.admission(a, patientID)
	req.Invitation = booking.NormalizeInvitation(a.Invitation)
	if g := s.gates.check(ctx, slotID, s.now()); g != nil {
		var gated bool
		r, gated = s.refuseOrReplay(ctx, req, g)
		if recording {
			span.SetAttributes(AttrGated.Bool(gated))
		}
		s.observe(r, gated, start)
		return r
	}
	var gated bool
	r, gated, orphaned = s.decideOne(ctx, slotID, req, release)
	if recording && gated {
		span.SetAttributes(AttrGated.Bool(true))
	}
	s.observe(r, gated, start)
	return r
}

// refuseOrReplay answers a request the gates would refuse. A retry of a
// booking that succeeded must still get its appointment back, even though
// the slot is now full or closed, and it may land on an instance that never
// saw it; so a refusal is confirmed by a read of the patient's key, which
// takes no lock and leaves the slot row alone, and is coalesced with the
// other refusals' reads (keyLookups). The same read finds whether the
// patient already holds a place in a slot known full: already-booked is the
// more specific truth, and it is what the database would have said.
func (s *Service) refuseOrReplay(ctx context.Context, req booking.BookRequest, refusal *booking.Error) (r booking.BookResult, gated bool) {
	if refusal.Code == booking.CodeSlotFull && s.refused.refused(req, s.now()) {
		return booking.BookResult{Err: refusal}, true
	}
	return s.answerRefusal(ctx, req, refusal, s.keys.lookup(ctx, req))
}

// answerRefusal is refuseOrReplay's answer once ans, the read of req's
// key, has come.
func (s *Service) answerRefusal(ctx context.Context, req booking.BookRequest, refusal *booking.Error, ans keyAnswer) (r booking.BookResult, gated bool) {
	if ans.err == nil && !ans.found && !ans.holding && refusal.Code == booking.CodeSlotFull {
		s.refused.remember(req, s.now())
	}
	switch {
	case ans.err != nil:
		return booking.BookResult{Err: s.storeErr(ctx, ans.err)}, false
	case ans.found:
		return booking.ReplayOf(ans.a, req), false
	case ans.holding && refusal.Code == booking.CodeSlotFull:
		// The batch decision's own answer for a holder (DecideBooking).
		return booking.BookResult{Err: booking.ConstraintError(booking.ConSlotPatientActive, req.SlotID)}, true
	}
	return booking.BookResult{Err: refusal}, true
}

// decideOne sends one request to its slot's lane, or to the store directly
// with the direct engine, and keeps the gates and watchers informed. It
// reports whether the gates answered after all (the slot was marked full
// while the request queued: decideLaned) and whether the request was left
// undecided in its lane (orphan), which then calls release once it is
// decided.
func (s *Service) decideOne(ctx context.Context, slotID int64, req booking.BookRequest, release func()) (r booking.BookResult, gated, orphaned bool) {
	laned := false
	if s.lanes != nil {
		// Waiting in a lane is bounded by Book's deadline: a queue behind a
		// stalled database answers 503 rather than hanging. The request may
		// still be decided; a retry with the same key waits for that
		// decision (orphans) and then finds its outcome.
		var late <-chan booking.BookResult
		r, laned, late = s.lanes.submitLate(ctx, slotID, req)
		if late != nil {
			s.orphan(req, late, release)
			// Its caller leaving (a client that gave up) is no internal
			// error either: the answer, if anyone reads it, is a 503.
			return booking.BookResult{Err: fmt.Errorf("%w: the booking was not decided in time", booking.ErrUnavailable)}, false, true
		}
		var g *gatedInLane
		if errors.As(r.Err, &g) {
			return g.r, g.gated, false
		}
	}
	if !laned {
		began := time.Now()
		res, err := s.decide(ctx, slotID, []booking.BookRequest{req})
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			span.SetAttributes(spanBatch(0, 1, time.Since(began))...)
		}
		if err != nil {
			r = booking.BookResult{Err: err}
		} else {
			r = res[0]
		}
	}
	s.settle(req, r)
	return r, false, false
}

// gatedInLane carries the gates' answer to a request of a batch that
// decideLaned did not decide. It is no *booking.Error, so that no settle
// takes it for a decision's slot-full.
type gatedInLane struct {
	r     booking.BookResult
	gated bool
}

func (e *gatedInLane) Error() string { return "answered by the gates in the lane" }

// decideLaned decides a lane's batch, unless the slot was marked full
// since the batch's requests passed the gates: in an opening, the
// requests that queue behind the batch that takes a slot's last place
// would otherwise cost a transaction that waits for the slot's row only to
// refuse them. They get the gates' answers instead, confirmed by one read
// of the batch's keys in the lane: each lane reads its own, as each
// decided its own, rather than all feeding the one coalesced look-up of
// the requests the gates stopped at the door.
func (s *Service) decideLaned(ctx context.Context, slotID int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
	refusal := s.gates.markedFull(slotID, s.now())
	if refusal == nil {
		return s.decide(ctx, slotID, reqs)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	as, err := s.store.FindByKeys(ctx, reqs)
	res := make([]booking.BookResult, len(reqs))
	for i, ans := range keyAnswers(reqs, as, err) {
		r, gated := s.answerRefusal(ctx, reqs[i], refusal, ans)
		res[i].Err = &gatedInLane{r, gated}
	}
	return res, nil
}

// orphan keeps req's key busy (here, and claimed for the other instances
// until release) until its lane's late decision arrives, and then settles
// it as any other decision.
func (s *Service) orphan(req booking.BookRequest, late <-chan booking.BookResult, release func()) {
	ik := inflightKey{req.PatientID, req.IdempotencyKey}
	done := make(chan struct{})
	s.mu.Lock()
	s.orphans[ik] = done
	s.mu.Unlock()
	go func() {
		s.settle(req, <-late)
		release()
		s.mu.Lock()
		delete(s.orphans, ik)
		s.mu.Unlock()
		close(done)
	}()
}

// settle keeps the remembered refusals and the watchers informed of a
// decision on req (decide has told the gates).
func (s *Service) settle(req booking.BookRequest, r booking.BookResult) {
	switch {
	case r.Err == nil && !r.Replayed:
		s.refused.booked(req.PatientID)
		s.changed(r.Appointment)
	case booking.ErrorCode(r.Err) == booking.CodeSlotFull:
		// The decision read the key under the lock and found it unused.
		s.refused.remember(req, s.now())
	}
}

// decide runs one store transaction for a batch of requests for one slot,
// bounded by the service's timeout.
func (s *Service) decide(ctx context.Context, slotID int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	since := s.gates.epoch()
	start := time.Now()
	res, err := s.store.Book(ctx, slotID, reqs, s.now())
	if s.observer != nil {
		s.observer.Batch(len(reqs), time.Since(start))
	}
	if err == nil && len(res) != len(reqs) {
		err = fmt.Errorf("store answered %d results for %d requests", len(res), len(reqs))
	}
	if err == nil {
		s.learnFull(slotID, since, res)
	}
	return res, s.storeErr(ctx, err)
}

// learnFull marks slotID full, and tells the peers, when a decision
// started at epoch since refused a request for want of a place or took the
// slot's last one. It does so before the decision's answers go out, so
// that a lane's next batch already finds the mark (decideLaned).
func (s *Service) learnFull(slotID int64, since uint64, res []booking.BookResult) {
	for _, r := range res {
		if (r.Err == nil && r.SlotFull) || booking.ErrorCode(r.Err) == booking.CodeSlotFull {
			if s.gates.markFull(slotID, s.now(), since) {
				s.publish(booking.Signal{Kind: booking.SignalFull, SlotID: slotID})
			}
			return
		}
	}
}

func (s *Service) observe(r booking.BookResult, gated bool, start time.Time) {
	s.waiting.answered.Add(1) // the pace the waiting rooms admit at
	if s.observer == nil {
		return
	}
	s.observer.Booked(outcomeOf(r), gated, time.Since(start))
	s.observeEligibility(r.Err)
}

// outcomeOf names a booking's outcome for metrics and spans: created,
// replayed or the problem code.
func outcomeOf(r booking.BookResult) string {
	switch {
	case r.Err != nil:
		return string(booking.ErrorCode(r.Err))
	case r.Replayed:
		return "replayed"
	}
	return "created"
}

// QueueDepth returns the number of booking requests waiting in lanes.
func (s *Service) QueueDepth() int {
	if s.lanes == nil {
		return 0
	}
	return s.lanes.QueueDepth()
}

// admission is the opening a's admission token admits patientID to (0:
// none), checked by its MAC alone; the decision compares the opening.
func (s *Service) admission(a booking.Acting, patientID int64) int64 {
	if a.Admission == "" {
		return 0
	}
	return s.waiting.opts.Tokens.Verify(a.Admission, patientID, s.now())
}
