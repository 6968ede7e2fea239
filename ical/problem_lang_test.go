package ical

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// TestProblemInTheAskedLanguage: a calendar's problem answer follows
// Accept-Language as the API's do; English without it.
func TestProblemInTheAskedLanguage(t *testing.T) {
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, c := range []struct{ accept, lang, detail string }{
		{"", "", "calendar not found"},
		{"fr", "fr", "agenda introuvable"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/calendar/x.ics", nil)
		if c.accept != "" {
			req.Header.Set("Accept-Language", c.accept)
		}
		h.problem(rec, req, booking.NotFound("calendar"))
		var p struct{ Title, Detail string }
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.Detail != c.detail || rec.Header().Get("Content-Language") != c.lang || (c.lang != "" && p.Title == problem.Of(booking.CodeNotFound).Title) {
			t.Errorf("Accept-Language %q: %+v Content-Language %q, want detail %q in %q", c.accept, p, rec.Header().Get("Content-Language"), c.detail, c.lang)
		}
	}
}
