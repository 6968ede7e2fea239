package problem

import "github.com/slotd/slotd/booking"

// descriptions say what each problem type means and what a client should
// do: the page GET /problems/{code} answers, the type URI's target.
var descriptions = map[booking.Code]string{
	booking.CodeInvalidRequest:        "The request is malformed or a value is out of range: fix it before sending it again. detail names what is wrong.",
	booking.CodeMethodNotAllowed:      "The resource exists but does not answer this method; the Allow header lists those it does.",
	booking.CodeMissingIdempotencyKey: "A booking needs an Idempotency-Key header (1 to 64 visible ASCII characters), so that a retry cannot book twice.",
	booking.CodePayloadTooLarge:       "The request body is larger than the service accepts (16 KiB).",
	booking.CodeUnauthorized:          "No valid credentials: send a bearer token that is not expired (WWW-Authenticate names the scheme).",
	booking.CodeNotYourTurn:           "This round is a lottery: only its registrants may apply, each from the selection time the draw gave them; opensAt says when yours is.",
	booking.CodeNotAdmitted:           "This slot opens behind a waiting room: take a place in the opening's queue (POST /api/openings/{id}/queue), wait to be admitted, then book with the admission token in the Slotd-Admission header.",
	booking.CodeSignupDisabled:        "This clinic registers its patients itself: sign-up is turned off. Ask the clinic to register you, then sign in with a code.",
	booking.CodeNationalIDRequired:    "This clinic registers patients under their real name: sign-up and adding a person need the person's national ID number (nationalId). errors[].pointer names the member.",
	booking.CodeNationalIDTaken:       "Another patient of this clinic has this national ID number: each person is registered once. Sign in to the account that has them, or call the clinic.",
	booking.CodeForbidden:             "The credentials are valid but do not allow this operation (for example an admin-only one, or another patient's appointment).",
	booking.CodeNotFound:              "There is no such resource, or it is not visible to this caller.",
	booking.CodeConflict:              "The change conflicts with the current state, for example a name that is taken.",
	booking.CodeSlotFull:              "Every place of the slot is taken. Choose another slot; retrying the same one does not help.",
	booking.CodeAlreadyBooked:         "The patient already holds a place in this slot.",
	booking.CodeOverlapping:           "The patient already has an appointment at an overlapping time.",
	booking.CodeQuotaExceeded:         "The patient has used every place the rules allow (per round or per period).",
	booking.CodeNotOpenYet:            "Booking for this slot has not opened; opensAt says when it does.",
	booking.CodeSlotClosed:            "The slot cannot be booked: it started, or the clinic suspended or closed it.",
	booking.CodeAlreadyStarted:        "The appointment has started and can no longer be changed online.",
	booking.CodeInvalidTransition:     "The appointment's state does not allow this change (it may be cancelled or completed already).",
	booking.CodeNotStarted:            "The appointment has not started yet: it can be marked completed or no-show only once it has.",
	booking.CodeBadCheckInCode:        "The check-in code is not this appointment's: check the code on the confirmation and type it again.",
	booking.CodeCheckInTooEarly:       "Check-in opens some minutes before the appointment (the clinic's policy); opensAt says when.",
	booking.CodeCheckInClosed:         "Check-in closes some minutes after the start; ask at the reception desk.",
	booking.CodeCancelCutoff:          "The clinic's policy lets a patient cancel or reschedule only until some hours before the start; call the clinic, staff still can.",
	booking.CodeLimitReached:          "The patient holds as many active appointments as the clinic allows (in all, or on that day); cancel one first.",
	booking.CodeBookingBlocked:        "The patient may not book online: the account is deactivated, or recent no-shows block self-booking for a while; call the clinic.",
	booking.CodeSlotOverlap:           "The slot, or a slot the schedule would generate, overlaps another slot of the same doctor or room.",
	booking.CodeSlotSuspended:         "The slot was closed by a suspension or closure that still stands: lift it to reopen the slot.",
	booking.CodePaymentRejected:       "The payment arrived too late or for another amount; it is recorded for a refund and does not confirm the booking.",
	booking.CodePaymentConflict:       "The trade number was already recorded for another appointment or amount; the clinic reconciles it.",
	booking.CodeBadSignature:          "The payment callback's HMAC signature is missing or does not verify.",
	booking.CodeKeyInUse:              "A request with this Idempotency-Key is still being processed: retry after Retry-After with the same key.",
	booking.CodeKeyReused:             "This Idempotency-Key was used for a different request; use a new key for a new request.",
	booking.CodeRateLimited:           "Too many requests from this caller or address: wait Retry-After seconds before trying again.",
	booking.CodeOverloaded:            "The service is shedding load: retry after Retry-After seconds, with the same Idempotency-Key for a booking.",
	booking.CodeUnavailable:           "A dependency (the database) is not answering: retry after Retry-After seconds; a booking retried with its key is never made twice.",
	booking.CodeQueueEmpty:            "Nobody of the doctor's day has checked in and waits to be called: call again when someone arrives.",
	booking.CodeNotCalled:             "Recall, skip and start act on the patient the doctor called last and has not started, skipped or completed; call the next patient first.",
	booking.CodeServiceNotOffered:     "The doctor does not offer this service, or their slots from this time do not cover its whole duration without a gap: choose another time or another doctor (GET /api/availability).",
	booking.CodeFeeDiffers:            "A reschedule keeps the price: the new slot must have the same fee as the appointment's. Choose a slot with that fee, or cancel and book anew.",
	booking.CodeInternal:              "A bug in the service: it was logged with the request id (X-Request-Id). Retrying may not help.",
}

// Describe says what code means and what to do about it ("" when unknown).
func Describe(code booking.Code) string { return descriptions[code] }
