package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/slotd/slotd/i18n"
)

// statusWords are shown through {{$.T .Status}}: the appointment and slot
// states, and the waitlist entries' states.
var statusWords = []string{"HELD", "BOOKED", "ARRIVED", "CANCELLED", "COMPLETED", "NO_SHOW", "EXPIRED", "OPEN", "CLOSED",
	"WAITING", "OFFERED", "ACCEPTED", "DECLINED", "FULFILLED", "LAPSED"}

// Besides .T("…") (i18n.KeysInGo), Go code names a page's title in
// newPage and a sign-in failure in fail.
var goKey = regexp.MustCompile(`(?:newPage\(w, r, |fail\()"((?:[^"\\]|\\.)*)"`)

// lineKey finds the sentences of the import's line errors, which the
// import page translates: csvdata's own (lineError, invalid, a booking
// error, csvErr's) and schedule.Normalize's.
var lineKey = regexp.MustCompile(`(?:lineError\(\w+(?:\.\w+)?, |invalid\(|Errorf\(booking\.Code\w+, |return |bad\()"((?:[^"\\]|\\.)*)"`)

// catalogKeys are every sentence the pages can show: the keys in the
// templates, in the Go code, the problems, the status and audit words and
// the import's line errors.
func catalogKeys(t *testing.T) []string {
	t.Helper()
	keys := map[string]bool{}
	add := func(re *regexp.Regexp, src string) {
		for _, m := range re.FindAllStringSubmatch(src, -1) {
			k, err := strconv.Unquote(`"` + m[1] + `"`)
			if err != nil {
				t.Fatalf("key %s: %v", m[1], err)
			}
			if k != "" {
				keys[k] = true
			}
		}
	}
	err := fs.WalkDir(templateFS, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := templateFS.ReadFile(p)
		for _, k := range i18n.KeysInTemplate(string(b)) {
			keys[k] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	gos, _ := filepath.Glob("*.go")
	for _, p := range gos {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		add(goKey, string(b))
		for _, k := range i18n.KeysInGo(string(b)) {
			keys[k] = true
		}
	}
	for _, m := range problems {
		keys[m.Title], keys[m.Message] = true, true
	}
	for _, w := range statusWords {
		keys[w] = true
	}
	for _, words := range []map[string]string{auditActions, auditEntities, auditRoles, importKinds, messageWords} {
		for _, w := range words {
			keys[w] = true
		}
	}
	for _, p := range []string{"../csvdata/import.go", "../schedule/schedule.go"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n := len(keys)
		if add(lineKey, string(b)); len(keys) == n {
			t.Fatalf("%s: no sentence found: the pattern no longer matches the code", p)
		}
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestCatalogsComplete fails when a sentence of a page has no translation
// in some language, or a translation changes its fmt verbs.
func TestCatalogsComplete(t *testing.T) {
	keys := catalogKeys(t)
	if len(keys) < 100 {
		t.Fatalf("found only %d keys: the key patterns no longer match the code", len(keys))
	}
	for _, p := range i18n.Check(keys) {
		t.Error(p)
	}
}
