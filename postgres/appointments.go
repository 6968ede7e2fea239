package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// sqlCancel cancels and releases the place in one statement. It locks the
// slot first (the lock order of lifecycle.go), then the conditional update
// on the appointment's state matches only while the appointment is active:
// a concurrent second cancel waits for the lock and then matches nothing,
// so the place is released once.
var sqlCancel = `WITH l AS MATERIALIZED (
		SELECT s.id, a.status AS old FROM appointments a JOIN slots s ON s.id = a.slot_id WHERE a.id = $1 FOR UPDATE OF s),
	a AS (
		UPDATE appointments a SET status = ` + booking.StatusCancelledSQL + `, updated_at = $3 FROM l
		WHERE a.id = $1 AND a.slot_id = l.id AND a.status IN ` + cancelFrom + `
		  AND a.start_at > $3::timestamptz + make_interval(hours => $4::integer) AND ($2::bigint = 0 OR a.patient_id = $2)
		RETURNING a.*),
	s AS (
		UPDATE slots SET booked_count = booked_count - 1 FROM a WHERE slots.id = a.slot_id
		RETURNING slots.resource_id)
	SELECT ` + apptColumns + `, l.old FROM a, s, l`

// cancelIn cancels one appointment inside tx as Cancel decides (the
// conditional update, the audit, the released place, the refund, the
// message); pgx.ErrNoRows when nothing changed.
func (s *Store) cancelIn(ctx context.Context, tx pgx.Tx, appointmentID, patientID int64, cutoff time.Duration, now time.Time, reason string) (booking.Appointment, error) {
	var old booking.Status
	a, err := scanAppointment(tx.QueryRow(ctx, sqlCancel, appointmentID, patientID, now, int32(cutoff.Hours())), &old)
	if err != nil {
		return a, err
	}
	if err := writeAudit(ctx, tx, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: "cancel", From: old, Appointment: a})); err != nil {
		return a, err
	}
	if err := s.release(ctx, tx, booking.Released([]booking.Appointment{a}), now); err != nil {
		return a, err
	}
	if err := s.refundPaid(ctx, tx, []booking.Appointment{a}, reason, now); err != nil {
		return a, err
	}
	return a, s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyCancellation, AppointmentID: a.ID}})
}

// Cancel moves an active appointment to CANCELLED and releases its place,
// once, announcing it to the enqueuer in the same transaction. Cancelling a
// cancelled appointment returns it unchanged and announces nothing; another
// patient's appointment (patientID != 0) is not found; one that has started
// cannot be cancelled.
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
	now = now.UTC().Truncate(time.Microsecond)
	var cutoff time.Duration
	if patientID != 0 {
		// Staff always can; a patient only until the policy's cutoff.
		var err error
		if cutoff, err = cancelCutoff(ctx, s.pool, appointmentID); err != nil {
			return booking.Appointment{}, translate(err, "")
		}
	}
	var a booking.Appointment
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// A dose's series is locked first, its slots in id order as
		// BookSeries takes them, since cancelling it cancels the later ones.
		dose, err := lockSeriesSlots(ctx, tx, appointmentID)
		if err != nil {
			return err
		}
		if a, err = s.cancelIn(ctx, tx, appointmentID, patientID, cutoff, now, reason); err != nil || !dose {
			return err
		}
		return s.cancelLaterDoses(ctx, tx, appointmentID, now)
	})
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return booking.Appointment{}, translate(err, "")
	}
	// Nothing changed: tell why from the row as it is now.
	a, err = s.GetAppointment(ctx, appointmentID)
	if err != nil {
		return booking.Appointment{}, err
	}
	if err := booking.CancelRefusal(a, patientID, now, cutoff); err != nil {
		return booking.Appointment{}, err
	}
	return a, nil
}

