package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

// The sentences of problem details, found in the source of every package
// whose errors an API answer can carry: a literal given with a code
// (Errorf, errorf), a Message, a missing object's kind (NotFound and the
// stores' wrappers that name a kind), and a literal given to a local
// function of (format string, args ...any) such as schedule's bad.
var (
	detailWithCode = regexp.MustCompile("\\b\\w+\\((?:booking\\.)?Code\\w+,\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")
	detailMessage  = regexp.MustCompile(`\bMessage:\s*("(?:[^"\\]|\\.)*")`)
	notFoundKind   = regexp.MustCompile(`\b(?:NotFound|notFoundAs|mapErr|translate)\([^()"]*(?:\(\))?(?:, )?("[a-z ]+")\)`)
	formatFunc     = regexp.MustCompile(`\b(\w+)(?: :=)? func\((?:code booking\.Code, )?format string, args \.\.\.any\)`)
)

// detailKeys returns every problem detail sentence of the Go files in dirs.
func detailKeys(t *testing.T, dirs ...string) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		found := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			add := func(lit, suffix string) {
				k, err := strconv.Unquote(lit)
				if err != nil {
					t.Fatalf("%s: %s: %v", f, lit, err)
				}
				keys[k+suffix] = true
				found++
			}
			pats := []*regexp.Regexp{detailWithCode, detailMessage}
			for _, m := range formatFunc.FindAllStringSubmatch(src, -1) {
				pats = append(pats, regexp.MustCompile(`\b`+m[1]+`\(("(?:[^"\\]|\\.)*")`))
			}
			for _, re := range pats {
				for _, m := range re.FindAllStringSubmatch(src, -1) {
					add(m[1], "")
				}
			}
			for _, m := range notFoundKind.FindAllStringSubmatch(src, -1) {
				add(m[1], " not found")
			}
		}
		if found == 0 {
			t.Fatalf("%s: no sentence found: the patterns no longer match the code", dir)
		}
	}
	return keys
}

// TestEveryDetailTranslated fails when a sentence a problem's detail can
// carry (booking's decisions, the stores', auth's, schedule's, the
// import's, httpapi's own checks) or a problem's title has no translation
// in some language. A sentence another branch adds fails it until it is in
// every catalog.
func TestEveryDetailTranslated(t *testing.T) {
	keys := detailKeys(t, "../booking", ".", "../auth", "../payments", "../postgres", "../sqlite", "../schedule", "../csvdata", "../fhir", "../ical")
	for _, must := range []string{"patient not found", "booking for this slot opens at %s", "room %d is listed twice",
		"the round is closed", "a bearer token is required", "weekdays: at least one weekday is required"} {
		if !keys[must] {
			t.Errorf("the scan missed %q: the patterns no longer match the code", must)
		}
	}
	list := []string{"%s (%s)"} // a time with its zone (localTimes)
	for k := range keys {
		if k != "" && k != "%s" {
			list = append(list, k)
		}
	}
	if len(list) < 150 {
		t.Fatalf("found %d sentences: the patterns no longer match the code", len(list))
	}
	for _, p := range i18n.Check(list) {
		t.Error(p)
	}
}

// TestDetailScanFindsNewSentences: a sentence written the ways the code
// writes them is found, so an untranslated one fails TestEveryDetailTranslated.
func TestDetailScanFindsNewSentences(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n" +
		"func a() error { return errorf(booking.CodeInvalidRequest, \"zz a new check %d\", 1) }\n" +
		"func b() error { return booking.NotFound(\"gizmo\") }\n" +
		"func c() error { return &booking.Error{Code: booking.CodeConflict, Message: \"zz a new conflict\"} }\n" +
		"func d() error { bad := func(format string, args ...any) error { return nil }; return bad(\"zz a wrapper's %s\", \"x\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := detailKeys(t, dir)
	var list []string
	for _, k := range []string{"zz a new check %d", "gizmo not found", "zz a new conflict", "zz a wrapper's %s"} {
		if !keys[k] {
			t.Errorf("the scan missed %q (found %v)", k, keys)
		}
		list = append(list, k)
	}
	if len(i18n.Check(list)) == 0 {
		t.Error("untranslated sentences passed the check")
	}
}

// TestOpensAtInTheClinicsZone: "booking for this slot opens at …" names
// the time in the clinic's zone and the asked language, as the pages do;
// opensAt stays the RFC 3339 instant.
func TestOpensAtInTheClinicsZone(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{log: discardLogger(), zone: paris}
	opens := time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC) // 08:00 in Paris
	slot := booking.Slot{ID: 3, Status: booking.SlotOpen, Capacity: 1, OpensAt: opens, StartAt: opens.Add(48 * time.Hour)}
	refusal := slot.Bookable(opens.Add(-time.Hour))
	for _, c := range []struct{ accept, want string }{
		{"", "booking for this slot opens at " + i18n.New("en").DateTime(opens.In(paris)) + " (Europe/Paris)"},
		{"fr", "la réservation de ce créneau ouvre le " + i18n.New("fr").DateTime(opens.In(paris)) + " (Europe/Paris)"},
		{"zh-CN", "此时段将于 " + i18n.New("zh-Hans").DateTime(opens.In(paris)) + "（Europe/Paris） 开放预约"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		if c.accept != "" {
			req.Header.Set("Accept-Language", c.accept)
		}
		s.writeError(rec, req, refusal)
		var p problemDetails
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.Detail != c.want || p.OpensAt != "2026-12-07T07:00:00Z" || !strings.Contains(p.Detail, "8:00") {
			t.Errorf("Accept-Language %q: detail %q opensAt %q, want %q", c.accept, p.Detail, p.OpensAt, c.want)
		}
	}
}

// TestStaffDetailsTranslated: a staff operation's refusal and a missing
// object read in the asked language.
func TestStaffDetailsTranslated(t *testing.T) {
	s := &server{log: discardLogger(), zone: time.UTC}
	for _, c := range []struct {
		err          error
		accept, want string
	}{
		{booking.NotFound("patient"), "zh", "未找到患者"},
		{errorf(booking.CodeInvalidRequest, "beds must be 1 to %d", 64), "fr", "beds doit être de 1 à 64"},
		{booking.Errorf(booking.CodeInvalidTransition, "payment %s was applied: it needs no refund", "T-1"), "vi", "khoản thanh toán T-1 đã được ghi nhận: không cần hoàn tiền"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		req.Header.Set("Accept-Language", c.accept)
		s.writeError(rec, req, c.err)
		var p problemDetails
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.Detail != c.want {
			t.Errorf("%s: detail %q, want %q", c.accept, p.Detail, c.want)
		}
	}
}
