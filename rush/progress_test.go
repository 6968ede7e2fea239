package rush

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressNotTerminal: progress written to a file or a buffer (a CI
// log, `2> run.log`) is whole lines, never a carriage return, and the
// load's end leaves a last line with the totals.
func TestProgressNotTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "progress.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, w := range []interface{ Write([]byte) (int, error) }{&buf, f} {
		if isTerminal(w) {
			t.Fatalf("%T taken for a terminal", w)
		}
	}

	rec := NewRecorder(time.Now())
	rec.Record(EndpointBook, OutCreated, time.Now(), time.Millisecond)
	cfg := &Config{Progress: f, Slots: 1, Capacity: 1}
	r := newRunner(context.Background(), cfg, &Fixture{}, nil, rec, func(string, ...any) {})
	r.sold.Store(1)
	stop := r.progress(time.Now())
	stop()

	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if strings.Contains(out, "\r") {
		t.Errorf("progress to a file holds a carriage return: %q", out)
	}
	if !strings.HasSuffix(out, "\n") || !strings.Contains(out, "[201 1 ") || !strings.Contains(out, "sold 1/1") {
		t.Errorf("progress to a file = %q, want whole lines ending with the totals (201 1, sold 1/1)", out)
	}

	// On a terminal the line is rewritten in place.
	buf.Reset()
	printProgress(&buf, true, time.Second, 1, 0, [numOutcomes]int64{}, 0, 0, 1, 0, 0)
	if s := buf.String(); !strings.HasPrefix(s, "\r") || strings.Contains(s, "\n") {
		t.Errorf("terminal line = %q, want \\r and no newline", s)
	}
}
