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
	// OfferParty counts offers made to a party (one per party, whose
	// places count in OfferMade).
	OfferParty = "party"

	ReminderEnqueued  = "enqueued"
	ReminderPassed    = "passed"
	ReminderDelivered = "delivered"
	ReminderDropped   = "dropped"
)

// OfferOutcomes and ReminderOutcomes list the label values, so that every
// series exists from the start.
var (
	OfferOutcomes    = []string{OfferMade, OfferAccepted, OfferDeclined, OfferExpired, OfferParty}
	ReminderOutcomes = []string{ReminderEnqueued, ReminderPassed, ReminderDelivered, ReminderDropped}
)

// IsOffer reports whether a is a waitlist offer's appointment (its key is
// an OfferKey), accepted or not.
func IsOffer(a Appointment) bool { return strings.HasPrefix(a.IdempotencyKey, offerKeyPrefix) }

// Parties counts the parties among offers (MakeOffers' appointments):
// the offer keys that hold more than one place.
func Parties(offers []Appointment) int {
	places := map[string]int{}
	for _, a := range offers {
		places[a.IdempotencyKey]++
	}
	n := 0
	for _, k := range places {
		if k > 1 {
			n++
		}
	}
	return n
}
