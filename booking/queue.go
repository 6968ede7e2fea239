package booking

import (
	"context"
	"slices"
	"sort"
	"time"
)

// Queue calling (docs/clinic.md "Calling patients in"). A checked-in
// patient stays ARRIVED until COMPLETED (or NO_SHOW, CANCELLED): being
// called and being in consultation are steps of the doctor's queue beside
// the status, not states of the one transition table. The status says who
// holds a place and is final or not; the queue step says where an ARRIVED
// patient stands on the day, and it changes often (a recall, a skip and a
// second call) without ever touching the place, the capacity or the
// constraints over the active states.

// Queue steps of an ARRIVED appointment. An appointment with no step is
// waiting to be called.
const (
	QueueWaiting  = "WAITING"
	QueueCalled   = "CALLED"
	QueueSkipped  = "SKIPPED"
	QueueStarted  = "IN_CONSULTATION"
	QueueFinished = "DONE"
)

// Queue actions, for the audit log and the metric.
const (
	QueueActionCall   = "call"
	QueueActionRecall = "recall"
	QueueActionSkip   = "skip"
	QueueActionStart  = "start"
)

// QueueActions lists the actions, for the metric's series.
var QueueActions = []string{QueueActionCall, QueueActionRecall, QueueActionSkip, QueueActionStart}

// Audit actions of the queue: the console's steps, by the staff member
// the entry's actor names.
const (
	AuditQueueCall   = "queue-call"
	AuditQueueRecall = "queue-recall"
	AuditQueueSkip   = "queue-skip"
	AuditQueueStart  = "queue-start"
)

// The clinic's default skip re-entry: a skipped patient comes back after
// three more calls. MaxQueueSkipCalls bounds the policy value.
const (
	DefaultQueueSkipCalls = 3
	MaxQueueSkipCalls     = 100
)

// The clinic's default message ahead: a waiting patient is told when
// three are ahead of them. MaxQueueNotifyAhead bounds the policy value.
const (
	DefaultQueueNotifyAhead = 3
	MaxQueueNotifyAhead     = 20
)

// NotifyQueueAhead tells an arrived patient that a call left
// Policy.QueueNotifyAhead people ahead of them (Ref is that number).
const NotifyQueueAhead NotificationKind = "queue-ahead"

// QueueAheadNotice is the appointment that call c, which made day d (the
// day after the call), leaves n ahead under skip re-entry k: the n-th of
// d.Order(k), who then has n to be called before them, as Position counts
// them; false when n is 0 (off) or fewer wait. The store sends it once per
// appointment: a later call that leaves it n ahead again (after a skip)
// sends nothing.
func QueueAheadNotice(d QueueDay, k, n int) (int64, bool) {
	order := d.Order(k)
	if n <= 0 || n >= len(order) {
		return 0, false
	}
	return order[n].AppointmentID, true
}

// Problem codes of the queue.
const (
	// CodeQueueEmpty: nobody of the doctor's day has arrived and waits.
	CodeQueueEmpty Code = "queue-empty"
	// CodeNotCalled: recall, skip and start act on the doctor's current
	// call only.
	CodeNotCalled Code = "not-called"
)

// QueueEntry is one appointment of a doctor's day in the queue: ARRIVED
// (waiting, called, skipped or in consultation), or a step left behind by
// an appointment that is no longer ARRIVED (Status says).
type QueueEntry struct {
	AppointmentID int64
	PatientID     int64
	Status        Status
	QueueNumber   int
	StartAt       time.Time
	// SlotMinutes is the appointment's share of its slot (the slot's
	// length over its places): the estimate's pace.
	SlotMinutes int
	// ArrivedAt is when it was checked in (ties and walk-ins by it).
	ArrivedAt time.Time
	// Step is QueueWaiting, QueueCalled, QueueSkipped, QueueStarted or
	// QueueFinished.
	Step string
	// CallSeq is the doctor's day's call count at its last call; Calls
	// counts its calls and recalls; SkipSeq the call count when it was
	// skipped.
	CallSeq, Calls, SkipSeq int
	CalledAt, StartedAt     *time.Time
	// Name is the patient's name, for the board (masked there).
	Name string
}

// QueueDay is a doctor's queue on one local day: the calls made so far
// and the entries.
type QueueDay struct {
	DoctorID int64
	Day      string // the doctor's local date, YYYY-MM-DD
	Calls    int
	Entries  []QueueEntry
	// Done are the lengths (start, or call, to completion) of the day's
	// latest completed consultations, at most MaxPaceSamples: the pace.
	// Only the reads of the day fill it; the calls' decisions need none.
	Done []time.Duration
}

// arrivedIn says whether e is ARRIVED and at step.
func (e QueueEntry) arrivedIn(step string) bool { return e.Status == StatusArrived && e.Step == step }

