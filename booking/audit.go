package booking

import (
	"context"
	"encoding/json"
	"time"
)

// The audit log: every change a Service method makes is recorded by the
// store in the same transaction, with who made it (an Actor carried in the
// context from the front end through the Service into the store), what
// entity it touched and the entity's state before and after. States carry
// ids and states only, never personal data (names, phones, e-mails).

// Actor roles beyond auth's patient, doctor and admin.
const (
	ActorJob      = "job"      // a background job (expiry, reconciliation, generation)
	ActorProvider = "provider" // the payment provider's signed callback
	ActorSystem   = "system"   // the command line or a caller that named nobody
)

// Actor is who makes a change: a role and the id within it (a patient id,
// a staff user name, a job's kind).
type Actor struct {
	Role string `json:"role"`
	ID   string `json:"id"`
	// Sites are the sites a staff caller is limited to (staffsites.go),
	// empty for every site; the Service fills them (never a token), and
	// the audit log keeps role and id only.
	Sites []int64 `json:"-"`
}

type actorKey struct{}

// WithActor returns ctx carrying a, for every change made under it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf returns the actor ctx carries, or the system actor: a change is
// never recorded as made by nobody.
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a.Role != "" {
		return a
	}
	return Actor{Role: ActorSystem, ID: "-"}
}

// Audited entities.
const (
	EntityAppointment = "appointment"
	EntitySlot        = "slot"
	EntityPayment     = "payment"
	EntityRefund      = "refund"
	EntitySuspension  = "suspension"
	EntityDepartment  = "department"
	EntityDoctor      = "doctor"
	EntityPatient     = "patient"
	EntitySchedule    = "schedule"
	EntityRoom        = "room"
	EntityRound       = "round"
	EntityApplication = "application"
	EntityWaitlist    = "waitlist"
	EntityService     = "service"
	EntityDoseSeries  = "dose-series"
	EntitySite        = "site"
	// A campaign's rule (by schedule id), a cohort import and an
	// invitation batch (by schedule id): eligibility.go.
	EntityEligibility = "eligibility-rule"
	EntityCohorts     = "cohort-import"
	EntityInvitations = "invitations"
	// A service's rule (by service id): eligibility.go.
	EntityServiceEligibility = "service-eligibility-rule"
	// The sites a staff account is limited to (staffsites.go), by user
	// name: the entry's id is 0, its states name the user.
	EntityStaffSites = "staff-sites"
)

// AuditEntry is one recorded change. Before and After are JSON objects of
// ids and states ("" when the entity did not exist before or after).
type AuditEntry struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	ActorRole string    `json:"actorRole"`
	ActorID   string    `json:"actorId"`
	Entity    string    `json:"entity"`
	EntityID  int64     `json:"entityId"`
	Action    string    `json:"action"`
	Before    string    `json:"before,omitempty"`
	After     string    `json:"after,omitempty"`
	// patientID is the appointment's patient, kept in its own column so
	// that a patient's history is one index range (AuditPatient).
	patientID int64
}

// SeenByPatient is e as the appointment's patient sees it in their
// history: a patient's own change keeps its id, anyone else's shows only
// the role ("admin", "doctor", "system"), never a staff user name.
func (e AuditEntry) SeenByPatient() AuditEntry {
	if e.ActorRole != RolePatient {
		e.ActorID = ""
	}
	return e
}

// AuditChange is one change to record: the action done to the entity
// with id ID, and its state before and after (nil: absent).
type AuditChange struct {
	Entity        string
	ID            int64
	Action        string
	Before, After any
}

// Audit builds the entry of change c by ctx's actor at now; c's before and
// after are marshalled as JSON.
func Audit(ctx context.Context, now time.Time, c AuditChange) AuditEntry {
	return auditBy(ActorOf(ctx), now, c.Entity, c.ID, c.Action, c.Before, c.After)
}

