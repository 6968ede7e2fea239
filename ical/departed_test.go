package ical_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// TestDepartedPatientsCalendar: an erased patient's feed is gone (404) and
// so is a deactivated one's; neither can subscribe again, and their tokens
// are refused.
func TestDepartedPatientsCalendar(t *testing.T) {
	for _, how := range []string{"erased", "deactivated"} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			tok := f.token(auth.RolePatient, strconv.FormatInt(f.p1.ID, 10))
			resp, body := f.do("POST", "/ical/subscription", tok)
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("subscribe: %d %s", resp.StatusCode, body)
			}
			var sub struct{ URL string }
			must(t, json.Unmarshal([]byte(body), &sub))
			feed := strings.TrimPrefix(sub.URL, f.srv.URL)
			if resp, body := f.get(feed, ""); resp.StatusCode != http.StatusOK {
				t.Fatalf("feed before: %d %s", resp.StatusCode, body)
			}
			ctx := t.Context()
			switch how {
			case "erased":
				_, err := f.svc.ErasePatient(ctx, f.p1.ID, "asked to be forgotten")
				must(t, err)
				if _, err := f.store.CalendarTokenCreated(ctx, f.p1.ID); booking.ErrorCode(err) != booking.CodeNotFound {
					t.Fatalf("the erased patient's calendar token is still there: %v", err)
				}
			case "deactivated":
				off := false
				_, err := f.svc.UpdatePatient(ctx, f.p1.ID, booking.PatientUpdate{Active: &off})
				must(t, err)
			}
			if resp, body := f.get(feed, ""); resp.StatusCode != http.StatusNotFound {
				t.Fatalf("feed of the %s patient: %d %s, want 404", how, resp.StatusCode, body)
			}
			// The old token is refused with the departed patient's answer,
			// and so is one minted afterwards.
			for _, tk := range []string{tok, f.token(auth.RolePatient, strconv.FormatInt(f.p1.ID, 10))} {
				if resp, body := f.do("POST", "/ical/subscription", tk); resp.StatusCode != http.StatusConflict {
					t.Fatalf("subscribe as the %s patient: %d %s, want 409", how, resp.StatusCode, body)
				}
			}
			// The service refuses the link even when asked directly (the web page).
			if _, err := f.h.Subscribe(ctx, f.p1.ID, "https://clinic.test"); booking.ErrorCode(err) != booking.CodeBookingBlocked {
				t.Fatalf("Subscribe for the %s patient: %v, want booking-blocked", how, err)
			}
		})
	}
}
