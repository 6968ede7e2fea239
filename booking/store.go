package booking

import (
	"context"
	"time"
)

// BookRequest is one patient's attempt to take a place in a slot.
type BookRequest struct {
	PatientID      int64
	IdempotencyKey string
	// Fingerprint is the canonical form of the request body. A request with
	// a known key but another fingerprint is refused (idempotency-key-reused).
	Fingerprint string
	// SlotID is the slot asked for. Book is given it apart (a batch is for
	// one slot); FindByKeys uses it to find the patient's place there.
	SlotID int64
	// Actor is who asked (the patient, or staff acting for one), for the
	// audit log; the Service sets it from the request's context.
	Actor Actor
	// Staff says staff book for the patient: the no-show block does not
	// apply (the caps do).
	Staff bool
	// Admission is the opening whose waiting room admitted the patient (a
	// token the Service verified), 0 for none.
	Admission int64
	// Group marks the requests of one group booking (Group.Requests): a
	// batch of them is decided all or nothing, on consecutive numbers.
	Group bool
	// Invitation is the invitation code presented (eligibility.go), ""
	// for none; used only where the slot's rule asks for one.
	Invitation string
	// LaterDose is a series' dose after the first: the series was let in
	// by its first dose's invitation, so a later one needs none and uses
	// none, and may take the places reserved for invitations.
	LaterDose bool
}

// BookResult answers one BookRequest: an appointment, or Err (an *Error
// with the reason). Replayed says the appointment was made earlier by a
// request with the same patient and key. SlotFull says the decision that
// made the appointment left the slot no place for anyone (never said
// behind a waiting room or in a round): the gates can refuse the next
// request without asking the database again.
type BookResult struct {
	Appointment Appointment
	Replayed    bool
	SlotFull    bool
	Err         error
}

// SlotUpdate changes a slot; nil fields stay as they are.
type SlotUpdate struct {
	Capacity *int
	Status   *string
}

// Store is what the domain needs from a database: the topic interfaces
// below, composed. postgres and sqlite implement it and storetest holds
// both to the same behaviour; a consumer that needs one topic takes that
// interface, not the whole Store.
//
// Every method owns its transaction. Errors are *Error for conditions the
// caller can act on (not found, conflicts), errors wrapping ErrUnavailable
// when the database cannot be reached, and anything else is internal.
type Store interface {
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the connections.
	Close() error

	CatalogStore
	BookingStore
	LifecycleStore
	WaitlistStore
	StandbyStore
	RoundStore
	ClinicStore
	// AuditLog reads the audit log; every change writes its rows in its
	// own transaction, with the actor of its context (ActorOf).
	AuditLog
	// PatientStore exports and erases a patient's personal data.
	PatientStore
	// PeopleStore keeps the people an account manages.
	PeopleStore
	// MarkStore keeps the revocation marks of tokens.
	MarkStore
	// MessageStore keeps the delivery records of messages to patients.
	MessageStore
	DemoStore
	RefundStore
	LotteryStore
	QueueStore
	OpeningStore
	ServiceStore
	SiteStore
	ProfileStore
	SearchStore
	SeriesStore
	EligibilityStore
	ServiceEligibilityStore
	GroupStore
}

// QueueRange is one doctor's local day: its date and its bounds [From, To).
type QueueRange struct {
	DoctorID int64
	Day      string
	From, To time.Time
}

// QueueStore keeps the doctors' queues (booking/queue.go). Every change
// locks the doctor's day, so that two consoles decide one at a time.
type QueueStore interface {
	// CallNext calls the next patient of the doctor's day as DecideCall
	// decides under the clinic's policy, in one transaction: the current
	// call not started is passed as skipped, steps of appointments no
	// longer ARRIVED are closed; audited. It answers the call and the
	// day as it is after it.
	CallNext(ctx context.Context, r QueueRange, now time.Time) (QueueCall, QueueDay, error)
	// StepQueue recalls, skips or starts the doctor's current call as
	// DecideQueueStep decides, with the appointment's day (its local date
	// in its doctor's zone) locked; audited.
	StepQueue(ctx context.Context, s QueueStep, now time.Time) (QueueEntry, error)
	// QueueDay reads the doctor's day: its ARRIVED appointments with their
	// steps, the steps left by those no longer ARRIVED, and the lengths of
	// its latest completed consultations (QueueDay.Done); no names.
	QueueDay(ctx context.Context, r QueueRange) (QueueDay, error)
}

