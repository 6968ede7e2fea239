package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/slotd/slotd/booking"
)

// CreateDepartment adds a department; a taken name is a conflict.
func (s *Store) CreateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	d.CreatedAt = micro(orNow(d.CreatedAt))
	err := s.write(ctx, func(tx *sql.Tx) error {
		if d.SiteID != 0 {
			if err := exists(ctx, tx, `SELECT 1 FROM sites WHERE id = ?`, d.SiteID); err != nil {
				return notFoundAs(err, "site")
			}
		}
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO departments (name, site_id, created_at) VALUES (?, coalesce(nullif(?, 0), (SELECT min(id) FROM sites)), ?)
			 RETURNING id, site_id`,
			d.Name, d.SiteID, ts(d.CreatedAt)).Scan(&d.ID, &d.SiteID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.Audit(ctx, d.CreatedAt, booking.AuditChange{Entity: booking.EntityDepartment, ID: d.ID, Action: "create", After: map[string]any{"name": d.Name, "siteId": d.SiteID}}))
	})
	if err != nil {
		return booking.Department{}, mapErr(err, "department")
	}
	return d, nil
}

// ListDepartments lists the departments with an active doctor, by id.
func (s *Store) ListDepartments(ctx context.Context, p booking.Page) ([]booking.Department, error) {
	return s.ListDepartmentsBy(ctx, booking.DepartmentFilter{}, p)
}

// ListAllDepartments is ListDepartments with the empty ones, for staff.
func (s *Store) ListAllDepartments(ctx context.Context, p booking.Page) ([]booking.Department, error) {
	return s.ListDepartmentsBy(ctx, booking.DepartmentFilter{All: true}, p)
}

// ListDepartmentsBy lists the departments f selects, by id.
func (s *Store) ListDepartmentsBy(ctx context.Context, f booking.DepartmentFilter, p booking.Page) ([]booking.Department, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT id, name, site_id, created_at FROM departments d
		  WHERE d.id > ?1 AND (?4 = 0 OR d.site_id = ?4) AND (?3 OR EXISTS (SELECT 1 FROM resources r
		        WHERE r.department_id = d.id AND r.kind = 'doctor' AND r.active))
		  ORDER BY id LIMIT ?2`,
		p.After, rowLimit(p), f.All, f.SiteID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Department{}
	for rows.Next() {
		var d booking.Department
		var created int64
		if err := rows.Scan(&d.ID, &d.Name, &d.SiteID, &created); err != nil {
			return nil, mapErr(err, "")
		}
		d.CreatedAt = fromTS(created)
		out = append(out, d)
	}
	return out, mapErr(rows.Err(), "")
}

// CreateDoctor adds a doctor resource; an unknown department is not found.
func (s *Store) CreateDoctor(ctx context.Context, d booking.Doctor) (booking.Doctor, error) {
	d.CreatedAt = micro(orNow(d.CreatedAt))
	err := s.write(ctx, func(tx *sql.Tx) error {
		// Checked rather than left to the foreign key, whose SQLite error
		// does not say which reference failed.
		if err := exists(ctx, tx, `SELECT 1 FROM departments WHERE id = ?`, d.DepartmentID); err != nil {
			return notFoundAs(err, "department")
		}
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO resources (kind, name, department_id, timezone, created_at)
			 VALUES ('doctor', ?, ?, ?, ?) RETURNING id`,
			d.Name, d.DepartmentID, d.TimeZone, ts(d.CreatedAt)).Scan(&d.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.Audit(ctx, d.CreatedAt, booking.AuditChange{Entity: booking.EntityDoctor, ID: d.ID, Action: "create", After: map[string]any{"departmentId": d.DepartmentID}}))
	})
	if err != nil {
		return booking.Doctor{}, mapErr(err, "department")
	}
	d.Active = true
	d.Profile = booking.Profile{Specialties: []string{}, Languages: []string{}} // written by UpdateProfile alone
	return d, nil
}

const doctorCols = `id, name, department_id, timezone, active, created_at, title, specialties, languages, bio,
	consulting_room, coalesce((SELECT etag FROM doctor_photos WHERE doctor_id = resources.id), '')`

func scanDoctor(sc interface{ Scan(...any) error }) (booking.Doctor, error) {
	var d booking.Doctor
	var dept sql.NullInt64
	var created int64
	var specialties, languages string
	if err := sc.Scan(&d.ID, &d.Name, &dept, &d.TimeZone, &d.Active, &created,
		&d.Title, &specialties, &languages, &d.Bio, &d.ConsultingRoom, &d.Photo); err != nil {
		return d, err
	}
	d.DepartmentID = dept.Int64
	d.Specialties, d.Languages = booking.SplitItems(specialties), booking.SplitItems(languages)
	d.CreatedAt = fromTS(created)
	return d, nil
}

// GetDoctor returns one doctor.
func (s *Store) GetDoctor(ctx context.Context, id int64) (booking.Doctor, error) {
	d, err := scanDoctor(s.reader.QueryRowContext(ctx,
		`SELECT `+doctorCols+` FROM resources WHERE id = ? AND kind = 'doctor'`, id))
	if err != nil {
		return booking.Doctor{}, mapErr(err, "doctor")
	}
	return d, nil
}

// ListDoctors lists the active doctors of a department (all with 0), by
// id: a deactivated doctor is hidden from listings.
func (s *Store) ListDoctors(ctx context.Context, departmentID int64, p booking.Page) ([]booking.Doctor, error) {
	return s.ListDoctorsBy(ctx, booking.DoctorFilter{DepartmentID: departmentID}, p)
}

// ListAllDoctors is ListDoctors with the deactivated doctors, for staff.
func (s *Store) ListAllDoctors(ctx context.Context, departmentID int64, p booking.Page) ([]booking.Doctor, error) {
	return s.ListDoctorsBy(ctx, booking.DoctorFilter{DepartmentID: departmentID, All: true}, p)
}

// ListDoctorsBy lists the doctors f selects, by id.
func (s *Store) ListDoctorsBy(ctx context.Context, f booking.DoctorFilter, p booking.Page) ([]booking.Doctor, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+doctorCols+` FROM resources
		  WHERE kind = 'doctor' AND (active OR ?2) AND (?1 = 0 OR department_id = ?1) AND id > ?3
		    AND (?5 = 0 OR department_id IN (SELECT id FROM departments WHERE site_id = ?5))
		  ORDER BY id LIMIT ?4`,
		f.DepartmentID, f.All, p.After, rowLimit(p), f.SiteID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Doctor{}
	for rows.Next() {
		d, err := scanDoctor(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, d)
	}
	return out, mapErr(rows.Err(), "")
}

// CreateSchedule adds a doctor's working pattern; an unknown doctor is not
// found, and one overlapping another of the doctor's schedules is refused
// (booking.ScheduleOverlap). Zero horizon, opening time and hold time take
// the defaults.
func (s *Store) CreateSchedule(ctx context.Context, sc booking.Schedule) (booking.Schedule, error) {
	return s.saveSchedule(ctx, sc, false)
}

const scheduleCols = `id, resource_id, weekdays, start_time, end_time, slot_minutes, capacity,
	fee_cents, horizon_days, opens_at_time, hold_minutes, coalesce(end_date, ''),
	max_active, max_per_day, cancel_cutoff_hours, no_show_limit, no_show_block_days, created_at,
	coalesce(reminders, ''), coalesce(offer_minutes, 0), coalesce(generated_through, ''),
	refund_full_hours, refund_partial_percent, refund_partial_hours`

func scanSchedule(r interface{ Scan(...any) error }) (booking.Schedule, error) {
	var sc booking.Schedule
	var mask int16
	var created int64
	var o [8]sql.NullInt64
	if err := r.Scan(&sc.ID, &sc.DoctorID, &mask, &sc.StartTime, &sc.EndTime, &sc.SlotMinutes,
		&sc.Capacity, &sc.FeeCents, &sc.HorizonDays, &sc.OpensAtTime, &sc.HoldMinutes, &sc.EndDate,
		&o[0], &o[1], &o[2], &o[3], &o[4], &created, &sc.Reminders, &sc.OfferMinutes, &sc.GeneratedThrough,
		&o[5], &o[6], &o[7]); err != nil {
		return sc, err
	}
	p := &sc.Policy
	for k, dst := range []**int{&p.MaxActive, &p.MaxPerDay, &p.CancelCutoffHours, &p.NoShowLimit, &p.NoShowBlockDays,
		&p.RefundFullHours, &p.RefundPartialPercent, &p.RefundPartialHours} {
		if o[k].Valid {
			v := int(o[k].Int64)
			*dst = &v
		}
	}
	sc.Weekdays = booking.WeekdaysOf(mask)
	sc.CreatedAt = fromTS(created)
	return sc, nil
}

// ListSchedules lists a doctor's schedules (all with 0), by id.
func (s *Store) ListSchedules(ctx context.Context, doctorID int64) ([]booking.Schedule, error) {
	return listSchedules(ctx, s.reader, doctorID)
}

func listSchedules(ctx context.Context, q querier, doctorID int64) ([]booking.Schedule, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT `+scheduleCols+` FROM schedules WHERE (?1 = 0 OR resource_id = ?1) ORDER BY id`, doctorID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Schedule{}
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, sc)
	}
	return out, mapErr(rows.Err(), "")
}

// exists returns sql.ErrNoRows unless query finds a row.
func exists(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	var one int
	return tx.QueryRowContext(ctx, query, args...).Scan(&one)
}

// notFoundAs turns a missing row into NotFound(kind) and leaves other
// errors as they are.
func notFoundAs(err error, kind string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return booking.NotFound(kind)
	}
	return err
}

// nullText stores an empty optional text as NULL.
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// rowLimit is a page's LIMIT argument: SQLite reads a negative LIMIT as no
// limit, which is booking.Page's 0.
func rowLimit(p booking.Page) int {
	if p.Limit <= 0 {
		return -1
	}
	return p.Limit
}
