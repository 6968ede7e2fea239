package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ClinicSettings returns the clinic's settings by name (clinic_settings).
func (s *Store) ClinicSettings(ctx context.Context) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT name, value FROM clinic_settings`)
	if err != nil {
		return nil, translate(err, "")
	}
	out := map[string]string{}
	var n, v string
	_, err = pgx.ForEachRow(rows, []any{&n, &v}, func() error { out[n] = v; return nil })
	return out, translate(err, "")
}

// SetClinicSettings writes the given settings, replacing those of the same
// names, in one transaction.
func (s *Store) SetClinicSettings(ctx context.Context, settings map[string]string) error {
	return translate(s.inTx(ctx, func(tx pgx.Tx) error {
		for n, v := range settings {
			if _, err := tx.Exec(ctx, `INSERT INTO clinic_settings (name, value) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now()`, n, v); err != nil {
				return err
			}
		}
		return nil
	}), "")
}