// DemoStore keeps the marker of a database the demo filled.
type DemoStore interface {
	// ClaimDemo decides, in one transaction, whether `serve --demo` may
	// use the database (DecideDemo): it writes the DemoSetting marker on
	// an empty database and answers fill true (load the sample); it
	// answers false on one already marked (so does the loser of two
	// starts racing for an empty one), and refuses a database holding
	// anything else with CodeConflict, marking nothing.
	ClaimDemo(ctx context.Context) (fill bool, err error)
	// Holdings reads whether the database is the demo's and how many
	// patients and active appointments it holds (HoldingsSQL).
	Holdings(ctx context.Context) (Holdings, error)
}

// CatalogStore holds the clinic's departments, doctors, patients,
// schedules and slots.
type CatalogStore interface {
	CreateDepartment(ctx context.Context, d Department) (Department, error)
	// ListDepartments lists the departments that offer something, those
	// with at least one active doctor, by id, one Page at a time: what
	// patients and the public API see (a department whose doctors all left,
	// or that has none yet, is a dead end for a patient).
	ListDepartments(ctx context.Context, p Page) ([]Department, error)
	// ListAllDepartments is ListDepartments with the empty ones too: staff
	// must see a new department to add its first doctor.
	ListAllDepartments(ctx context.Context, p Page) ([]Department, error)
	// ListDepartmentsBy lists the departments f selects, by id, one Page
	// at a time.
	ListDepartmentsBy(ctx context.Context, f DepartmentFilter, p Page) ([]Department, error)
	CreateDoctor(ctx context.Context, d Doctor) (Doctor, error)
	GetDoctor(ctx context.Context, id int64) (Doctor, error)
	// ListDoctors lists the active doctors of a department, or all with
	// departmentID 0, by id, one Page at a time: what patients, generation
	// and the public API see.
	ListDoctors(ctx context.Context, departmentID int64, p Page) ([]Doctor, error)
	// ListAllDoctors is ListDoctors with the deactivated ones too: staff
	// must see them to reactivate them, and their appointments remain.
	ListAllDoctors(ctx context.Context, departmentID int64, p Page) ([]Doctor, error)
	// ListDoctorsBy lists the doctors f selects, by id, one Page at a time.
	ListDoctorsBy(ctx context.Context, f DoctorFilter, p Page) ([]Doctor, error)
	CreatePatient(ctx context.Context, p Patient) (Patient, error)
	GetPatient(ctx context.Context, id int64) (Patient, error)
	// GetPatients reads the patients of ids (at most MaxDeliveryKeys)
	// that exist, by id: a notification batch's, in one read.
	GetPatients(ctx context.Context, ids []int64) (map[int64]Patient, error)
	CreateSchedule(ctx context.Context, s Schedule) (Schedule, error)
	// ListSchedules lists a doctor's schedules, or all with doctorID 0.
	ListSchedules(ctx context.Context, doctorID int64) ([]Schedule, error)
	// MarkGenerated records that schedule id's slots exist through the
	// local day through ("YYYY-MM-DD"); a missing schedule is not an error.
	MarkGenerated(ctx context.Context, id int64, through string) error

	// InsertSlots adds the slots whose (doctor, start) does not exist yet and
	// reports how many it created; running it twice adds nothing.
	InsertSlots(ctx context.Context, slots []Slot) (created int, err error)
	// CreateSlot adds one slot; an existing (doctor, start) is a conflict.
	CreateSlot(ctx context.Context, s Slot) (Slot, error)
	GetSlot(ctx context.Context, id int64) (Slot, error)
	// ListSlots lists a doctor's slots starting in [from, to), by start.
	ListSlots(ctx context.Context, doctorID int64, from, to time.Time) ([]Slot, error)
	// ListSlotsPage lists one page of a doctor's slots (SlotPage): by
	// (start, id), after the cursor, at most the limit; a page refused by
	// SlotPage.Validate is invalid-request.
	ListSlotsPage(ctx context.Context, p SlotPage) ([]Slot, error)
	// UpdateSlot changes capacity (never below the places taken) or status.
	UpdateSlot(ctx context.Context, id int64, u SlotUpdate) (Slot, error)
}

