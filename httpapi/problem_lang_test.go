package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/problem"
)

// TestProblemTitlesTranslated fails when a problem's title has no
// translation in some language.
func TestProblemTitlesTranslated(t *testing.T) {
	var keys []string
	for _, c := range booking.Codes() {
		keys = append(keys, problem.Of(c).Title)
	}
	for _, p := range i18n.Check(keys) {
		t.Error(p)
	}
}

// TestProblemInTheAskedLanguage: Accept-Language gives a localized title
// (and detail, when the catalogs hold its sentence) with Content-Language;
// no header keeps the stable English title.
func TestProblemInTheAskedLanguage(t *testing.T) {
	s := &server{log: discardLogger()}
	full := booking.Errorf(booking.CodeSlotFull, "slot %d is full", 12)
	bad := booking.Errorf(booking.CodeInvalidRequest, "weekdays: at least one weekday is required")
	for _, c := range []struct {
		accept string
		err    error
		title  string
		detail string
		lang   string
	}{
		{"", full, "Slot is full", "slot 12 is full", ""},
		{"de", full, "Slot is full", "slot 12 is full", ""},
		{"fr-FR,fr;q=0.9", full, i18n.New("fr").T("Slot is full"), "slot 12 is full", "fr"},
		{"zh-CN", bad, i18n.New("zh-Hans").T("Invalid request"), "weekdays：至少需要一个星期几", "zh-Hans"},
		{"vi", bad, i18n.New("vi").T("Invalid request"), "weekdays: cần ít nhất một ngày trong tuần", "vi"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		if c.accept != "" {
			req.Header.Set("Accept-Language", c.accept)
		}
		s.writeError(rec, req, c.err)
		var p problemDetails
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.Title != c.title || p.Detail != c.detail || rec.Header().Get("Content-Language") != c.lang || rec.Header().Get("Vary") == "" {
			t.Errorf("Accept-Language %q: title %q detail %q Content-Language %q, want %q %q %q",
				c.accept, p.Title, p.Detail, rec.Header().Get("Content-Language"), c.title, c.detail, c.lang)
		}
		if c.lang != "" && p.Title == problem.Of(booking.ErrorCode(c.err)).Title {
			t.Errorf("%s: the title stayed English", c.lang)
		}
	}
}

// patientDetail finds the sentences of the refusals a patient's booking or cancelling meets.
var patientDetail = regexp.MustCompile(`Code(?:SlotFull|AlreadyBooked|Overlapping|QuotaExceeded|NotOpenYet|SlotClosed|RateLimited|Overloaded|KeyInUse|KeyReused|MissingIdempotencyKey|AlreadyStarted|InvalidTransition), (?:Message: )?"((?:[^"\\]|\\.)*)"\s*[,)}]`)

// TestPatientDetailsTranslated fails when the detail of a refusal a
// patient meets (a booking decision's sentence) has no translation.
func TestPatientDetailsTranslated(t *testing.T) {
	files, _ := filepath.Glob("../booking/*.go")
	keys := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range patientDetail.FindAllStringSubmatch(string(b), -1) {
			keys[m[1]] = true
		}
	}
	if len(keys) < 10 {
		t.Fatalf("found %d sentences: the pattern no longer matches booking's code", len(keys))
	}
	var list []string
	for k := range keys {
		// Staff-side transitions (rounds, refunds) are not a patient's.
		if !strings.Contains(k, "round cannot") && !strings.Contains(k, "payment ") && !strings.Contains(k, "cannot become") && !strings.Contains(k, "while the round") {
			list = append(list, k)
		}
	}
	for _, p := range i18n.Check(list) {
		t.Error(p)
	}
}

// clientDetail finds httpapi's own sentences in the files every booking
// client meets: the body and query decoding and the appointments.
var clientDetail = regexp.MustCompile(`errorf\(booking\.Code[A-Za-z]+, "((?:[^"\\]|\\.)*)"`)

// TestClientDetailsTranslated fails when a sentence of bad input to the
// booking API has no translation.
func TestClientDetailsTranslated(t *testing.T) {
	var keys []string
	for _, f := range []string{"decode.go", "appointments.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range clientDetail.FindAllStringSubmatch(string(b), -1) {
			keys = append(keys, m[1])
		}
	}
	if len(keys) < 10 {
		t.Fatalf("found %d sentences: the pattern no longer matches the code", len(keys))
	}
	for _, p := range i18n.Check(keys) {
		t.Error(p)
	}
}
