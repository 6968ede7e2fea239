package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// Personal data at rest (docs/personal-data.md): a patient's name,
// phone and e-mail are sealed (package pii) in the Go values this file
// turns into SQL arguments and opened when rows are scanned, so that no
// plain value reaches SQL; phone and e-mail are found by their keyed hash.

// KeyFile is the key file kept beside a database opened without keys.
const KeyFile = "data-keys"

// KeyFileOf is the key file of the database at path.
func KeyFileOf(path string) string { return filepath.Join(filepath.Dir(path), KeyFile) }

// sealBatch is how many rows one step of a conversion or a rekey handles.
const sealBatch = 500

// migrateSeal is migration 00016, in Go because sealing needs the keys:
// it adds the sealed columns, seals every row in batches, and drops the
// plain columns and their index. *converted counts the rows it sealed, so
// that Migrate can then VACUUM the plain values out of the file's free
// pages.
func migrateSeal(keys *pii.Keys, converted *int) *goose.Migration {
	up := func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range []string{
			`ALTER TABLE patients ADD COLUMN name_sealed BLOB`,
			`ALTER TABLE patients ADD COLUMN phone_sealed BLOB`,
			`ALTER TABLE patients ADD COLUMN email_sealed BLOB`,
			`ALTER TABLE patients ADD COLUMN phone_index BLOB`,
			`ALTER TABLE patients ADD COLUMN email_index BLOB`,
			`ALTER TABLE patients ADD COLUMN seal_key INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE patients ADD COLUMN erased_at INTEGER`,
			// One check value per data key (key_id 0: the index key), opened
			// at start: a wrong key is refused before anything is served.
			`CREATE TABLE data_keys (
			    key_id      INTEGER PRIMARY KEY,
			    check_value BLOB NOT NULL,
			    created_at  INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
			) STRICT`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		n, err := pii.SealAll(ctx, tx, pii.SealConversion{Keys: keys, Batch: sealBatch,
			SelectAfter: `SELECT id, name, COALESCE(phone, ''), COALESCE(email, '') FROM patients WHERE id > ? ORDER BY id LIMIT ?`,
			Save: func(id int64, r pii.SealedRow) error {
				_, err := tx.ExecContext(ctx,
					`UPDATE patients SET name_sealed = ?, phone_sealed = ?, email_sealed = ?,
					     phone_index = ?, email_index = ?, seal_key = ?, name = '', phone = NULL, email = NULL
					 WHERE id = ?`,
					r.Name, r.Phone, r.Email, r.PhoneIndex, r.EmailIndex, int(r.Key), id)
				return err
			}})
		*converted += n
		if err != nil {
			return err
		}
		for _, q := range []string{
			`DROP INDEX patients_phone_digits_idx`,
			`ALTER TABLE patients DROP COLUMN name`,
			`ALTER TABLE patients DROP COLUMN phone`,
			`ALTER TABLE patients DROP COLUMN email`,
			`CREATE UNIQUE INDEX patients_phone_index_key ON patients (phone_index)`,
			`CREATE INDEX patients_email_index_idx ON patients (email_index)`,
			`CREATE INDEX patients_seal_key_idx ON patients (seal_key)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	down := func(context.Context, *sql.Tx) error {
		return errors.New("migration 00016 cannot be undone: the personal data is sealed, and unsealing it into plain columns is what it exists to prevent")
	}
	return goose.NewGoMigration(16, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down})
}

// vacuum rewrites the file after a conversion: the pages the plain values
// were on are freed by the UPDATEs and DROP COLUMNs but keep their bytes
// until overwritten; VACUUM copies only the live rows, and the checkpoints
// empty the WAL of the old page images.
func (s *Store) vacuum(ctx context.Context) error {
	for _, q := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := s.writer.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: after sealing: %s: %w", q, err)
		}
	}
	return nil
}

// insertDataKeySQL records a key's check value (pii.CheckKeys).
const insertDataKeySQL = `INSERT INTO data_keys (key_id, check_value) VALUES (?, ?) ON CONFLICT DO NOTHING`

const patientColumns = `id, name_sealed, phone_sealed, email_sealed, language, active, erased_at, created_at, birth_date_sealed, sex_sealed,
	manager_id, relation, consent_at, national_id_sealed`

// scanPatient reads a patientColumns row and opens its sealed fields.
func (s *Store) scanPatient(r interface{ Scan(...any) error }) (booking.Patient, error) {
	var p booking.Patient
	var name, phone, email, birth, sex, nationalID []byte
	var erased, manager, consent sql.NullInt64
	var created int64
	if err := r.Scan(&p.ID, &name, &phone, &email, &p.Language, &p.Active, &erased, &created, &birth, &sex,
		&manager, &p.Relation, &consent, &nationalID); err != nil {
		return p, err
	}
	p.ManagerID = manager.Int64
	if consent.Valid {
		t := fromTS(consent.Int64)
		p.ConsentAt = &t
	}
	p.CreatedAt = fromTS(created)
	if erased.Valid {
		t := fromTS(erased.Int64)
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

// CreatePatient adds a patient, sealed; a phone another patient has is a
// conflict.
func (s *Store) CreatePatient(ctx context.Context, p booking.Patient) (booking.Patient, error) {
	return s.insertPatient(ctx, p, func(p booking.Patient) booking.AuditEntry {
		return booking.Audit(ctx, p.CreatedAt, booking.AuditChange{Entity: booking.EntityPatient, ID: p.ID, Action: "create", After: map[string]any{"id": p.ID}})
	})
}

// SignUpPatient adds a patient who signed up, audited as its own sign-up.
func (s *Store) SignUpPatient(ctx context.Context, p booking.Patient, now time.Time) (booking.Patient, error) {
	p.CreatedAt = now
	return s.insertPatient(ctx, p, func(p booking.Patient) booking.AuditEntry { return booking.AuditSignup(now, p.ID) })
}

// insertPatient inserts p sealed, with the audit entry audit makes of it.
func (s *Store) insertPatient(ctx context.Context, p booking.Patient, audit func(booking.Patient) booking.AuditEntry) (booking.Patient, error) {
	p.CreatedAt = micro(orNow(p.CreatedAt))
	k := s.keys
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO patients (name_sealed, phone_sealed, email_sealed, phone_index, email_index, seal_key, created_at,
			     birth_date_sealed, sex_sealed, language, national_id_sealed, national_id_index, name_index)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			k.Seal(pii.FieldName, p.Name), k.Seal(pii.FieldPhone, p.Phone), k.Seal(pii.FieldEmail, p.Email),
			k.PhoneIndex(p.Phone), k.EmailIndex(p.Email), int(k.Newest()),
			ts(p.CreatedAt), k.Seal(pii.FieldBirthDate, p.BirthDate), k.Seal(pii.FieldSex, p.Sex), p.Language,
			k.Seal(pii.FieldNationalID, p.NationalID), k.NationalIDIndex(p.NationalID), k.NameIndex(p.Name, p.BirthDate)).Scan(&p.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, audit(p))
	})
	if err != nil {
		return booking.Patient{}, mapErr(err, "patient")
	}
	p.Active = true
	return p, nil
}

// GetPatient returns one patient.
func (s *Store) GetPatient(ctx context.Context, id int64) (booking.Patient, error) {
	p, err := s.scanPatient(s.reader.QueryRowContext(ctx, `SELECT `+patientColumns+` FROM patients WHERE id = ?`, id))
	if err != nil {
		return booking.Patient{}, mapErr(err, "patient")
	}
	return p, nil
}

// GetPatients reads the patients of ids that exist, by id.
func (s *Store) GetPatients(ctx context.Context, ids []int64) (map[int64]booking.Patient, error) {
	return readByIDs(ctx, s.reader, `SELECT `+patientColumns+` FROM patients WHERE id IN (SELECT value FROM json_each(?))`, ids,
		s.scanPatient, func(p booking.Patient) int64 { return p.ID })
}

// UpdatePatient changes a patient's name, contact details or activity
// (booking.PatientUpdate.Apply), sealed again with the newest key and
// indexed again; a phone another patient has is a conflict, and an erased
// patient's data cannot be given back.
func (s *Store) UpdatePatient(ctx context.Context, id int64, u booking.PatientUpdate) (booking.Patient, error) {
	var p booking.Patient
	k := s.keys
	err := s.write(ctx, func(tx *sql.Tx) error {
		before, err := s.scanPatient(tx.QueryRowContext(ctx, `SELECT `+patientColumns+` FROM patients WHERE id = ?`, id))
		if err != nil {
			return notFoundAs(err, "patient")
		}
		if err := booking.UpdateRefusal(before); err != nil {
			return err
		}
		n := u.Apply(before)
		if p, err = s.scanPatient(tx.QueryRowContext(ctx,
			`UPDATE patients SET name_sealed = ?, phone_sealed = ?, email_sealed = ?, phone_index = ?, email_index = ?,
			     seal_key = ?, birth_date_sealed = ?, sex_sealed = ?, active = ?, relation = ?,
			     national_id_sealed = ?, national_id_index = ?, name_index = ?
			 WHERE id = ? RETURNING `+patientColumns,
			k.Seal(pii.FieldName, n.Name), k.Seal(pii.FieldPhone, n.Phone), k.Seal(pii.FieldEmail, n.Email),
			k.PhoneIndex(n.Phone), k.EmailIndex(n.Email), int(k.Newest()),
			k.Seal(pii.FieldBirthDate, n.BirthDate), k.Seal(pii.FieldSex, n.Sex), n.Active, n.Relation,
			k.Seal(pii.FieldNationalID, n.NationalID), k.NationalIDIndex(n.NationalID), k.NameIndex(n.Name, n.BirthDate), id)); err != nil {
			return err
		}
		if before.Active != p.Active {
			// Deactivation ends the patient's tokens; reactivation opens the
			// mark again from now, so tokens from before stay refused.
			if err := moveMarks(ctx, tx, time.Now(), closedIf(!p.Active), booking.PatientSubject(id)); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, booking.AuditPatientUpdate(ctx, time.Now(), before, p))
	})
	if err != nil {
		return booking.Patient{}, mapErr(err, "patient")
	}
	return p, nil
}

// PatientByPhone returns the patient whose phone (E.164, as
// service.Service.NormalizePhone returns it) is phone, by its keyed hash.
func (s *Store) PatientByPhone(ctx context.Context, phone string) (booking.Patient, error) {
	p, err := s.scanPatient(s.reader.QueryRowContext(ctx,
		`SELECT `+patientColumns+` FROM patients WHERE phone_index = ?`, s.keys.PhoneIndex(phone)))
	if err != nil {
		return booking.Patient{}, mapErr(err, "patient")
	}
	return p, nil
}

// queryPatients runs a query of patientColumns rows.
func (s *Store) queryPatients(ctx context.Context, q string, args ...any) ([]booking.Patient, error) {
	rows, err := s.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	var out []booking.Patient
	for rows.Next() {
		p, err := s.scanPatient(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, p)
	}
	return out, mapErr(rows.Err(), "")
}

// PatientsByEmail returns the patients with this e-mail address (any case),
// by its keyed hash, oldest first.
func (s *Store) PatientsByEmail(ctx context.Context, email string) ([]booking.Patient, error) {
	return s.queryPatients(ctx, `SELECT `+patientColumns+` FROM patients WHERE email_index = ? ORDER BY id LIMIT 50`,
		s.keys.EmailIndex(email))
}

// PatientsByName returns the people with this name and birth date, by
// their keyed hash (pii.Keys.NameIndex), oldest first.
func (s *Store) PatientsByName(ctx context.Context, name, birthDate string) ([]booking.Patient, error) {
	return s.queryPatients(ctx, `SELECT `+patientColumns+` FROM patients WHERE name_index = ? ORDER BY id LIMIT 50`,
		s.keys.NameIndex(name, birthDate))
}

// FillNameIndexes hashes the name and birth date of up to limit people
// with ids above after who have none yet (the rows from before migration
// 00031; an erased person has no name and keeps none) and returns the
// last id it read; 0 means none is left. The caller passes it back as
// after, so that a row left without an index (no name) is not read again. Each call is its own transaction.
func (s *Store) FillNameIndexes(ctx context.Context, after int64, limit int) (int64, error) {
	var last int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+patientColumns+` FROM patients WHERE id > ? AND name_index IS NULL AND seal_key <> 0
			 ORDER BY id LIMIT ?`, after, limit)
		if err != nil {
			return err
		}
		var ps []booking.Patient
		for rows.Next() {
			p, err := s.scanPatient(rows)
			if err != nil {
				rows.Close()
				return err
			}
			ps = append(ps, p)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, p := range ps {
			if _, err := tx.ExecContext(ctx, `UPDATE patients SET name_index = ? WHERE id = ?`, s.keys.NameIndex(p.Name, p.BirthDate), p.ID); err != nil {
				return err
			}
		}
		if len(ps) > 0 {
			last = ps[len(ps)-1].ID
		}
		return nil
	})
	return last, mapErr(err, "")
}

// ListPatients lists up to limit patients with ids above afterID, by id.
func (s *Store) ListPatients(ctx context.Context, afterID int64, limit int) ([]booking.Patient, error) {
	return s.queryPatients(ctx, `SELECT `+patientColumns+` FROM patients WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
}

// ErasePatient removes a patient's personal fields (name, phone, e-mail,
// national ID, their indexes, language, birth date, sex) and deactivates it (it books no more), keeping
// the row and its appointments, so that
// capacity history and reconciliation stay true; the audit entry keeps the
// reason and no personal data. Erasing an erased patient changes nothing.
func (s *Store) ErasePatient(ctx context.Context, e booking.Erasure) (booking.Patient, error) {
	id, reason, now, loginKey := e.PatientID, e.Reason, e.At, e.LoginKey
	var out booking.Patient
	err := s.write(ctx, func(tx *sql.Tx) error {
		p, err := s.scanPatient(tx.QueryRowContext(ctx, `SELECT `+patientColumns+` FROM patients WHERE id = ?`, id))
		if err != nil || p.ErasedAt != nil {
			out = p
			return err
		}
		if out, err = s.scanPatient(tx.QueryRowContext(ctx,
			`UPDATE patients SET name_sealed = NULL, phone_sealed = NULL, email_sealed = NULL, phone_index = NULL,
			     email_index = NULL, birth_date_sealed = NULL, sex_sealed = NULL, national_id_sealed = NULL, national_id_index = NULL,
			     name_index = NULL, seal_key = 0, language = '', active = 0, erased_at = ?
			 WHERE id = ? RETURNING `+patientColumns, ts(now), id)); err != nil {
			return err
		}
		// The patient's calendar link and tokens, and their cohort tags
		// (a group they belong to says something of them), end with the erasure.
		if _, err := tx.ExecContext(ctx, `DELETE FROM patient_cohorts WHERE patient_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM calendar_tokens WHERE patient_id = ?`, id); err != nil {
			return err
		}
		if loginKey != "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM login_codes WHERE phone_key = ?`, loginKey); err != nil {
				return err
			}
		}
		if err := moveMarks(ctx, tx, time.Now(), booking.MarkClose, booking.PatientSubject(id)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditErasure(ctx, now, id, reason))
	})
	if err != nil {
		return booking.Patient{}, mapErr(err, "patient")
	}
	return out, nil
}

