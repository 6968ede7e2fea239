package pii

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	_ "modernc.org/sqlite"
)

// racingDB is a DB on which another start records its own check values
// just before each insert of this one.
type racingDB struct {
	*sql.DB
	other *Keys
}

func (r racingDB) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	id := uint16(args[0].(int))
	v := r.other.Index(CheckField, CheckPlain)
	if id != IndexCheckID {
		v = r.other.CheckSeal(id)
	}
	if _, err := r.DB.ExecContext(ctx, q, int(id), v); err != nil {
		return nil, err
	}
	return r.DB.ExecContext(ctx, q, args...)
}

// CheckKeys records the check values once and refuses other keys; a start
// that loses the race to record them reads the winner's back and checks
// them.
func TestCheckKeys(t *testing.T) {
	ctx := context.Background()
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		for _, q := range []string{`CREATE TABLE data_keys (key_id INTEGER PRIMARY KEY, check_value BLOB NOT NULL)`,
			`CREATE TABLE patients (id INTEGER PRIMARY KEY, seal_key INTEGER NOT NULL DEFAULT 0)`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		return db
	}
	const insert = `INSERT INTO data_keys (key_id, check_value) VALUES (?, ?) ON CONFLICT DO NOTHING`
	k := New()
	db := open()
	if err := CheckKeys(ctx, db, k, insert); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM data_keys`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d check values recorded (%v), want the index key's and key 1's", n, err)
	}
	if err := CheckKeys(ctx, db, k, insert); err != nil {
		t.Fatalf("the same keys again: %v", err)
	}
	if err := CheckKeys(ctx, db, New(), insert); !errors.Is(err, ErrKeys) {
		t.Fatalf("other keys: %v, want ErrKeys", err)
	}
	if _, err := db.Exec(`INSERT INTO patients (seal_key) VALUES (3)`); err != nil {
		t.Fatal(err)
	}
	if err := CheckKeys(ctx, db, k, insert); !errors.Is(err, ErrKeys) {
		t.Fatalf("a patient sealed with a key not given: %v, want ErrKeys", err)
	}

	race := open()
	if err := CheckKeys(ctx, racingDB{race, New()}, k, insert); !errors.Is(err, ErrKeys) {
		t.Fatalf("a start racing one with other keys: %v, want ErrKeys", err)
	}
	if err := CheckKeys(ctx, racingDB{open(), k}, k, insert); err != nil {
		t.Fatalf("a start racing one with the same keys: %v", err)
	}
}