func auditBy(a Actor, now time.Time, entity string, id int64, action string, before, after any) AuditEntry {
	return AuditEntry{At: now.UTC(), ActorRole: a.Role, ActorID: a.ID, Entity: entity, EntityID: id,
		Action: action, Before: stateJSON(before), After: stateJSON(after)}
}

func stateJSON(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// ApptState is what the log keeps of an appointment: ids and its state.
// An entry of an appointment is also its domain event (EventOf), so the
// state after carries what the event tells: a HELD place's deadline, and
// the suspension that cancelled it.
type ApptState struct {
	Status        Status     `json:"status"`
	SlotID        int64      `json:"slotId"`
	PatientID     int64      `json:"patientId"`
	HoldExpiresAt *time.Time `json:"holdExpiresAt,omitempty"`
	SuspensionID  int64      `json:"suspensionId,omitempty"`
}

// apptAfter is the state after of appointment a: its deadline only while
// it is HELD.
func apptAfter(a Appointment) ApptState {
	st := ApptState{Status: a.Status, SlotID: a.SlotID, PatientID: a.PatientID}
	if a.Status == StatusHeld && a.HoldExpiresAt != nil {
		t := a.HoldExpiresAt.UTC()
		st.HoldExpiresAt = &t
	}
	return st
}

// Appointment actions whose event is not told by the states alone
// (EventOf): an offer's HELD place, and a cancellation by a suspension.
const (
	AuditOffer            = "offer"
	AuditLeftoverOffer    = "leftover-offer"
	AuditSuspensionCancel = "cancel-suspension"
)

// AppointmentChange is an appointment moved by Action from state From to
// Appointment's state ("" From: it was created). SuspensionID names the
// suspension of an AuditSuspensionCancel.
type AppointmentChange struct {
	Action       string
	From         Status
	Appointment  Appointment
	SuspensionID int64
}

// AuditAppointment is the entry of appointment change c.
func AuditAppointment(ctx context.Context, now time.Time, c AppointmentChange) AuditEntry {
	e := auditAppointment(ActorOf(ctx), now, c.Action, c.From, c.Appointment)
	if c.SuspensionID != 0 {
		after := apptAfter(c.Appointment)
		after.SuspensionID = c.SuspensionID
		e.After = stateJSON(after)
	}
	return e
}

func auditAppointment(actor Actor, now time.Time, action string, from Status, a Appointment) AuditEntry {
	var before any
	if from != "" {
		before = ApptState{Status: from, SlotID: a.SlotID, PatientID: a.PatientID}
	}
	e := auditBy(actor, now, EntityAppointment, a.ID, action, before, apptAfter(a))
	e.patientID = a.PatientID
	return e
}

// AuditFilter selects audit entries: every set field must match; From and
// To bound At as [From, To). Entries come newest first, below BeforeID
// when set (the page cursor), at most Limit (1 to MaxAuditPage).
type AuditFilter struct {
	Entity    string
	EntityID  int64
	ActorRole string
	ActorID   string
	From, To  time.Time
	// PatientID selects the entries of that patient's appointments.
	PatientID int64
	BeforeID  int64
	Limit     int
}

// MaxAuditPage bounds one page of the audit log.
const MaxAuditPage = 500

// AuditLog is the store's side of the log: reading it. The rows are
// written by each change's own transaction.
type AuditLog interface {
	ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
}

// AuditEntries lists what a booking decision changed, once Finish has
// answered it: each new appointment, by the actor of its request, and each
// stale hold the reclaim expired (by the system, on the booking's behalf).
func (d *BookDecision) AuditEntries(results []BookResult) []AuditEntry {
	es := make([]AuditEntry, 0, len(d.Winners)+len(d.Stale))
	for _, w := range d.Winners {
		actor := d.reqs[w].Actor
		if actor.Role == "" {
			actor = ActorOf(context.Background())
		}
		es = append(es, auditAppointment(actor, d.now, "book", "", results[w].Appointment))
	}
	if d.Reclaim {
		sys := Actor{Role: ActorSystem, ID: "reclaim"}
		for _, h := range d.Stale {
			a := Appointment{ID: h.ID, SlotID: d.slot.ID, PatientID: h.PatientID, Status: StatusExpired}
			es = append(es, auditAppointment(sys, d.now, "expire", StatusHeld, a))
		}
	}
	return es
}

// AuditPatient is the patient an entry concerns (its appointment's
// patient), 0 for entries of other entities: a patient's history is read
// by it.
func AuditPatient(e AuditEntry) int64 { return e.patientID }

// slotState is what the log keeps of a slot.
type slotState struct {
	DoctorID int64  `json:"doctorId"`
	Capacity int    `json:"capacity"`
	Status   string `json:"status"`
}

// SlotAudit is the id and state of a created slot (createAudited's shape).
func SlotAudit(sl Slot) (int64, any) {
	return sl.ID, slotState{DoctorID: sl.DoctorID, Capacity: sl.Capacity, Status: sl.Status}
}

// SlotChange is a slot's capacity or status change: what they were before,
// and the slot after.
type SlotChange struct {
	CapacityBefore int
	StatusBefore   string
	After          Slot
}

// AuditSlotUpdate is the entry of slot change c.
func AuditSlotUpdate(ctx context.Context, now time.Time, c SlotChange) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntitySlot, ID: c.After.ID, Action: "update",
		Before: slotState{DoctorID: c.After.DoctorID, Capacity: c.CapacityBefore, Status: c.StatusBefore},
		After:  slotState{DoctorID: c.After.DoctorID, Capacity: c.After.Capacity, Status: c.After.Status}})
}

