package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// Services (visit types) and the visits booked of them (booking/visit.go).

const serviceColumns = `id, name, minutes, fee_cents, level, notes, active, created_at,
	ARRAY(SELECT doctor_id FROM service_doctors WHERE service_id = services.id ORDER BY doctor_id)`

func scanService(r pgx.Row) (booking.Service, error) {
	var v booking.Service
	err := r.Scan(&v.ID, &v.Name, &v.Minutes, &v.FeeCents, &v.Level, &v.Notes, &v.Active, &v.CreatedAt, &v.DoctorIDs)
	v.CreatedAt = v.CreatedAt.UTC()
	if v.DoctorIDs == nil {
		v.DoctorIDs = []int64{}
	}
	return v, err
}

// CreateService adds a service and its doctors; an unknown doctor is not
// found, a taken name a conflict.
func (s *Store) CreateService(ctx context.Context, v booking.Service) (booking.Service, error) {
	if err := v.Validate(); err != nil {
		return booking.Service{}, err
	}
	if v.CreatedAt.IsZero() {
		v.CreatedAt = time.Now()
	}
	v.CreatedAt = v.CreatedAt.UTC().Truncate(time.Microsecond)
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		if err := tx.QueryRow(ctx, `INSERT INTO services (name, minutes, fee_cents, level, notes, active, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, v.Name, v.Minutes, v.FeeCents, string(v.Level), v.Notes, v.Active,
			v.CreatedAt).Scan(&v.ID); err != nil {
			return nil, err
		}
		if err := setServiceDoctors(ctx, tx, v); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditService(ctx, v.CreatedAt, nil, v)}, nil
	})
	if err != nil {
		return booking.Service{}, translate(err, "")
	}
	return v, nil
}

// setServiceDoctors replaces the service's doctors with v's, each of
// which must be a doctor.
func setServiceDoctors(ctx context.Context, tx pgx.Tx, v booking.Service) error {
	if _, err := tx.Exec(ctx, `DELETE FROM service_doctors WHERE service_id = $1`, v.ID); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM resources WHERE id = ANY($1) AND kind = 'doctor'`, v.DoctorIDs).Scan(&n); err != nil {
		return err
	}
	if n != len(v.DoctorIDs) {
		return booking.NotFound("doctor")
	}
	_, err := tx.Exec(ctx, `INSERT INTO service_doctors (service_id, doctor_id) SELECT $1, unnest($2::bigint[])`, v.ID, v.DoctorIDs)
	return err
}

