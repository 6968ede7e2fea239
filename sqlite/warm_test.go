package sqlite

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWarmOpenPreparesAndConnects: OpenWith with Warm returns with Book's
// statements prepared on the writer and every reader connection open;
// without it, neither (the first Book and the first reads do it).
func TestWarmOpenPreparesAndConnects(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "slotd.db")
	m, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	m.Close()
	readers := min(max(runtime.NumCPU(), 4), 8)
	for _, warm := range []bool{true, false} {
		s, err := OpenWith(ctx, path, Options{Warm: warm})
		if err != nil {
			t.Fatal(err)
		}
		prepared := s.stmts.ready.Load() != nil
		open := s.reader.Stats().OpenConnections
		s.Close()
		if warm && (!prepared || open != readers) {
			t.Errorf("warm: statements prepared %v, %d reader connections open; want prepared and %d", prepared, open, readers)
		}
		if !warm && (prepared || open != 1) {
			t.Errorf("cold: statements prepared %v, %d reader connections open; want neither prepared nor more than the ping's", prepared, open)
		}
	}
	// On a database not migrated yet, Warm opens all the same.
	s, err := OpenWith(ctx, filepath.Join(t.TempDir(), "new.db"), Options{Warm: true})
	if err != nil {
		t.Fatalf("warm open of a new database: %v", err)
	}
	s.Close()
}