// BookingStore takes, moves, gives back and finds places.
type BookingStore interface {
	// Book decides reqs, all for one slot, in one transaction and answers
	// them in order, as DecideBooking decides from the store's reads under
	// the slot's lock. The capacity decision is performed as a conditional
	// update of the slot's counter; the schema's constraints are the last
	// line of defence, and a request they refuse is answered by the
	// constraint that fired (DecideAlone, ConstraintError).
	// The returned error is for failures of the whole batch (database down).
	Book(ctx context.Context, slotID int64, reqs []BookRequest, now time.Time) ([]BookResult, error)
	// Cancel moves an active appointment to CANCELLED and releases its place,
	// once. Cancelling a cancelled appointment returns it unchanged. With
	// patientID != 0 only that patient's appointment is found.
	Cancel(ctx context.Context, appointmentID, patientID int64, now time.Time) (Appointment, error)
	// CancelErased cancels an active appointment of a patient being
	// erased, as staff would (no cutoff), its payment refunded in full
	// (RefundErasure); otherwise as Cancel.
	CancelErased(ctx context.Context, appointmentID int64, now time.Time) (Appointment, error)
	// StatementRecords lists the money recorded in [from, to): payments
	// received and refunds paid back (at most MaxStatementLines), oldest
	// first, for a day's reconciliation against the provider's statement.
	StatementRecords(ctx context.Context, from, to time.Time) ([]StatementLine, error)
	// Reschedule moves an active appointment to another slot in one
	// transaction, as DecideReschedule decides under the locks of both
	// slots (in id order): the new place is taken before the old one is
	// released, and one NotifyRescheduled is enqueued. The same (patient,
	// key) again returns the moved appointment as Replayed.
	Reschedule(ctx context.Context, r RescheduleRequest, now time.Time) (RescheduleResult, error)
	GetAppointment(ctx context.Context, id int64) (Appointment, error)
	// GetAppointments reads the appointments of ids (at most
	// MaxDeliveryKeys) that exist, by id: a notification batch's, in one
	// read.
	GetAppointments(ctx context.Context, ids []int64) (map[int64]Appointment, error)
	// FindByKey returns the appointment a patient's Idempotency-Key made, or
	// not found. It is a read: it takes no lock.
	FindByKey(ctx context.Context, patientID int64, key string) (Appointment, error)
	// FindByKeys returns the appointments made by any of the requests'
	// (patient, Idempotency-Key) pairs and the active appointments each
	// request's patient holds in its SlotID, in one read: the gates confirm
	// their refusals with it, many at a time (a retry replays, a holder is
	// told already-booked).
	FindByKeys(ctx context.Context, reqs []BookRequest) ([]Appointment, error)
	// ListAppointments lists q.PatientID's appointments, newest first,
	// optionally only those in one state and on some sites, one Page at a
	// time (After is an id above those of the page: ids descend).
	ListAppointments(ctx context.Context, q AppointmentQuery) ([]Appointment, error)
	// ListAccountAppointments is ListAppointments of an account and every
	// person it manages (people.go) together.
	ListAccountAppointments(ctx context.Context, account int64, status Status, p Page) ([]Appointment, error)
}