// AuditGeneration is the one entry of a generation that created n slots
// like first (of its schedule, or of its doctor when it has none).
func AuditGeneration(ctx context.Context, now time.Time, first Slot, n int) AuditEntry {
	entity, id := EntitySchedule, first.ScheduleID
	if id == 0 {
		entity, id = EntityDoctor, first.DoctorID
	}
	return Audit(ctx, now, AuditChange{Entity: entity, ID: id, Action: "generate-slots", After: map[string]any{"doctorId": first.DoctorID, "created": n}})
}

// The entries of the rounds' preparation and of a repair, for both stores.

// AuditRoomCreated records a new room.
func AuditRoomCreated(ctx context.Context, now time.Time, r Room) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityRoom, ID: r.ID, Action: "create", After: map[string]any{"beds": r.Beds}})
}

// AuditRoundCreated records a new DRAFT round.
func AuditRoundCreated(ctx context.Context, now time.Time, r Round) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityRound, ID: r.ID, Action: "create", After: map[string]any{"state": RoundDraft, "quota": r.Quota}})
}

// RoundStateChange is round RoundID moving from state From to state To.
type RoundStateChange struct {
	RoundID  int64
	From, To string
}

// AuditRoundState records round state change c.
func AuditRoundState(ctx context.Context, now time.Time, c RoundStateChange) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityRound, ID: c.RoundID, Action: "set-state",
		Before: map[string]any{"state": c.From}, After: map[string]any{"state": c.To}})
}

// AuditRegistration records a new registration in a round's lottery.
func AuditRegistration(ctx context.Context, now time.Time, g Registration) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityRound, ID: g.RoundID, Action: "register",
		After: map[string]any{"registrationId": g.ID, "patientId": g.PatientID}})
}

// AuditLotteryDrawn records the draw of a round's lottery among n registrants.
func AuditLotteryDrawn(ctx context.Context, now time.Time, roundID int64, n int) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityRound, ID: roundID, Action: "draw",
		After: map[string]any{"registrants": n, "algorithmVersion": DrawVersion}})
}

// AuditRoundSlots records the slots added to a round, one entry each.
func AuditRoundSlots(ctx context.Context, now time.Time, roundID int64, sls []Slot) []AuditEntry {
	es := make([]AuditEntry, len(sls))
	for i, sl := range sls {
		es[i] = Audit(ctx, now, AuditChange{Entity: EntitySlot, ID: sl.ID, Action: "add-to-round", After: map[string]any{"roundId": roundID, "roomId": sl.DoctorID, "capacity": sl.Capacity}})
	}
	return es
}

