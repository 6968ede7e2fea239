package booking

import "strings"

// The states as the stores' queries spell them. Each is an SQL string
// literal made from this package's constant by a constant expression, so a
// state is spelled once (its constant), every list of states once (here),
// and the stores' query strings stay constants. They are literals, not
// parameters, so that the planners match the partial indexes on them
// (appointments_held_idx is WHERE status = 'HELD'). The schemas' indexes,
// checks and triggers (the migrations) repeat them: a new state is a
// migration too.
const (
	// Appointment states (Status).
	StatusHeldSQL      = "'" + string(StatusHeld) + "'"
	StatusBookedSQL    = "'" + string(StatusBooked) + "'"
	StatusArrivedSQL   = "'" + string(StatusArrived) + "'"
	StatusCancelledSQL = "'" + string(StatusCancelled) + "'"
	StatusExpiredSQL   = "'" + string(StatusExpired) + "'"
	StatusNoShowSQL    = "'" + string(StatusNoShow) + "'"
	StatusCompletedSQL = "'" + string(StatusCompleted) + "'"

	// ActiveSQL is ActiveStatuses as an SQL list, for "status IN "+ActiveSQL
	// in every store's query that counts or finds the appointments that
	// occupy a place (a test keeps it equal to SQLList(ActiveStatuses)).
	ActiveSQL = "(" + StatusHeldSQL + ", " + StatusBookedSQL + ", " + StatusArrivedSQL + ")"

	// Slot states.
	SlotOpenSQL   = "'" + SlotOpen + "'"
	SlotClosedSQL = "'" + SlotClosed + "'"

	// Waiting-list entry states.
	EntryWaitingSQL   = "'" + EntryWaiting + "'"
	EntryOfferedSQL   = "'" + EntryOffered + "'"
	EntryFulfilledSQL = "'" + EntryFulfilled + "'"
	EntryAcceptedSQL  = "'" + EntryAccepted + "'"

	// LiveEntriesSQL is the live entry states (WaitlistEntry.Live) as an
	// SQL list (a test keeps the two equal).
	LiveEntriesSQL = "(" + EntryWaitingSQL + ", " + EntryOfferedSQL + ")"
)

// SQLList spells states as an SQL list literal: ('A', 'B'). The states are
// constants of this package, never input, so inlining them is safe, and the
// conditional updates take their WHERE status IN (...) from the transition
// table this way (Sources; see above for why a literal).
func SQLList(states []Status) string {
	q := make([]string, len(states))
	for i, st := range states {
		q[i] = "'" + string(st) + "'"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// HoldsDataSQL tells whether a database holds anything a clinic made (the
// catalogue, patients, staff users, schedules, slots or rounds): such a
// database is no demo's to fill (DecideDemo). Both stores ask it as is.
const HoldsDataSQL = `SELECT EXISTS (SELECT 1 FROM departments) OR EXISTS (SELECT 1 FROM resources)
	OR EXISTS (SELECT 1 FROM patients) OR EXISTS (SELECT 1 FROM staff_users)
	OR EXISTS (SELECT 1 FROM schedules) OR EXISTS (SELECT 1 FROM slots) OR EXISTS (SELECT 1 FROM rounds)`

// HoldingsSQL reads Holdings: the demo's marker, the patients not erased
// and the active appointments. Both stores ask it as is.
const HoldingsSQL = `SELECT EXISTS (SELECT 1 FROM clinic_settings WHERE name = '` + DemoSetting + `' AND value = 'true'),
	(SELECT COUNT(*) FROM patients WHERE erased_at IS NULL),
	(SELECT COUNT(*) FROM appointments WHERE status IN ` + ActiveSQL + `)`
