package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// sqlRuleCols are a schedule's eligibility rule's columns (er), NULL when
// it has none: sqlBookPolicy reads them with the policy.
const sqlRuleCols = `er.schedule_id, er.min_age, er.max_age, er.cohorts, er.invitation_required,
		er.reserve_places, er.reserve_cohort, er.reserve_until, er.updated_at`

// ruleRow scans sqlRuleCols.
type ruleRow struct {
	schedule                *int64
	minAge, maxAge, reserve *int
	cohorts                 []string
	invitation              *bool
	reserveCohort           *string
	until, updated          *time.Time
}

func (r *ruleRow) dest() []any {
	return []any{&r.schedule, &r.minAge, &r.maxAge, &r.cohorts, &r.invitation, &r.reserve, &r.reserveCohort, &r.until, &r.updated}
}

// rule is the rule scanned, nil for none.
func (r *ruleRow) rule() *booking.EligibilityRule {
	if r.schedule == nil {
		return nil
	}
	rule := &booking.EligibilityRule{ScheduleID: *r.schedule, MinAge: r.minAge, MaxAge: r.maxAge, Cohorts: r.cohorts,
		InvitationRequired: *r.invitation, ReservePlaces: *r.reserve, ReserveCohort: *r.reserveCohort, UpdatedAt: r.updated.UTC()}
	if r.until != nil {
		t := r.until.UTC()
		rule.ReserveUntil = &t
	}
	return rule
}

// Eligibility's reads of a batch, made only when the slot's rule asks
// (booking.EligibilityRule.NeedsPersons, NeedsInvitations), in one
// pipeline after the batch's reads: a slot without a rule pays nothing.
// The invitations are locked (in code order, so that two batches never
// wait on each other) until the batch commits: a code is used once
// however many batches present it.
const (
	sqlPersons = `SELECT p.id, p.birth_date_sealed,
		array(SELECT c.tag FROM patient_cohorts c WHERE c.patient_id = p.id ORDER BY c.tag)
		FROM patients p WHERE p.id = ANY($1)`
	sqlInvitations = `SELECT code_hash, schedule_id, appointment_id IS NOT NULL FROM invitations
		WHERE code_hash = ANY($1) ORDER BY code_hash FOR UPDATE`
	sqlUseInvitations = `UPDATE invitations i SET appointment_id = u.id, used_at = $3
		FROM unnest($1::bytea[], $2::bigint[]) u (h, id) WHERE i.code_hash = u.h AND i.appointment_id IS NULL`
)