// AuditApplication records a submitted application.
func AuditApplication(ctx context.Context, now time.Time, a Application) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityApplication, ID: a.ID, Action: "submit",
		After: map[string]any{"roundId": a.RoundID, "slotId": a.SlotID, "patientId": a.PatientID, "status": a.Status}})
}

// AuditRepairs records the counters a repair set.
func AuditRepairs(ctx context.Context, now time.Time, rs []CounterRepair) []AuditEntry {
	es := make([]AuditEntry, len(rs))
	for i, r := range rs {
		es[i] = Audit(ctx, now, AuditChange{Entity: EntitySlot, ID: r.SlotID, Action: "repair-counter", Before: map[string]any{"bookedCount": r.From}, After: map[string]any{"bookedCount": r.To}})
	}
	return es
}

// waitlistState is what the log keeps of a waitlist entry.
type waitlistState struct {
	State         string `json:"state"`
	PatientID     int64  `json:"patientId"`
	AppointmentID int64  `json:"appointmentId,omitempty"`
}

// WaitlistChange is a waitlist entry moved by Action from state From to
// Entry's state ("" From: it was created).
type WaitlistChange struct {
	Action, From string
	Entry        WaitlistEntry
}

// AuditWaitlist is the entry of waitlist change c; it is in its patient's
// history.
func AuditWaitlist(ctx context.Context, now time.Time, c WaitlistChange) AuditEntry {
	e := c.Entry
	var before any
	if c.From != "" {
		before = waitlistState{State: c.From, PatientID: e.PatientID, AppointmentID: e.AppointmentID}
	}
	a := Audit(ctx, now, AuditChange{Entity: EntityWaitlist, ID: e.ID, Action: c.Action, Before: before,
		After: waitlistState{State: e.State, PatientID: e.PatientID, AppointmentID: e.AppointmentID}})
	a.patientID = e.PatientID
	return a
}

// AuditReschedule is the entry of appointment a moved from slot fromSlot
// to its current one.
func AuditReschedule(ctx context.Context, now time.Time, fromSlot int64, a Appointment) AuditEntry {
	e := Audit(ctx, now, AuditChange{Entity: EntityAppointment, ID: a.ID, Action: "reschedule",
		Before: ApptState{Status: a.Status, SlotID: fromSlot, PatientID: a.PatientID},
		After:  apptAfter(a)})
	e.patientID = a.PatientID
	return e
}

// AuditEndedEntries are the entries of the waiting entries ended (ids, read
// in waiting) by an offer run: their patient is served or the period passed.
func AuditEndedEntries(ctx context.Context, now time.Time, waiting []WaitlistEntry, ended []int64) []AuditEntry {
	var es []AuditEntry
	for _, id := range ended {
		for _, e := range waiting {
			if e.ID == id {
				e.State = EntryFulfilled
				es = append(es, AuditWaitlist(ctx, now, WaitlistChange{Action: "fulfil", From: EntryWaiting, Entry: e}))
			}
		}
	}
	return es
}

// AuditOpening records an announced opening of a schedule's slots.
func AuditOpening(ctx context.Context, now time.Time, o Opening) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntitySchedule, ID: o.ScheduleID, Action: "announce-opening",
		After: map[string]any{"openingId": o.ID, "opensAt": o.OpensAt, "seedCommitment": o.Commitment}})
}

// AuditOpeningDrawn records the draw of an opening's queue of n people.
func AuditOpeningDrawn(ctx context.Context, now time.Time, o Opening, n int) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntitySchedule, ID: o.ScheduleID, Action: "draw-opening",
		After: map[string]any{"openingId": o.ID, "queued": n, "algorithmVersion": DrawVersion}})
}
