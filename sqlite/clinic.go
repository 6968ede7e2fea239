package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
)

// Running a clinic (docs/clinic.md): editing, schedules' end and policies,
// closures and their lifting. Decisions are booking's; this is SQL, each
// change one write transaction on the single writer.

// UpdateDepartment renames a department; a taken name is a conflict.
func (s *Store) UpdateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var created int64
		var before booking.Department
		if err := tx.QueryRowContext(ctx, `SELECT name FROM departments WHERE id = ?`, d.ID).Scan(&before.Name); err != nil {
			return notFoundAs(err, "department")
		}
		if err := tx.QueryRowContext(ctx, `UPDATE departments SET name = ? WHERE id = ? RETURNING site_id, created_at`, d.Name, d.ID).Scan(&d.SiteID, &created); err != nil {
			return err
		}
		d.CreatedAt = fromTS(created)
		return writeAudit(ctx, tx, booking.AuditDepartmentUpdate(ctx, time.Now(), before, d))
	})
	if err != nil {
		return booking.Department{}, mapErr(err, "department")
	}
	return d, nil
}

// UpdateDoctor changes a doctor's name, department, activity or profile.
func (s *Store) UpdateDoctor(ctx context.Context, id int64, u booking.DoctorUpdate) (booking.Doctor, error) {
	var d booking.Doctor
	err := s.write(ctx, func(tx *sql.Tx) error {
		if u.DepartmentID != nil {
			if err := exists(ctx, tx, `SELECT 1 FROM departments WHERE id = ?`, *u.DepartmentID); err != nil {
				return notFoundAs(err, "department")
			}
		}
		before, err := scanDoctor(tx.QueryRowContext(ctx, `SELECT `+doctorCols+` FROM resources WHERE id = ? AND kind = 'doctor'`, id))
		if err != nil {
			return notFoundAs(err, "doctor")
		}
		p := u.ProfileUpdate.Apply(before.Profile)
		if d, err = scanDoctor(tx.QueryRowContext(ctx,
			`UPDATE resources SET name = coalesce(?2, name), department_id = coalesce(?3, department_id),
			        active = coalesce(?4, active), title = ?5, specialties = ?6, languages = ?7, bio = ?8, consulting_room = ?9
			  WHERE id = ?1 RETURNING `+doctorCols, id, u.Name, u.DepartmentID, u.Active,
			p.Title, booking.JoinItems(p.Specialties), booking.JoinItems(p.Languages), p.Bio, p.ConsultingRoom)); err != nil {
			return err
		}
		now := time.Now()
		return writeAudit(ctx, tx, append([]booking.AuditEntry{booking.AuditDoctorUpdate(ctx, now, before, d)}, booking.AuditProfile(ctx, now, before, d)...)...)
	})
	if err != nil {
		return booking.Doctor{}, mapErr(err, "doctor")
	}
	return d, nil
}

