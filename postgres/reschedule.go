package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const (
	// sqlApptHeld is where an appointment is: its slot, its patient, its
	// service (0: none) and a visit's further places.
	sqlApptHeld = `SELECT a.slot_id, a.patient_id, COALESCE(a.service_id, 0),
		COALESCE((SELECT array_agg(p.slot_id ORDER BY p.slot_id) FROM appointment_places p WHERE p.appointment_id = a.id), '{}')
		FROM appointments a WHERE a.id = $1`
	sqlServiceMinutes = `SELECT minutes FROM services WHERE id = $1`
	// sqlLockMove locks, in one statement and in id order, the slots the
	// appointment holds, the target, and for a visit the target's
	// doctor's slots over the service's span ($2 = 0 for one slot): two
	// moves, or a move and a visit, over the same slots queue instead of
	// deadlocking.
	sqlLockMove = `SELECT id FROM slots WHERE id = ANY($1) OR (resource_id = $2 AND start_at >= $3 AND start_at < $4)
		ORDER BY id FOR UPDATE`
	// sqlReadMoveRun reads a visit's new run after the locks, in time
	// order, in a statement of its own (as sqlReadVisitRun).
	sqlReadMoveRun = `SELECT ` + slotColumns + ` FROM slots WHERE resource_id = $1 AND start_at >= $2 AND start_at < $3
		ORDER BY start_at LIMIT $4`
	// sqlMoveConflicts: does the patient hold a place in the visit's new
	// run, or another active appointment overlapping its new time (the
	// visit itself aside)?
	sqlMoveConflicts = `SELECT
		EXISTS (SELECT 1 FROM appointments WHERE slot_id = ANY($1) AND patient_id = $2 AND id <> $3 AND status IN ` + booking.ActiveSQL + `),
		EXISTS (SELECT 1 FROM appointments WHERE patient_id = $2 AND id <> $3 AND slot_id <> $6 AND round_id IS NULL
		          AND status IN ` + booking.ActiveSQL + ` AND start_at < $5 AND end_at > $4)`
	sqlDeletePlaces     = `DELETE FROM appointment_places WHERE appointment_id = $1`
	sqlRescheduleReplay = `SELECT r.fingerprint, ` + apptColumns + ` FROM reschedules r
		JOIN appointments a ON a.id = r.appointment_id JOIN slots s ON s.id = a.slot_id
		WHERE r.patient_id = $1 AND r.idempotency_key = $2`
	sqlSlotByID = `SELECT ` + slotColumns + ` FROM slots WHERE id = $1`
	// sqlRescheduleConflicts: does the patient hold a place in the target,
	// or another active appointment (not the one moved) overlapping it?
	// Both probe the patient's appointments, as sqlActiveOverlapping does.
	// The first tests the status outside its WHERE so that no partial
	// index of the slot's active places qualifies: plans made without
	// statistics scanned one of them, all the target's places or the whole
	// index by its second column (TestBatchReadsProbeWhateverTheStatistics).
	sqlRescheduleConflicts = `SELECT
		coalesce((SELECT bool_or(status IN ` + booking.ActiveSQL + `) FROM appointments WHERE patient_id = $2 AND slot_id = $1), false),
		EXISTS (SELECT 1 FROM appointments a JOIN slots t ON t.id = $1
			WHERE a.patient_id = $2 AND a.id <> $3 AND a.slot_id <> $1 AND a.round_id IS NULL
			  AND a.status IN ` + booking.ActiveSQL + ` AND a.start_at < t.end_at AND a.end_at > t.start_at)`
	sqlTakenNumbers = `SELECT COALESCE(array_agg(queue_no), '{}') FROM appointments WHERE slot_id = $1 AND status IN ` + booking.ActiveSQL
	// The writes, in the order the issue asks: the new place is taken
	// before the old one is released.
	sqlTakeOne  = `UPDATE slots SET booked_count = booked_count + 1 WHERE id = $1 AND booked_count < capacity`
	sqlMoveAppt = `UPDATE appointments SET slot_id = $4, queue_no = $2, start_at = $6, end_at = $7, updated_at = $3
		WHERE id = $1 AND status = $5`
	sqlReleaseOne       = `UPDATE slots SET booked_count = booked_count - 1 WHERE id = $1`
	sqlInsertReschedule = `INSERT INTO reschedules (patient_id, idempotency_key, fingerprint, appointment_id, from_slot_id, to_slot_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
)

// Reschedule moves an appointment to another slot in one transaction, as
// booking.DecideReschedule decides from what it reads under the locks of
// every slot involved (sqlLockMove), after which the appointment is read
// again: a concurrent reschedule may have moved it, and then the locks
// are retaken.
func (s *Store) Reschedule(ctx context.Context, r booking.RescheduleRequest, now time.Time) (booking.RescheduleResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var d booking.RescheduleDecision
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var from, patient, service int64
		var places []int64
		switch err := tx.QueryRow(ctx, sqlApptHeld, r.AppointmentID).Scan(&from, &patient, &service, &places); {
		case errors.Is(err, pgx.ErrNoRows):
			d = booking.DecideReschedule(r, booking.RescheduleReads{}, now)
			return nil
		case err != nil:
			return err
		}
		var doctor int64
		var start, end time.Time
		if service != 0 {
			var minutes int
			switch err := tx.QueryRow(ctx, sqlVisitFirst, r.SlotID).Scan(&doctor, &start); {
			case errors.Is(err, pgx.ErrNoRows): // no such target: the decision says so
			case err != nil:
				return err
			}
			if err := tx.QueryRow(ctx, sqlServiceMinutes, service).Scan(&minutes); err != nil {
				return err
			}
			end = start.Add(time.Duration(minutes) * time.Minute)
		}
		for attempt := 0; ; attempt++ {
			rows, _ := tx.Query(ctx, sqlLockMove, append([]int64{from, r.SlotID}, places...), doctor, start, end)
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			a, err := scanAppointment(tx.QueryRow(ctx, sqlApptForUpdate, r.AppointmentID))
			if err != nil {
				return err
			}
			var at int64
			var held []int64
			if err := tx.QueryRow(ctx, sqlApptHeld, a.ID).Scan(&at, &patient, &service, &held); err != nil {
				return err
			}
			if (a.SlotID != from || !slices.Equal(held, places)) && attempt < 3 {
				from, places = a.SlotID, held // moved meanwhile: lock where it is now
				continue
			} else if a.SlotID != from || !slices.Equal(held, places) {
				return fmt.Errorf("postgres: appointment %d keeps moving", a.ID)
			}
			rd, err := readReschedule(ctx, tx, r, a, patient)
			if err != nil {
				return err
			}
			if service != 0 && rd.To != nil {
				if err := readVisitMove(ctx, tx, &rd, held); err != nil {
					return err
				}
			}
			d = booking.DecideReschedule(r, rd, now)
			if d.Err != nil || d.Replayed {
				return nil
			}
			return s.writeReschedule(ctx, tx, r, a, d, now)
		}
	})
	if err != nil {
		if e := booking.ConstraintError(constraintOf(err), r.SlotID); e != nil {
			return booking.RescheduleResult{}, e
		}
		return booking.RescheduleResult{}, translate(err, "")
	}
	return d.RescheduleResult, d.Err
}

// readVisitMove reads, for a visit, its service, its new run from To and
// the patient's conflicts with the visit's new time (replacing the one
// slot's).
func readVisitMove(ctx context.Context, tx pgx.Tx, rd *booking.RescheduleReads, places []int64) error {
	a := rd.Appointment
	svc, err := scanService(tx.QueryRow(ctx, `SELECT `+serviceColumns+` FROM services WHERE id = $1`, a.ServiceID))
	if err != nil {
		return err
	}
	rd.Service, rd.Places = &svc, places
	end := rd.To.StartAt.Add(time.Duration(svc.Minutes) * time.Minute)
	rows, _ := tx.Query(ctx, sqlReadMoveRun, rd.To.DoctorID, rd.To.StartAt, end, booking.MaxVisitSlots+1)
	if rd.ToRun, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Slot, error) { return scanSlot(r) }); err != nil {
		return err
	}
	ids := make([]int64, len(rd.ToRun))
	for i, sl := range rd.ToRun {
		ids[i] = sl.ID
	}
	return tx.QueryRow(ctx, sqlMoveConflicts, ids, a.PatientID, a.ID, rd.To.StartAt, end, rd.To.ID).Scan(&rd.HoldsTo, &rd.Overlapping)
}

// readReschedule reads, in one pipeline, what DecideReschedule needs.
func readReschedule(ctx context.Context, tx pgx.Tx, r booking.RescheduleRequest, a booking.Appointment, patient int64) (rd booking.RescheduleReads, err error) {
	rd.Appointment = &a
	b := &pgx.Batch{}
	b.Queue(sqlRescheduleReplay, patient, r.IdempotencyKey)
	b.Queue(sqlSlotByID, a.SlotID)
	b.Queue(sqlSlotByID, r.SlotID)
	b.Queue(sqlRescheduleConflicts, r.SlotID, patient, a.ID)
	b.Queue(sqlTakenNumbers, r.SlotID)
	b.Queue(sqlSlotPolicy, a.SlotID)
	br := tx.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	var fp string
	var rep booking.Appointment
	row := br.QueryRow()
	switch err = row.Scan(append([]any{&fp}, apptScanTargets(&rep)...)...); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return
	default:
		utcAppointment(&rep)
		rd.Replay, rd.ReplayFingerprint = &rep, fp
	}
	fromSlot, err := scanSlot(br.QueryRow())
	if err != nil {
		return
	}
	rd.From = &fromSlot
	switch to, e := scanSlot(br.QueryRow()); {
	case errors.Is(e, pgx.ErrNoRows):
	case e != nil:
		return rd, e
	default:
		rd.To = &to
	}
	if err = br.QueryRow().Scan(&rd.HoldsTo, &rd.Overlapping); err != nil {
		return
	}
	var taken []int32
	if err = br.QueryRow().Scan(&taken); err != nil {
		return
	}
	for _, q := range taken {
		rd.Taken = append(rd.Taken, int(q))
	}
	pol, err := scanPolicy(br.QueryRow())
	if err != nil {
		return
	}
	rd.Cutoff = time.Duration(pol.CancelCutoffHours) * time.Hour
	return rd, nil
}

// writeReschedule performs d: take the new places, move the row, release
// the old places, replace a visit's further places, remember the key,
// offer the released places, announce the move.
func (s *Store) writeReschedule(ctx context.Context, tx pgx.Tx, r booking.RescheduleRequest, a booking.Appointment, d booking.RescheduleDecision, now time.Time) error {
	m := d.Appointment
	b := &pgx.Batch{}
	for _, id := range d.Take {
		b.Queue(sqlTakeOne, id)
	}
	b.Queue(sqlMoveAppt, a.ID, d.Queue, now, r.SlotID, string(a.Status), m.StartAt, m.EndAt)
	for _, id := range d.Released {
		b.Queue(sqlReleaseOne, id)
	}
	b.Queue(sqlInsertReschedule, a.PatientID, r.IdempotencyKey, r.Fingerprint, a.ID, a.SlotID, r.SlotID, now)
	n := b.Len()
	if a.ServiceID != 0 {
		b.Queue(sqlDeletePlaces, a.ID)
		b.Queue(sqlInsertPlaces, a.ID, d.Extra)
	}
	br := tx.SendBatch(ctx, b)
	for i := 0; i < b.Len(); i++ {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return err
		}
		if i < n && tag.RowsAffected() != 1 {
			br.Close()
			// The rows are locked and the decision saw room: a bug.
			return fmt.Errorf("postgres: reschedule of appointment %d: write %d changed %d rows", a.ID, i, tag.RowsAffected())
		}
	}
	if err := br.Close(); err != nil {
		return err
	}
	released := map[int64]int{}
	for _, id := range d.Released {
		released[id] = 1
	}
	if err := s.reserve(ctx, tx, released, now); err != nil {
		return err
	}
	if err := writeAudit(ctx, tx, booking.AuditReschedule(ctx, now, a.SlotID, d.Appointment)); err != nil {
		return err
	}
	return s.notify(ctx, tx, []booking.Notification{d.Notification})
}

// apptScanTargets are scanAppointment's destinations, for a row that
// carries an appointment after other columns.
func apptScanTargets(a *booking.Appointment) []any {
	return []any{&a.ID, &a.SlotID, &a.DoctorID, &a.PatientID, &a.Status, &a.QueueNumber, &a.StartAt, &a.EndAt,
		&a.HoldExpiresAt, &a.CreatedAt, &a.UpdatedAt, &a.IdempotencyKey, &a.Fingerprint, &a.RoundID, &a.ServiceID,
		&a.WalkIn, &a.WalkInReason}
}
