package problem

import (
	"net/http"
	"testing"

	"github.com/slotd/slotd/booking"
)

func TestEveryCodeHasASpec(t *testing.T) {
	for _, c := range booking.Codes() {
		s, ok := specs[c]
		if !ok || s.Status < 400 || s.Title == "" {
			t.Errorf("%s: %+v, %v", c, s, ok)
		}
	}
	if Status("no-such-code") != http.StatusInternalServerError || Known("no-such-code") {
		t.Error("an unknown code must be internal")
	}
}

func TestProblemStatuses(t *testing.T) {
	want := map[booking.Code]int{
		booking.CodeInvalidRequest: 400, booking.CodeMethodNotAllowed: 405, booking.CodeMissingIdempotencyKey: 400, booking.CodePayloadTooLarge: 413,
		booking.CodeUnauthorized: 401, booking.CodeForbidden: 403, booking.CodeNotFound: 404,
		booking.CodeConflict: 409, booking.CodeSlotFull: 409, booking.CodeAlreadyBooked: 409, booking.CodeOverlapping: 409,
		booking.CodeQuotaExceeded: 409, booking.CodeNotOpenYet: 409, booking.CodeSlotClosed: 409, booking.CodeAlreadyStarted: 409,
		booking.CodeInvalidTransition: 409, booking.CodeKeyInUse: 409, booking.CodeKeyReused: 422, booking.CodeRateLimited: 429,
		booking.CodePaymentRejected: 409, booking.CodeBadSignature: 401, booking.CodeFeeDiffers: 409, booking.CodeServiceNotOffered: 409,
		booking.CodeDoseOutsideWindow: 409,
		booking.CodeOverloaded:        503, booking.CodeUnavailable: 503, booking.CodeInternal: 500,
	}
	for c, st := range want {
		if Status(c) != st {
			t.Errorf("%s: status %d, want %d", c, Status(c), st)
		}
	}
}

func TestEveryCodeIsDescribed(t *testing.T) {
	for _, c := range booking.Codes() {
		if Describe(c) == "" {
			t.Errorf("%s has no description", c)
		}
	}
	if len(descriptions) != len(booking.Codes()) {
		t.Errorf("%d descriptions for %d codes", len(descriptions), len(booking.Codes()))
	}
}
