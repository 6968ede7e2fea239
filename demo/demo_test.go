package demo

import (
	"strings"
	"testing"

	"github.com/slotd/slotd/i18n"
)

// Every language of the pages names the demo's departments and doctors in
// it, one name per department, the Vaccination one where its slots take ten.
func TestNamesInEveryLanguage(t *testing.T) {
	for _, l := range i18n.Languages {
		names, ok := departmentNames[l.Tag]
		if l.Tag == "en" {
			names, ok = departments, true
		}
		if !ok || len(names) != len(departments) {
			t.Errorf("%s: %d department names, want %d", l.Tag, len(names), len(departments))
			continue
		}
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || seen[n] {
				t.Errorf("%s: department name %q empty or twice", l.Tag, n)
			}
			seen[n] = true
		}
		if d := doctorName(l.Tag, "Anh", "Martin", 1); !strings.Contains(d, "Anh Martin 1") || d == "Anh Martin 1" {
			t.Errorf("%s: doctor %q", l.Tag, d)
		}
	}
	if departments[vaccination] != "Vaccination" || departmentNames["zh-Hans"][1] != "心内科" {
		t.Errorf("the departments' order differs between languages")
	}
}