// LifecycleStore moves appointments through the rest of their life:
// payments, expiry, staff transitions, suspensions, reconciliation and
// reminders.
type LifecycleStore interface {
	// ConfirmPayment records a provider's payment for a HELD appointment and
	// books it when the hold is still running and the amount matches, as
	// DecidePayment decides; a known trade number for the same payment
	// changes nothing (Duplicate), for another appointment or amount it is
	// kept for reconciliation and answered CodePaymentConflict. A payment
	// that cannot be applied is recorded as needing a refund and also
	// answered with CodePaymentRejected. See docs/contracts/lifecycle.md.
	ConfirmPayment(ctx context.Context, p Payment, now time.Time) (PaymentResult, error)
	// ExpireHolds expires up to limit HELD appointments past their deadline,
	// oldest first, releasing each place once; safe from several processes.
	// None expired (also for limit <= 0) is an empty list, not nil.
	ExpireHolds(ctx context.Context, now time.Time, limit int) ([]Appointment, error)
	// Transition moves an appointment to COMPLETED or NO_SHOW for staff;
	// repeating it changes nothing.
	Transition(ctx context.Context, appointmentID int64, to Status, now time.Time) (Appointment, error)
	// CheckIn moves a BOOKED appointment to ARRIVED as DecideCheckIn
	// decides under the clinic's policy; one already ARRIVED is answered
	// as it is with repeat set, and nothing changes.
	CheckIn(ctx context.Context, r CheckInRequest, now time.Time) (a Appointment, repeat bool, err error)
	// WalkIn adds walk-in r to its full slot as DecideWalkIn decides under
	// the clinic's policy: one BOOKED place beyond the capacity, marked
	// walk-in, audited. replay says r's key made it already (nothing
	// changes).
	WalkIn(ctx context.Context, r WalkInRequest, now time.Time) (a Appointment, replay bool, err error)
	// ArrivalCandidates lists up to limit BOOKED and ARRIVED appointments
	// of ordinary slots starting in [from, to], by start then id: those a
	// kiosk's check-in code may name.
	ArrivalCandidates(ctx context.Context, from, to time.Time, limit int) ([]Appointment, error)
	// MarkNoShows makes up to limit BOOKED appointments NO_SHOW whose
	// start is the clinic policy's grace past at now (Policy.AutoNoShow),
	// oldest first, releasing each place once; none (also with the grace
	// off) is an empty list.
	MarkNoShows(ctx context.Context, now time.Time, limit int) ([]Appointment, error)
	// Suspend closes a doctor's slots in a period and cancels their active
	// appointments, notifying each patient once; repeating it changes nothing.
	Suspend(ctx context.Context, s Suspension, now time.Time) (SuspensionResult, error)
	GetSuspension(ctx context.Context, id int64) (Suspension, error)
	// Reconcile reports the invariant breaches (docs/reliability.md, "Invariants") and, with repair,
	// sets counters from the rows.
	Reconcile(ctx context.Context, now time.Time, repair bool) (Reconciliation, error)
	// MarkRefunded settles a needs-refund payment with the provider's
	// refund reference. Repeating it with the same reference returns the
	// payment unchanged; another reference, or a payment that needs no
	// refund, is CodeInvalidTransition; an unknown trade is not found.
	MarkRefunded(ctx context.Context, tradeNo, ref string, now time.Time) (Payment, error)
	// RecordReconcileRun keeps a scheduled reconciliation's verdict (the
	// newest KeptReconcileRuns of them); LastReconcileRun returns the newest
	// (not found before the first).
	RecordReconcileRun(ctx context.Context, run ReconcileRun) error
	LastReconcileRun(ctx context.Context) (ReconcileRun, error)
	// SendReminders records, for up to limit BOOKED appointments starting
	// within the largest offset, the offsets whose time has come, as
	// DecideReminder decides (defaults, or the schedule's own), and
	// enqueues one NotifyReminder per offset sent (Ref: its minutes) in the
	// same transaction; a recorded offset is never sent again. It reports
	// the messages enqueued and the offsets passed over.
	SendReminders(ctx context.Context, defaults []time.Duration, now time.Time, limit int) (ReminderScan, error)
}

