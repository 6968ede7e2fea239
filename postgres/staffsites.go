package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// siteOfSQL reads the site of what a booking.SiteRef names, by kind: a
// slot and an appointment through their doctor's department, 0 for a
// department on no site (and a room, which has none).
var siteOfSQL = map[string]string{
	"slot": `SELECT coalesce(d.site_id, 0) FROM slots s JOIN resources r ON r.id = s.resource_id
		LEFT JOIN departments d ON d.id = r.department_id WHERE s.id = $1`,
	"appointment": `SELECT coalesce(d.site_id, 0) FROM appointments a JOIN slots s ON s.id = a.slot_id
		JOIN resources r ON r.id = s.resource_id LEFT JOIN departments d ON d.id = r.department_id WHERE a.id = $1`,
	"doctor": `SELECT coalesce(d.site_id, 0) FROM resources r LEFT JOIN departments d ON d.id = r.department_id
		WHERE r.id = $1 AND r.kind = 'doctor'`,
	"department": `SELECT coalesce(site_id, 0) FROM departments WHERE id = $1`,
	"schedule": `SELECT coalesce(d.site_id, 0) FROM schedules sc JOIN resources r ON r.id = sc.resource_id
		LEFT JOIN departments d ON d.id = r.department_id WHERE sc.id = $1`,
}

// SiteOf reads the site of the slot, appointment, doctor or department
// ref names, or not found.
func (s *Store) SiteOf(ctx context.Context, ref booking.SiteRef) (int64, error) {
	kind := ref.Kind()
	var site int64
	err := s.pool.QueryRow(ctx, siteOfSQL[kind], ref.SlotID+ref.AppointmentID+ref.DoctorID+ref.DepartmentID+ref.ScheduleID).Scan(&site)
	return site, translate(err, kind)
}

// SetStaffSites limits staff user name to sites (none: every site), with
// its audit entry, and moves the user's marks so that its sessions and
// tokens from before end (a limit takes hold at the next sign-in). An
// unknown user or site is not found.
func (s *Store) SetStaffSites(ctx context.Context, name string, sites []int64, now time.Time) error {
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var doctorID *int64
		var disabled bool
		if err := tx.QueryRow(ctx, `SELECT doctor_id, disabled_at IS NOT NULL FROM staff_users WHERE name = $1 FOR UPDATE`, name).
			Scan(&doctorID, &disabled); err != nil {
			return nil, translate(err, "staff user")
		}
		before, err := staffSites(ctx, tx, name)
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM staff_user_sites WHERE name = $1`, name); err != nil {
			return nil, err
		}
		for _, id := range sites {
			tag, err := tx.Exec(ctx, `INSERT INTO staff_user_sites (name, site_id) SELECT $1, id FROM sites WHERE id = $2`, name, id)
			if err != nil {
				return nil, err
			}
			if tag.RowsAffected() == 0 {
				return nil, booking.NotFound("site")
			}
		}
		if err := moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, deref(doctorID))...); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditStaffSites(ctx, now, booking.StaffSitesChange{Name: name, Before: before, After: sites})}, nil
	})
	return translate(err, "")
}

// StaffSites returns the sites staff user name is limited to (empty:
// every site), or not found.
func (s *Store) StaffSites(ctx context.Context, name string) ([]int64, error) {
	var out []int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM staff_users WHERE name = $1`, name).Scan(&one); err != nil {
			return err
		}
		var err error
		out, err = staffSites(ctx, tx, name)
		return err
	})
	return out, translate(err, "staff user")
}

func staffSites(ctx context.Context, tx pgx.Tx, name string) ([]int64, error) {
	rows, _ := tx.Query(ctx, `SELECT site_id FROM staff_user_sites WHERE name = $1 ORDER BY site_id`, name)
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if out == nil {
		out = []int64{}
	}
	return out, err
}
