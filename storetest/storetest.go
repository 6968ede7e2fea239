// Package storetest is the conformance suite every booking.Store runs: the
// same semantics, races and invariants on PostgreSQL and SQLite. A store's
// own test file calls Run with a Harness; nothing here mocks a database.
package storetest

import (
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// Harness gives the suite stores to test.
type Harness struct {
	// New returns a store on a fresh, empty, migrated database of its own;
	// it registers its own cleanup with t.
	New func(t testing.TB) booking.Store
	// NewRacy returns a store like New whose Book deliberately reads then
	// writes (no lock, absolute counter write). The suite runs its stress
	// test against it and expects to catch it; nil skips that proof.
	NewRacy func(t testing.TB) booking.Store
	// Inspect reads a store's rows directly, bypassing the Store interface.
	Inspect func(t testing.TB, s booking.Store) Inspector
	// Keyed returns a store like New's opened with keys, and restart,
	// which starts another process's store on the same database with
	// other keys: it migrates as a start does (and so checks the keys,
	// pii.CheckKeys) and closes it. nil skips the data-key test.
	Keyed func(t testing.TB, keys *pii.Keys) (s booking.Store, restart func(keys *pii.Keys) error)
}

// Inspector reads the raw rows of a store for invariant checks.
type Inspector interface {
	// SlotCounters returns slot id → [capacity plus walk-in allowance,
	// booked_count] for every slot, booked_count less the places no active appointment row of the
	// slot stands for (waitlist offers kept, active visits' further places).
	SlotCounters(t testing.TB) map[int64][2]int
	// ActiveAppointments returns every active (booking.ActiveStatuses) appointment.
	ActiveAppointments(t testing.TB) []booking.Appointment
	// Notifications returns every notification committed to the outbox the
	// harness opened the store with (its Enqueue option), in insertion order.
	Notifications(t testing.TB) []booking.Notification
	// SetRoundQuotaUsed overwrites round_quotas.used of (round, patient),
	// bypassing every rule, to corrupt it on purpose.
	SetRoundQuotaUsed(t testing.TB, roundID, patientID int64, used int)
	// PatientBytes returns the raw bytes of every column of every patient
	// row, for the proof that no personal value is kept in plain.
	PatientBytes(t testing.TB) []byte
	// SetBookedCount overwrites a slot's counter, bypassing every rule, to
	// corrupt it on purpose.
	SetBookedCount(t testing.TB, slotID int64, n int)
	// ClearNameIndexes forgets every patient's name index, as the rows
	// from before migration 00031 have none.
	ClearNameIndexes(t testing.TB)
	// BlockSlot makes the database hang for a booking of slotID: another
	// connection holds the lock the booking needs (the slot's row, or the
	// database's write lock) until release is called.
	BlockSlot(t testing.TB, slotID int64) (release func())
	// LoginCodes counts the rows of login_codes, every phone's.
	LoginCodes(t testing.TB) int
	// DeleteRefunds deletes every refund row, bypassing every rule, to
	// lose them on purpose.
	DeleteRefunds(t testing.TB)
	// SetRefundAmount overwrites a refund's amount, bypassing the Store,
	// and answers the database's refusal.
	SetRefundAmount(t testing.TB, refundID, cents int64) error
}

// Run runs the whole suite against h.
func Run(t *testing.T, h Harness) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"Catalog", testCatalog},
		{"Services", testServices},
		{"Sites", testSites},
		{"Profiles", testProfiles},
		{"ConsultingRoom", testConsultingRoom},
		{"Search", testSearch},
		{"Visit", testVisit},
		{"VisitRefusals", testVisitRefusals},
		{"VisitHeldExpires", testVisitHeldExpires},
		{"RaceVisits", testRaceVisits},
		{"VisitReschedule", testVisitReschedule},
		{"RaceVisitReschedule", testRaceVisitReschedule},
		{"ListOpenSlots", testListOpenSlots},
		{"People", testPeople},
		{"RaceAddPeople", testRaceAddPeople},
		{"BookForPerson", testBookForPerson},
		{"PersonMoves", testPersonMoves},
		{"RealName", testRealName},
		{"RacePeopleLastPlace", testRacePeopleLastPlace},
		{"WalkIns", testWalkIns},
		{"WalkInService", testWalkInService},
		{"RaceWalkIns", testRaceWalkIns},
		{"WalkInAfterCancel", testWalkInAfterCancel},
		{"AuditEveryChange", testAuditEveryChange},
		{"AuditLog", testAuditLog},
		{"Refunds", testRefunds},
		{"RefundOnCancel", testRefundOnCancel},
		{"RaceCancelRefund", testRaceCancelRefund},
		{"EraseRefunds", testEraseRefunds},
		{"RaceCancelPay", testRaceCancelPay},
		{"SuspendRefunds", testSuspendRefunds},
		{"RefundSettle", testRefundSettle},
		{"LostRefund", testLostRefund},
		{"PaymentRefunds", testPaymentRefunds},
		{"ScheduleRefundRule", testScheduleRefundRule},
		{"Slots", testSlots},
		{"SlotsPage", testSlotsPage},
		{"BookBasics", testBookBasics},
		{"BookRefusals", testBookRefusals},
		{"BatchInOrder", testBatchInOrder},
		{"HeldWhenFee", testHeldWhenFee},
		{"QueueNumbersReuseLowest", testQueueNumbers},
		{"Overlap", testOverlap},
		{"IdempotencyAcrossPatients", testIdempotencyAcrossPatients},
		{"Cancel", testCancel},
		{"ListAppointments", testListAppointments},
		{"ListPages", testListPages},
		{"RaceCapacityOne", testRaceCapacityOne},
		{"RaceCapacityTen", testRaceCapacityTen},
		{"RaceBatchesCapacityTen", testRaceBatches},
		{"RaceSameKey", testRaceSameKey},
		{"RaceSameKeyTwoSlots", testRaceSameKeyTwoSlots},
		{"RaceOverlapTwoDoctors", testRaceOverlap},
		{"RaceDoubleCancel", testRaceDoubleCancel},
		{"Reschedule", testReschedule},
		{"RescheduleFeeAndOverlap", testRescheduleFeeAndOverlap},
		{"RaceRescheduleLastPlace", testRaceRescheduleLastPlace},
		{"RaceRescheduleCrossed", testRaceRescheduleCrossed},
		{"Series", testSeries},
		{"RaceSeries", testRaceSeries},
		{"SeriesBatch", testSeriesBatch},
		{"RaceSeriesBatch", testRaceSeriesBatch},
		{"NextDose", testNextDose},
		{"RaceNextDose", testRaceNextDose},
		{"Group", testGroup},
		{"RaceGroup", testRaceGroup},
		{"Eligibility", testEligibility},
		{"ListingForPerson", testListingForPerson},
		{"RaceEligibility", testRaceEligibility},
		{"ServiceEligibility", testServiceEligibility},
		{"RaceServiceEligibility", testRaceServiceEligibility},
		{"RaceInvitation", testRaceInvitation},
		{"InvitedSeries", testInvitedSeries},
		{"WaitlistOffers", testWaitlistOffers},
		{"StaleOfferNotReclaimed", testStaleOfferNotReclaimed},
		{"WaitlistReleaseAndLeave", testWaitlistReleaseAndLeave},
		{"WaitlistParty", testWaitlistParty},
		{"WaitlistPartyRace", testWaitlistPartyRace},
		{"JoinReplay", testJoinReplay},
		{"LeaveWaitlist", testLeaveWaitlist},
		{"LeftoverStandby", testLeftoverStandby},
		{"Reminders", testReminders},
		{"ServiceEngines", testServiceEngines},
		{"ServiceGates", testServiceGates},
		{"ServiceGatesAnswerTheQueue", testServiceGatesAnswerTheQueue},
		{"ServicePeers", testServicePeers},
		{"ServiceHungDatabase", testServiceHungDatabase},
		{"ServiceChanges", testServiceChanges},
		{"GeneratedThrough", testGeneratedThrough},
		{"FindByKey", testFindByKey},
		{"NotificationsOnBookAndCancel", testNotificationsOnBookAndCancel},
		{"Payments", testPayments},
		{"PaymentConflict", testPaymentConflict},
		{"HolderOfFullSlot", testHolderOfFullSlot},
		{"UnknownPatientInBatch", testUnknownPatientInBatch},
		{"ReclaimedHold", testReclaimedHold},
		{"ExpireHolds", testExpireHolds},
		{"ExpiryRacesPayment", testExpiryRacesPayment},
		{"ExpiryEffects", testExpiryEffects},
		{"ReclaimWhenFull", testReclaimWhenFull},
		{"Transitions", testTransitions},
		{"CheckIn", testCheckIn},
		{"CheckInPolicy", testCheckInPolicy},
		{"RaceCheckIn", testRaceCheckIn},
		{"AutoNoShow", testAutoNoShow},
		{"Queue", testQueue},
		{"QueueAhead", testQueueAhead},
		{"RaceQueueCall", testRaceQueueCall},
		{"QueuePace", testQueuePace},
		{"RaceQueueRush", testRaceQueueRush},
		{"Events", testEvents},
		{"EventsOfMovesAndOffers", testEventsOfMovesAndOffers},
		{"EventsOfASuspension", testEventsOfASuspension},
		{"Suspend", testSuspend},
		{"SuspendEndsOffers", testSuspendEndsOffers},
		{"SuspensionCheck", testSuspensionCheck},
		{"Reconcile", testReconcile},
		{"Rooms", testRooms},
		{"RoundLifecycle", testRoundLifecycle},
		{"RoundSlots", testRoundSlots},
		{"RoundRush", testRoundRush},
		{"RoundQuotaRace", testRoundQuotaRace},
		{"RoundCancel", testRoundCancel},
		{"RoundAsync", testRoundAsync},
		{"RoundJudgedAtArrival", testRoundJudgedAtArrival},
		{"RoundAsyncConcurrent", testRoundAsyncConcurrent},
		{"RoundReconcile", testRoundReconcile},
		{"LotteryRound", testLotteryRound},
		{"LotteryRegisterRace", testLotteryRegisterRace},
		{"LotteryDrawOnce", testLotteryDrawOnce},
		{"LotteryTurns", testLotteryTurns},
		{"LotteryWindows", testLotteryWindows},
		{"LotteryWindowRace", testLotteryWindowRace},
		{"OpeningQueue", testOpeningQueue},
		{"OpeningJoinRace", testOpeningJoinRace},
		{"OpeningBooking", testOpeningBooking},
		{"OpeningAdmissionCap", testOpeningAdmissionCap},
		{"OpeningSummary", testOpeningSummary},
		{"OpeningThroughService", testOpeningThroughService},
		{"Accounts", testAccounts},
		{"StaffSignIn", testStaffSignIn},
		{"DemoMarker", testDemoMarker},
		{"DemoClaimRace", testDemoClaimRace},
		{"Holdings", testHoldings},
		{"Personal", testPersonal},
		{"Desk", testDesk},
		{"StaffSites", testStaffSites},
		{"StaffSiteLists", testStaffSiteLists},
		{"Signup", testSignup},
		{"DataKeys", testDataKeys},
		{"DepartedPatients", testDepartedPatients},
		{"RevocationMarks", testRevocationMarks},
		{"Messages", testMessages},
		{"DeliveryMarks", testDeliveryMarks},
		{"DeliveryReads", testDeliveryReads},
		{"MessageBatches", testMessageBatches},
		{"Stress", testStress},
		{"StressCatchesRacyStore", testStressCatchesRacy},
		{"Linearizable", testLinearizable},
		{"LinearizabilityCatchesRacyStore", testLinearCatchesRacy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, h)
		})
	}
}