// AppendAudit writes audit entries no change carries (an export).
func (s *Store) AppendAudit(ctx context.Context, es ...booking.AuditEntry) error {
	return mapErr(s.write(ctx, func(tx *sql.Tx) error { return writeAudit(ctx, tx, es...) }), "")
}

// Rekey seals up to limit patients sealed with an older key with the
// newest one and reports how many; 0 means none is left. Each call is its
// own transaction, so an interrupted rekey resumes where it stopped. The
// staff's second-factor secrets on an older key are re-sealed too.
func (s *Store) Rekey(ctx context.Context, limit int) (int, error) {
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.rekeyStaff(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+patientColumns+` FROM patients WHERE seal_key NOT IN (0, ?) ORDER BY id LIMIT ?`,
			int(s.keys.Newest()), limit)
		if err != nil {
			return err
		}
		var ps []booking.Patient
		for rows.Next() {
			p, err := s.scanPatient(rows)
			if err != nil {
				rows.Close()
				return err
			}
			ps = append(ps, p)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		k := s.keys
		for _, p := range ps {
			if _, err := tx.ExecContext(ctx, `UPDATE patients SET name_sealed = ?, phone_sealed = ?, email_sealed = ?, seal_key = ?,
				     birth_date_sealed = ?, sex_sealed = ?, national_id_sealed = ? WHERE id = ?`,
				k.Seal(pii.FieldName, p.Name), k.Seal(pii.FieldPhone, p.Phone), k.Seal(pii.FieldEmail, p.Email), int(k.Newest()),
				k.Seal(pii.FieldBirthDate, p.BirthDate), k.Seal(pii.FieldSex, p.Sex), k.Seal(pii.FieldNationalID, p.NationalID), p.ID); err != nil {
				return err
			}
		}
		n = len(ps)
		return nil
	})
	return n, mapErr(err, "")
}

// SealedWith counts the patients sealed with each key id (0: erased), for
// `slotd rekey` to report.
func (s *Store) SealedWith(ctx context.Context) (map[uint16]int, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT seal_key, count(*) FROM patients GROUP BY seal_key`)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := map[uint16]int{}
	for rows.Next() {
		var id, c int
		if err := rows.Scan(&id, &c); err != nil {
			return nil, mapErr(err, "")
		}
		out[uint16(id)] = c
	}
	return out, mapErr(rows.Err(), "")
}
