package pii

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// PlainRow is one patient's personal data as stored before sealing.
type PlainRow struct{ Name, Phone, Email string }

// SealedRow is a PlainRow sealed with the newest key, with its look-up
// indexes (PhoneIndex nil when the phone is empty or kept by another row).
type SealedRow struct {
	Name, Phone, Email     []byte
	PhoneIndex, EmailIndex []byte
	Key                    uint16
}

// Sealer seals the plain rows of a store that predates sealing (migration
// 00016), visited in id order.
type Sealer struct {
	keys *Keys
	seen map[string]bool
}

// NewSealer returns a Sealer for keys.
func (k *Keys) NewSealer() *Sealer { return &Sealer{keys: k, seen: map[string]bool{}} }

// Seal seals r. Two patients with one phone: only the oldest was ever
// found by it (sign-in took the oldest), so only it keeps the index the
// unique index then requires.
func (s *Sealer) Seal(r PlainRow) SealedRow {
	out := SealedRow{
		Name: s.keys.Seal(FieldName, r.Name), Phone: s.keys.Seal(FieldPhone, r.Phone), Email: s.keys.Seal(FieldEmail, r.Email),
		PhoneIndex: s.keys.PhoneIndex(r.Phone), EmailIndex: s.keys.EmailIndex(r.Email), Key: s.keys.Newest(),
	}
	if s.seen[string(out.PhoneIndex)] {
		out.PhoneIndex = nil
	} else if out.PhoneIndex != nil {
		s.seen[string(out.PhoneIndex)] = true
	}
	return out
}

// ErrNoKeys refuses to seal a store's rows without the data keys.
var ErrNoKeys = errors.New("migration 00016 seals the patients' personal data: give the data keys")

// SealConversion is how a store's plain rows are sealed with Keys, Batch
// rows at a time: SelectAfter reads (id, name, phone, email) of up to $2
// rows whose id is above $1, and Save writes one row sealed.
type SealConversion struct {
	Keys        *Keys
	Batch       int
	SelectAfter string
	Save        func(id int64, r SealedRow) error
}

// SealAll seals a store's plain rows in tx as c says, in id order. It is
// the conversion of both stores' migration 00016, each with its own SQL; it
// returns how many rows it sealed, or ErrNoKeys when there are rows and
// c.Keys is nil.
func SealAll(ctx context.Context, tx *sql.Tx, c SealConversion) (int, error) {
	keys, batch, selectAfter, save := c.Keys, c.Batch, c.SelectAfter, c.Save
	type plain struct {
		id int64
		PlainRow
	}
	var sealer *Sealer
	n := 0
	for after := int64(0); ; {
		rows, err := tx.QueryContext(ctx, selectAfter, after, batch)
		if err != nil {
			return n, err
		}
		var got []plain
		for rows.Next() {
			var p plain
			if err := rows.Scan(&p.id, &p.Name, &p.Phone, &p.Email); err != nil {
				rows.Close()
				return n, err
			}
			got = append(got, p)
		}
		if err := rows.Close(); err != nil {
			return n, err
		}
		if len(got) == 0 {
			return n, nil
		}
		if keys == nil {
			return n, ErrNoKeys
		}
		if sealer == nil {
			sealer = keys.NewSealer()
		}
		for _, p := range got {
			if err := save(p.id, sealer.Seal(p.PlainRow)); err != nil {
				return n, err
			}
		}
		n += len(got)
		after = got[len(got)-1].id
	}
}

// DB is what CheckKeys runs its statements on: a *sql.DB or a *sql.Tx.
type DB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// CheckKeys is the data-key check of every store, run at each start after
// migrating: it reads the database's check values (data_keys) and the ids
// of the keys its patients are sealed with, compares them with keys
// (CheckStored: a lost or wrong key is an error wrapping ErrKeys), and
// records the check values of the keys the database has not seen yet.
// insert is the store's one statement of its own: the INSERT of a
// data_keys row (key_id, check_value), which must do nothing when the row
// exists. A row another process recorded first (two instances starting
// together) is read back and checked, so the later start is refused if
// its key differs.
func CheckKeys(ctx context.Context, db DB, keys *Keys, insert string) error {
	for attempt := 0; ; attempt++ {
		stored := map[uint16][]byte{}
		if err := eachRow(ctx, db, `SELECT key_id, check_value FROM data_keys`, func(r *sql.Rows) error {
			var id int
			var v []byte
			err := r.Scan(&id, &v)
			stored[uint16(id)] = v
			return err
		}); err != nil {
			return fmt.Errorf("data keys: %w", err)
		}
		var inUse []uint16
		if err := eachRow(ctx, db, `SELECT DISTINCT seal_key FROM patients WHERE seal_key <> 0`, func(r *sql.Rows) error {
			var id int
			err := r.Scan(&id)
			inUse = append(inUse, uint16(id))
			return err
		}); err != nil {
			return fmt.Errorf("data keys: %w", err)
		}
		add, err := keys.CheckStored(stored, inUse)
		if err != nil {
			return err
		}
		lost := false
		for _, id := range slices.Sorted(maps.Keys(add)) {
			res, err := db.ExecContext(ctx, insert, int(id), add[id])
			if err != nil {
				return fmt.Errorf("data keys: %w", err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return fmt.Errorf("data keys: %w", err)
			} else if n == 0 {
				lost = true // another start recorded it first: check its value
			}
		}
		if !lost {
			return nil
		}
		if attempt > 0 {
			return errors.New("data keys: the check values changed while this start recorded them")
		}
	}
}

// eachRow runs query on db and calls fn for each row.
func eachRow(ctx context.Context, db DB, query string, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