// UpdateService changes a service in one transaction, its row locked.
func (s *Store) UpdateService(ctx context.Context, id int64, u booking.ServiceUpdate) (booking.Service, error) {
	var v booking.Service
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		before, err := scanService(tx.QueryRow(ctx, `SELECT `+serviceColumns+` FROM services WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return nil, err
		}
		v = u.Apply(before)
		if err := v.Validate(); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `UPDATE services SET name = $2, minutes = $3, fee_cents = $4, level = $5, notes = $6, active = $7
			WHERE id = $1`, id, v.Name, v.Minutes, v.FeeCents, string(v.Level), v.Notes, v.Active); err != nil {
			return nil, err
		}
		if u.DoctorIDs != nil {
			if err := setServiceDoctors(ctx, tx, v); err != nil {
				return nil, err
			}
		}
		return []booking.AuditEntry{booking.AuditService(ctx, time.Now(), &before, v)}, nil
	})
	if err != nil {
		return booking.Service{}, translate(err, "service")
	}
	return v, nil
}

// GetService reads one service.
func (s *Store) GetService(ctx context.Context, id int64) (booking.Service, error) {
	v, err := scanService(s.pool.QueryRow(ctx, `SELECT `+serviceColumns+` FROM services WHERE id = $1`, id))
	if err != nil {
		return booking.Service{}, translate(err, "service")
	}
	return v, nil
}

// ListServices lists services by id, one page at a time.
func (s *Store) ListServices(ctx context.Context, f booking.ServiceFilter, p booking.Page) ([]booking.Service, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+serviceColumns+` FROM services
		WHERE id > $1 AND ($3 OR active)
		  AND ($4 = 0 OR EXISTS (SELECT 1 FROM service_doctors WHERE service_id = services.id AND doctor_id = $4))
		ORDER BY id LIMIT NULLIF($2, 0)`, p.After, p.Limit, f.All, f.DoctorID)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Service, error) { return scanService(r) })
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

const (
	sqlVisitFirst = `SELECT resource_id, start_at FROM slots WHERE id = $1`
	// sqlLockVisitRun locks the slot asked for and its doctor's slots that
	// start before the service would end, in id order (a resource's slots
	// never overlap, so these are the candidates of the run): two visits
	// wanting overlapping runs queue instead of deadlocking.
	sqlLockVisitRun = `SELECT id FROM slots WHERE resource_id = $1 AND start_at >= $2 AND start_at < $3
		ORDER BY id LIMIT $4 FOR UPDATE`
	// sqlReadVisitRun reads them in time order: a statement of its own, so
	// that under READ COMMITTED its snapshot is taken after the locks and
	// sees what their previous holders committed.
	sqlReadVisitRun = `SELECT ` + slotColumns + ` FROM slots WHERE id = ANY($1) ORDER BY start_at`
	sqlVisitKey     = `SELECT ` + apptColumns + ` FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.patient_id = $1 AND a.idempotency_key = $2`
	// sqlVisitPatient: is the patient missing, holding a place in one of
	// the run's slots, or holding another appointment overlapping [$3, $4)?
	sqlVisitPatient = `SELECT NOT EXISTS (SELECT 1 FROM patients WHERE id = $1),
		EXISTS (SELECT 1 FROM appointments WHERE patient_id = $1 AND status IN ` + booking.ActiveSQL + ` AND slot_id = ANY($2)),
		EXISTS (SELECT 1 FROM appointments WHERE patient_id = $1 AND status IN ` + booking.ActiveSQL + `
		         AND round_id IS NULL AND start_at < $4 AND end_at > $3)`
	sqlTakeVisitPlaces = `UPDATE slots SET booked_count = booked_count + 1
		WHERE id = ANY($1) AND status = ` + booking.SlotOpenSQL + ` AND opens_at <= $2 AND start_at > $2 AND booked_count < capacity`
	sqlInsertVisit = `INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
		idempotency_key, fingerprint, hold_expires_at, created_at, updated_at, service_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11) RETURNING id`
	sqlInsertPlaces = `INSERT INTO appointment_places (appointment_id, slot_id) SELECT $1, unnest($2::bigint[])`
)

// BookVisit books a visit in one transaction: the run's slots locked in
// id order, the reads, DecideVisit, its writes.
func (s *Store) BookVisit(ctx context.Context, r booking.VisitRequest, now time.Time) (booking.BookResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var d booking.VisitDecision
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rd, err := s.readVisit(ctx, tx, r, now)
		if err != nil {
			return err
		}
		d = booking.DecideVisit(r, rd, now)
		if d.Err != nil || d.Replayed {
			return nil
		}
		tag, err := tx.Exec(ctx, sqlTakeVisitPlaces, d.Places, now)
		if err != nil {
			return err
		}
		if int(tag.RowsAffected()) != len(d.Places) {
			return errors.New("postgres: a visit's conditional update missed a slot under its lock")
		}
		a := d.Appointment
		if err := tx.QueryRow(ctx, sqlInsertVisit, a.SlotID, a.PatientID, string(a.Status), a.QueueNumber, a.StartAt, a.EndAt,
			a.IdempotencyKey, a.Fingerprint, a.HoldExpiresAt, now, a.ServiceID).Scan(&id); err != nil {
			return err
		}
		if len(d.Extra) > 0 {
			if _, err := tx.Exec(ctx, sqlInsertPlaces, id, d.Extra); err != nil {
				return err
			}
		}
		a.ID = id
		if err := writeAudit(ctx, tx, booking.AuditVisit(ctx, now, a, d.Extra)); err != nil {
			return err
		}
		if d.Notification.Kind == "" {
			return nil
		}
		n := d.Notification
		n.AppointmentID = id
		return s.notify(ctx, tx, []booking.Notification{n})
	})
	if err != nil {
		err = translate(err, "")
		var be *booking.Error
		if errors.As(err, &be) && be.Code != booking.CodeUnavailable {
			// A constraint fired (a race with another transaction on the
			// patient's other appointments): that is the answer.
			return booking.BookResult{Err: err}, nil
		}
		return booking.BookResult{}, err
	}
	return d.Result(id), nil
}

// readVisit locks the run and reads what DecideVisit needs. The key is
// read after the locks: a retry racing its first request then sees it.
func (s *Store) readVisit(ctx context.Context, tx pgx.Tx, r booking.VisitRequest, now time.Time) (rd booking.VisitReads, err error) {
	// The service's rule comes with the service: a service without one
	// costs the visit no statement more.
	var sr serviceRuleRow
	switch v, err := scanService(withRow{tx.QueryRow(ctx, `SELECT `+serviceColumns+`, `+sqlServiceRuleCols+` FROM services
		LEFT JOIN service_eligibility_rules ser ON ser.service_id = services.id WHERE services.id = $1`, r.ServiceID), sr.dest()}); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return rd, err
	default:
		rd.Service, rd.ServiceRule = &v, sr.rule()
	}
	var doctor int64
	var start time.Time
	switch err := tx.QueryRow(ctx, sqlVisitFirst, r.SlotID).Scan(&doctor, &start); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return rd, err
	case rd.Service != nil:
		span := time.Duration(rd.Service.Minutes) * time.Minute
		rows, _ := tx.Query(ctx, sqlLockVisitRun, doctor, start, start.Add(span), booking.MaxVisitSlots+1)
		locked, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return rd, err
		}
		rows, _ = tx.Query(ctx, sqlReadVisitRun, locked)
		if rd.Run, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Slot, error) { return scanSlot(r) }); err != nil {
			return rd, err
		}
	}
	switch a, err := scanAppointment(tx.QueryRow(ctx, sqlVisitKey, r.PatientID, r.IdempotencyKey)); {
	case err == nil:
		rd.Existing = &a
		return rd, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return rd, err
	}
	if len(rd.Run) == 0 {
		return rd, nil
	}
	first := rd.Run[0]
	ids := make([]int64, len(rd.Run))
	for i, sl := range rd.Run {
		ids[i] = sl.ID
	}
	span := time.Duration(rd.Service.Minutes) * time.Minute
	if err := tx.QueryRow(ctx, sqlVisitPatient, r.PatientID, ids, first.StartAt, first.StartAt.Add(span)).
		Scan(&rd.Missing, &rd.Holding, &rd.Overlapping); err != nil {
		return rd, err
	}
	var br booking.BookReads
	err = scanBookPolicy(tx.QueryRow(ctx, sqlBookPolicy, first.ID), &br)
	if rd.Policy, rd.OpeningID, rd.Rule = br.Policy, br.OpeningID, br.Rule; err != nil {
		return rd, err
	}
	if rd.NeedsPersons() {
		if rd.Person, err = s.readPerson(ctx, tx, r.PatientID); err != nil {
			return rd, err
		}
	}
	var last *time.Time
	var pid int64
	switch err := tx.QueryRow(ctx, sqlPatientLoad, first.ID, []int64{r.PatientID}, now.Add(-booking.NoShowWindow)).
		Scan(&pid, &rd.Inactive, &rd.Load.Active, &rd.Load.SameDay, &rd.Load.NoShows, &last); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return rd, err
	}
	rd.Load.Inactive = rd.Inactive
	if last != nil {
		rd.Load.LastNoShow = last.UTC()
	}
	err = tx.QueryRow(ctx, sqlTakenNumbers, first.ID).Scan(&rd.Taken)
	return rd, err
}

// ListOpenSlots lists the OPEN slots q asks for, by doctor then start, through the (resource_id, start_at) key.
// sqlOpenSlots is ListOpenSlots' read: $1 the doctors, [$2, $3) the
// window, $4 the bound, $5 the site (0: any), $6 the slots per doctor. One
// probe of slots_resource_start_key per doctor (LATERAL), each reading that
// doctor's first $6 slots, and the site a probe of the doctor's row: a
// correlated scalar subquery, which the planner keeps per row, where an IN
// (SELECT …) of the site's doctors was hashed from a scan of every doctor
// (TestCatalogReadsProbe).
const sqlOpenSlots = `SELECT ` + slotColumns + ` FROM (SELECT DISTINCT doctor FROM unnest($1::bigint[]) AS u (doctor)
		  WHERE $5::bigint = 0 OR (SELECT dp.site_id FROM resources r JOIN departments dp ON dp.id = r.department_id
		                           WHERE r.id = u.doctor) = $5) d
		CROSS JOIN LATERAL (SELECT * FROM slots
		   WHERE resource_id = d.doctor AND start_at >= $2 AND start_at < $3 AND status = ` + booking.SlotOpenSQL + `
		     AND booked_count < capacity
		   ORDER BY start_at LIMIT $6) s
		ORDER BY resource_id, start_at LIMIT $4`

func (s *Store) ListOpenSlots(ctx context.Context, q booking.OpenSlots) ([]booking.Slot, error) {
	rows, _ := s.pool.Query(ctx, sqlOpenSlots, q.DoctorIDs, q.From, q.To, q.Limit, q.SiteID, q.PerDoctor())
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Slot, error) { return scanSlot(r) })
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}
