package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// ruleColsSQL are a schedule's eligibility rule's columns (er), NULL when
// it has none: bookPolicySQL reads them with the policy.
const ruleColsSQL = `er.schedule_id, er.min_age, er.max_age, er.cohorts, er.invitation_required,
		er.reserve_places, er.reserve_cohort, er.reserve_until, er.updated_at`

// ruleRow scans ruleColsSQL.
type ruleRow struct {
	schedule, minAge, maxAge, reserve, until, updated sql.NullInt64
	cohorts, reserveCohort                            sql.NullString
	invitation                                        sql.NullBool
}

func (r *ruleRow) dest() []any {
	return []any{&r.schedule, &r.minAge, &r.maxAge, &r.cohorts, &r.invitation, &r.reserve, &r.reserveCohort, &r.until, &r.updated}
}

// rule is the rule scanned, nil for none.
func (r *ruleRow) rule() (*booking.EligibilityRule, error) {
	if !r.schedule.Valid {
		return nil, nil
	}
	rule := &booking.EligibilityRule{ScheduleID: r.schedule.Int64, InvitationRequired: r.invitation.Bool,
		ReservePlaces: int(r.reserve.Int64), ReserveCohort: r.reserveCohort.String, UpdatedAt: fromTS(r.updated.Int64)}
	for _, a := range []struct {
		v   sql.NullInt64
		dst **int
	}{{r.minAge, &rule.MinAge}, {r.maxAge, &rule.MaxAge}} {
		if a.v.Valid {
			v := int(a.v.Int64)
			*a.dst = &v
		}
	}
	if r.until.Valid {
		t := fromTS(r.until.Int64)
		rule.ReserveUntil = &t
	}
	return rule, json.Unmarshal([]byte(r.cohorts.String), &rule.Cohorts)
}

// Eligibility's reads of a batch: the persons' birth dates and tags, and
// the invitations presented, one statement each, made only when the rule
// asks (booking.EligibilityRule.NeedsPersons, NeedsInvitations).
const (
	personsSQL = `SELECT p.id, p.birth_date_sealed,
		coalesce((SELECT json_group_array(c.tag) FROM patient_cohorts c WHERE c.patient_id = p.id), '[]')
		FROM patients p WHERE p.id IN (SELECT value FROM json_each(?1))`
	invitationsSQL = `SELECT code_hash, schedule_id, appointment_id IS NOT NULL FROM invitations
		WHERE code_hash IN (SELECT unhex(value) FROM json_each(?1))`
	useInvitationSQL = `UPDATE invitations SET appointment_id = ?1, used_at = ?2 WHERE code_hash = ?3 AND appointment_id IS NULL`
)

// readEligibility reads what rd.Rule needs of the batch (nothing without a
// rule).
func readEligibility(ctx context.Context, keys *pii.Keys, q querier, rd *booking.BookReads, reqs []booking.BookRequest) error {
	if rd.Rule.NeedsPersons() {
		patients := make([]int64, len(reqs))
		for k, r := range reqs {
			patients[k] = r.PatientID
		}
		pj, _ := json.Marshal(patients)
		rd.Persons = map[int64]booking.Person{}
		if err := eachRow(ctx, q, personsSQL, []any{string(pj)}, func(rows *sql.Rows) error {
			var id int64
			var sealed []byte
			var tags string
			if err := rows.Scan(&id, &sealed, &tags); err != nil {
				return err
			}
			var p booking.Person
			if sealed != nil {
				var err error
				if p.BirthDate, err = keys.Open(pii.FieldBirthDate, sealed); err != nil {
					return err
				}
			}
			err := json.Unmarshal([]byte(tags), &p.Cohorts)
			rd.Persons[id] = p
			return err
		}); err != nil {
			return err
		}
	}
	if !rd.Rule.NeedsInvitations(reqs) {
		return nil
	}
	byHash := map[string]string{}
	var hashes []string
	for _, r := range reqs {
		if r.Invitation != "" {
			h := hex.EncodeToString(keys.Index(pii.FieldInvitation, r.Invitation))
			byHash[h] = r.Invitation
			hashes = append(hashes, h)
		}
	}
	hj, _ := json.Marshal(hashes)
	rd.Invitations = map[string]booking.Invitation{}
	return eachRow(ctx, q, invitationsSQL, []any{string(hj)}, func(rows *sql.Rows) error {
		var h []byte
		var inv booking.Invitation
		if err := rows.Scan(&h, &inv.ScheduleID, &inv.Used); err != nil {
			return err
		}
		rd.Invitations[byHash[hex.EncodeToString(h)]] = inv
		return nil
	})
}

