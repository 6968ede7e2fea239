package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// Running a clinic (docs/clinic.md): editing, schedules' end and policies,
// closures and their lifting. Decisions are booking's; this is SQL.

// UpdateDepartment renames a department; a taken name is a conflict.
func (s *Store) UpdateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var before booking.Department
		if err := tx.QueryRow(ctx, `SELECT name FROM departments WHERE id = $1 FOR UPDATE`, d.ID).Scan(&before.Name); err != nil {
			return nil, err
		}
		if err := tx.QueryRow(ctx, `UPDATE departments SET name = $2 WHERE id = $1 RETURNING id, name, site_id, created_at`,
			d.ID, d.Name).Scan(&d.ID, &d.Name, &d.SiteID, &d.CreatedAt); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditDepartmentUpdate(ctx, time.Now(), before, d)}, nil
	})
	d.CreatedAt = d.CreatedAt.UTC()
	return d, translate(err, "department")
}

// UpdateDoctor changes a doctor's name, department, activity or profile.
func (s *Store) UpdateDoctor(ctx context.Context, id int64, u booking.DoctorUpdate) (booking.Doctor, error) {
	var d booking.Doctor
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		before, err := scanDoctor(tx.QueryRow(ctx, `SELECT `+doctorColumns+` FROM resources WHERE id = $1 AND kind = 'doctor' FOR UPDATE`, id))
		if err != nil {
			return nil, err
		}
		p := u.ProfileUpdate.Apply(before.Profile)
		if d, err = scanDoctor(tx.QueryRow(ctx,
			`UPDATE resources SET name = COALESCE($2, name), department_id = COALESCE($3, department_id),
			        active = COALESCE($4, active), title = $5, specialties = $6, languages = $7, bio = $8, consulting_room = $9
			 WHERE id = $1 RETURNING `+doctorColumns, id, u.Name, u.DepartmentID, u.Active,
			p.Title, booking.JoinItems(p.Specialties), booking.JoinItems(p.Languages), p.Bio, p.ConsultingRoom)); err != nil {
			return nil, err
		}
		now := time.Now()
		return append([]booking.AuditEntry{booking.AuditDoctorUpdate(ctx, now, before, d)}, booking.AuditProfile(ctx, now, before, d)...), nil
	})
	return d, translate(err, "doctor")
}

