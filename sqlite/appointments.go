package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// apptCols selects an appointment with its doctor (the slot's resource).
const apptCols = `a.id, a.slot_id, s.resource_id, a.patient_id, a.status, a.queue_no, a.start_at, a.end_at,
	a.hold_expires_at, a.created_at, a.updated_at, a.idempotency_key, a.fingerprint, a.round_id, a.service_id,
	a.walk_in, coalesce(a.walk_in_reason, '')`

const apptFrom = ` FROM appointments a JOIN slots s ON s.id = a.slot_id `

func scanAppt(sc interface{ Scan(...any) error }) (booking.Appointment, error) {
	var a booking.Appointment
	var start, end, created, updated int64
	var hold, round, service sql.NullInt64
	var status string
	if err := sc.Scan(&a.ID, &a.SlotID, &a.DoctorID, &a.PatientID, &status, &a.QueueNumber, &start, &end,
		&hold, &created, &updated, &a.IdempotencyKey, &a.Fingerprint, &round, &service,
		&a.WalkIn, &a.WalkInReason); err != nil {
		return a, err
	}
	a.RoundID, a.ServiceID = round.Int64, service.Int64
	a.Status = booking.Status(status)
	a.StartAt, a.EndAt, a.CreatedAt, a.UpdatedAt = fromTS(start), fromTS(end), fromTS(created), fromTS(updated)
	if hold.Valid {
		h := fromTS(hold.Int64)
		a.HoldExpiresAt = &h
	}
	return a, nil
}

