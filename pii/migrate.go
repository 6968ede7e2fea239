package pii

import (
	"context"
	"database/sql"
	"errors"
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

// SealAll seals a store's plain rows in tx, in id order and batch at a
// time: selectAfter reads (id, name, phone, email) of up to $2 rows whose
// id is above $1, and save writes one row sealed. It is the conversion of
// both stores' migration 00016, each with its own SQL; it returns how many
// rows it sealed, or ErrNoKeys when there are rows and keys is nil.
func SealAll(ctx context.Context, tx *sql.Tx, keys *Keys, batch int, selectAfter string, save func(id int64, r SealedRow) error) (int, error) {
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
