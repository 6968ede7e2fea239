package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

const sqlPeople = `SELECT ` + patientColumns + ` FROM patients
	WHERE (id = $1 OR (manager_id = $1 AND erased_at IS NULL)) AND id > $2 ORDER BY id LIMIT $3`

// People lists the account and the people it manages who are not erased,
// by id: the account first, as it is older than its people.
func (s *Store) People(ctx context.Context, account int64, p booking.Page) ([]booking.Patient, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = booking.MaxPeopleLimit
	}
	rows, _ := s.pool.Query(ctx, sqlPeople, account, p.After, limit)
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Patient, error) { return s.scanPatient(r) })
	return ps, translate(err, "")
}

// AddPerson adds p as a person its account (p.ManagerID) manages, within
// max people. The account's row is locked first: two additions at once
// count one after the other.
func (s *Store) AddPerson(ctx context.Context, p booking.Patient, max int) (booking.Patient, error) {
	var out booking.Patient
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM patients
			WHERE id = $1 AND manager_id IS NULL AND active AND erased_at IS NULL FOR UPDATE`, p.ManagerID).Scan(&one); err != nil {
			return nil, err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT 1 + count(*) FROM patients WHERE manager_id = $1 AND erased_at IS NULL`,
			p.ManagerID).Scan(&n); err != nil {
			return nil, err
		}
		if refusal := booking.AddPersonRefusal(n, max); refusal != nil {
			return nil, refusal
		}
		var err error
		if out, err = s.scanPatient(tx.QueryRow(ctx,
			`INSERT INTO patients (name_sealed, seal_key, created_at, birth_date_sealed, sex_sealed, manager_id, relation, consent_at,
			     national_id_sealed, national_id_index, name_index)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING `+patientColumns,
			s.keys.Seal(pii.FieldName, p.Name), int(s.keys.Newest()), micro(p.CreatedAt), s.keys.Seal(pii.FieldBirthDate, p.BirthDate),
			s.keys.Seal(pii.FieldSex, p.Sex), p.ManagerID, p.Relation, *p.ConsentAt,
			s.keys.Seal(pii.FieldNationalID, p.NationalID), s.keys.NationalIDIndex(p.NationalID), s.keys.NameIndex(p.Name, p.BirthDate))); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditPerson(ctx, time.Now(), booking.PersonAdd, booking.Patient{ID: out.ID, ManagerID: p.ManagerID, Relation: p.Relation})}, nil
	})
	return out, translate(err, "patient")
}
