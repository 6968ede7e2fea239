package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// Personal data at rest (docs/personal-data.md): a patient's name,
// phone and e-mail are sealed (package pii) in the Go values this file
// turns into SQL arguments and opened when rows are scanned, so that no
// plain value reaches SQL; phone and e-mail are found by their keyed hash.

// sealBatch is how many rows one step of a conversion or a rekey handles.
const sealBatch = 500

// migrateSeal is migration 00016, in Go because sealing needs the keys
// (nil when the caller has none: then only a database without patients
// can take it). It adds the sealed columns, seals every row in batches,
// drops the plain columns and their index, and rewrites the table so that
// no plain value is left in the live heap.
func migrateSeal(keys *pii.Keys) *goose.Migration {
	up := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `
			ALTER TABLE patients
			    ADD COLUMN name_sealed  bytea,
			    ADD COLUMN phone_sealed bytea,
			    ADD COLUMN email_sealed bytea,
			    ADD COLUMN phone_index  bytea,
			    ADD COLUMN email_index  bytea,
			    ADD COLUMN seal_key     smallint NOT NULL DEFAULT 0,
			    ADD COLUMN erased_at    timestamptz;
			ALTER TABLE patients ALTER COLUMN name DROP NOT NULL;
			-- One check value per data key (key_id 0: the index key), opened
			-- at start: a wrong key is refused before anything is served.
			CREATE TABLE data_keys (
			    key_id      integer PRIMARY KEY,
			    check_value bytea NOT NULL,
			    created_at  timestamptz NOT NULL DEFAULT now()
			);`); err != nil {
			return err
		}
		_, err := pii.SealAll(ctx, tx, pii.SealConversion{Keys: keys, Batch: sealBatch,
			SelectAfter: `SELECT id, name, COALESCE(phone, ''), COALESCE(email, '') FROM patients WHERE id > $1 ORDER BY id LIMIT $2`,
			Save: func(id int64, r pii.SealedRow) error {
				_, err := tx.ExecContext(ctx,
					`UPDATE patients SET name_sealed = $2, phone_sealed = $3, email_sealed = $4,
					     phone_index = $5, email_index = $6, seal_key = $7, name = NULL, phone = NULL, email = NULL
					 WHERE id = $1`,
					id, r.Name, r.Phone, r.Email, r.PhoneIndex, r.EmailIndex, int16(r.Key))
				return err
			}})
		if errors.Is(err, pii.ErrNoKeys) {
			return fmt.Errorf("%w (SLOTD_DATA_KEYS)", err)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			DROP INDEX patients_phone_digits_idx;
			ALTER TABLE patients DROP COLUMN name, DROP COLUMN phone, DROP COLUMN email;
			-- A rewrite (smallint to integer) copies only the live rows,
			-- with the dropped columns as NULLs: the plain values do not
			-- stay in the table's files.
			ALTER TABLE patients ALTER COLUMN seal_key TYPE integer;
			CREATE UNIQUE INDEX patients_phone_index_key ON patients (phone_index);
			CREATE INDEX patients_email_index_idx ON patients (email_index);
			CREATE INDEX patients_seal_key_idx ON patients (seal_key);`)
		return err
	}
	down := func(context.Context, *sql.Tx) error {
		return errors.New("migration 00016 cannot be undone: the personal data is sealed, and unsealing it into plain columns is what it exists to prevent")
	}
	return goose.NewGoMigration(16, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down})
}

// sqlInsertDataKey records a key's check value (pii.CheckKeys). Instances
// starting together insert the same key's row: the first wins, and the
// others read it back and check it.
const sqlInsertDataKey = `INSERT INTO data_keys (key_id, check_value) VALUES ($1, $2) ON CONFLICT DO NOTHING`

const patientColumns = `id, name_sealed, phone_sealed, email_sealed, language, active, erased_at, created_at, birth_date_sealed, sex_sealed,
	manager_id, relation, consent_at, national_id_sealed`

// scanPatient reads a patientColumns row and opens its sealed fields.
func (s *Store) scanPatient(r pgx.Row) (booking.Patient, error) {
	var p booking.Patient
	var name, phone, email, birth, sex, nationalID []byte
	var erased, consent *time.Time
	var manager *int64
	if err := r.Scan(&p.ID, &name, &phone, &email, &p.Language, &p.Active, &erased, &p.CreatedAt, &birth, &sex,
		&manager, &p.Relation, &consent, &nationalID); err != nil {
		return p, err
	}
	p.CreatedAt = p.CreatedAt.UTC()
	if manager != nil {
		p.ManagerID = *manager
	}
	if consent != nil {
		t := consent.UTC()
		p.ConsentAt = &t
	}
	if erased != nil {
		t := erased.UTC()
		p.ErasedAt = &t
	}
	var err error
	if p.Name, err = s.keys.Open(pii.FieldName, name); err != nil {
		return p, err
	}
	if p.Phone, err = s.keys.Open(pii.FieldPhone, phone); err != nil {
		return p, err
	}
	if p.Email, err = s.keys.Open(pii.FieldEmail, email); err != nil {
		return p, err
	}
	if p.BirthDate, err = s.keys.Open(pii.FieldBirthDate, birth); err != nil {
		return p, err
	}
	if p.NationalID, err = s.keys.Open(pii.FieldNationalID, nationalID); err != nil {
		return p, err
	}
	p.Sex, err = s.keys.Open(pii.FieldSex, sex)
	return p, err
}

// sealedPatient is the SQL arguments of a patient: name, phone, e-mail
// sealed, their indexes, the sealing key's id, birth date and sex sealed,
// then the national ID sealed and its index, then the index of name and
// birth date.
func (s *Store) sealedPatient(p booking.Patient) []any {
	return []any{s.keys.Seal(pii.FieldName, p.Name), s.keys.Seal(pii.FieldPhone, p.Phone), s.keys.Seal(pii.FieldEmail, p.Email),
		s.keys.PhoneIndex(p.Phone), s.keys.EmailIndex(p.Email), int(s.keys.Newest()),
		s.keys.Seal(pii.FieldBirthDate, p.BirthDate), s.keys.Seal(pii.FieldSex, p.Sex),
		s.keys.Seal(pii.FieldNationalID, p.NationalID), s.keys.NationalIDIndex(p.NationalID), s.keys.NameIndex(p.Name, p.BirthDate)}
}

// sqlInsertPatient inserts sealedPatient's arguments and the language ($12).
const sqlInsertPatient = `INSERT INTO patients (name_sealed, phone_sealed, email_sealed, phone_index, email_index, seal_key,
	     birth_date_sealed, sex_sealed, national_id_sealed, national_id_index, name_index, language)
	 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ` + patientColumns

// CreatePatient adds a patient, sealed; a phone another patient has is a
// conflict.
func (s *Store) CreatePatient(ctx context.Context, p booking.Patient) (booking.Patient, error) {
	p, err := createAudited(s, ctx, booking.EntityPatient, s.scanPatient,
		func(p booking.Patient) (int64, any) { return p.ID, map[string]any{"id": p.ID} },
		sqlInsertPatient, append(s.sealedPatient(p), p.Language)...)
	return p, translate(err, "")
}

// GetPatient returns one patient.
func (s *Store) GetPatient(ctx context.Context, id int64) (booking.Patient, error) {
	p, err := s.scanPatient(s.pool.QueryRow(ctx, `SELECT `+patientColumns+` FROM patients WHERE id = $1`, id))
	return p, translate(err, "patient")
}

// sqlPatientsByID reads patients by id, each probed apart (queryGeneric).
const sqlPatientsByID = `SELECT ` + patientColumns + ` FROM unnest($1::bigint[]) AS k(want),
	LATERAL (SELECT * FROM patients p WHERE p.id = k.want OFFSET 0) p`

// GetPatients reads the patients of ids that exist, by id.
func (s *Store) GetPatients(ctx context.Context, ids []int64) (map[int64]booking.Patient, error) {
	out := make(map[int64]booking.Patient, len(ids))
	err := s.queryGeneric(ctx, func(rows pgx.Rows) error {
		p, err := s.scanPatient(rows)
		out[p.ID] = p
		return err
	}, sqlPatientsByID, ids)
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// UpdatePatient changes a patient's name, contact details or activity
// (booking.PatientUpdate.Apply), sealed again with the newest key and
// indexed again; a phone another patient has is a conflict, and an erased
// patient's data cannot be given back.
func (s *Store) UpdatePatient(ctx context.Context, id int64, u booking.PatientUpdate) (booking.Patient, error) {
	var p booking.Patient
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		before, err := s.scanPatient(tx.QueryRow(ctx, `SELECT `+patientColumns+` FROM patients WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return nil, err
		}
		if err := booking.UpdateRefusal(before); err != nil {
			return nil, err
		}
		next := u.Apply(before)
		if p, err = s.scanPatient(tx.QueryRow(ctx,
			`UPDATE patients SET name_sealed = $2, phone_sealed = $3, email_sealed = $4, phone_index = $5, email_index = $6,
			     seal_key = $7, birth_date_sealed = $8, sex_sealed = $9, national_id_sealed = $10, national_id_index = $11,
			     name_index = $12, active = $13, relation = $14
			 WHERE id = $1 RETURNING `+patientColumns, append(append([]any{id}, s.sealedPatient(next)...), next.Active, next.Relation)...)); err != nil {
			return nil, err
		}
		if before.Active != p.Active {
			// Deactivation ends the patient's tokens; reactivation opens the
			// mark again from now, so tokens from before stay refused.
			if err := moveMarks(ctx, tx, time.Now(), closedIf(!p.Active), booking.PatientSubject(id)); err != nil {
				return nil, err
			}
		}
		return []booking.AuditEntry{booking.AuditPatientUpdate(ctx, time.Now(), before, p)}, nil
	})
	return p, translate(err, "patient")
}