// GetSchedule returns one schedule.
func (s *Store) GetSchedule(ctx context.Context, id int64) (booking.Schedule, error) {
	sc, err := scanSchedule(s.pool.QueryRow(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE id = $1`, id))
	return sc, translate(err, "schedule")
}

// UpdateSchedule replaces a schedule's pattern, end and policy (its doctor
// stays), refusing an overlap with another of the doctor's schedules.
func (s *Store) UpdateSchedule(ctx context.Context, sc booking.Schedule) (booking.Schedule, error) {
	return s.saveSchedule(ctx, sc, true)
}

// saveSchedule inserts or updates sc in one transaction that locks the
// doctor's row, so that two schedules saved at once are checked against
// each other.
func (s *Store) saveSchedule(ctx context.Context, sc booking.Schedule, update bool) (booking.Schedule, error) {
	mask, err := booking.WeekdayMask(sc.Weekdays)
	if err != nil {
		return booking.Schedule{}, err
	}
	sc = sc.WithDefaults()
	o := sc.Policy
	var out booking.Schedule
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var tz string
		var before *booking.Schedule
		if update {
			old, err := scanSchedule(tx.QueryRow(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE id = $1`, sc.ID))
			if err != nil {
				return translate(err, "schedule")
			}
			sc.DoctorID, before = old.DoctorID, &old
		}
		if err := tx.QueryRow(ctx, `SELECT timezone FROM resources WHERE id = $1 AND kind = 'doctor' FOR UPDATE`,
			sc.DoctorID).Scan(&tz); err != nil {
			return translate(err, "doctor")
		}
		rows, _ := tx.Query(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE resource_id = $1`, sc.DoctorID)
		others, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Schedule, error) { return scanSchedule(r) })
		if err != nil {
			return err
		}
		if err := booking.ScheduleOverlap(sc, others, today(tz)); err != nil {
			return err
		}
		args := []any{sc.DoctorID, mask, sc.StartTime, sc.EndTime, sc.SlotMinutes, sc.Capacity,
			sc.FeeCents, sc.HorizonDays, sc.OpensAtTime, sc.HoldMinutes, nullText(sc.EndDate),
			o.MaxActive, o.MaxPerDay, o.CancelCutoffHours, o.NoShowLimit, o.NoShowBlockDays,
			sc.Reminders, sc.OfferMinutes, o.RefundFullHours, o.RefundPartialPercent, o.RefundPartialHours}
		if update {
			out, err = scanSchedule(tx.QueryRow(ctx, `UPDATE schedules SET resource_id = $1, weekdays = $2, start_time = $3, end_time = $4,
				slot_minutes = $5, capacity = $6, fee_cents = $7, horizon_days = $8, opens_at_time = $9,
				hold_minutes = $10, end_date = $11::date, max_active = $12, max_per_day = $13,
				cancel_cutoff_hours = $14, no_show_limit = $15, no_show_block_days = $16,
				reminders = NULLIF($17, ''), offer_minutes = NULLIF($18, 0),
				refund_full_hours = $19, refund_partial_percent = $20, refund_partial_hours = $21
				WHERE id = $22 RETURNING `+scheduleColumns, append(args, sc.ID)...))
		} else {
			out, err = scanSchedule(tx.QueryRow(ctx, `INSERT INTO schedules (resource_id, weekdays, start_time, end_time,
					slot_minutes, capacity, fee_cents, horizon_days, opens_at_time, hold_minutes, end_date,
					max_active, max_per_day, cancel_cutoff_hours, no_show_limit, no_show_block_days,
					reminders, offer_minutes, refund_full_hours, refund_partial_percent, refund_partial_hours)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::date, $12, $13, $14, $15, $16,
					NULLIF($17, ''), NULLIF($18, 0), $19, $20, $21)
				RETURNING `+scheduleColumns, args...))
		}
		if err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditScheduleSaved(ctx, time.Now(), before, out))
	})
	return out, translate(err, "")
}

// today is the civil date in zone tz (UTC when it does not load).
func today(tz string) string {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	return time.Now().In(loc).Format(time.DateOnly)
}

// DeleteFreeSlots deletes the schedule's slots starting at or after from
// that no appointment ever named (nothing behind a patient's back), so
// that an edited schedule regenerates them; it reports how many.
func (s *Store) DeleteFreeSlots(ctx context.Context, scheduleID int64, from time.Time) (int, error) {
	n := 0
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		tag, err := tx.Exec(ctx, `DELETE FROM slots s WHERE s.schedule_id = $1 AND s.start_at >= $2
			AND NOT EXISTS (SELECT 1 FROM appointments a WHERE a.slot_id = s.id)`, scheduleID, from)
		if err != nil || tag.RowsAffected() == 0 {
			return nil, err
		}
		n = int(tag.RowsAffected())
		return []booking.AuditEntry{booking.AuditFreeSlotsDeleted(ctx, time.Now(), scheduleID, n)}, nil
	})
	return n, translate(err, "")
}

const policyColumns = `max_active, max_per_day, cancel_cutoff_hours, no_show_limit, no_show_block_days,
	refund_full_hours, refund_partial_percent, refund_partial_hours,
	check_in_before_minutes, check_in_after_minutes, no_show_grace_minutes, queue_skip_calls, max_people, require_national_id,
	queue_notify_ahead, walk_ins_per_slot, public_opening_summary`

// policyFields are the fields of p in the order of policyColumns.
func policyFields(p *booking.Policy) []any {
	return []any{&p.MaxActive, &p.MaxPerDay, &p.CancelCutoffHours, &p.NoShowLimit, &p.NoShowBlockDays,
		&p.RefundFullHours, &p.RefundPartialPercent, &p.RefundPartialHours,
		&p.CheckInBeforeMinutes, &p.CheckInAfterMinutes, &p.NoShowGraceMinutes, &p.QueueSkipCalls, &p.MaxPeople, &p.RequireNationalID,
		&p.QueueNotifyAhead, &p.WalkInsPerSlot, &p.PublicOpeningSummary}
}

// ClinicPolicy returns the clinic's default policy.
func (s *Store) ClinicPolicy(ctx context.Context) (booking.Policy, error) {
	var p booking.Policy
	err := s.pool.QueryRow(ctx, `SELECT `+policyColumns+` FROM clinic_policy WHERE id = 1`).
		Scan(policyFields(&p)...)
	return p, translate(err, "")
}

// SetClinicPolicy replaces the clinic's default policy.
func (s *Store) SetClinicPolicy(ctx context.Context, p booking.Policy) (booking.Policy, error) {
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var before booking.Policy
		if err := tx.QueryRow(ctx, `SELECT `+policyColumns+` FROM clinic_policy WHERE id = 1 FOR UPDATE`).
			Scan(policyFields(&before)...); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `UPDATE clinic_policy SET max_active = $1, max_per_day = $2,
			cancel_cutoff_hours = $3, no_show_limit = $4, no_show_block_days = $5,
			refund_full_hours = $6, refund_partial_percent = $7, refund_partial_hours = $8,
			check_in_before_minutes = $9, check_in_after_minutes = $10, no_show_grace_minutes = $11, queue_skip_calls = $12, max_people = $13,
			require_national_id = $14, queue_notify_ahead = $15, walk_ins_per_slot = $16, public_opening_summary = $17 WHERE id = 1`,
			p.MaxActive, p.MaxPerDay, p.CancelCutoffHours, p.NoShowLimit, p.NoShowBlockDays,
			p.RefundFullHours, p.RefundPartialPercent, p.RefundPartialHours,
			p.CheckInBeforeMinutes, p.CheckInAfterMinutes, p.NoShowGraceMinutes, p.QueueSkipCalls, p.MaxPeople, p.RequireNationalID,
			p.QueueNotifyAhead, p.WalkInsPerSlot, p.PublicOpeningSummary); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditPolicy(ctx, time.Now(), before, p)}, nil
	})
	return p, translate(err, "")
}

// ListSuspensions lists the suspensions and closures, newest first; only
// those standing (not lifted) with standing.
func (s *Store) ListSuspensions(ctx context.Context, standing bool) ([]booking.Suspension, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+suspensionColumns+` FROM suspensions
		WHERE NOT $1::boolean OR lifted_at IS NULL ORDER BY id DESC LIMIT 1000`, standing)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Suspension, error) { return scanSuspension(r) })
	return out, translate(err, "")
}

// sqlReopen reopens the slots suspension $1 closed, locked in id order,
// unless another standing suspension covers them: those pass to it.
const sqlReopen = `WITH l AS MATERIALIZED (
		SELECT s.id, s.start_at, s.resource_id, r.department_id FROM slots s JOIN resources r ON r.id = s.resource_id
		WHERE s.closed_by = $1 ORDER BY s.id FOR UPDATE OF s),
	o AS (
		SELECT l.id, (SELECT c.id FROM suspensions c WHERE c.id <> $1 AND c.lifted_at IS NULL
			AND l.start_at >= c.from_at AND l.start_at < c.to_at
			AND (c.scope = 'clinic' OR (c.scope = 'department' AND c.department_id = l.department_id)
			     OR (c.scope = 'doctor' AND c.resource_id = l.resource_id))
			ORDER BY c.id LIMIT 1) AS other
		FROM l)
	UPDATE slots SET closed_by = o.other, status = CASE WHEN o.other IS NULL THEN ` + booking.SlotOpenSQL + ` ELSE ` + booking.SlotClosedSQL + ` END
	FROM o WHERE slots.id = o.id
	RETURNING (o.other IS NULL)`

// LiftSuspension lifts a standing suspension or closure and reopens the
// slots it closed (booking.LiftResult).
func (s *Store) LiftSuspension(ctx context.Context, id int64, now time.Time) (booking.LiftResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var res booking.LiftResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		sus, err := scanSuspension(tx.QueryRow(ctx, `SELECT `+suspensionColumns+` FROM suspensions WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return booking.NotFound("suspension")
		}
		if err != nil {
			return err
		}
		if err := booking.LiftRefusal(sus); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE suspensions SET lifted_at = $2 WHERE id = $1`, id, now); err != nil {
			return err
		}
		before := sus
		sus.LiftedAt = &now
		res.Suspension = sus
		rows, _ := tx.Query(ctx, sqlReopen, id)
		reopened, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return err
		}
		for _, r := range reopened {
			if r {
				res.SlotsReopened++
			}
		}
		return writeAudit(ctx, tx, booking.AuditLift(ctx, now, before, res))
	})
	if err != nil {
		return booking.LiftResult{}, translate(err, "")
	}
	return res, nil
}

// sqlSlotPolicy reads the clinic's policy and the overrides of slot $1's
// schedule (none for a slot without one) in one row; sqlBookPolicy adds,
// for the booking decision's batch, the slot's announced opening (its
// schedule's at its opens_at, through openings_schedule_key), so that a
// waiting room costs the booking path no statement more.
const (
	sqlPolicyCols = `SELECT cp.max_active, cp.max_per_day, cp.cancel_cutoff_hours, cp.no_show_limit, cp.no_show_block_days,
		cp.refund_full_hours, cp.refund_partial_percent, cp.refund_partial_hours,
		sc.max_active, sc.max_per_day, sc.cancel_cutoff_hours, sc.no_show_limit, sc.no_show_block_days,
		sc.refund_full_hours, sc.refund_partial_percent, sc.refund_partial_hours`
	sqlPolicyFrom = `
	FROM clinic_policy cp LEFT JOIN slots s ON s.id = $1 LEFT JOIN schedules sc ON sc.id = s.schedule_id
	WHERE cp.id = 1`
	sqlSlotPolicy = sqlPolicyCols + sqlPolicyFrom
	sqlBookPolicy = sqlPolicyCols + `,
		(SELECT o.id FROM openings o WHERE o.schedule_id = s.schedule_id AND o.opens_at = s.opens_at),
		` + sqlRuleCols + `
	FROM clinic_policy cp LEFT JOIN slots s ON s.id = $1 LEFT JOIN schedules sc ON sc.id = s.schedule_id
	LEFT JOIN eligibility_rules er ON er.schedule_id = s.schedule_id
	WHERE cp.id = 1`
)

// scanPolicy reads sqlSlotPolicy's row as the slot's policy.
func scanPolicy(r pgx.Row) (booking.Policy, error) {
	var p booking.Policy
	var o booking.PolicyOverride
	err := r.Scan(&p.MaxActive, &p.MaxPerDay, &p.CancelCutoffHours, &p.NoShowLimit, &p.NoShowBlockDays,
		&p.RefundFullHours, &p.RefundPartialPercent, &p.RefundPartialHours,
		&o.MaxActive, &o.MaxPerDay, &o.CancelCutoffHours, &o.NoShowLimit, &o.NoShowBlockDays,
		&o.RefundFullHours, &o.RefundPartialPercent, &o.RefundPartialHours)
	return p.With(o), err
}

// scanBookPolicy reads sqlBookPolicy's row into rd: the slot's policy,
// opening (0 for none) and eligibility rule (nil for none).
func scanBookPolicy(r pgx.Row, rd *booking.BookReads) error {
	var p booking.Policy
	var o booking.PolicyOverride
	var opening *int64
	var rule ruleRow
	err := r.Scan(append([]any{&p.MaxActive, &p.MaxPerDay, &p.CancelCutoffHours, &p.NoShowLimit, &p.NoShowBlockDays,
		&p.RefundFullHours, &p.RefundPartialPercent, &p.RefundPartialHours,
		&o.MaxActive, &o.MaxPerDay, &o.CancelCutoffHours, &o.NoShowLimit, &o.NoShowBlockDays,
		&o.RefundFullHours, &o.RefundPartialPercent, &o.RefundPartialHours, &opening}, rule.dest()...)...)
	rd.Policy, rd.OpeningID, rd.Rule = p.With(o), 0, rule.rule()
	if opening != nil {
		rd.OpeningID = *opening
	}
	return err
}

// cancelCutoff is the cancel cutoff of appointment id's slot for a patient.
func cancelCutoff(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id int64) (time.Duration, error) {
	var slotID int64
	if err := q.QueryRow(ctx, `SELECT slot_id FROM appointments WHERE id = $1`, id).Scan(&slotID); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, nil
		}
		return 0, err
	}
	p, err := scanPolicy(q.QueryRow(ctx, sqlSlotPolicy, slotID))
	return time.Duration(p.CancelCutoffHours) * time.Hour, err
}