// GetAppointment returns one appointment.
func (s *Store) GetAppointment(ctx context.Context, id int64) (booking.Appointment, error) {
	a, err := scanAppointment(s.pool.QueryRow(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id WHERE a.id = $1`, id))
	return a, translate(err, "appointment")
}

// sqlAppointmentsByID reads appointments by id, each probed apart
// (queryGeneric).
const sqlAppointmentsByID = `SELECT ` + apptColumns + ` FROM unnest($1::bigint[]) AS k(want),
	LATERAL (SELECT * FROM appointments a WHERE a.id = k.want OFFSET 0) a,
	LATERAL (SELECT * FROM slots s WHERE s.id = a.slot_id OFFSET 0) s`

// GetAppointments reads the appointments of ids that exist, by id.
func (s *Store) GetAppointments(ctx context.Context, ids []int64) (map[int64]booking.Appointment, error) {
	out := make(map[int64]booking.Appointment, len(ids))
	err := s.queryGeneric(ctx, func(rows pgx.Rows) error {
		a, err := scanAppointment(rows)
		out[a.ID] = a
		return err
	}, sqlAppointmentsByID, ids)
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// ListAppointments lists a patient's appointments, newest first, only those
// in q.Status unless it is empty and on q.Sites unless none, one page at a
// time (ids below q.Page.After).
func (s *Store) ListAppointments(ctx context.Context, q booking.AppointmentQuery) ([]booking.Appointment, error) {
	return s.listAppointments(ctx, listPatient, q)
}

// ListAccountAppointments lists the appointments of an account and of the
// people it manages, newest first.
func (s *Store) ListAccountAppointments(ctx context.Context, account int64, status booking.Status, p booking.Page) ([]booking.Appointment, error) {
	return s.listAppointments(ctx, listAccount,
		booking.AppointmentQuery{PatientID: account, Status: status, Page: p})
}

// The appointments a list reads, $1 naming whose: a patient's, through an
// index led by the patient; an account's and its people's, each person's
// probed apart (LATERAL, OFFSET 0). Written as "patient_id IN (the
// account's people)", a generic plan made while the table was nearly
// empty walked the whole table newest first until the page was full
// (TestPatientListsProbe).
var (
	listPatient = listOf{from: `appointments a`, who: `a.patient_id = $1`}
	listAccount = listOf{from: `(SELECT $1::bigint AS id UNION ALL SELECT id FROM patients WHERE manager_id = $1) p,
		LATERAL (SELECT * FROM appointments a WHERE a.patient_id = p.id OFFSET 0) a`}
)

// listOf is the FROM of a list and its condition on $1, if any.
type listOf struct{ from, who string }

// listAppointments lists the appointments of l, newest first; q.Sites
// narrows them to the slots of those sites' doctors (a department on no
// site is on none).
func (s *Store) listAppointments(ctx context.Context, l listOf, q booking.AppointmentQuery) ([]booking.Appointment, error) {
	sql, args := listSQL(l, q)
	rows, _ := s.pool.Query(ctx, sql, args...)
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	return as, translate(err, "")
}

// listSQL is the statement of listAppointments and its arguments. It names
// only the filters that are set: one with every filter optional
// ("$2 = ” OR ...") gets a custom plan at each call, whose planning cost
// a patient's list several times its execution.
func listSQL(l listOf, q booking.AppointmentQuery) (string, []any) {
	var where []string
	if l.who != "" {
		where = append(where, l.who)
	}
	args := []any{q.PatientID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if q.Status != "" {
		add("a.status = $%d", string(q.Status))
	}
	if q.Page.After != 0 {
		add("a.id < $%d", q.Page.After)
	}
	if len(q.Sites) > 0 {
		add("s.resource_id IN (SELECT r.id FROM resources r JOIN departments d ON d.id = r.department_id WHERE d.site_id = ANY($%d))", q.Sites)
	}
	sql := `SELECT ` + apptColumns + ` FROM ` + l.from + ` JOIN slots s ON s.id = a.slot_id`
	if len(where) > 0 {
		sql += ` WHERE ` + strings.Join(where, " AND ")
	}
	sql += ` ORDER BY a.id DESC`
	if q.Page.Limit > 0 {
		args = append(args, q.Page.Limit)
		sql += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	return sql, args
}

// FindByKey returns the appointment made by a patient's Idempotency-Key,
// through appointments_patient_key_key.
func (s *Store) FindByKey(ctx context.Context, patientID int64, key string) (booking.Appointment, error) {
	a, err := scanAppointment(s.pool.QueryRow(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
		 WHERE a.patient_id = $1 AND a.idempotency_key = $2`, patientID, key))
	return a, translate(err, "appointment")
}

// FindByKeys returns the appointments made by any of the requests'
// (patient, Idempotency-Key) pairs and the requests' patients' active
// appointments in the slots they ask for, in one read.
func (s *Store) FindByKeys(ctx context.Context, reqs []booking.BookRequest) ([]booking.Appointment, error) {
	patients := make([]int64, len(reqs))
	keys := make([]string, len(reqs))
	slots := make([]int64, len(reqs))
	for i, r := range reqs {
		patients[i], keys[i], slots[i] = r.PatientID, r.IdempotencyKey, r.SlotID
	}
	rows, _ := s.pool.Query(ctx, sqlByKeysOrHolding, patients, keys, slots)
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	return as, translate(err, "appointment")
}

// sqlByKeysOrHolding finds what a key made or what the patient holds in
// the slot, from the patient's appointments: one probe of
// appointments_patient_key_key per request (OFFSET 0 keeps the subquery per
// request, and keeps the status test out of it, where the slot's partial
// indexes would let the planner scan the whole slot for each request).
const sqlByKeysOrHolding = `SELECT ` + apptColumns + `
	FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS k(patient_id, idem_key, slot_id),
	LATERAL (SELECT * FROM appointments a WHERE a.patient_id = k.patient_id
	  AND (a.idempotency_key = k.idem_key OR a.slot_id = k.slot_id) OFFSET 0) a
	JOIN slots s ON s.id = a.slot_id
	WHERE a.idempotency_key = k.idem_key OR a.status IN ` + booking.ActiveSQL