// readEligibility reads what rd.Rule needs of the batch on on.
func (s *Store) readEligibility(ctx context.Context, on batchSender, rd *booking.BookReads, reqs []booking.BookRequest) error {
	persons, invitations := rd.Rule.NeedsPersons(), rd.Rule.NeedsInvitations(reqs)
	if !persons && !invitations {
		return nil
	}
	b := &pgx.Batch{}
	if persons {
		patients := make([]int64, len(reqs))
		for k, r := range reqs {
			patients[k] = r.PatientID
		}
		b.Queue(sqlPersons, patients)
	}
	byHash := map[string]string{}
	if invitations {
		var hashes [][]byte
		for _, r := range reqs {
			if r.Invitation != "" {
				h := s.keys.Index(pii.FieldInvitation, r.Invitation)
				byHash[string(h)] = r.Invitation
				hashes = append(hashes, h)
			}
		}
		b.Queue(sqlInvitations, hashes)
	}
	br := on.SendBatch(ctx, b)
	err := s.scanEligibility(br, rd, persons, invitations, byHash)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Store) scanEligibility(br pgx.BatchResults, rd *booking.BookReads, persons, invitations bool, byHash map[string]string) error {
	if persons {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		rd.Persons = map[int64]booking.Person{}
		var id int64
		var sealed []byte
		var tags []string
		if _, err := pgx.ForEachRow(rows, []any{&id, &sealed, &tags}, func() error {
			p := booking.Person{Cohorts: tags}
			if sealed != nil {
				var err error
				if p.BirthDate, err = s.keys.Open(pii.FieldBirthDate, sealed); err != nil {
					return err
				}
			}
			rd.Persons[id] = p
			return nil
		}); err != nil {
			return err
		}
	}
	if invitations {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		rd.Invitations = map[string]booking.Invitation{}
		var h []byte
		var inv booking.Invitation
		if _, err := pgx.ForEachRow(rows, []any{&h, &inv.ScheduleID, &inv.Used}, func() error {
			rd.Invitations[byHash[string(h)]] = inv
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// queueUseInvitations queues the statement that marks the invitations the
// winners use, locked unused by readEligibility (readTake checks that each
// was).
func (s *Store) queueUseInvitations(b *pgx.Batch, uses []booking.InvitationUse, now time.Time) {
	hashes := make([][]byte, len(uses))
	ids := make([]int64, len(uses))
	for k, u := range uses {
		hashes[k], ids[k] = s.keys.Index(pii.FieldInvitation, u.Code), u.AppointmentID
	}
	b.Queue(sqlUseInvitations, hashes, ids, now)
}

// sqlRule reads schedule $1's rule alone.
const sqlRule = `SELECT ` + sqlRuleCols + ` FROM eligibility_rules er WHERE er.schedule_id = $1`

type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// readRule reads schedule's rule, nil for none.
func readRule(ctx context.Context, q rowQuerier, scheduleID int64, lock string) (*booking.EligibilityRule, error) {
	var r ruleRow
	switch err := q.QueryRow(ctx, sqlRule+lock, scheduleID).Scan(r.dest()...); {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return r.rule(), nil
}

// Eligibility reads schedule's rule, nil for none.
func (s *Store) Eligibility(ctx context.Context, scheduleID int64) (*booking.EligibilityRule, error) {
	r, err := readRule(ctx, s.pool, scheduleID, "")
	return r, translate(err, "")
}

// SetEligibility sets (or, with remove, deletes) a schedule's rule; audited.
func (s *Store) SetEligibility(ctx context.Context, rule booking.EligibilityRule, remove bool, now time.Time) (booking.EligibilityRule, error) {
	rule.UpdatedAt = micro(now)
	if rule.Cohorts == nil {
		rule.Cohorts = []string{}
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM schedules WHERE id = $1 FOR UPDATE`, rule.ScheduleID).Scan(&one); err != nil {
			return translate(err, "schedule")
		}
		before, err := readRule(ctx, tx, rule.ScheduleID, "")
		if err != nil {
			return err
		}
		if remove {
			if _, err := tx.Exec(ctx, `DELETE FROM eligibility_rules WHERE schedule_id = $1`, rule.ScheduleID); err != nil {
				return err
			}
			if before == nil {
				return nil
			}
			return writeAudit(ctx, tx, booking.AuditEligibility(ctx, now, before, nil))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO eligibility_rules (schedule_id, min_age, max_age, cohorts,
			invitation_required, reserve_places, reserve_cohort, reserve_until, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (schedule_id) DO UPDATE SET min_age = excluded.min_age, max_age = excluded.max_age,
			cohorts = excluded.cohorts, invitation_required = excluded.invitation_required,
			reserve_places = excluded.reserve_places, reserve_cohort = excluded.reserve_cohort,
			reserve_until = excluded.reserve_until, updated_at = excluded.updated_at`,
			rule.ScheduleID, rule.MinAge, rule.MaxAge, rule.Cohorts, rule.InvitationRequired, rule.ReservePlaces,
			rule.ReserveCohort, rule.ReserveUntil, rule.UpdatedAt); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditEligibility(ctx, now, before, &rule))
	})
	if err != nil {
		return booking.EligibilityRule{}, translate(err, "")
	}
	return rule, nil
}

// ImportCohorts adds the (patient, tag) rows in one statement, those
// already there kept; a patient that does not exist refuses the import.
func (s *Store) ImportCohorts(ctx context.Context, rows []booking.CohortRow, now time.Time) (int, error) {
	patients := make([]int64, len(rows))
	tags := make([]string, len(rows))
	for k, r := range rows {
		patients[k], tags[k] = r.PatientID, r.Tag
	}
	added := 0
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var missing *int64
		var row *int
		if err := tx.QueryRow(ctx, `SELECT u.p, u.n::int FROM unnest($1::bigint[]) WITH ORDINALITY u (p, n)
			WHERE NOT EXISTS (SELECT 1 FROM patients WHERE id = u.p) ORDER BY u.n LIMIT 1`, patients).Scan(&missing, &row); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if missing != nil {
			return booking.Errorf(booking.CodeNotFound, "row %d: patient %d not found", *row, *missing)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO patient_cohorts (patient_id, tag, created_at)
			SELECT p, t, $3 FROM unnest($1::bigint[], $2::text[]) u (p, t) ORDER BY p, t
			ON CONFLICT DO NOTHING`, patients, tags, now)
		if err != nil {
			return err
		}
		added = int(tag.RowsAffected())
		return writeAudit(ctx, tx, booking.AuditCohorts(ctx, now, rows, added))
	})
	if err != nil {
		return 0, translate(err, "")
	}
	return added, nil
}

// CreateInvitations stores the keyed hashes of codes for a schedule in one
// statement.
func (s *Store) CreateInvitations(ctx context.Context, scheduleID int64, codes []string, now time.Time) error {
	hashes := make([][]byte, len(codes))
	for k, c := range codes {
		hashes[k] = s.keys.Index(pii.FieldInvitation, c)
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM schedules WHERE id = $1`, scheduleID).Scan(&one); err != nil {
			return translate(err, "schedule")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO invitations (code_hash, schedule_id, created_at)
			SELECT h, $2, $3 FROM unnest($1::bytea[]) h`, hashes, scheduleID, now); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditInvitations(ctx, now, scheduleID, len(codes)))
	})
	return translate(err, "")
}

// sqlServiceRuleCols are a service's rule's columns (ser), NULL when it
// has none: readVisit reads them with the service, at no statement more.
const sqlServiceRuleCols = `ser.service_id, ser.min_age, ser.max_age, ser.cohorts, ser.updated_at`

// serviceRuleRow scans sqlServiceRuleCols.
type serviceRuleRow struct {
	service        *int64
	minAge, maxAge *int
	cohorts        []string
	updated        *time.Time
}

func (r *serviceRuleRow) dest() []any {
	return []any{&r.service, &r.minAge, &r.maxAge, &r.cohorts, &r.updated}
}

// rule is the rule scanned, nil for none.
func (r *serviceRuleRow) rule() *booking.ServiceRule {
	if r.service == nil {
		return nil
	}
	return &booking.ServiceRule{ServiceID: *r.service, MinAge: r.minAge, MaxAge: r.maxAge, Cohorts: r.cohorts, UpdatedAt: r.updated.UTC()}
}

// withRow scans a row's first columns into what its reader asks and the
// rest into extra: a read that carries another one's columns along.
type withRow struct {
	row   pgx.Row
	extra []any
}

func (w withRow) Scan(dest ...any) error { return w.row.Scan(append(dest, w.extra...)...) }

// readPerson reads one patient as a rule needs them (sqlPersons).
func (s *Store) readPerson(ctx context.Context, q rowQuerier, patientID int64) (booking.Person, error) {
	var p booking.Person
	var id int64
	var sealed []byte
	err := q.QueryRow(ctx, sqlPersons, []int64{patientID}).Scan(&id, &sealed, &p.Cohorts)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return p, nil
	case err != nil:
		return p, err
	case sealed != nil:
		p.BirthDate, err = s.keys.Open(pii.FieldBirthDate, sealed)
	}
	return p, err
}

// sqlServiceRule reads service $1's rule alone.
const sqlServiceRule = `SELECT ` + sqlServiceRuleCols + ` FROM service_eligibility_rules ser WHERE ser.service_id = $1`

func readServiceRule(ctx context.Context, q rowQuerier, serviceID int64) (*booking.ServiceRule, error) {
	var r serviceRuleRow
	switch err := q.QueryRow(ctx, sqlServiceRule, serviceID).Scan(r.dest()...); {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return r.rule(), nil
}

// ServiceEligibility reads a service's rule, nil for none.
func (s *Store) ServiceEligibility(ctx context.Context, serviceID int64) (*booking.ServiceRule, error) {
	r, err := readServiceRule(ctx, s.pool, serviceID)
	return r, translate(err, "")
}

// SetServiceEligibility sets (or, with remove, deletes) a service's rule,
// the service's row locked; audited.
func (s *Store) SetServiceEligibility(ctx context.Context, rule booking.ServiceRule, remove bool, now time.Time) (booking.ServiceRule, error) {
	rule.UpdatedAt = micro(now)
	if rule.Cohorts == nil {
		rule.Cohorts = []string{}
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM services WHERE id = $1 FOR UPDATE`, rule.ServiceID).Scan(&one); err != nil {
			return translate(err, "service")
		}
		before, err := readServiceRule(ctx, tx, rule.ServiceID)
		if err != nil {
			return err
		}
		if remove {
			if _, err := tx.Exec(ctx, `DELETE FROM service_eligibility_rules WHERE service_id = $1`, rule.ServiceID); err != nil {
				return err
			}
			if before == nil {
				return nil
			}
			return writeAudit(ctx, tx, booking.AuditServiceEligibility(ctx, now, before, nil))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO service_eligibility_rules (service_id, min_age, max_age, cohorts, updated_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (service_id) DO UPDATE SET min_age = excluded.min_age,
			max_age = excluded.max_age, cohorts = excluded.cohorts, updated_at = excluded.updated_at`,
			rule.ServiceID, rule.MinAge, rule.MaxAge, rule.Cohorts, rule.UpdatedAt); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditServiceEligibility(ctx, now, before, &rule))
	})
	if err != nil {
		return booking.ServiceRule{}, translate(err, "")
	}
	return rule, nil
}

// ListServiceEligibility lists the services' rules by service id, one page
// at a time.
func (s *Store) ListServiceEligibility(ctx context.Context, p booking.Page) ([]booking.ServiceRule, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+sqlServiceRuleCols+` FROM service_eligibility_rules ser
		WHERE ser.service_id > $1 ORDER BY ser.service_id LIMIT NULLIF($2, 0)`, p.After, p.Limit)
	out := []booking.ServiceRule{}
	var r serviceRuleRow
	_, err := pgx.ForEachRow(rows, r.dest(), func() error {
		// The scan's targets are reused row after row: keep copies.
		rule := *r.rule()
		rule.MinAge, rule.MaxAge, rule.Cohorts = intCopy(rule.MinAge), intCopy(rule.MaxAge), slices.Clone(rule.Cohorts)
		out = append(out, rule)
		return nil
	})
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

func intCopy(v *int) *int {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

// sqlListingRules are the rules of the listed slots' schedules (rounds'
// slots aside: a round's quota governs them).
const sqlListingRules = `SELECT s.id, s.start_at, s.capacity - s.booked_count, ` + sqlRuleCols + ` FROM slots s
	JOIN eligibility_rules er ON er.schedule_id = s.schedule_id
	WHERE s.id = ANY($1) AND s.round_id IS NULL`

// ListingRules reads the rules of the slots and, when one asks, the person.
func (s *Store) ListingRules(ctx context.Context, patientID int64, slotIDs []int64) (booking.ListingReads, error) {
	rd := booking.ListingReads{Slots: map[int64]booking.ListedRule{}}
	if len(slotIDs) == 0 {
		return rd, nil
	}
	rows, err := s.pool.Query(ctx, sqlListingRules, slotIDs)
	if err != nil {
		return rd, translate(err, "")
	}
	var id int64
	var l booking.ListedRule
	var r ruleRow
	persons := false
	if _, err := pgx.ForEachRow(rows, append([]any{&id, &l.StartAt, &l.Free}, r.dest()...), func() error {
		l.Rule, l.StartAt = r.rule(), l.StartAt.UTC()
		rd.Slots[id] = l
		persons = persons || l.Rule.NeedsPersons()
		return nil
	}); err != nil || !persons {
		return rd, translate(err, "")
	}
	rd.Person, err = s.readPerson(ctx, s.pool, patientID)
	return rd, translate(err, "")
}
