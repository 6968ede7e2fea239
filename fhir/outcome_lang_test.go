package fhir

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/problem"
)

// TestOutcomeInTheAskedLanguage: an OperationOutcome's texts follow
// Accept-Language as problem+json does (English without it); its coded
// details stay the problem's code; a time reads in the clinic's zone.
func TestOutcomeInTheAskedLanguage(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil)), zone: paris}
	opens := time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC)
	notOpen := booking.Slot{ID: 3, Status: booking.SlotOpen, Capacity: 1, OpensAt: opens, StartAt: opens.Add(time.Hour)}.Bookable(opens.Add(-time.Minute))
	for _, c := range []struct {
		accept, lang, diag string
		err                error
	}{
		{"", "", "patient not found", booking.NotFound("patient")},
		{"fr-FR", "fr", "patient introuvable", booking.NotFound("patient")},
		{"vi", "vi", "không có điểm cuối FHIR này", booking.Errorf(booking.CodeNotFound, "no such FHIR endpoint")},
		{"fr", "fr", "la réservation de ce créneau ouvre le " + i18n.New("fr").DateTime(opens.In(paris)) + " (Europe/Paris)", notOpen},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/fhir/Slot", nil)
		if c.accept != "" {
			req.Header.Set("Accept-Language", c.accept)
		}
		h.outcome(rec, req, c.err)
		validR4(t, rec.Body.Bytes())
		var o OperationOutcome
		if err := json.Unmarshal(rec.Body.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		is := o.Issue[0]
		code := booking.ErrorCode(c.err)
		title := i18n.New(c.lang).T(problem.Of(code).Title)
		if is.Diagnostics != c.diag || is.Details.Text != title || is.Details.Coding[0].Code != string(code) ||
			rec.Header().Get("Content-Language") != c.lang || rec.Header().Get("Vary") == "" {
			t.Errorf("Accept-Language %q: diagnostics %q text %q code %q Content-Language %q, want %q %q %q %q",
				c.accept, is.Diagnostics, is.Details.Text, is.Details.Coding[0].Code, rec.Header().Get("Content-Language"), c.diag, title, code, c.lang)
		}
		if c.lang != "" && is.Details.Text == problem.Of(code).Title {
			t.Errorf("%s: the text stayed English", c.lang)
		}
	}
}