// PatientByPhone returns the patient whose phone (E.164, as
// service.Service.NormalizePhone returns it) is phone, by its keyed hash.
func (s *Store) PatientByPhone(ctx context.Context, phone string) (booking.Patient, error) {
	p, err := s.scanPatient(s.pool.QueryRow(ctx,
		`SELECT `+patientColumns+` FROM patients WHERE phone_index = $1`, s.keys.PhoneIndex(phone)))
	return p, translate(err, "patient")
}

// PatientsByEmail returns the patients with this e-mail address (any case),
// by its keyed hash, oldest first.
func (s *Store) PatientsByEmail(ctx context.Context, email string) ([]booking.Patient, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+patientColumns+` FROM patients WHERE email_index = $1 ORDER BY id LIMIT 50`,
		s.keys.EmailIndex(email))
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Patient, error) { return s.scanPatient(r) })
	return ps, translate(err, "")
}

// PatientsByName returns the people with this name and birth date, by
// their keyed hash (pii.Keys.NameIndex), oldest first.
func (s *Store) PatientsByName(ctx context.Context, name, birthDate string) ([]booking.Patient, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+patientColumns+` FROM patients WHERE name_index = $1 ORDER BY id LIMIT 50`,
		s.keys.NameIndex(name, birthDate))
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Patient, error) { return s.scanPatient(r) })
	return ps, translate(err, "")
}

