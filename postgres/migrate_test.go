package postgres

import (
	"context"
	"database/sql"
	"io/fs"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/slotd/slotd/internal/pgtest"
)

// A database that already holds overlapping slots of one doctor (what
// migration 00014 forbids from then on) stops the upgrade with a message
// that says how to find them, and is left at 13 for the staff to mend.
func TestUpgradeWithOverlappingSlotsSaysWhy(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatalf("up to 13: %v", err)
	}
	if _, err := db.ExecContext(ctx, `
		INSERT INTO departments (name) VALUES ('Cardiology');
		INSERT INTO resources (kind, name, department_id, timezone) VALUES ('doctor', 'Dr. A', 1, 'UTC');
		INSERT INTO slots (resource_id, start_at, end_at, capacity, opens_at) VALUES
			(1, '2026-03-05 11:00Z', '2026-03-05 11:45Z', 1, '2026-03-01Z'),
			(1, '2026-03-05 11:30Z', '2026-03-05 11:45Z', 1, '2026-03-01Z')`); err != nil {
		t.Fatalf("seed: %v", err)
	}
	err = Migrate(ctx, dsn)
	if err == nil || !strings.Contains(err.Error(), "overlapping slots") || !strings.Contains(err.Error(), "List them with") {
		t.Fatalf("migrate over overlapping slots: %v, want the explained refusal", err)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 13 {
		t.Fatalf("version after the refused upgrade: %d, %v; want 13", v, err)
	}
}