// GetSchedule returns one schedule.
func (s *Store) GetSchedule(ctx context.Context, id int64) (booking.Schedule, error) {
	sc, err := scanSchedule(s.reader.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules WHERE id = ?`, id))
	if err != nil {
		return booking.Schedule{}, mapErr(err, "schedule")
	}
	return sc, nil
}

// UpdateSchedule replaces a schedule's pattern, end and policy (its doctor
// stays), refusing an overlap with another of the doctor's schedules.
func (s *Store) UpdateSchedule(ctx context.Context, sc booking.Schedule) (booking.Schedule, error) {
	return s.saveSchedule(ctx, sc, true)
}

// saveSchedule inserts or updates sc, checked against the doctor's other
// schedules under the write lock.
func (s *Store) saveSchedule(ctx context.Context, sc booking.Schedule, update bool) (booking.Schedule, error) {
	mask, err := booking.WeekdayMask(sc.Weekdays)
	if err != nil {
		return booking.Schedule{}, err
	}
	sc = sc.WithDefaults()
	sc.CreatedAt = micro(orNow(sc.CreatedAt))
	o := sc.Policy
	var out booking.Schedule
	err = s.write(ctx, func(tx *sql.Tx) error {
		var before *booking.Schedule
		if update {
			old, err := scanSchedule(tx.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules WHERE id = ?`, sc.ID))
			if err != nil {
				return notFoundAs(err, "schedule")
			}
			sc.DoctorID, before = old.DoctorID, &old
		}
		var tz string
		if err := tx.QueryRowContext(ctx, `SELECT timezone FROM resources WHERE id = ? AND kind = 'doctor'`, sc.DoctorID).Scan(&tz); err != nil {
			return notFoundAs(err, "doctor")
		}
		others, err := listSchedules(ctx, tx, sc.DoctorID)
		if err != nil {
			return err
		}
		if err := booking.ScheduleOverlap(sc, others, civilToday(tz)); err != nil {
			return err
		}
		args := []any{sc.DoctorID, mask, sc.StartTime, sc.EndTime, sc.SlotMinutes, sc.Capacity,
			sc.FeeCents, sc.HorizonDays, sc.OpensAtTime, sc.HoldMinutes, nullText(sc.EndDate),
			o.MaxActive, o.MaxPerDay, o.CancelCutoffHours, o.NoShowLimit, o.NoShowBlockDays,
			sc.Reminders, sc.OfferMinutes, o.RefundFullHours, o.RefundPartialPercent, o.RefundPartialHours}
		id := sc.ID
		if update {
			_, err = tx.ExecContext(ctx, `UPDATE schedules SET weekdays = ?2, start_time = ?3, end_time = ?4,
				slot_minutes = ?5, capacity = ?6, fee_cents = ?7, horizon_days = ?8, opens_at_time = ?9,
				hold_minutes = ?10, end_date = ?11, max_active = ?12, max_per_day = ?13,
				cancel_cutoff_hours = ?14, no_show_limit = ?15, no_show_block_days = ?16,
				reminders = NULLIF(?17, ''), offer_minutes = NULLIF(?18, 0),
				refund_full_hours = ?19, refund_partial_percent = ?20, refund_partial_hours = ?21
				WHERE id = ?22`, append(args, sc.ID)...)
		} else {
			err = tx.QueryRowContext(ctx, `INSERT INTO schedules (resource_id, weekdays, start_time, end_time,
				slot_minutes, capacity, fee_cents, horizon_days, opens_at_time, hold_minutes, end_date,
				max_active, max_per_day, cancel_cutoff_hours, no_show_limit, no_show_block_days,
				reminders, offer_minutes, refund_full_hours, refund_partial_percent, refund_partial_hours, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, 0), ?, ?, ?, ?) RETURNING id`,
				append(args, ts(sc.CreatedAt))...).Scan(&id)
		}
		if err != nil {
			return err
		}
		if out, err = scanSchedule(tx.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules WHERE id = ?`, id)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditScheduleSaved(ctx, sc.CreatedAt, before, out))
	})
	if err != nil {
		return booking.Schedule{}, mapErr(err, "doctor")
	}
	return out, nil
}

// civilToday is the civil date in zone tz (UTC when it does not load).
func civilToday(tz string) string {
	return time.Now().In(zone(tz)).Format(time.DateOnly)
}

var zones sync.Map // tz name → *time.Location, as loading one reads tzdata

// zone loads tz once (UTC when it does not load).
func zone(tz string) *time.Location {
	if l, ok := zones.Load(tz); ok {
		return l.(*time.Location)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	zones.Store(tz, loc)
	return loc
}

// DeleteFreeSlots deletes the schedule's slots starting at or after from
// that no appointment ever named (nothing behind a patient's back), so
// that an edited schedule regenerates them; it reports how many.
func (s *Store) DeleteFreeSlots(ctx context.Context, scheduleID int64, from time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM slots WHERE schedule_id = ? AND start_at >= ?
			AND NOT EXISTS (SELECT 1 FROM appointments a WHERE a.slot_id = slots.id)`, scheduleID, ts(from))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditFreeSlotsDeleted(ctx, time.Now(), scheduleID, int(n)))
	})
	if err != nil {
		return 0, mapErr(err, "")
	}
	return int(n), nil
}