// useInvitations marks the invitations the batch's new appointments use;
// each must still be unused (the write lock held since the read makes that
// so: anything else is a bug, and rolls the batch back).
func useInvitations(ctx context.Context, q execer, keys *pii.Keys, uses []booking.InvitationUse, now time.Time) error {
	for _, u := range uses {
		res, err := q.ExecContext(ctx, useInvitationSQL, u.AppointmentID, ts(now), keys.Index(pii.FieldInvitation, u.Code))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(err, errors.New("sqlite: an invitation read unused under the write lock was used"))
		}
	}
	return nil
}

// ruleSQL reads schedule ?1's rule alone.
const ruleSQL = `SELECT ` + ruleColsSQL + ` FROM eligibility_rules er WHERE er.schedule_id = ?1`

// readRule reads schedule's rule, nil for none.
func readRule(ctx context.Context, q querier, scheduleID int64) (*booking.EligibilityRule, error) {
	var r ruleRow
	switch err := q.QueryRowContext(ctx, ruleSQL, scheduleID).Scan(r.dest()...); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return r.rule()
}

// Eligibility reads schedule's rule, nil for none.
func (s *Store) Eligibility(ctx context.Context, scheduleID int64) (*booking.EligibilityRule, error) {
	r, err := readRule(ctx, s.reader, scheduleID)
	return r, mapErr(err, "")
}

