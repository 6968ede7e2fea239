package sqlite

import (
	"context"
	"database/sql"
)

// ClinicSettings returns the clinic's settings by name (clinic_settings).
func (s *Store) ClinicSettings(ctx context.Context) (map[string]string, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT name, value FROM clinic_settings`)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return nil, mapErr(err, "")
		}
		out[n] = v
	}
	return out, mapErr(rows.Err(), "")
}

// SetClinicSettings writes the given settings, replacing those of the same
// names, in one transaction.
func (s *Store) SetClinicSettings(ctx context.Context, settings map[string]string) error {
	return mapErr(s.write(ctx, func(tx *sql.Tx) error {
		for n, v := range settings {
			if _, err := tx.ExecContext(ctx, `INSERT INTO clinic_settings (name, value) VALUES (?, ?)
				ON CONFLICT (name) DO UPDATE SET value = excluded.value,
				updated_at = CAST(unixepoch('subsec') * 1000000 AS INTEGER)`, n, v); err != nil {
				return err
			}
		}
		return nil
	}), "")
}