// Entry is appointment id's entry in d, a bare one when d has none (an
// appointment not called yet).
func (d QueueDay) Entry(id int64) QueueEntry {
	for _, e := range d.Entries {
		if e.AppointmentID == id {
			return e
		}
	}
	return QueueEntry{AppointmentID: id}
}

// Current is the entry called and not yet started, skipped or finished.
func (d QueueDay) Current() (QueueEntry, bool) {
	for _, e := range d.Entries {
		if e.arrivedIn(QueueCalled) {
			return e, true
		}
	}
	return QueueEntry{}, false
}

// InConsultation lists the entries in consultation.
func (d QueueDay) InConsultation() []QueueEntry {
	var out []QueueEntry
	for _, e := range d.Entries {
		if e.arrivedIn(QueueStarted) {
			out = append(out, e)
		}
	}
	return out
}

// Order is who the next calls will take, in turn, under skip re-entry k:
// a skipped patient whose k calls have passed first (the earliest skipped
// first), else the waiting patients by their slot's start, queue number,
// arrival and id; when only skipped patients are left, the earliest comes
// back at once rather than keep the room waiting. The current call is not
// in it.
func (d QueueDay) Order(k int) []QueueEntry {
	var waiting, skipped []QueueEntry
	for _, e := range d.Entries {
		switch {
		case e.arrivedIn(QueueWaiting):
			waiting = append(waiting, e)
		case e.arrivedIn(QueueSkipped):
			skipped = append(skipped, e)
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return waitsBefore(waiting[i], waiting[j]) })
	sort.SliceStable(skipped, func(i, j int) bool {
		if skipped[i].SkipSeq != skipped[j].SkipSeq {
			return skipped[i].SkipSeq < skipped[j].SkipSeq
		}
		return waitsBefore(skipped[i], skipped[j])
	})
	out := make([]QueueEntry, 0, len(waiting)+len(skipped))
	for c := d.Calls + 1; len(waiting)+len(skipped) > 0; c++ {
		if len(skipped) > 0 && (c > skipped[0].SkipSeq+k || len(waiting) == 0) {
			out, skipped = append(out, skipped[0]), skipped[1:]
			continue
		}
		out, waiting = append(out, waiting[0]), waiting[1:]
	}
	return out
}

func waitsBefore(a, b QueueEntry) bool {
	switch {
	case !a.StartAt.Equal(b.StartAt):
		return a.StartAt.Before(b.StartAt)
	case a.QueueNumber != b.QueueNumber:
		return a.QueueNumber < b.QueueNumber
	case !a.ArrivedAt.Equal(b.ArrivedAt):
		return a.ArrivedAt.Before(b.ArrivedAt)
	}
	return a.AppointmentID < b.AppointmentID
}

// QueueCall is what calling the next patient does: Next is called with
// call number Seq; Passed, when set, was the current call, not started,
// and goes back into the queue as skipped; Finished are the steps of
// appointments no longer ARRIVED, closed so that they no longer count as
// the current call or a consultation.
type QueueCall struct {
	Next     QueueEntry
	Seq      int
	Passed   *QueueEntry
	Finished []int64
}

// DecideCall decides the next call of d under skip re-entry k at now,
// inside the transaction that holds the doctor's day: the first of
// d.Order, the current call (if any) passed as skipped. Nobody waiting
// is queue-empty, and nothing changes.
func DecideCall(d QueueDay, k int, now time.Time) (QueueCall, error) {
	var c QueueCall
	for _, e := range d.Entries {
		if e.Status != StatusArrived && e.Step != QueueWaiting && e.Step != QueueFinished {
			c.Finished = append(c.Finished, e.AppointmentID)
		}
	}
	d.Entries = append([]QueueEntry(nil), d.Entries...)
	if cur, ok := d.Current(); ok {
		cur.Step, cur.SkipSeq = QueueSkipped, d.Calls
		c.Passed = &cur
		for i := range d.Entries {
			if d.Entries[i].AppointmentID == cur.AppointmentID {
				d.Entries[i] = cur
			}
		}
	}
	order := d.Order(k)
	if len(order) == 0 {
		return QueueCall{}, Errorf(CodeQueueEmpty, "nobody who has arrived is waiting to be called")
	}
	c.Seq = d.Calls + 1
	c.Next = order[0]
	c.Next.Step, c.Next.CallSeq, c.Next.Calls, c.Next.CalledAt = QueueCalled, c.Seq, c.Next.Calls+1, &now
	return c, nil
}

// QueueStep is one console action on one appointment: recall, skip or
// start. DoctorID is the doctor acting (0 for an admin).
type QueueStep struct {
	AppointmentID int64
	DoctorID      int64
	Action        string
}