const policyCols = `max_active, max_per_day, cancel_cutoff_hours, no_show_limit, no_show_block_days,
	refund_full_hours, refund_partial_percent, refund_partial_hours,
	check_in_before_minutes, check_in_after_minutes, no_show_grace_minutes, queue_skip_calls, max_people, require_national_id,
	queue_notify_ahead, walk_ins_per_slot, public_opening_summary`

// policyFields are the fields of p in the order of policyCols.
func policyFields(p *booking.Policy) []any {
	return []any{&p.MaxActive, &p.MaxPerDay, &p.CancelCutoffHours, &p.NoShowLimit, &p.NoShowBlockDays,
		&p.RefundFullHours, &p.RefundPartialPercent, &p.RefundPartialHours,
		&p.CheckInBeforeMinutes, &p.CheckInAfterMinutes, &p.NoShowGraceMinutes, &p.QueueSkipCalls, &p.MaxPeople, &p.RequireNationalID,
		&p.QueueNotifyAhead, &p.WalkInsPerSlot, &p.PublicOpeningSummary}
}

// ClinicPolicy returns the clinic's default policy.
func (s *Store) ClinicPolicy(ctx context.Context) (booking.Policy, error) {
	var p booking.Policy
	err := s.reader.QueryRowContext(ctx, `SELECT `+policyCols+` FROM clinic_policy WHERE id = 1`).
		Scan(policyFields(&p)...)
	return p, mapErr(err, "")
}

