package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand: --dry-run counts and changes nothing; the run
// creates; a re-run creates nothing; a refused line exits 1 with its number.
func TestImportCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "i.db")
	file := filepath.Join(dir, "departments.csv")
	mustNil(t, os.WriteFile(file, []byte("department\nCardiology\nDermatology\n"), 0o600))
	imp := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(ctx, append(append([]string{"import", "--db", db}, args...), file), &out, &errb)
		return out.String(), err
	}
	if out, err := imp("--dry-run"); err != nil || !strings.Contains(out, "departments: 2 rows, would create 2, 0 existing") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if out, err := imp(); err != nil || !strings.Contains(out, "created 2, 0 existing") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if out, err := imp(); err != nil || !strings.Contains(out, "created 0, 2 existing") {
		t.Fatalf("re-run: %v\n%s", err, out)
	}
	mustNil(t, os.WriteFile(file, []byte("department\nNeurology\n@SUM(1)\n"), 0o600))
	out, err := imp()
	var st *exitStatus
	if !errors.As(err, &st) || st.code != 1 || !strings.Contains(out, "line 3:") || !strings.Contains(out, "created 1") {
		t.Fatalf("refused line: %v\n%s", err, out)
	}
}
