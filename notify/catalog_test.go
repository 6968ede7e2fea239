package notify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slotd/slotd/i18n"
)

// TestNotifyCatalogComplete fails when a sentence of a notification lacks
// a translation (i18n/catalog).
func TestNotifyCatalogComplete(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	var keys []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, i18n.KeysInGo(string(b))...)
	}
	if len(keys) < 20 {
		t.Fatalf("found only %d keys: the key pattern no longer matches the code", len(keys))
	}
	for _, p := range i18n.Check(keys) {
		t.Error(p)
	}
}
