package booking

import (
	"strings"
)

// Offer and reminder outcomes, the metrics' label values.
const (
	OfferMade     = "made"
	OfferAccepted = "accepted"
	OfferDeclined = "declined"
	OfferExpired  = "expired"

	ReminderEnqueued  = "enqueued"
	ReminderPassed    = "passed"
	ReminderDelivered = "delivered"
	ReminderDropped   = "dropped"
)

// OfferOutcomes and ReminderOutcomes list the label values, so that every
// series exists from the start.
var (
	OfferOutcomes    = []string{OfferMade, OfferAccepted, OfferDeclined, OfferExpired}
	ReminderOutcomes = []string{ReminderEnqueued, ReminderPassed, ReminderDelivered, ReminderDropped}
)

// IsOffer reports whether a is a waitlist offer's appointment (its key is
// an OfferKey), accepted or not.
func IsOffer(a Appointment) bool { return strings.HasPrefix(a.IdempotencyKey, offerKeyPrefix) }