// SetClinicPolicy replaces the clinic's default policy.
func (s *Store) SetClinicPolicy(ctx context.Context, p booking.Policy) (booking.Policy, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var before booking.Policy
		if err := tx.QueryRowContext(ctx, `SELECT `+policyCols+` FROM clinic_policy WHERE id = 1`).
			Scan(policyFields(&before)...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE clinic_policy SET max_active = ?, max_per_day = ?,
			cancel_cutoff_hours = ?, no_show_limit = ?, no_show_block_days = ?,
			refund_full_hours = ?, refund_partial_percent = ?, refund_partial_hours = ?,
			check_in_before_minutes = ?, check_in_after_minutes = ?, no_show_grace_minutes = ?, queue_skip_calls = ?, max_people = ?,
			require_national_id = ?, queue_notify_ahead = ?, walk_ins_per_slot = ?, public_opening_summary = ? WHERE id = 1`,
			p.MaxActive, p.MaxPerDay, p.CancelCutoffHours, p.NoShowLimit, p.NoShowBlockDays,
			p.RefundFullHours, p.RefundPartialPercent, p.RefundPartialHours,
			p.CheckInBeforeMinutes, p.CheckInAfterMinutes, p.NoShowGraceMinutes, p.QueueSkipCalls, p.MaxPeople, p.RequireNationalID,
			p.QueueNotifyAhead, p.WalkInsPerSlot, p.PublicOpeningSummary); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditPolicy(ctx, time.Now(), before, p))
	})
	return p, mapErr(err, "")
}

// slotPolicySQL reads the clinic's policy and the overrides of slot ?1's
// schedule in one row; bookPolicySQL adds, for the booking decision, the
// announced opening of the slot (its schedule's at its opens_at, through
// openings_schedule_key): a slot without a schedule or an opening pays
// no statement more.
const (
	policyColsSQL = `SELECT cp.max_active, cp.max_per_day, cp.cancel_cutoff_hours, cp.no_show_limit, cp.no_show_block_days,
		cp.refund_full_hours, cp.refund_partial_percent, cp.refund_partial_hours,
		sc.max_active, sc.max_per_day, sc.cancel_cutoff_hours, sc.no_show_limit, sc.no_show_block_days,
		sc.refund_full_hours, sc.refund_partial_percent, sc.refund_partial_hours`
	policyFromSQL = `
	FROM clinic_policy cp LEFT JOIN slots s ON s.id = ?1 LEFT JOIN schedules sc ON sc.id = s.schedule_id`
	slotPolicySQL = policyColsSQL + policyFromSQL + ` WHERE cp.id = 1`
	bookPolicySQL = policyColsSQL + `,
		(SELECT o.id FROM openings o WHERE o.schedule_id = s.schedule_id AND o.opens_at = s.opens_at),
		` + ruleColsSQL + policyFromSQL + `
	LEFT JOIN eligibility_rules er ON er.schedule_id = s.schedule_id WHERE cp.id = 1`
)

// slotPolicy reads slot slotID's policy.
func slotPolicy(ctx context.Context, q querier, slotID int64) (booking.Policy, error) {
	return scanSlotPolicy(ctx, q, slotPolicySQL, slotID)
}

// scanSlotPolicy reads slot slotID's policy by query, slotPolicySQL or
// bookPolicySQL, whose further columns (the slot's opening and its
// schedule's eligibility rule) go to extra.
func scanSlotPolicy(ctx context.Context, q querier, query string, slotID int64, extra ...any) (booking.Policy, error) {
	var p booking.Policy
	var o [8]sql.NullInt64
	dest := append([]any{&p.MaxActive, &p.MaxPerDay, &p.CancelCutoffHours,
		&p.NoShowLimit, &p.NoShowBlockDays, &p.RefundFullHours, &p.RefundPartialPercent, &p.RefundPartialHours,
		&o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7]}, extra...)
	if err := q.QueryRowContext(ctx, query, slotID).Scan(dest...); err != nil {
		return p, err
	}
	var ov booking.PolicyOverride
	for k, dst := range []**int{&ov.MaxActive, &ov.MaxPerDay, &ov.CancelCutoffHours, &ov.NoShowLimit, &ov.NoShowBlockDays,
		&ov.RefundFullHours, &ov.RefundPartialPercent, &ov.RefundPartialHours} {
		if o[k].Valid {
			v := int(o[k].Int64)
			*dst = &v
		}
	}
	return p.With(ov), nil
}

// resourceZoneSQL reads a resource's zone, for the slot's local day.
const resourceZoneSQL = `SELECT timezone FROM resources WHERE id = ?`

// patientLoadSQL reads what the slot's policy needs of the batch's
// patients (booking.PatientLoad) through the partial indexes on active
// appointments and no-shows: ?2..?3 is the slot's local day, ?4 the start
// of the no-show window.
const patientLoadSQL = `SELECT p.id, NOT p.active,
		(SELECT count(*) FROM appointments a WHERE a.patient_id = p.id AND a.status IN ` + booking.ActiveSQL + `
			AND a.round_id IS NULL),
		(SELECT count(*) FROM appointments a WHERE a.patient_id = p.id AND a.status IN ` + booking.ActiveSQL + `
			AND a.round_id IS NULL AND a.start_at >= ?2 AND a.start_at < ?3),
		(SELECT count(*) FROM appointments a WHERE a.patient_id = p.id AND a.status = ` + booking.StatusNoShowSQL + ` AND a.start_at >= ?4),
		coalesce((SELECT max(a.start_at) FROM appointments a WHERE a.patient_id = p.id AND a.status = ` + booking.StatusNoShowSQL + ` AND a.start_at >= ?4), 0)
	FROM patients p WHERE p.id IN (SELECT value FROM json_each(?1))`

// patientLoad reads the policy and the patients' load for an ordinary slot.
func (s *Store) patientLoad(ctx context.Context, q querier, rd *booking.BookReads, reqs []booking.BookRequest, now time.Time) error {
	var err error
	var opening sql.NullInt64
	var rule ruleRow
	if rd.Policy, err = scanSlotPolicy(ctx, q, bookPolicySQL, rd.Slot.ID, append([]any{&opening}, rule.dest()...)...); err != nil {
		return err
	}
	rd.OpeningID = opening.Int64
	if rd.Rule, err = rule.rule(); err != nil {
		return err
	}
	if err := readEligibility(ctx, s.keys, q, rd, reqs); err != nil {
		return err
	}
	var tz string
	if err := q.QueryRowContext(ctx, resourceZoneSQL, rd.Slot.DoctorID).Scan(&tz); err != nil {
		return err
	}
	from, to := booking.DayBounds(rd.Slot.StartAt, zone(tz))
	patients := make([]int64, len(reqs))
	for k, r := range reqs {
		patients[k] = r.PatientID
	}
	pj, _ := json.Marshal(patients)
	rows, err := q.QueryContext(ctx, patientLoadSQL, string(pj), ts(from), ts(to), ts(now.Add(-booking.NoShowWindow)))
	if err != nil {
		return err
	}
	defer rows.Close()
	rd.Load = map[int64]booking.PatientLoad{}
	for rows.Next() {
		var id, last int64
		var l booking.PatientLoad
		if err := rows.Scan(&id, &l.Inactive, &l.Active, &l.SameDay, &l.NoShows, &last); err != nil {
			return err
		}
		if last != 0 {
			l.LastNoShow = fromTS(last)
		}
		rd.Load[id] = l
	}
	return rows.Err()
}

// ListSuspensions lists the suspensions and closures, newest first; only
// those standing (not lifted) with standing.
func (s *Store) ListSuspensions(ctx context.Context, standing bool) ([]booking.Suspension, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+suspensionCols+` FROM suspensions
		WHERE NOT ?1 OR lifted_at IS NULL ORDER BY id DESC LIMIT 1000`, standing)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Suspension{}
	for rows.Next() {
		sus, err := scanSuspension(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, sus)
	}
	return out, mapErr(rows.Err(), "")
}

// reopenSQL reopens the slots suspension ?1 closed unless another standing
// suspension covers them: those pass to it.
const reopenSQL = `UPDATE slots SET
		closed_by = (SELECT c.id FROM suspensions c, resources r WHERE r.id = slots.resource_id AND c.id <> ?1
			AND c.lifted_at IS NULL AND slots.start_at >= c.from_at AND slots.start_at < c.to_at
			AND (c.scope = 'clinic' OR (c.scope = 'department' AND c.department_id = r.department_id)
			     OR (c.scope = 'doctor' AND c.resource_id = r.id))
			ORDER BY c.id LIMIT 1)
	WHERE closed_by = ?1
	RETURNING id, closed_by IS NULL`

// LiftSuspension lifts a standing suspension or closure and reopens the
// slots it closed (booking.LiftResult).
func (s *Store) LiftSuspension(ctx context.Context, id int64, now time.Time) (booking.LiftResult, error) {
	now = micro(now)
	var res booking.LiftResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		sus, err := scanSuspension(tx.QueryRowContext(ctx, `SELECT `+suspensionCols+` FROM suspensions WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return booking.NotFound("suspension")
		}
		if err != nil {
			return err
		}
		if err := booking.LiftRefusal(sus); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suspensions SET lifted_at = ? WHERE id = ?`, ts(now), id); err != nil {
			return err
		}
		before := sus
		sus.LiftedAt = &now
		res.Suspension = sus
		var reopen []int64
		if err := eachRow(ctx, tx, reopenSQL, []any{id}, func(rows *sql.Rows) error {
			var slotID int64
			var open bool
			if err := rows.Scan(&slotID, &open); err != nil {
				return err
			}
			if open {
				reopen = append(reopen, slotID)
			}
			return nil
		}); err != nil {
			return err
		}
		res.SlotsReopened = len(reopen)
		j, _ := json.Marshal(reopen)
		if _, err = tx.ExecContext(ctx, `UPDATE slots SET status = `+booking.SlotOpenSQL+` WHERE id IN (SELECT value FROM json_each(?))`, string(j)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditLift(ctx, now, before, res))
	})
	if err != nil {
		return booking.LiftResult{}, mapErr(err, "suspension")
	}
	return res, nil
}