// FillNameIndexes hashes the name and birth date of up to limit people
// with ids above after who have none yet (the rows from before migration
// 00031; an erased person has no name and keeps none) and returns the
// last id it read; 0 means none is left. The caller passes it back as
// after, so that a row left without an index (no name) is not read again. Each call is its own transaction, and SKIP LOCKED lets every
// instance opening the database at once share the work.
func (s *Store) FillNameIndexes(ctx context.Context, after int64, limit int) (int64, error) {
	var last int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `SELECT `+patientColumns+` FROM patients WHERE id > $1 AND name_index IS NULL AND seal_key <> 0
			 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`, after, limit)
		ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Patient, error) { return s.scanPatient(r) })
		if err != nil {
			return err
		}
		for _, p := range ps {
			if _, err := tx.Exec(ctx, `UPDATE patients SET name_index = $2 WHERE id = $1`, p.ID, s.keys.NameIndex(p.Name, p.BirthDate)); err != nil {
				return err
			}
		}
		if len(ps) > 0 {
			last = ps[len(ps)-1].ID
		}
		return nil
	})
	return last, translate(err, "")
}

// ErasePatient removes a patient's personal fields (name, phone, e-mail,
// national ID, their indexes, language, birth date, sex) and deactivates it (it books no more), keeping
// the row and its appointments, so that
// capacity history and reconciliation stay true; the audit entry keeps the
// reason and no personal data. Erasing an erased patient changes nothing.
func (s *Store) ErasePatient(ctx context.Context, e booking.Erasure) (booking.Patient, error) {
	id, reason, now, loginKey := e.PatientID, e.Reason, e.At, e.LoginKey
	var out booking.Patient
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		p, err := s.scanPatient(tx.QueryRow(ctx, `SELECT `+patientColumns+` FROM patients WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return nil, err
		}
		if p.ErasedAt != nil {
			out = p
			return nil, nil
		}
		out, err = s.scanPatient(tx.QueryRow(ctx,
			`UPDATE patients SET name_sealed = NULL, phone_sealed = NULL, email_sealed = NULL, phone_index = NULL,
			     email_index = NULL, birth_date_sealed = NULL, sex_sealed = NULL, national_id_sealed = NULL, national_id_index = NULL,
			     name_index = NULL, seal_key = 0, language = '', active = false, erased_at = $2
			 WHERE id = $1 RETURNING `+patientColumns, id, now))
		if err != nil {
			return nil, err
		}
		// The patient's calendar link and tokens, and their cohort tags
		// (a group they belong to says something of them), end with the erasure.
		if _, err := tx.Exec(ctx, `DELETE FROM patient_cohorts WHERE patient_id = $1`, id); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM calendar_tokens WHERE patient_id = $1`, id); err != nil {
			return nil, err
		}
		if loginKey != "" {
			if _, err := tx.Exec(ctx, `DELETE FROM login_codes WHERE phone_key = $1`, loginKey); err != nil {
				return nil, err
			}
		}
		if err := moveMarks(ctx, tx, time.Now(), booking.MarkClose, booking.PatientSubject(id)); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditErasure(ctx, now, id, reason)}, nil
	})
	return out, translate(err, "patient")
}