// StandbyStore keeps the standbys for leftover doses (standby.go); a
// standby is a waitlist entry (WaitlistStore.JoinWaitlist with SiteID,
// answered and left as any entry).
type StandbyStore interface {
	// StandbyPolicy reads a site's leftover policy (the default when none
	// is written); not found for a missing site.
	StandbyPolicy(ctx context.Context, siteID int64) (StandbyPolicy, error)
	// SetStandbyPolicy writes it, audited.
	SetStandbyPolicy(ctx context.Context, p StandbyPolicy, now time.Time) (StandbyPolicy, error)
	// LeftoverSlots lists up to limit slots whose places left may be
	// offered at now (candidates: DecideLeftovers decides).
	LeftoverSlots(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// OfferLeftovers offers a slot's places left to the site's standbys
	// under the slot's lock (DecideLeftovers), one HELD appointment each.
	OfferLeftovers(ctx context.Context, slotID int64, now time.Time) ([]Appointment, error)
	// StandbyDay counts a site's standbys for the day [from, to).
	StandbyDay(ctx context.Context, siteID int64, from, to time.Time) (StandbyDay, error)
}

// WaitlistStore keeps the waitlist (booking/waitlist.go). Every
// transaction that releases places (Cancel, ExpireHolds, Reschedule, a
// capacity raised in UpdateSlot, a declined offer) keeps those that
// waiting entries match as offer_pending (ToReserve) and enqueues
// NotifyOfferDue for the slot.
type WaitlistStore interface {
	// JoinWaitlist adds a WAITING entry with its position; the same
	// (patient, key) returns the existing one with existed set.
	JoinWaitlist(ctx context.Context, e WaitlistEntry, now time.Time) (entry WaitlistEntry, existed bool, err error)
	// ListWaitlist lists a patient's entries, newest first, with positions.
	ListWaitlist(ctx context.Context, patientID int64) ([]WaitlistEntry, error)
	// ListOffers lists the OFFERED entries of a doctor's slots starting in
	// [from, to), by slot start.
	ListOffers(ctx context.Context, doctorID int64, from, to time.Time) ([]WaitlistEntry, error)
	// LeaveWaitlist cancels a patient's live entry, declining its offer.
	LeaveWaitlist(ctx context.Context, id, patientID int64, now time.Time) (WaitlistEntry, error)
	// AnswerOffer accepts or declines an entry's running offer (DecideAnswer).
	AnswerOffer(ctx context.Context, ans OfferAnswer, now time.Time) (WaitlistEntry, Appointment, error)
	// MakeOffers turns a slot's pending places into HELD offers for the
	// earliest matching entries (DecideOffers) under the slot's lock, and
	// returns the rest to open booking; repeating it changes nothing.
	MakeOffers(ctx context.Context, slotID int64, now time.Time) ([]Appointment, error)
	// WaitlistCounts counts the live waitlist entries by state (WAITING,
	// OFFERED), for the metrics.
	WaitlistCounts(ctx context.Context) (map[string]int, error)
}

// RoundStore keeps rooms, rounds and their applications
// (docs/contracts/rounds.md). A round's slots are booked through Book like
// any other, which adds the round's clock and the patient's quota to the
// decision.
type RoundStore interface {
	// CreateRoom adds a room resource with its attributes.
	CreateRoom(ctx context.Context, r Room) (Room, error)
	// ListRooms lists the rooms passing f, by id.
	ListRooms(ctx context.Context, f RoomFilter) ([]Room, error)
	// CreateRound adds a DRAFT round (quota 0 means DefaultRoundQuota).
	CreateRound(ctx context.Context, r Round) (Round, error)
	GetRound(ctx context.Context, id int64) (Round, error)
	// SetRoundState moves a round DRAFT→OPEN, OPEN→CLOSED or DRAFT→CLOSED;
	// the same state changes nothing; anything else is
	// CodeInvalidTransition (see RoundTransition).
	SetRoundState(ctx context.Context, id int64, state string, now time.Time) (Round, error)
	// AddRoundSlots adds one slot per room to a DRAFT round: the room as
	// resource, the term as start and end, the room's beds as capacity,
	// the round's OpensAt, no fee. A room already in the round is a
	// conflict (and nothing is added); a round no longer DRAFT is
	// CodeInvalidTransition.
	AddRoundSlots(ctx context.Context, roundID int64, roomIDs []int64) ([]Slot, error)
	// ListRoundSlots lists the round's slots whose room passes f, by slot id.
	ListRoundSlots(ctx context.Context, roundID int64, f RoomFilter) ([]RoundSlot, error)
	// SubmitApplication stores a PENDING application durably (Prefer:
	// respond-async). The same patient and IdempotencyKey return the
	// existing application with existed set (CodeKeyReused when its
	// Fingerprint differs). A slot not in the round is not found.
	SubmitApplication(ctx context.Context, a Application, now time.Time) (app Application, existed bool, err error)
	GetApplication(ctx context.Context, id int64) (Application, error)
	// DecidePending decides up to limit of the round's PENDING
	// applications, oldest first, in ONE transaction holding the round's
	// lock, through the booking decision of Book (consecutive applications
	// for one slot as one batch), and returns them decided. Concurrent
	// calls for one round serialize, so applications are decided in
	// arrival order.
	DecidePending(ctx context.Context, roundID int64, limit int, now time.Time) ([]Application, error)
	// ListApplications lists a round's applications in one status, a page
	// at a time by id (the staff's refusals of a round).
	ListApplications(ctx context.Context, q ApplicationQuery) ([]Application, error)
	// PendingRounds lists the ids of rounds with PENDING applications, for
	// the processor's periodic sweep.
	PendingRounds(ctx context.Context) ([]int64, error)
	// RoundResults lists the active appointments of the round's slots with
	// patient and room, by room name then bed.
	RoundResults(ctx context.Context, roundID int64) ([]Allocation, error)
}

// LotteryStore keeps lottery rounds' registrations and draws (docs/clinic.md,
// "Lottery rounds"). A lottery round is created by CreateRound with its
// Lottery (and seed) set.
type LotteryStore interface {
	// Register registers patientID in the round's lottery, refused by
	// RegistrationRefusal. A second registration of the same patient
	// returns the first with existed set and changes nothing.
	Register(ctx context.Context, roundID, patientID int64, now time.Time) (r Registration, existed bool, err error)
	// Registration returns patientID's registration in the round (not
	// found when there is none).
	Registration(ctx context.Context, roundID, patientID int64) (Registration, error)
	// ListRegistrations lists the round's registrations with an id above
	// afterID, by id, at most limit.
	ListRegistrations(ctx context.Context, roundID, afterID int64, limit int) ([]Registration, error)
	// DrawLottery runs the round's draw in ONE transaction holding the
	// round's lock: it orders the registrations by DrawOrder, writes each
	// one's position and selection time and the round's drawn_at. A round
	// already drawn is returned as drawn (drew false) and nothing changes;
	// before the registration closes it is refused by DrawReady.
	DrawLottery(ctx context.Context, roundID int64, now time.Time) (d Draw, drew bool, err error)
	// GetDraw returns the round's published draw; CodeNotOpenYet (with
	// the registration's close) before it ran.
	GetDraw(ctx context.Context, roundID int64) (Draw, error)
	// LotteriesDue lists the lottery rounds whose registration has closed
	// at now and that are not drawn yet, for the round processor's sweep.
	LotteriesDue(ctx context.Context, now time.Time) ([]int64, error)
}

// ClinicStore is what running a clinic needs of a store beyond booking:
// editing, schedules' end and policies, closures.
type ClinicStore interface {
	UpdateDepartment(ctx context.Context, d Department) (Department, error)
	UpdateDoctor(ctx context.Context, id int64, u DoctorUpdate) (Doctor, error)
	UpdatePatient(ctx context.Context, id int64, u PatientUpdate) (Patient, error)
	GetSchedule(ctx context.Context, id int64) (Schedule, error)
	// UpdateSchedule replaces a schedule's pattern, end and policy, refusing
	// an overlap with another of the doctor's schedules (ScheduleOverlap),
	// as CreateSchedule does.
	UpdateSchedule(ctx context.Context, sc Schedule) (Schedule, error)
	// DeleteFreeSlots deletes the schedule's slots starting at or after
	// from that no appointment ever named, and reports how many.
	DeleteFreeSlots(ctx context.Context, scheduleID int64, from time.Time) (int, error)
	ClinicPolicy(ctx context.Context) (Policy, error)
	SetClinicPolicy(ctx context.Context, p Policy) (Policy, error)
	// ListSuspensions lists suspensions and closures, newest first (only
	// standing ones with standing).
	ListSuspensions(ctx context.Context, standing bool) ([]Suspension, error)
	// LiftSuspension lifts a standing suspension and reopens the slots it
	// closed, except those another standing one covers (they pass to it).
	LiftSuspension(ctx context.Context, id int64, now time.Time) (LiftResult, error)
}

// OpeningStore keeps announced openings and their waiting rooms' queues
// (opening.go). The booking decision finds a slot's opening with its
// policy (BookReads.OpeningID).
type OpeningStore interface {
	// CreateOpening announces o (Validate first): not found for an unknown
	// schedule, invalid-request when none of its slots opens at o.OpensAt,
	// conflict when that opening is announced already.
	CreateOpening(ctx context.Context, o Opening, now time.Time) (Opening, error)
	// GetOpening returns an opening with its Queued count.
	GetOpening(ctx context.Context, id int64) (Opening, error)
	// ListOpenings lists the openings with an id above afterID, by id, at
	// most limit.
	ListOpenings(ctx context.Context, afterID int64, limit int) ([]Opening, error)
	// JoinOpening gives patientID a place in the opening's queue, drawing
	// the pre-queue first when DrawDue: one entry per person (a second
	// join returns the first with existed set and changes nothing), a
	// position at once after the draw (the next after the last).
	JoinOpening(ctx context.Context, openingID, patientID int64, now time.Time) (e OpeningEntry, o Opening, existed bool, err error)
	// OpeningEntry returns patientID's entry in the opening's queue (not
	// found when there is none) with the opening.
	OpeningEntry(ctx context.Context, openingID, patientID int64) (OpeningEntry, Opening, error)
	// DrawOpening orders the opening's queue by QueueOrder in ONE
	// transaction, once, when DrawDue at now (drew false otherwise, and
	// nothing changes).
	DrawOpening(ctx context.Context, openingID int64, now time.Time) (o Opening, drew bool, err error)
	// AdmitOpening admits up to r.Budget more positions (Opening.Admit,
	// with the OpeningRoom read in one statement, r.TTL deciding who
	// still holds a place) and stamps their entries' AdmittedAt, unless
	// the opening was admitted less than AdmitTick before r.Now (by
	// another instance: the instances together admit at one rate).
	AdmitOpening(ctx context.Context, r AdmitRequest) (Opening, error)
	// OpeningsDue lists the openings at or after their OpensAt (within
	// AdmitHorizon) not yet drawn, or not wholly admitted while a slot of
	// theirs has a free place.
	OpeningsDue(ctx context.Context, now time.Time) ([]int64, error)
	// OpeningFacts reads what the opening's fairness report needs: its
	// slots' places and sales, and the places its queue's people took.
	OpeningFacts(ctx context.Context, openingID int64) (OpeningFacts, error)
	// OpeningDraw returns the published draw of the opening's pre-queue
	// (OpeningDraw of opening.go); CodeNotOpenYet before it ran.
	OpeningDraw(ctx context.Context, openingID int64) (Draw, error)
}
