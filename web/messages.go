package web

import (
	"errors"

	"github.com/slotd/slotd/booking"
)

// message is how a page explains one booking.Code: a sentence a patient or
// clerk can act on (the page's HTTP status comes from package problem). The
// store's own message (safe, but technical) is shown only as a detail.
type message struct {
	Title   string
	Message string
}

// problems explains every booking.Code; a test checks that none is missing.
var problems = map[booking.Code]message{
	booking.CodeInvalidRequest:        {"Please check the form", "Something in the form is missing or not valid. Please check it and try again."},
	booking.CodeMethodNotAllowed:      {"Not possible here", "This page cannot be used that way. Go back and use its links and buttons."},
	booking.CodeMissingIdempotencyKey: {"Please try again", "The booking form was incomplete. Go back to the day, reload it and press Book again."},
	booking.CodePayloadTooLarge:       {"Too much text", "The form sent too much text. Please shorten it and try again."},
	booking.CodeUnauthorized:          {"Please sign in", "You need to sign in to do this."},
	booking.CodeSlotNotFull:           {"Slot not full", "This slot still has free places: book one of them instead of a walk-in."},
	booking.CodeWalkInNotToday:        {"Walk-ins on the day only", "A walk-in can be added only on the slot's own day, before it ends."},
	booking.CodeWalkInLimit:           {"No walk-in left", "This slot already has as many walk-ins as the clinic allows. Choose another slot."},
	booking.CodeNotAdmitted:           {"Not admitted yet", "This opening has a waiting room: take your place in its queue and book once it is your turn."},
	booking.CodeNotYourTurn:           {"Not your turn yet", "This round is a lottery: you may choose a room from the selection time the draw gave you. See the round's page for yours."},
	booking.CodeTurnPassed:            {"Your turn has passed", "This round gave you a window to choose a room, and it has ended. Ask the staff if you think this is a mistake."},
	booking.CodeSignupDisabled:        {"Sign-up is turned off", "This clinic registers its patients itself. Call or visit the clinic to be registered, then sign in."},
	booking.CodeNationalIDRequired:    {"National ID number required", "This clinic registers every patient under their real name: type the national ID number."},
	booking.CodeNotEligible:           {"Not eligible for this campaign", "This campaign is for another group of people (by age or by group). Please choose another time, or ask the clinic."},
	booking.CodeInvitationRequired:    {"Invitation code required", "This campaign is by invitation: type the code printed on your invitation letter. Each code books once."},
	booking.CodePlacesReserved:        {"Places reserved for now", "The places left at this time are kept for a group of people invited first. They open to everyone later: choose another time, or come back then."},
	booking.CodeNationalIDTaken:       {"National ID number already registered", "This person is already registered at the clinic. Sign in to the account that has them, or call the clinic."},
	booking.CodeForbidden:             {"Not allowed", "This form has expired or is not allowed. Reload the page and try again."},
	booking.CodeNotFound:              {"Not found", "We could not find what you were looking for. It may have been removed."},
	booking.CodeConflict:              {"Already exists", "This conflicts with something that already exists (for example a name that is taken)."},
	booking.CodeSlotFull:              {"This time is fully booked", "Sorry, someone else took the last place just before you. Please choose another time."},
	booking.CodeAlreadyBooked:         {"You already have this appointment", "You already hold a place at this time with this doctor. See “My appointments”."},
	booking.CodeOverlapping:           {"You have another appointment then", "You already have an appointment at an overlapping time. Cancel it first, or choose another time."},
	booking.CodeQuotaExceeded:         {"Limit reached", "You have already used all the places you may take in this round."},
	booking.CodeNotOpenYet:            {"Booking has not opened yet", "Booking for this time has not opened yet. Please come back when it opens."},
	booking.CodeSlotClosed:            {"This time cannot be booked", "This time is closed: it has already started, or the clinic suspended it. Please choose another time."},
	booking.CodeAlreadyStarted:        {"The appointment has started", "This appointment has already started, so it can no longer be changed online. Please call the clinic."},
	booking.CodeInvalidTransition:     {"Not possible now", "This appointment is no longer in a state that allows this (it may have been cancelled or completed)."},
	booking.CodeNotStarted:            {"Not started yet", "An appointment can be marked completed or no-show only once it has started."},
	booking.CodeBadCheckInCode:        {"Code not recognised", "This check-in code is not one of an appointment due now. Check the code on the confirmation and type it again, or ask at the reception desk."},
	booking.CodeCheckInTooEarly:       {"Too early to check in", "Check-in for this appointment has not opened yet. Please come back closer to the time."},
	booking.CodeCheckInClosed:         {"Check-in closed", "Check-in for this appointment has closed. Please ask at the reception desk."},
	booking.CodeCancelCutoff:          {"Too late to cancel online", "This appointment starts soon: it can no longer be cancelled online. Please call the clinic."},
	booking.CodeLimitReached:          {"Limit reached", "You already hold as many appointments as the clinic allows (in all, or on this day). Cancel one first, or call the clinic."},
	booking.CodeBookingBlocked:        {"Online booking not available", "Online booking is not available for you at the moment. Please call the clinic to book."},
	booking.CodeSlotOverlap:           {"Overlapping time", "The doctor already has a slot at an overlapping time, or the schedule overlaps another of theirs."},
	booking.CodeSlotSuspended:         {"Closed by a closure", "This slot was closed by a closure or suspension that still stands. Lift it to reopen the slot."},
	booking.CodePaymentRejected:       {"Payment not applied", "The payment could not be applied (the hold may have expired). It will be refunded."},
	booking.CodePaymentConflict:       {"Payment not applied", "This payment conflicts with one already recorded under its trade number. The clinic will look into it."},
	booking.CodeQueueEmpty:            {"Nobody is waiting", "Nobody who has checked in is waiting to be called."},
	booking.CodeNotCalled:             {"Not called now", "This patient is not the one called now: call the next patient first."},
	booking.CodeServiceNotOffered:     {"Not available for this service", "This doctor does not offer this service at that time. Choose another time or another doctor."},
	booking.CodeDoseOutsideWindow:     {"Outside the dose's window", "This dose must be given within a number of days after the dose before. Choose a time inside that window."},
	booking.CodeFeeDiffers:            {"Another fee", "That time has a different fee, so your appointment cannot be moved there. Choose a time with the same fee, or cancel and book anew."},
	booking.CodeBadSignature:          {"Payment not verified", "The payment confirmation could not be verified."},
	booking.CodeKeyInUse:              {"Still working on it", "Your booking is still being processed. Please wait a moment and try again: you will not be booked twice."},
	booking.CodeKeyReused:             {"Please reload the page", "This booking form was already used for another time. Reload the page and try again."},
	booking.CodeRateLimited:           {"Too many attempts", "You have tried too many times in a short while. Please wait a few seconds and try again."},
	booking.CodeOverloaded:            {"Very busy right now", "Many people are booking right now. Please try again in a few seconds: your place is not lost by retrying."},
	booking.CodeUnavailable:           {"Temporarily unavailable", "The service is temporarily unavailable. Please try again in a moment."},
	booking.CodeInternal:              {"Something went wrong", "Something went wrong on our side. Please try again; if it keeps happening, call the clinic."},
}

// problemOf explains code, falling back to the internal-error sentence.
func problemOf(code booking.Code) message {
	if p, ok := problems[code]; ok {
		return p
	}
	return problems[booking.CodeInternal]
}

// retryable reports whether repeating the same request (with the same
// Idempotency-Key) may succeed later.
func retryable(code booking.Code) bool {
	switch code {
	case booking.CodeRateLimited, booking.CodeOverloaded, booking.CodeUnavailable, booking.CodeKeyInUse, booking.CodeInternal:
		return true
	}
	return false
}

// asError is errors.As for *booking.Error.
func asError(err error, target **booking.Error) bool { return errors.As(err, target) }
