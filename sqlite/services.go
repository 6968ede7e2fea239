package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
)

// Services (visit types) and the visits booked of them (booking/visit.go).

const serviceCols = `id, name, minutes, fee_cents, level, notes, active, created_at,
	coalesce((SELECT json_group_array(doctor_id) FROM (SELECT doctor_id FROM service_doctors
	           WHERE service_id = services.id ORDER BY doctor_id)), '[]')`

func scanService(sc interface{ Scan(...any) error }) (booking.Service, error) {
	var v booking.Service
	var created int64
	var doctors string
	if err := sc.Scan(&v.ID, &v.Name, &v.Minutes, &v.FeeCents, &v.Level, &v.Notes, &v.Active, &created, &doctors); err != nil {
		return v, err
	}
	v.CreatedAt = fromTS(created)
	return v, json.Unmarshal([]byte(doctors), &v.DoctorIDs)
}

// CreateService adds a service and its doctors; an unknown doctor is not
// found, a taken name a conflict.
func (s *Store) CreateService(ctx context.Context, v booking.Service) (booking.Service, error) {
	if err := v.Validate(); err != nil {
		return booking.Service{}, err
	}
	v.CreatedAt = micro(orNow(v.CreatedAt))
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO services (name, minutes, fee_cents, level, notes, active, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, v.Name, v.Minutes, v.FeeCents, string(v.Level), v.Notes, v.Active,
			ts(v.CreatedAt)).Scan(&v.ID); err != nil {
			return err
		}
		if err := setServiceDoctors(ctx, tx, v); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditService(ctx, v.CreatedAt, nil, v))
	})
	if err != nil {
		return booking.Service{}, mapErr(err, "service")
	}
	return v, nil
}

// setServiceDoctors replaces the service's doctors with v's, each of
// which must be a doctor.
func setServiceDoctors(ctx context.Context, tx *sql.Tx, v booking.Service) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM service_doctors WHERE service_id = ?`, v.ID); err != nil {
		return err
	}
	for _, d := range v.DoctorIDs {
		if err := exists(ctx, tx, `SELECT 1 FROM resources WHERE id = ? AND kind = 'doctor'`, d); err != nil {
			return notFoundAs(err, "doctor")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO service_doctors (service_id, doctor_id) VALUES (?, ?)`, v.ID, d); err != nil {
			return err
		}
	}
	return nil
}

