package i18n

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// goKey finds the keys of Go code: the literal first argument of a .T(…)
// call (Printer.T, the web page's T).
var goKey = regexp.MustCompile(`\.T\("((?:[^"\\]|\\.)*)"`)

// KeysInGo returns the keys that Go source src translates with .T("…").
func KeysInGo(src string) []string { return keysIn(goKey, src) }

// templateKey finds the keys of templates: {{$.T "…" …}}.
var templateKey = regexp.MustCompile(`\$\.T "((?:[^"\\]|\\.)*)"`)

// KeysInTemplate returns the keys a template translates with $.T "…".
func KeysInTemplate(src string) []string { return keysIn(templateKey, src) }

func keysIn(re *regexp.Regexp, src string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		if k, err := strconv.Unquote(`"` + m[1] + `"`); err == nil && k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Check returns what is wrong with the catalogs for keys: a key missing (or
// empty) in a language, or a translation whose fmt verbs differ from its
// key's. Tests of every package with visible text call it, so an
// untranslated sentence fails the build's tests.
func Check(keys []string) []string {
	var bad []string
	for _, l := range Languages[1:] {
		cat := Translations[l.Tag]
		var missing []string
		for _, k := range keys {
			v, ok := cat[k]
			if !ok || v == "" {
				missing = append(missing, strconv.Quote(k))
				continue
			}
			if a, b := verbs(k), verbs(v); !slices.Equal(a, b) {
				bad = append(bad, fmt.Sprintf("%s: %q has verbs %v, its translation %q has %v", l.Tag, k, a, v, b))
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			missing = slices.Compact(missing)
			bad = append(bad, fmt.Sprintf("%s (catalog/%s.json) lacks %d keys:\n%s", l.Tag, l.Tag, len(missing), strings.Join(missing, "\n")))
		}
	}
	return bad
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
