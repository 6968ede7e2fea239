package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// ClaimDemo marks an empty database as the demo's (booking.DecideDemo).
func (s *Store) ClaimDemo(ctx context.Context) (bool, error) {
	var fill bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var marked, holds bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM clinic_settings WHERE name = $1 AND value = 'true')`,
			booking.DemoSetting).Scan(&marked); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, booking.HoldsDataSQL).Scan(&holds); err != nil {
			return err
		}
		f, err := booking.DecideDemo(marked, !holds)
		if err != nil || !f {
			return err
		}
		// Of two starts racing for an empty database, the second waits
		// for the first's row and inserts nothing: it does not fill.
		tag, err := tx.Exec(ctx, `INSERT INTO clinic_settings (name, value) VALUES ($1, 'true') ON CONFLICT (name) DO NOTHING`,
			booking.DemoSetting)
		fill = err == nil && tag.RowsAffected() == 1
		return err
	})
	return fill, translate(err, "")
}

// Holdings reads the demo's marker and the patients and active
// appointments (booking.HoldingsSQL).
func (s *Store) Holdings(ctx context.Context) (booking.Holdings, error) {
	var h booking.Holdings
	err := s.pool.QueryRow(ctx, booking.HoldingsSQL).Scan(&h.Demo, &h.Patients, &h.ActiveAppointments)
	return h, translate(err, "")
}
