package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
)

// siteOfSQL: postgres/staffsites.go's, in SQLite's placeholders.
var siteOfSQL = map[string]string{
	"slot": `SELECT coalesce(d.site_id, 0) FROM slots s JOIN resources r ON r.id = s.resource_id
		LEFT JOIN departments d ON d.id = r.department_id WHERE s.id = ?`,
	"appointment": `SELECT coalesce(d.site_id, 0) FROM appointments a JOIN slots s ON s.id = a.slot_id
		JOIN resources r ON r.id = s.resource_id LEFT JOIN departments d ON d.id = r.department_id WHERE a.id = ?`,
	"doctor": `SELECT coalesce(d.site_id, 0) FROM resources r LEFT JOIN departments d ON d.id = r.department_id
		WHERE r.id = ? AND r.kind = 'doctor'`,
	"department": `SELECT coalesce(site_id, 0) FROM departments WHERE id = ?`,
	"schedule": `SELECT coalesce(d.site_id, 0) FROM schedules sc JOIN resources r ON r.id = sc.resource_id
		LEFT JOIN departments d ON d.id = r.department_id WHERE sc.id = ?`,
}

// SiteOf reads the site of the slot, appointment, doctor or department
// ref names, or not found.
func (s *Store) SiteOf(ctx context.Context, ref booking.SiteRef) (int64, error) {
	kind := ref.Kind()
	var site int64
	err := s.reader.QueryRowContext(ctx, siteOfSQL[kind], ref.SlotID+ref.AppointmentID+ref.DoctorID+ref.DepartmentID+ref.ScheduleID).Scan(&site)
	return site, mapErr(err, kind)
}

// SetStaffSites limits staff user name to sites (none: every site), with
// its audit entry, and moves the user's marks so that its sessions and
// tokens from before end. An unknown user or site is not found.
func (s *Store) SetStaffSites(ctx context.Context, name string, sites []int64, now time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var doctorID sql.NullInt64
		var disabled bool
		if err := tx.QueryRowContext(ctx, `SELECT doctor_id, disabled_at IS NOT NULL FROM staff_users WHERE name = ?`, name).
			Scan(&doctorID, &disabled); err != nil {
			return notFoundAs(err, "staff user")
		}
		before, err := staffSites(ctx, tx, name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM staff_user_sites WHERE name = ?`, name); err != nil {
			return err
		}
		for _, id := range sites {
			res, err := tx.ExecContext(ctx, `INSERT INTO staff_user_sites (name, site_id) SELECT ?, id FROM sites WHERE id = ?`, name, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return booking.NotFound("site")
			}
		}
		if err := moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, doctorID.Int64)...); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditStaffSites(ctx, now, booking.StaffSitesChange{Name: name, Before: before, After: sites}))
	})
	return mapErr(err, "")
}

// StaffSites returns the sites staff user name is limited to (empty:
// every site), or not found.
func (s *Store) StaffSites(ctx context.Context, name string) ([]int64, error) {
	var one int
	if err := s.reader.QueryRowContext(ctx, `SELECT 1 FROM staff_users WHERE name = ?`, name).Scan(&one); err != nil {
		return nil, mapErr(err, "staff user")
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT site_id FROM staff_user_sites WHERE name = ? ORDER BY site_id`, name)
	if err != nil {
		return nil, mapErr(err, "")
	}
	return collectSites(rows)
}

// staffSites reads the sites of user name inside tx.
func staffSites(ctx context.Context, tx *sql.Tx, name string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT site_id FROM staff_user_sites WHERE name = ? ORDER BY site_id`, name)
	if err != nil {
		return nil, err
	}
	return collectSites(rows)
}

func collectSites(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