// SetEligibility sets (or, with remove, deletes) a schedule's rule; audited.
func (s *Store) SetEligibility(ctx context.Context, rule booking.EligibilityRule, remove bool, now time.Time) (booking.EligibilityRule, error) {
	rule.UpdatedAt = micro(now)
	if rule.Cohorts == nil {
		rule.Cohorts = []string{}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM schedules WHERE id = ?`, rule.ScheduleID).Scan(&one); err != nil {
			return mapErr(err, "schedule")
		}
		before, err := readRule(ctx, tx, rule.ScheduleID)
		if err != nil {
			return err
		}
		if remove {
			if _, err := tx.ExecContext(ctx, `DELETE FROM eligibility_rules WHERE schedule_id = ?`, rule.ScheduleID); err != nil {
				return err
			}
			if before == nil {
				return nil
			}
			return writeAudit(ctx, tx, booking.AuditEligibility(ctx, now, before, nil))
		}
		cohorts, _ := json.Marshal(rule.Cohorts)
		if _, err := tx.ExecContext(ctx, `INSERT INTO eligibility_rules (schedule_id, min_age, max_age, cohorts,
			invitation_required, reserve_places, reserve_cohort, reserve_until, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (schedule_id) DO UPDATE SET min_age = excluded.min_age, max_age = excluded.max_age,
			cohorts = excluded.cohorts, invitation_required = excluded.invitation_required,
			reserve_places = excluded.reserve_places, reserve_cohort = excluded.reserve_cohort,
			reserve_until = excluded.reserve_until, updated_at = excluded.updated_at`,
			rule.ScheduleID, rule.MinAge, rule.MaxAge, string(cohorts), rule.InvitationRequired, rule.ReservePlaces,
			rule.ReserveCohort, nullTS(rule.ReserveUntil), ts(rule.UpdatedAt)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditEligibility(ctx, now, before, &rule))
	})
	if err != nil {
		return booking.EligibilityRule{}, mapErr(err, "")
	}
	return rule, nil
}

// ImportCohorts adds the (patient, tag) rows in one transaction, those
// already there kept; a patient that does not exist refuses the import.
func (s *Store) ImportCohorts(ctx context.Context, rows []booking.CohortRow, now time.Time) (int, error) {
	added := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		for k, r := range rows {
			var one int
			if err := tx.QueryRowContext(ctx, `SELECT 1 FROM patients WHERE id = ?`, r.PatientID).Scan(&one); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return booking.Errorf(booking.CodeNotFound, "row %d: patient %d not found", k+1, r.PatientID)
				}
				return err
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO patient_cohorts (patient_id, tag, created_at) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, r.PatientID, r.Tag, ts(now))
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			added += int(n)
		}
		return writeAudit(ctx, tx, booking.AuditCohorts(ctx, now, rows, added))
	})
	if err != nil {
		return 0, mapErr(err, "")
	}
	return added, nil
}

// CreateInvitations stores the keyed hashes of codes for a schedule.
func (s *Store) CreateInvitations(ctx context.Context, scheduleID int64, codes []string, now time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM schedules WHERE id = ?`, scheduleID).Scan(&one); err != nil {
			return mapErr(err, "schedule")
		}
		for _, c := range codes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO invitations (code_hash, schedule_id, created_at) VALUES (?, ?, ?)`,
				s.keys.Index(pii.FieldInvitation, c), scheduleID, ts(now)); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, booking.AuditInvitations(ctx, now, scheduleID, len(codes)))
	})
	return mapErr(err, "")
}

// serviceRuleColsSQL are a service's rule's columns (ser), NULL when it
// has none: readVisit reads them with the service, at no statement more.
const serviceRuleColsSQL = `ser.service_id, ser.min_age, ser.max_age, ser.cohorts, ser.updated_at`

// serviceRuleRow scans serviceRuleColsSQL.
type serviceRuleRow struct {
	service, minAge, maxAge, updated sql.NullInt64
	cohorts                          sql.NullString
}

func (r *serviceRuleRow) dest() []any {
	return []any{&r.service, &r.minAge, &r.maxAge, &r.cohorts, &r.updated}
}

// rule is the rule scanned, nil for none.
func (r *serviceRuleRow) rule() (*booking.ServiceRule, error) {
	if !r.service.Valid {
		return nil, nil
	}
	rule := &booking.ServiceRule{ServiceID: r.service.Int64, UpdatedAt: fromTS(r.updated.Int64)}
	for _, a := range []struct {
		v   sql.NullInt64
		dst **int
	}{{r.minAge, &rule.MinAge}, {r.maxAge, &rule.MaxAge}} {
		if a.v.Valid {
			v := int(a.v.Int64)
			*a.dst = &v
		}
	}
	return rule, json.Unmarshal([]byte(r.cohorts.String), &rule.Cohorts)
}

// withRow scans a row's first columns into what its reader asks and the
// rest into extra: a read that carries another one's columns along.
type withRow struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (w withRow) Scan(dest ...any) error { return w.row.Scan(append(dest, w.extra...)...) }

// serviceRuleSQL reads service ?1's rule alone.
const serviceRuleSQL = `SELECT ` + serviceRuleColsSQL + ` FROM service_eligibility_rules ser WHERE ser.service_id = ?1`

func readServiceRule(ctx context.Context, q querier, serviceID int64) (*booking.ServiceRule, error) {
	var r serviceRuleRow
	switch err := q.QueryRowContext(ctx, serviceRuleSQL, serviceID).Scan(r.dest()...); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return r.rule()
}

// ServiceEligibility reads a service's rule, nil for none.
func (s *Store) ServiceEligibility(ctx context.Context, serviceID int64) (*booking.ServiceRule, error) {
	r, err := readServiceRule(ctx, s.reader, serviceID)
	return r, mapErr(err, "")
}

// SetServiceEligibility sets (or, with remove, deletes) a service's rule;
// audited.
func (s *Store) SetServiceEligibility(ctx context.Context, rule booking.ServiceRule, remove bool, now time.Time) (booking.ServiceRule, error) {
	rule.UpdatedAt = micro(now)
	if rule.Cohorts == nil {
		rule.Cohorts = []string{}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM services WHERE id = ?`, rule.ServiceID).Scan(&one); err != nil {
			return mapErr(err, "service")
		}
		before, err := readServiceRule(ctx, tx, rule.ServiceID)
		if err != nil {
			return err
		}
		if remove {
			if _, err := tx.ExecContext(ctx, `DELETE FROM service_eligibility_rules WHERE service_id = ?`, rule.ServiceID); err != nil {
				return err
			}
			if before == nil {
				return nil
			}
			return writeAudit(ctx, tx, booking.AuditServiceEligibility(ctx, now, before, nil))
		}
		cohorts, _ := json.Marshal(rule.Cohorts)
		if _, err := tx.ExecContext(ctx, `INSERT INTO service_eligibility_rules (service_id, min_age, max_age, cohorts, updated_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (service_id) DO UPDATE SET min_age = excluded.min_age,
			max_age = excluded.max_age, cohorts = excluded.cohorts, updated_at = excluded.updated_at`,
			rule.ServiceID, rule.MinAge, rule.MaxAge, string(cohorts), ts(rule.UpdatedAt)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditServiceEligibility(ctx, now, before, &rule))
	})
	if err != nil {
		return booking.ServiceRule{}, mapErr(err, "")
	}
	return rule, nil
}

