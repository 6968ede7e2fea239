package booking

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Code names a kind of failure. Codes are stable: clients see them as the
// problem type /problems/<code>. The problem table (package problem) gives
// each one its HTTP status and title, for the API and the web pages alike.
type Code string

// The error codes. Add a code here, to Codes and to the problem table
// together (a test checks that every code has an entry).
const (
	CodeInvalidRequest        Code = "invalid-request"
	CodeMethodNotAllowed      Code = "method-not-allowed"
	CodeMissingIdempotencyKey Code = "missing-idempotency-key"
	CodePayloadTooLarge       Code = "payload-too-large"
	CodeUnauthorized          Code = "unauthorized"
	CodeForbidden             Code = "forbidden"
	CodeNotFound              Code = "not-found"
	CodeConflict              Code = "conflict"
	CodeSlotFull              Code = "slot-full"
	CodeAlreadyBooked         Code = "already-booked"
	CodeOverlapping           Code = "overlapping-appointment"
	CodeQuotaExceeded         Code = "quota-exceeded"
	CodeNotOpenYet            Code = "not-open-yet"
	CodeSlotClosed            Code = "slot-closed"
	CodeNotYourTurn           Code = "not-your-turn"
	// CodeTurnPassed: a lottery registrant whose selection window ended.
	CodeTurnPassed Code = "turn-passed"
	// CodeNotAdmitted: a slot behind a waiting room, booked without its
	// admission (opening.go).
	CodeNotAdmitted       Code = "not-admitted"
	CodeAlreadyStarted    Code = "appointment-started"
	CodeInvalidTransition Code = "invalid-transition"
	CodeNotStarted        Code = "appointment-not-started"
	CodeCancelCutoff      Code = "cancel-cutoff"
	// Check-in (checkin.go): a code that is not the appointment's, and
	// the window's two sides.
	CodeBadCheckInCode  Code = "bad-check-in-code"
	CodeCheckInTooEarly Code = "check-in-too-early"
	CodeCheckInClosed   Code = "check-in-closed"
	// Walk-ins (walkin.go): a slot with free places is booked normally; a
	// walk-in is added on the slot's day, up to the policy's number.
	CodeSlotNotFull     Code = "slot-not-full"
	CodeWalkInNotToday  Code = "walk-in-not-today"
	CodeWalkInLimit     Code = "walk-in-limit"
	CodeLimitReached    Code = "appointment-limit"
	CodeBookingBlocked  Code = "booking-blocked"
	CodeSlotOverlap     Code = "slot-overlap"
	CodeSlotSuspended   Code = "slot-suspended"
	CodePaymentRejected Code = "payment-rejected"
	CodePaymentConflict Code = "payment-conflict"
	CodeBadSignature    Code = "bad-signature"
	CodeKeyInUse        Code = "idempotency-key-in-use"
	CodeKeyReused       Code = "idempotency-key-reused"
	CodeRateLimited     Code = "rate-limited"
	CodeOverloaded      Code = "overloaded"
	CodeUnavailable     Code = "unavailable"
	CodeInternal        Code = "internal"
)

// Codes lists every code, for tables and tests that must cover them all.
func Codes() []Code {
	return []Code{
		CodeInvalidRequest, CodeMethodNotAllowed, CodeMissingIdempotencyKey, CodePayloadTooLarge,
		CodeUnauthorized, CodeForbidden, CodeNotFound, CodeConflict,
		CodeSlotFull, CodeAlreadyBooked, CodeOverlapping, CodeQuotaExceeded,
		CodeNotOpenYet, CodeSlotClosed, CodeAlreadyStarted, CodeInvalidTransition,
		CodeNotStarted, CodeCancelCutoff, CodeBadCheckInCode, CodeCheckInTooEarly, CodeCheckInClosed,
		CodeLimitReached, CodeBookingBlocked, CodeSlotOverlap, CodeSlotSuspended,
		CodePaymentRejected, CodePaymentConflict, CodeBadSignature,
		CodeKeyInUse, CodeKeyReused, CodeRateLimited, CodeOverloaded,
		CodeUnavailable, CodeInternal, CodeFeeDiffers, CodeSignupDisabled,
		CodeNotYourTurn, CodeTurnPassed, CodeNotAdmitted,
		CodeQueueEmpty, CodeNotCalled, CodeServiceNotOffered,
		CodeNationalIDRequired, CodeNationalIDTaken, CodeDoseOutsideWindow,
		CodeSlotNotFull, CodeWalkInNotToday, CodeWalkInLimit,
		CodeNotEligible, CodeInvitationRequired, CodePlacesReserved,
	}
}

// Error is a failure the caller can act on. Its Message is safe to show to
// clients; anything else (a driver error) stays in Err, is logged, and is
// never shown.
type Error struct {
	Code    Code
	Message string
	// Format and Args are what Errorf made Message from, so that a front
	// end can show the sentence in its reader's language (the key of
	// i18n's catalogs is the English format).
	Format string
	Args   []any
	// Optional details surfaced as problem+json members.
	SlotID     int64
	OpensAt    *time.Time
	RetryAfter time.Duration
	// Pointer is the JSON Pointer (RFC 6901) of the request body's member
	// at fault ("/slotId"), Parameter the query parameter at fault
	// ("status"); a front end names it beside the sentence.
	Pointer   string
	Parameter string
	// Err is the underlying cause, for logs only.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error with a formatted message. A time.Time argument
// reads as RFC 3339 in UTC in Message; a front end shows it in the clinic's
// zone and its reader's language.
func Errorf(code Code, format string, args ...any) *Error {
	var plain []any
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			if plain == nil {
				plain = slices.Clone(args)
			}
			plain[i] = t.UTC().Format(time.RFC3339)
		}
	}
	if plain == nil {
		plain = args
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, plain...), Format: format, Args: args}
}

// ErrorCode returns the code of err: its *Error's code, CodeUnavailable for
// an unreachable database signalled with ErrUnavailable, or CodeInternal.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, ErrUnavailable) {
		return CodeUnavailable
	}
	return CodeInternal
}

// ErrUnavailable marks errors that mean the database cannot be reached or did
// not answer in time; clients get 503 with Retry-After.
var ErrUnavailable = errors.New("database unavailable")

// NotFound is the error for a missing object of the named kind. The whole
// sentence ("patient not found") is its catalogs' key: a kind's word and
// its place in the sentence differ between languages.
func NotFound(kind string) *Error {
	return &Error{Code: CodeNotFound, Message: kind + " not found", Format: kind + " not found"}
}
