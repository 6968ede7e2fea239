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
// states.
var statusWords = []string{"HELD", "BOOKED", "CANCELLED", "COMPLETED", "NO_SHOW", "EXPIRED", "OPEN", "CLOSED"}

var (
	templateKey = regexp.MustCompile(`\$\.T "((?:[^"\\]|\\.)*)"`)
	// Go code translates with p.T/pr.T, names a page's title in newPage and
	// a sign-in failure in fail.
	goKey = regexp.MustCompile(`(?:\.T\(|newPage\(w, r, |fail\()"((?:[^"\\]|\\.)*)"`)
)

// catalogKeys are every sentence the pages can show: the keys in the
// templates, in the Go code, the problems and the status words.
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
		add(templateKey, string(b))
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
	}
	for _, m := range problems {
		keys[m.Title], keys[m.Message] = true, true
	}
	for _, w := range statusWords {
		keys[w] = true
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
	for _, l := range i18n.Languages[1:] {
		cat := i18n.Translations[l.Tag]
		var missing []string
		for _, k := range keys {
			v, ok := cat[k]
			if !ok || v == "" {
				missing = append(missing, strconv.Quote(k))
				continue
			}
			if a, b := verbs(k), verbs(v); !slices.Equal(a, b) {
				t.Errorf("%s: %q has verbs %v, its translation %q has %v", l.Tag, k, a, v, b)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s lacks %d keys:\n%s", l.Tag, len(missing), strings.Join(missing, "\n"))
		}
	}
}

var verbRE = regexp.MustCompile(`%(?:\[\d+\])?[a-z%]`)

// verbs are the fmt verbs of s, sorted (a translation may reorder them
// with %[n]s).
func verbs(s string) []string {
	v := verbRE.FindAllString(s, -1)
	for i, x := range v {
		if strings.HasPrefix(x, "%[") {
			v[i] = "%" + x[strings.Index(x, "]")+1:]
		}
	}
	slices.Sort(v)
	return v
}