// Rekey seals up to limit patients sealed with an older key with the
// newest one and reports how many; 0 means none is left. The staff's
// second-factor secrets on an older key (a few rows) are re-sealed too. Each call is its
// own transaction, so an interrupted rekey resumes where it stopped, and
// SKIP LOCKED lets several run at once.
func (s *Store) Rekey(ctx context.Context, limit int) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.rekeyStaff(ctx, tx); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, `SELECT `+patientColumns+` FROM patients WHERE seal_key NOT IN (0, $1)
			 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`, int(s.keys.Newest()), limit)
		ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Patient, error) { return s.scanPatient(r) })
		if err != nil {
			return err
		}
		k := s.keys
		for _, p := range ps {
			// The indexes stay: the index key does not rotate, and a phone
			// migration 00016 left unindexed (a later twin) stays so.
			if _, err := tx.Exec(ctx, `UPDATE patients SET name_sealed = $2, phone_sealed = $3, email_sealed = $4, seal_key = $5,
				     birth_date_sealed = $6, sex_sealed = $7, national_id_sealed = $8 WHERE id = $1`,
				p.ID, k.Seal(pii.FieldName, p.Name), k.Seal(pii.FieldPhone, p.Phone), k.Seal(pii.FieldEmail, p.Email), int(k.Newest()),
				k.Seal(pii.FieldBirthDate, p.BirthDate), k.Seal(pii.FieldSex, p.Sex), k.Seal(pii.FieldNationalID, p.NationalID)); err != nil {
				return err
			}
		}
		n = len(ps)
		return nil
	})
	return n, translate(err, "")
}

// SealedWith counts the patients sealed with each key id (0: erased), for
// `slotd rekey` to report.
func (s *Store) SealedWith(ctx context.Context) (map[uint16]int, error) {
	rows, _ := s.pool.Query(ctx, `SELECT seal_key, count(*) FROM patients GROUP BY seal_key`)
	out := map[uint16]int{}
	var id, c int
	_, err := pgx.ForEachRow(rows, []any{&id, &c}, func() error { out[uint16(id)] = c; return nil })
	return out, translate(err, "")
}

// AppendAudit writes audit entries no change carries (an export).
func (s *Store) AppendAudit(ctx context.Context, es ...booking.AuditEntry) error {
	return translate(s.audited(ctx, func(pgx.Tx) ([]booking.AuditEntry, error) { return es, nil }), "")
}
