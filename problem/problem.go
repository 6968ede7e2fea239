// Package problem is the problem table: the one mapping from a
// booking.Code to its HTTP status and title, shared by the JSON API (as RFC
// 9457 problem details) and the web pages (as the status of an error page).
package problem

import (
	"net/http"

	"github.com/slotd/slotd/booking"
)

// Spec is how one error code looks on the wire.
type Spec struct {
	Status int
	Title  string
}

// specs is THE table from error code to HTTP status and title. Every
// booking.Code has an entry (a test checks it); nothing else chooses a
// status for an error.
var specs = map[booking.Code]Spec{
	booking.CodeInvalidRequest:        {http.StatusBadRequest, "Invalid request"},
	booking.CodeMethodNotAllowed:      {http.StatusMethodNotAllowed, "Method not allowed"},
	booking.CodeMissingIdempotencyKey: {http.StatusBadRequest, "Idempotency-Key header required"},
	booking.CodePayloadTooLarge:       {http.StatusRequestEntityTooLarge, "Request body too large"},
	booking.CodeUnauthorized:          {http.StatusUnauthorized, "Authentication required"},
	booking.CodeForbidden:             {http.StatusForbidden, "Not allowed"},
	booking.CodeNotFound:              {http.StatusNotFound, "Not found"},
	booking.CodeConflict:              {http.StatusConflict, "Conflict"},
	booking.CodeSlotFull:              {http.StatusConflict, "Slot is full"},
	booking.CodeAlreadyBooked:         {http.StatusConflict, "Already booked"},
	booking.CodeOverlapping:           {http.StatusConflict, "Overlapping appointment"},
	booking.CodeQuotaExceeded:         {http.StatusConflict, "Quota exceeded"},
	booking.CodeNotOpenYet:            {http.StatusConflict, "Booking not open yet"},
	booking.CodeSlotClosed:            {http.StatusConflict, "Slot closed"},
	booking.CodeAlreadyStarted:        {http.StatusConflict, "Appointment already started"},
	booking.CodeInvalidTransition:     {http.StatusConflict, "Invalid state transition"},
	booking.CodeNotStarted:            {http.StatusConflict, "Appointment not started yet"},
	booking.CodeCancelCutoff:          {http.StatusConflict, "Too late to cancel"},
	// A well-formed request whose check-in code is not the appointment's:
	// the caller is who they say (the token), the content is wrong.
	booking.CodeBadCheckInCode: {http.StatusUnprocessableEntity, "Wrong check-in code"},
	// The check-in window (booking.Policy) has not opened or has closed.
	booking.CodeCheckInTooEarly: {http.StatusConflict, "Too early to check in"},
	booking.CodeCheckInClosed:   {http.StatusConflict, "Check-in closed"},
	booking.CodeLimitReached:    {http.StatusConflict, "Appointment limit reached"},
	booking.CodeBookingBlocked:  {http.StatusConflict, "Booking blocked"},
	booking.CodeSlotOverlap:     {http.StatusConflict, "Overlapping slot"},
	booking.CodeSlotSuspended:   {http.StatusConflict, "Slot closed by a suspension"},
	// A payment that arrived too late or for the wrong amount: recorded
	// for a refund, refused for the booking.
	booking.CodePaymentRejected: {http.StatusConflict, "Payment rejected"},
	// A callback that reuses a recorded trade number for another
	// appointment or amount: never answered 200, kept for reconciliation.
	booking.CodePaymentConflict: {http.StatusConflict, "Payment conflicts with a recorded one"},
	// A callback whose HMAC signature is missing or does not verify: the
	// caller is not authenticated, and WWW-Authenticate names the scheme.
	booking.CodeBadSignature: {http.StatusUnauthorized, "Invalid signature"},
	booking.CodeKeyInUse:     {http.StatusConflict, "Idempotency-Key in use"},
	booking.CodeKeyReused:    {http.StatusUnprocessableEntity, "Idempotency-Key reused"},
	booking.CodeRateLimited:  {http.StatusTooManyRequests, "Too many requests"},
	booking.CodeOverloaded:   {http.StatusServiceUnavailable, "Overloaded"},
	booking.CodeUnavailable:  {http.StatusServiceUnavailable, "Service unavailable"},
	booking.CodeInternal:     {http.StatusInternalServerError, "Internal error"},
	// A reschedule keeps the price paid or awaited (booking/reschedule.go).
	booking.CodeFeeDiffers: {http.StatusConflict, "The new slot has another fee"},
	// The clinic registers its patients itself (--signup=false).
	booking.CodeSignupDisabled: {http.StatusForbidden, "Sign-up is turned off"},
	// Real-name registration (booking/nationalid.go).
	booking.CodeNationalIDRequired: {http.StatusBadRequest, "National ID number required"},
	booking.CodeNationalIDTaken:    {http.StatusConflict, "National ID number already registered"},
	// A lottery round's registrant applies from their selection time.
	booking.CodeNotYourTurn: {http.StatusConflict, "Not your turn yet"},
	booking.CodeTurnPassed:  {http.StatusConflict, "Your turn has passed"},
	// A slot behind a waiting room is booked with its admission.
	booking.CodeNotAdmitted: {http.StatusConflict, "Not admitted yet"},
	// Walk-ins (booking/walkin.go).
	booking.CodeSlotNotFull:    {http.StatusConflict, "Slot not full"},
	booking.CodeWalkInNotToday: {http.StatusConflict, "Walk-ins on the day only"},
	booking.CodeWalkInLimit:    {http.StatusConflict, "No walk-in left for this slot"},
	// The doctor's queue (booking/queue.go).
	booking.CodeQueueEmpty: {http.StatusConflict, "Nobody is waiting"},
	booking.CodeNotCalled:  {http.StatusConflict, "Not the patient called now"},
	// A visit of a service (booking/visit.go).
	booking.CodeServiceNotOffered: {http.StatusConflict, "Service not offered here"},
	// A dose of a series outside its window (booking/dose.go).
	booking.CodeDoseOutsideWindow: {http.StatusConflict, "Outside the dose's window"},
	// A campaign's eligibility rule (booking/eligibility.go).
	booking.CodeNotEligible:        {http.StatusConflict, "Not eligible for this campaign"},
	booking.CodeInvitationRequired: {http.StatusConflict, "Invitation code required"},
	booking.CodePlacesReserved:     {http.StatusConflict, "Places reserved for now"},
}

// Of returns code's spec; an unknown code is internal.
func Of(code booking.Code) Spec {
	if s, ok := specs[code]; ok {
		return s
	}
	return specs[booking.CodeInternal]
}

// Known reports whether code has an entry.
func Known(code booking.Code) bool {
	_, ok := specs[code]
	return ok
}

// Status returns code's HTTP status.
func Status(code booking.Code) int { return Of(code).Status }