// querier is what both *sql.DB and *sql.Tx offer for reading.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryIDs runs a query of one integer column, ids, and returns them.
func queryIDs(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func getAppt(ctx context.Context, q querier, id int64) (booking.Appointment, error) {
	return scanAppt(q.QueryRowContext(ctx, `SELECT `+apptCols+apptFrom+`WHERE a.id = ?`, id))
}

// cancelSQL is the transition to CANCELLED as a conditional update from the
// states booking's transition table allows.
var cancelSQL = `UPDATE appointments SET status = ` + booking.StatusCancelledSQL + `, updated_at = ?1
	WHERE id = ?2 AND status IN ` + booking.SQLList(booking.Sources(booking.StatusCancelled)) + `
	  AND start_at > ?1 + ?4 AND (?3 = 0 OR patient_id = ?3)
	RETURNING slot_id`

// Cancel moves an active appointment to CANCELLED and releases its place in
// the same transaction. The conditional update is the decision, so a
// concurrent second cancel finds no row and releases nothing.
func (s *Store) Cancel(ctx context.Context, appointmentID, patientID int64, now time.Time) (booking.Appointment, error) {
	return s.cancel(ctx, appointmentID, patientID, now, booking.CancelRefundReason(patientID))
}

// CancelErased cancels an erased patient's appointment as staff would,
// refunded in full.
func (s *Store) CancelErased(ctx context.Context, appointmentID int64, now time.Time) (booking.Appointment, error) {
	return s.cancel(ctx, appointmentID, 0, now, booking.RefundErasure)
}

// cancel is Cancel, its payment refunded for reason.
func (s *Store) cancel(ctx context.Context, appointmentID, patientID int64, now time.Time, reason string) (booking.Appointment, error) {
	var a booking.Appointment
	var cutoff time.Duration
	err := s.write(ctx, func(tx *sql.Tx) error {
		if patientID != 0 {
			// Staff always can; a patient only until the policy's cutoff.
			var sl int64
			err := tx.QueryRowContext(ctx, `SELECT slot_id FROM appointments WHERE id = ?`, appointmentID).Scan(&sl)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			p, err := slotPolicy(ctx, tx, sl)
			if err != nil {
				return err
			}
			cutoff = time.Duration(p.CancelCutoffHours) * time.Hour
		}
		slotID, err := s.cancelIn(ctx, tx, appointmentID, patientID, cutoff, now, reason)
		switch {
		case err == nil:
			if err := s.cancelLaterDoses(ctx, tx, appointmentID, now); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		a, err = getAppt(ctx, tx, appointmentID)
		if errors.Is(err, sql.ErrNoRows) {
			return booking.NotFound("appointment")
		}
		if err != nil || slotID != 0 {
			return err
		}
		// Nothing changed: tell why.
		return booking.CancelRefusal(a, patientID, now, cutoff)
	})
	if err != nil {
		return booking.Appointment{}, mapErr(err, "appointment")
	}
	return a, nil
}

// cancelIn cancels one appointment inside tx as Cancel decides (the
// conditional update, the audit, the released place, the refund, the
// message) and returns its slot; sql.ErrNoRows when nothing changed.
func (s *Store) cancelIn(ctx context.Context, tx *sql.Tx, appointmentID, patientID int64, cutoff time.Duration, now time.Time, reason string) (int64, error) {
	var slotID int64
	before, berr := getAppt(ctx, tx, appointmentID)
	err := tx.QueryRowContext(ctx, cancelSQL, ts(now), appointmentID, patientID, cutoff.Microseconds()).Scan(&slotID)
	if err != nil {
		return 0, err
	}
	if berr != nil {
		return 0, berr
	}
	after := before
	after.Status = booking.StatusCancelled
	if err := writeAudit(ctx, tx, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: "cancel", From: before.Status, Appointment: after})); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE slots SET booked_count = booked_count - 1 WHERE id = ?`, slotID); err != nil {
		return 0, err
	}
	if err := s.release(ctx, tx, booking.Released([]booking.Appointment{
		{ID: appointmentID, SlotID: slotID, Status: booking.StatusCancelled}}), now); err != nil {
		return 0, err
	}
	if err := s.refundPaid(ctx, tx, []booking.Appointment{after}, reason, now); err != nil {
		return 0, err
	}
	// Only the real transition announces anything: a repeated cancel
	// finds no row above and enqueues nothing.
	return slotID, s.notify(ctx, tx, []booking.Notification{
		{Kind: booking.NotifyCancellation, AppointmentID: appointmentID}})
}

// GetAppointment returns one appointment as last committed.
func (s *Store) GetAppointment(ctx context.Context, id int64) (booking.Appointment, error) {
	a, err := getAppt(ctx, s.reader, id)
	if err != nil {
		return booking.Appointment{}, mapErr(err, "appointment")
	}
	return a, nil
}

// GetAppointments reads the appointments of ids that exist, by id.
func (s *Store) GetAppointments(ctx context.Context, ids []int64) (map[int64]booking.Appointment, error) {
	return readByIDs(ctx, s.reader, `SELECT `+apptCols+apptFrom+`WHERE a.id IN (SELECT value FROM json_each(?))`, ids,
		scanAppt, func(a booking.Appointment) int64 { return a.ID })
}

// readByIDs runs q, whose one parameter is ids as a JSON array (SQLite has
// no arrays), and keeps each row scanned by its id.
func readByIDs[T any](ctx context.Context, db *sql.DB, q string, ids []int64,
	scan func(interface{ Scan(...any) error }) (T, error), id func(T) int64) (map[int64]T, error) {
	js, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q, string(js))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := make(map[int64]T, len(ids))
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out[id(v)] = v
	}
	return out, mapErr(rows.Err(), "")
}

// ListAppointments lists a patient's appointments, newest first, optionally
// only those in one state and on some sites, one page at a time (ids below
// q.Page.After).
func (s *Store) ListAppointments(ctx context.Context, q booking.AppointmentQuery) ([]booking.Appointment, error) {
	return s.listAppointments(ctx, `a.patient_id = ?1`, q)
}

// ListAccountAppointments lists the appointments of an account and of the
// people it manages, newest first.
func (s *Store) ListAccountAppointments(ctx context.Context, account int64, status booking.Status, p booking.Page) ([]booking.Appointment, error) {
	return s.listAppointments(ctx, `a.patient_id IN (SELECT id FROM patients WHERE id = ?1 OR manager_id = ?1)`,
		booking.AppointmentQuery{PatientID: account, Status: status, Page: p})
}

// listAppointments lists the appointments whose patient matches who (an
// SQL condition on ?1), newest first; q.Sites narrows them to the slots of
// those sites' doctors (a JSON array here, SQLite having none).
func (s *Store) listAppointments(ctx context.Context, who string, q booking.AppointmentQuery) ([]booking.Appointment, error) {
	sites, err := json.Marshal(append([]int64{}, q.Sites...))
	if err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+apptCols+apptFrom+`WHERE `+who+` AND (?2 = '' OR a.status = ?2) AND (?3 = 0 OR a.id < ?3)
		   AND (json_array_length(?5) = 0 OR s.resource_id IN (SELECT r.id FROM resources r
		        JOIN departments d ON d.id = r.department_id WHERE d.site_id IN (SELECT value FROM json_each(?5))))
		 ORDER BY a.id DESC LIMIT ?4`,
		q.PatientID, string(q.Status), q.Page.After, rowLimit(q.Page), string(sites))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Appointment{}
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, a)
	}
	return out, mapErr(rows.Err(), "")
}

// FindByKey returns the appointment made by a patient's Idempotency-Key,
// through appointments_patient_key_key, on the reader pool.
func (s *Store) FindByKey(ctx context.Context, patientID int64, key string) (booking.Appointment, error) {
	a, err := scanAppt(s.reader.QueryRowContext(ctx,
		`SELECT `+apptCols+apptFrom+`WHERE a.patient_id = ?1 AND a.idempotency_key = ?2`, patientID, key))
	if err != nil {
		return booking.Appointment{}, mapErr(err, "appointment")
	}
	return a, nil
}

// FindByKeys returns the appointments made by any of the requests'
// (patient, Idempotency-Key) pairs and the requests' patients' active
// appointments in the slots they ask for, in one read on the reader pool.
func (s *Store) FindByKeys(ctx context.Context, reqs []booking.BookRequest) ([]booking.Appointment, error) {
	type req struct {
		P int64  `json:"p"`
		K string `json:"k"`
		S int64  `json:"s"`
	}
	in := make([]req, len(reqs))
	for i, r := range reqs {
		in[i] = req{r.PatientID, r.IdempotencyKey, r.SlotID}
	}
	js, _ := json.Marshal(in)
	rows, err := s.reader.QueryContext(ctx, byKeysOrHoldingSQL, string(js))
	if err != nil {
		return nil, mapErr(err, "appointment")
	}
	defer rows.Close()
	var out []booking.Appointment
	seen := map[int64]bool{}
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			return nil, mapErr(err, "appointment")
		}
		if !seen[a.ID] { // one appointment may match two requests
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	return out, mapErr(rows.Err(), "appointment")
}

// byKeysOrHoldingSQL finds what a key made (the unique key index) or what
// the patient holds in the slot (appointments_slot_patient_active).
const byKeysOrHoldingSQL = `SELECT ` + apptCols + ` FROM json_each(?) k
	JOIN appointments a ON a.patient_id = k.value->>'p'
	  AND (a.idempotency_key = k.value->>'k' OR (a.slot_id = k.value->>'s' AND a.status IN ` + booking.ActiveSQL + `))
	JOIN slots s ON s.id = a.slot_id`
