package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func render(t *testing.T, err error) (*httptest.ResponseRecorder, problemDetails) {
	t.Helper()
	s := &server{log: discardLogger()}
	rec := httptest.NewRecorder()
	s.writeError(rec, httptest.NewRequest("GET", "/x", nil), err)
	var p problemDetails
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("content type %q", rec.Header().Get("Content-Type"))
	}
	return rec, p
}

func TestWriteErrorMembers(t *testing.T) {
	opens := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	rec, p := render(t, &booking.Error{Code: booking.CodeNotOpenYet, Message: "opens at 7", SlotID: 12, OpensAt: &opens})
	if rec.Code != 409 || p.Type != "/problems/not-open-yet" || p.SlotID != 12 || p.OpensAt != "2026-03-02T06:00:00Z" || p.Detail != "opens at 7" || p.Title == "" {
		t.Fatalf("%d %+v", rec.Code, p)
	}
	if rec.Header().Get("Retry-After") != "" {
		t.Fatal("Retry-After on a 409")
	}

	rec, p = render(t, &booking.Error{Code: booking.CodeRateLimited, Message: "slow down", RetryAfter: 1500 * time.Millisecond})
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "2" || p.RetryAfter != 2 {
		t.Fatalf("%d %q %+v", rec.Code, rec.Header().Get("Retry-After"), p)
	}

	rec, _ = render(t, booking.Errorf(booking.CodeUnauthorized, "no token"))
	if rec.Code != 401 || !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("%d %q", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}

func TestWriteErrorHidesInternals(t *testing.T) {
	driver := errors.New("pq: relation \"slots\" does not exist at 10.0.0.5")

	rec, p := render(t, fmt.Errorf("%w: %v", booking.ErrUnavailable, driver))
	if rec.Code != 503 || p.Type != "/problems/unavailable" || rec.Header().Get("Retry-After") == "" || p.RetryAfter < 1 {
		t.Fatalf("%d %+v", rec.Code, p)
	}
	if strings.Contains(rec.Body.String(), "10.0.0.5") {
		t.Fatal("driver text leaked")
	}

	rec, p = render(t, driver)
	if rec.Code != 500 || p.Type != "/problems/internal" || strings.Contains(rec.Body.String(), "pq:") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}

	// A *booking.Error keeps its safe message but not its cause.
	rec, _ = render(t, &booking.Error{Code: booking.CodeSlotFull, Message: "no place left", Err: driver})
	if rec.Code != 409 || strings.Contains(rec.Body.String(), "pq:") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}

	// An unknown code is internal, not a guess.
	rec, _ = render(t, &booking.Error{Code: "made-up", Message: "x"})
	if rec.Code != 500 {
		t.Fatalf("%d", rec.Code)
	}

	// A deadline of a direct store call is unavailable.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec, _ = render(t, storeErr(ctx, context.Canceled))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("%d", rec.Code)
	}
}