// UpdateService changes a service in one write transaction.
func (s *Store) UpdateService(ctx context.Context, id int64, u booking.ServiceUpdate) (booking.Service, error) {
	var v booking.Service
	err := s.write(ctx, func(tx *sql.Tx) error {
		before, err := scanService(tx.QueryRowContext(ctx, `SELECT `+serviceCols+` FROM services WHERE id = ?`, id))
		if err != nil {
			return notFoundAs(err, "service")
		}
		v = u.Apply(before)
		if err := v.Validate(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE services SET name = ?, minutes = ?, fee_cents = ?, level = ?, notes = ?, active = ?
			WHERE id = ?`, v.Name, v.Minutes, v.FeeCents, string(v.Level), v.Notes, v.Active, id); err != nil {
			return err
		}
		if u.DoctorIDs != nil {
			if err := setServiceDoctors(ctx, tx, v); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, booking.AuditService(ctx, time.Now(), &before, v))
	})
	if err != nil {
		return booking.Service{}, mapErr(err, "service")
	}
	return v, nil
}

// GetService reads one service.
func (s *Store) GetService(ctx context.Context, id int64) (booking.Service, error) {
	v, err := scanService(s.reader.QueryRowContext(ctx, `SELECT `+serviceCols+` FROM services WHERE id = ?`, id))
	if err != nil {
		return booking.Service{}, mapErr(err, "service")
	}
	return v, nil
}

// ListServices lists services by id, one page at a time.
func (s *Store) ListServices(ctx context.Context, f booking.ServiceFilter, p booking.Page) ([]booking.Service, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+serviceCols+` FROM services
		WHERE id > ?1 AND (?3 OR active)
		  AND (?4 = 0 OR EXISTS (SELECT 1 FROM service_doctors WHERE service_id = services.id AND doctor_id = ?4))
		ORDER BY id LIMIT ?2`, p.After, rowLimit(p), f.All, f.DoctorID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Service{}
	for rows.Next() {
		v, err := scanService(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err(), "")
}

// visitRunSQL reads the slot asked for and its doctor's slots that start
// before the service would end (?2 microseconds after it), in time order.
// A resource's slots never overlap, so these are the candidates of the run.
const visitRunSQL = `SELECT ` + slotCols + ` FROM slots
	WHERE resource_id = (SELECT resource_id FROM slots WHERE id = ?1)
	  AND start_at >= (SELECT start_at FROM slots WHERE id = ?1)
	  AND start_at < (SELECT start_at FROM slots WHERE id = ?1) + ?2
	ORDER BY start_at LIMIT ?3`

// visitPatientSQL: is the patient missing, holding a place in one of the
// run's slots (?2, a JSON array), or holding another appointment
// overlapping [?3, ?4)?
const visitPatientSQL = `SELECT NOT EXISTS (SELECT 1 FROM patients WHERE id = ?1),
	EXISTS (SELECT 1 FROM appointments WHERE patient_id = ?1 AND status IN ` + booking.ActiveSQL + `
	         AND slot_id IN (SELECT value FROM json_each(?2))),
	EXISTS (SELECT 1 FROM appointments WHERE patient_id = ?1 AND status IN ` + booking.ActiveSQL + `
	         AND round_id IS NULL AND start_at < ?4 AND end_at > ?3)`

// BookVisit books a visit in one write transaction (BEGIN IMMEDIATE on
// the single writer): nothing else writes between its reads and its
// writes, which stands in for PostgreSQL's row locks of the run's slots.
func (s *Store) BookVisit(ctx context.Context, r booking.VisitRequest, now time.Time) (booking.BookResult, error) {
	now = micro(now)
	var d booking.VisitDecision
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		rd, err := s.readVisit(ctx, tx, r, now)
		if err != nil {
			return err
		}
		d = booking.DecideVisit(r, rd, now)
		if d.Err != nil || d.Replayed {
			return nil
		}
		for _, sl := range d.Places {
			if err := takePlaces(ctx, tx, sl, 1, false, 0, now); err != nil {
				return err
			}
		}
		a := d.Appointment
		var hold any
		if a.HoldExpiresAt != nil {
			hold = ts(*a.HoldExpiresAt)
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at, service_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, a.SlotID, a.PatientID, string(a.Status), a.QueueNumber,
			ts(a.StartAt), ts(a.EndAt), a.IdempotencyKey, a.Fingerprint, hold, ts(now), ts(now), a.ServiceID).Scan(&id); err != nil {
			return err
		}
		for _, sl := range d.Extra {
			if _, err := tx.ExecContext(ctx, `INSERT INTO appointment_places (appointment_id, slot_id) VALUES (?, ?)`, id, sl); err != nil {
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
		if name := constraintName(err); name != "" {
			// Only a bug can get here: the reads and the writes share the
			// write lock. Answer by the constraint, as a batch alone does.
			return booking.BookResult{Err: bookingErr(name, r.SlotID, err)}, nil
		}
		return booking.BookResult{}, mapErr(err, "")
	}
	return d.Result(id), nil
}

// readVisit reads what DecideVisit needs, inside the write transaction.
func (s *Store) readVisit(ctx context.Context, tx *sql.Tx, r booking.VisitRequest, now time.Time) (rd booking.VisitReads, err error) {
	switch a, err := scanAppt(tx.QueryRowContext(ctx, `SELECT `+apptCols+apptFrom+`WHERE a.patient_id = ? AND a.idempotency_key = ?`,
		r.PatientID, r.IdempotencyKey)); {
	case err == nil:
		rd.Existing = &a
		return rd, nil
	case !errors.Is(err, sql.ErrNoRows):
		return rd, err
	}
	// The service's rule comes with the service: a service without one
	// costs the visit no statement more.
	var sr serviceRuleRow
	switch v, err := scanService(withRow{tx.QueryRowContext(ctx, `SELECT `+serviceCols+`, `+serviceRuleColsSQL+` FROM services
		LEFT JOIN service_eligibility_rules ser ON ser.service_id = services.id WHERE services.id = ?`, r.ServiceID), sr.dest()}); {
	case errors.Is(err, sql.ErrNoRows):
		return rd, nil
	case err != nil:
		return rd, err
	default:
		rd.Service = &v
		if rd.ServiceRule, err = sr.rule(); err != nil {
			return rd, err
		}
	}
	span := time.Duration(rd.Service.Minutes) * time.Minute
	rows, err := tx.QueryContext(ctx, visitRunSQL, r.SlotID, span.Microseconds(), booking.MaxVisitSlots+1)
	if err != nil {
		return rd, err
	}
	for rows.Next() {
		sl, err := scanSlot(rows)
		if err != nil {
			rows.Close()
			return rd, err
		}
		rd.Run = append(rd.Run, sl)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(rd.Run) == 0 {
		return rd, err
	}
	first := rd.Run[0]
	ids := make([]int64, len(rd.Run))
	for i, sl := range rd.Run {
		ids[i] = sl.ID
	}
	j, _ := json.Marshal(ids)
	if err := tx.QueryRowContext(ctx, visitPatientSQL, r.PatientID, string(j), ts(first.StartAt), ts(first.StartAt.Add(span))).
		Scan(&rd.Missing, &rd.Holding, &rd.Overlapping); err != nil {
		return rd, err
	}
	// patientLoad reads the schedule's rule with the policy, and the
	// patient when that rule needs them; the service's rule may need them
	// when it does not.
	br := booking.BookReads{Slot: first}
	if err := s.patientLoad(ctx, tx, &br, []booking.BookRequest{{PatientID: r.PatientID}}, now); err != nil {
		return rd, err
	}
	rd.Policy, rd.OpeningID, rd.Load, rd.Inactive = br.Policy, br.OpeningID, br.Load[r.PatientID], br.Load[r.PatientID].Inactive
	rd.Rule = br.Rule
	if rd.NeedsPersons() && br.Persons == nil {
		br.Rule = rd.ServiceRule.Rule()
		if err := readEligibility(ctx, s.keys, tx, &br, []booking.BookRequest{{PatientID: r.PatientID}}); err != nil {
			return rd, err
		}
	}
	rd.Person = br.Persons[r.PatientID]
	for q := range takenNumbers(ctx, tx, first.ID, &err) {
		rd.Taken = append(rd.Taken, q)
	}
	if err != nil {
		return rd, fmt.Errorf("sqlite: queue numbers of slot %d: %w", first.ID, err)
	}
	return rd, nil
}

// ListOpenSlots lists the OPEN slots q asks for, by doctor then start, through the (resource_id, start_at) key.
func (s *Store) ListOpenSlots(ctx context.Context, q booking.OpenSlots) ([]booking.Slot, error) {
	// SQLite has no LATERAL: one probe of slots_resource_start_key per
	// doctor, in one read transaction (a consistent answer), each reading
	// that doctor's first PerDoctor slots.
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer tx.Rollback()
	j, _ := json.Marshal(q.DoctorIDs)
	ids, err := tx.QueryContext(ctx, `SELECT DISTINCT value FROM json_each(?1)
		WHERE ?2 = 0 OR value IN (SELECT r.id FROM resources r JOIN departments d ON d.id = r.department_id WHERE d.site_id = ?2)
		ORDER BY value`, string(j), q.SiteID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	var doctors []int64
	for ids.Next() {
		var id int64
		if err := ids.Scan(&id); err != nil {
			ids.Close()
			return nil, mapErr(err, "")
		}
		doctors = append(doctors, id)
	}
	ids.Close()
	if err := ids.Err(); err != nil {
		return nil, mapErr(err, "")
	}
	stmt, err := tx.PrepareContext(ctx, `SELECT `+slotCols+` FROM slots
		WHERE resource_id = ?1 AND start_at >= ?2 AND start_at < ?3 AND status = `+booking.SlotOpenSQL+`
		  AND booked_count < capacity
		ORDER BY start_at LIMIT ?4`)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer stmt.Close()
	out := []booking.Slot{}
	for _, id := range doctors {
		if len(out) >= q.Limit {
			break
		}
		rows, err := stmt.QueryContext(ctx, id, ts(q.From), ts(q.To), min(q.PerDoctor(), q.Limit-len(out)))
		if err != nil {
			return nil, mapErr(err, "")
		}
		for rows.Next() {
			sl, err := scanSlot(rows)
			if err != nil {
				rows.Close()
				return nil, mapErr(err, "")
			}
			out = append(out, sl)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, mapErr(err, "")
		}
	}
	return out, nil
}