// DecideQueueStep decides step s on appointment e of doctor's day d at
// now, inside the transaction that holds the day: another doctor's appointment is not found;
// only the current call (ARRIVED, called, not yet started or skipped) can
// be recalled, skipped or started, anything else is not-called. It
// returns e as it becomes.
func DecideQueueStep(d QueueDay, e QueueEntry, s QueueStep, now time.Time) (QueueEntry, error) {
	switch {
	case s.DoctorID != 0 && d.DoctorID != s.DoctorID:
		return QueueEntry{}, NotFound("appointment")
	case !e.arrivedIn(QueueCalled):
		return QueueEntry{}, Errorf(CodeNotCalled, "only the patient called now can be recalled, skipped or started")
	}
	switch s.Action {
	case QueueActionRecall:
		e.Calls++
		e.CalledAt = &now
	case QueueActionSkip:
		e.Step, e.SkipSeq = QueueSkipped, d.Calls
	case QueueActionStart:
		e.Step, e.StartedAt = QueueStarted, &now
	default:
		return QueueEntry{}, Errorf(CodeInvalidRequest, "unknown queue action %q", s.Action)
	}
	return e, nil
}

// QueuePosition is where an appointment stands in its doctor's queue.
type QueuePosition struct {
	// Step is the appointment's step: QueueWaiting (or QueueSkipped) with
	// Ahead people to be called before it, QueueCalled, QueueStarted, or
	// "" when it has not arrived or is finished.
	Step  string
	Ahead int
	// Minutes estimates the wait: those ahead and the patients called or
	// in consultation, each at the doctor's pace today (Pace of d.Done)
	// or, before it is known, at their slot's share.
	Minutes int
	// Pace is the doctor's minutes per patient the estimate used, 0 when
	// it used the slots' shares.
	Pace int
}

// Position is where appointment id stands in d under skip re-entry k.
func (d QueueDay) Position(id int64, k int) QueuePosition {
	for _, e := range d.Entries {
		if e.AppointmentID == id && e.Status == StatusArrived && (e.Step == QueueCalled || e.Step == QueueStarted) {
			return QueuePosition{Step: e.Step}
		}
	}
	pace := Pace(d.Done)
	busy := 0
	for _, e := range d.Entries {
		if e.arrivedIn(QueueCalled) || e.arrivedIn(QueueStarted) {
			busy += minutesOf(e, pace)
		}
	}
	order := d.Order(k)
	for i, e := range order {
		if e.AppointmentID == id {
			p := QueuePosition{Step: e.Step, Ahead: i, Minutes: busy, Pace: pace}
			for _, a := range order[:i] {
				p.Minutes += minutesOf(a, pace)
			}
			return p
		}
	}
	return QueuePosition{}
}

// QueueDayOf is the queue day of a doctor's appointment starting at
// start, in the doctor's zone loc: its local date.
func QueueDayOf(start time.Time, loc *time.Location) string {
	return start.In(loc).Format(time.DateOnly)
}

// After is d once call c is made: the finished steps closed, the current
// call passed, the next one called, the call count moved on.
func (d QueueDay) After(c QueueCall) QueueDay {
	out := d
	out.Calls = c.Seq
	out.Entries = make([]QueueEntry, 0, len(d.Entries))
	for _, e := range d.Entries {
		switch {
		case slices.Contains(c.Finished, e.AppointmentID):
			e.Step = QueueFinished
		case e.AppointmentID == c.Next.AppointmentID:
			e = c.Next
		case c.Passed != nil && e.AppointmentID == c.Passed.AppointmentID:
			e = *c.Passed
		}
		out.Entries = append(out.Entries, e)
	}
	return out
}

// SlotShare is one place's share of a slot in minutes (its length over
// its places, at least one): the pace of the queue's estimate.
func SlotShare(start, end time.Time, capacity int) int {
	return max(int(end.Sub(start)/time.Minute)/max(capacity, 1), 1)
}

// QueueChange is a console action on an appointment: its step before and
// after.
type QueueChange struct {
	Action        string
	Before, After QueueEntry
}

// AuditQueue is the entry of console change c, by ctx's actor.
func AuditQueue(ctx context.Context, now time.Time, c QueueChange) AuditEntry {
	before, after := c.Before, c.After
	state := func(e QueueEntry) any {
		return struct {
			Status    Status `json:"status"`
			Step      string `json:"step"`
			CallSeq   int    `json:"callSeq,omitempty"`
			Calls     int    `json:"calls,omitempty"`
			PatientID int64  `json:"patientId"`
		}{e.Status, e.Step, e.CallSeq, e.Calls, e.PatientID}
	}
	en := auditBy(ActorOf(ctx), now, EntityAppointment, after.AppointmentID, c.Action, state(before), state(after))
	en.patientID = after.PatientID
	return en
}

// AuditAction is step s's audit action.
func (s QueueStep) AuditAction() string {
	switch s.Action {
	case QueueActionRecall:
		return AuditQueueRecall
	case QueueActionSkip:
		return AuditQueueSkip
	}
	return AuditQueueStart
}
