package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// People lists the account and the people it manages who are not erased,
// by id: the account first, as it is older than its people.
func (s *Store) People(ctx context.Context, account int64, p booking.Page) ([]booking.Patient, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = booking.MaxPeopleLimit
	}
	return s.queryPatients(ctx, `SELECT `+patientColumns+` FROM patients
		WHERE (id = ?1 OR (manager_id = ?1 AND erased_at IS NULL)) AND id > ?2 ORDER BY id LIMIT ?3`,
		account, p.After, limit)
}

// AddPerson adds p as a person its account (p.ManagerID) manages, within
// max people. SQLite runs one writer at a time: the count and the insert
// cannot interleave with another addition.
func (s *Store) AddPerson(ctx context.Context, p booking.Patient, max int) (booking.Patient, error) {
	k := s.keys
	p.CreatedAt = micro(orNow(p.CreatedAt))
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT 1 + (SELECT count(*) FROM patients WHERE manager_id = ?1 AND erased_at IS NULL)
			FROM patients WHERE id = ?1 AND manager_id IS NULL AND active = 1 AND erased_at IS NULL`, p.ManagerID).Scan(&n); err != nil {
			return notFoundAs(err, "patient")
		}
		if refusal := booking.AddPersonRefusal(n, max); refusal != nil {
			return refusal
		}
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO patients (name_sealed, seal_key, created_at, birth_date_sealed, sex_sealed, manager_id, relation, consent_at,
			     national_id_sealed, national_id_index, name_index)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			k.Seal(pii.FieldName, p.Name), int(k.Newest()), ts(p.CreatedAt), k.Seal(pii.FieldBirthDate, p.BirthDate),
			k.Seal(pii.FieldSex, p.Sex), p.ManagerID, p.Relation, ts(*p.ConsentAt),
			k.Seal(pii.FieldNationalID, p.NationalID), k.NationalIDIndex(p.NationalID), k.NameIndex(p.Name, p.BirthDate)).Scan(&p.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditPerson(ctx, time.Now(), booking.PersonAdd, p))
	})
	if err != nil {
		return booking.Patient{}, mapErr(err, "patient")
	}
	c := micro(*p.ConsentAt)
	p.ConsentAt, p.Active = &c, true
	return p, nil
}