// ListServiceEligibility lists the services' rules by service id, one page
// at a time.
func (s *Store) ListServiceEligibility(ctx context.Context, p booking.Page) ([]booking.ServiceRule, error) {
	limit := p.Limit
	if limit == 0 {
		limit = -1 // SQLite's "no limit" (PostgreSQL: LIMIT NULL)
	}
	out := []booking.ServiceRule{}
	err := eachRow(ctx, s.reader, `SELECT `+serviceRuleColsSQL+` FROM service_eligibility_rules ser
		WHERE ser.service_id > ? ORDER BY ser.service_id LIMIT ?`, []any{p.After, limit}, func(rows *sql.Rows) error {
		var r serviceRuleRow
		if err := rows.Scan(r.dest()...); err != nil {
			return err
		}
		rule, err := r.rule()
		if err == nil {
			out = append(out, *rule)
		}
		return err
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

// listingRulesSQL are the rules of the listed slots' schedules (rounds'
// slots aside: a round's quota governs them).
const listingRulesSQL = `SELECT s.id, s.start_at, s.capacity - s.booked_count, ` + ruleColsSQL + ` FROM slots s
	JOIN eligibility_rules er ON er.schedule_id = s.schedule_id
	WHERE s.id IN (SELECT value FROM json_each(?1)) AND s.round_id IS NULL`

// ListingRules reads the rules of the slots and, when one asks, the person.
func (s *Store) ListingRules(ctx context.Context, patientID int64, slotIDs []int64) (booking.ListingReads, error) {
	rd := booking.ListingReads{Slots: map[int64]booking.ListedRule{}}
	if len(slotIDs) == 0 {
		return rd, nil
	}
	ids, _ := json.Marshal(slotIDs)
	persons := false
	if err := eachRow(ctx, s.reader, listingRulesSQL, []any{string(ids)}, func(rows *sql.Rows) error {
		var id, start int64
		var l booking.ListedRule
		var r ruleRow
		if err := rows.Scan(append([]any{&id, &start, &l.Free}, r.dest()...)...); err != nil {
			return err
		}
		var err error
		l.Rule, err = r.rule()
		l.StartAt = fromTS(start)
		rd.Slots[id] = l
		persons = persons || l.Rule.NeedsPersons()
		return err
	}); err != nil || !persons {
		return rd, mapErr(err, "")
	}
	pj, _ := json.Marshal([]int64{patientID})
	err := eachRow(ctx, s.reader, personsSQL, []any{string(pj)}, func(rows *sql.Rows) error {
		var id int64
		var sealed []byte
		var tags string
		if err := rows.Scan(&id, &sealed, &tags); err != nil {
			return err
		}
		if sealed != nil {
			var err error
			if rd.Person.BirthDate, err = s.keys.Open(pii.FieldBirthDate, sealed); err != nil {
				return err
			}
		}
		return json.Unmarshal([]byte(tags), &rd.Person.Cohorts)
	})
	return rd, mapErr(err, "")
}
