package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// The accounts methods below implement accounts.Store: patients found by
// phone, one-time sign-in codes and staff passwords. Phone numbers and codes
// are personal data and secrets: nothing here logs them, and login codes are
// stored only as keyed hashes that the sign-in service computes.

var _ accounts.Store = (*Store)(nil)

// DoctorAppointments lists the appointments in a doctor's slots starting in
// [from, to), by start and queue number: the staff's day view.
func (s *Store) DoctorAppointments(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Appointment, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+apptCols+apptFrom+`WHERE s.resource_id = ? AND s.start_at >= ? AND s.start_at < ?
		 ORDER BY s.start_at, a.queue_no, a.id`, doctorID, ts(from), ts(to))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	var out []booking.Appointment
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, a)
	}
	return out, mapErr(rows.Err(), "")
}

// ArrivalCandidates lists up to limit BOOKED and ARRIVED appointments of
// ordinary slots starting in [from, to], by start then id
// (appointments_due_idx).
func (s *Store) ArrivalCandidates(ctx context.Context, from, to time.Time, limit int) ([]booking.Appointment, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+apptCols+apptFrom+`WHERE a.status IN (`+booking.StatusBookedSQL+`, `+booking.StatusArrivedSQL+`)
		   AND a.start_at >= ? AND a.start_at <= ? AND a.round_id IS NULL
		 ORDER BY a.start_at, a.id LIMIT ?`, ts(from), ts(to), limit)
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

// IssueLoginCode records a new sign-in code (its hash) for c.PhoneKey,
// valid until c.ExpiresAt, unless c.MaxInWindow codes were already issued
// for it since c.WindowStart, or c.MaxInDay since c.DayStart: then it
// records nothing and answers rate-limited with the time until the oldest
// of those leaves its window. Codes of that phone that expired before both
// windows are deleted on the way.
func (s *Store) IssueLoginCode(ctx context.Context, c accounts.IssueCode) error {
	keep := c.WindowStart
	if c.MaxInDay > 0 && c.DayStart.Before(keep) {
		keep = c.DayStart
	}
	// Any phone's codes a day old count in none of its windows.
	stale := keep
	if d := c.Now.Add(-accounts.CodeDay); d.Before(stale) {
		stale = d
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var inWindow, inDay int
		var oldestInWindow, oldestInDay sql.NullInt64
		if err := tx.QueryRowContext(ctx,
			`SELECT coalesce(sum(created_at > ?), 0), min(CASE WHEN created_at > ? THEN created_at END),
			        coalesce(sum(created_at > ?), 0), min(CASE WHEN created_at > ? THEN created_at END)
			 FROM login_codes WHERE phone_key = ? AND created_at > ?`,
			ts(c.WindowStart), ts(c.WindowStart), ts(c.DayStart), ts(c.DayStart), c.PhoneKey, ts(keep)).Scan(&inWindow, &oldestInWindow, &inDay, &oldestInDay); err != nil {
			return err
		}
		if err := issueRefusal(inWindow, c.MaxInWindow, oldestInWindow, c.WindowStart); err != nil {
			return err
		}
		if c.MaxInDay > 0 {
			if err := issueRefusal(inDay, c.MaxInDay, oldestInDay, c.DayStart); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx,
			`DELETE FROM login_codes WHERE phone_key = ? AND created_at <= ? AND expires_at <= ?`,
			c.PhoneKey, ts(keep), ts(c.Now)); err != nil {
			return err
		}
		// And the oldest stale codes of any phone, two per code recorded:
		// codes recorded for unknown phones are never asked for again, and
		// the table stays about one day of codes.
		if _, err := tx.ExecContext(ctx,
			`DELETE FROM login_codes WHERE id IN (SELECT id FROM login_codes WHERE created_at <= ? AND expires_at <= ?
			 ORDER BY created_at LIMIT 2)`, ts(stale), ts(c.Now)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO login_codes (phone_key, code_hash, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			c.PhoneKey, c.CodeHash, ts(c.Now), ts(c.ExpiresAt))
		return err
	})
	return mapErr(err, "")
}

// issueRefusal is the rate-limited answer when n codes since start reach
// most, waiting until the oldest of them leaves the window; nil otherwise.
func issueRefusal(n, most int, oldest sql.NullInt64, start time.Time) error {
	if n < most {
		return nil
	}
	wait := time.Second
	if oldest.Valid {
		wait = max(fromTS(oldest.Int64).Sub(start), time.Second)
	}
	return &booking.Error{Code: booking.CodeRateLimited, Message: "too many sign-in codes were requested for this phone", RetryAfter: wait}
}

// clinicScope is the signin_failures scope of the whole clinic's wrong
// codes (a phone's scope is its 64-hex-digit key).
const clinicScope = "clinic"

// UseLoginCode answers u.CodeHash against the newest code of u.PhoneKey, as
// booking.DecideCodeUse decides, in one write transaction (SQLite's write
// lock serializes them, where PostgreSQL locks the phone and raises the
// clinic's count conditionally): a wrong code commits its counted attempt
// and the day's wrong codes of the phone and of the clinic, a right one
// marks the code used.
func (s *Store) UseLoginCode(ctx context.Context, u accounts.UseCode) error {
	var use booking.CodeUse
	day := booking.SigninDay(u.Now)
	err := s.write(ctx, func(tx *sql.Tx) error {
		var id int64
		check := booking.CodeCheck{TypedHash: u.CodeHash, Now: u.Now, MaxAttempts: u.MaxAttempts,
			MaxPhoneFailures: u.MaxPhoneFailures, MaxClinicFailures: u.MaxClinicFailures}
		var expiresAt int64
		var usedAt sql.NullInt64
		err := tx.QueryRowContext(ctx,
			`SELECT id, code_hash, attempts, expires_at, used_at FROM login_codes WHERE phone_key = ?
			 ORDER BY created_at DESC, id DESC LIMIT 1`, u.PhoneKey).Scan(&id, &check.Code.Hash, &check.Code.Attempts, &expiresAt, &usedAt)
		check.Found = err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		check.Code.ExpiresAt = fromTS(expiresAt)
		check.Code.Used = usedAt.Valid
		if err := tx.QueryRowContext(ctx,
			`SELECT coalesce(sum(CASE WHEN scope = ? THEN failures END), 0), coalesce(sum(CASE WHEN scope = ? THEN failures END), 0)
			 FROM signin_failures WHERE scope IN (?, ?) AND day = ?`,
			u.PhoneKey, clinicScope, u.PhoneKey, clinicScope, day).Scan(&check.PhoneFailures, &check.ClinicFailures); err != nil {
			return err
		}
		use = booking.DecideCodeUse(check)
		switch use {
		case booking.CodeWrong:
			if check.ClinicFailures == 0 { // the day's first wrong code: forget the days before
				if _, err := tx.ExecContext(ctx, `DELETE FROM signin_failures WHERE day < ?`, day); err != nil {
					return err
				}
			}
			for _, scope := range []string{clinicScope, u.PhoneKey} {
				if _, err := tx.ExecContext(ctx,
					`INSERT INTO signin_failures (scope, day, failures) VALUES (?, ?, 1)
					 ON CONFLICT (scope, day) DO UPDATE SET failures = failures + 1`, scope, day); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `UPDATE login_codes SET attempts = attempts + 1 WHERE id = ?`, id)
			return err
		case booking.CodeAccepted:
			_, err := tx.ExecContext(ctx, `UPDATE login_codes SET attempts = attempts + 1, used_at = ? WHERE id = ?`, ts(u.Now), id)
			return err
		}
		return nil
	})
	if err != nil {
		return mapErr(err, "")
	}
	return use.Err(u.Now)
}

// SetPatientLanguage remembers the patient's language; an unknown patient
// is not found.
func (s *Store) SetPatientLanguage(ctx context.Context, patientID int64, lang string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE patients SET language = ? WHERE id = ?`, lang, patientID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return booking.NotFound("patient")
		}
		return nil
	})
	return mapErr(err, "")
}

// SetStaffPassword creates staff user name or replaces its password hash;
// a changed password ends the user's tokens (its marks move to now,
// staying closed while the user is disabled).
func (s *Store) SetStaffPassword(ctx context.Context, name string, hash []byte, now time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var doctorID sql.NullInt64
		var disabled bool
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO staff_users (name, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?)
			 ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at
			 RETURNING doctor_id, disabled_at IS NOT NULL`,
			name, string(hash), ts(now), ts(now)).Scan(&doctorID, &disabled); err != nil {
			return err
		}
		return moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, doctorID.Int64)...)
	})
	return mapErr(err, "")
}

// SetStaffDisabled disables staff user name (it cannot sign in and its
// tokens are refused) or enables it again (tokens from before stay
// refused); an unknown user is not found.
func (s *Store) SetStaffDisabled(ctx context.Context, name string, disabled bool, now time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var doctorID sql.NullInt64
		err := tx.QueryRowContext(ctx,
			`UPDATE staff_users SET disabled_at = CASE WHEN ? THEN coalesce(disabled_at, ?) END WHERE name = ? RETURNING doctor_id`,
			disabled, ts(now), name).Scan(&doctorID)
		if err != nil {
			return notFoundAs(err, "staff user")
		}
		return moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, doctorID.Int64)...)
	})
	return mapErr(err, "staff user")
}

// StaffDisabled reports whether staff user name is disabled, or not found.
func (s *Store) StaffDisabled(ctx context.Context, name string) (bool, error) {
	var disabled bool
	err := s.reader.QueryRowContext(ctx, `SELECT disabled_at IS NOT NULL FROM staff_users WHERE name = ?`, name).Scan(&disabled)
	if err != nil {
		return false, mapErr(err, "staff user")
	}
	return disabled, nil
}

// StaffPasswordHash returns the password hash of staff user name, or
// not-found.
func (s *Store) StaffPasswordHash(ctx context.Context, name string) ([]byte, error) {
	var h string
	err := s.reader.QueryRowContext(ctx, `SELECT password_hash FROM staff_users WHERE name = ?`, name).Scan(&h)
	if err != nil {
		return nil, mapErr(err, "staff user")
	}
	return []byte(h), nil
}

// SetStaffDoctor makes staff user name the account of doctor doctorID
// (role doctor), or an admin again with 0; an unknown user or doctor is
// not found.
func (s *Store) SetStaffDoctor(ctx context.Context, name string, doctorID int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE staff_users SET role = CASE WHEN ?2 = 0 THEN 'admin' ELSE 'doctor' END,
			doctor_id = NULLIF(?2, 0) WHERE name = ?1
			AND (?2 = 0 OR EXISTS (SELECT 1 FROM resources WHERE id = ?2 AND kind = 'doctor'))`, name, doctorID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return booking.NotFound("staff user or doctor")
		}
		return nil
	})
	return mapErr(err, "")
}

// SetStaffReception makes staff user name reception, no doctor's account
// any more; its tokens from before (an admin's, a doctor's) end, as a
// changed password's do. An unknown user is not found.
func (s *Store) SetStaffReception(ctx context.Context, name string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var doctorID sql.NullInt64
		var disabled bool
		if err := tx.QueryRowContext(ctx, `SELECT doctor_id, disabled_at IS NOT NULL FROM staff_users WHERE name = ?`, name).
			Scan(&doctorID, &disabled); err != nil {
			return notFoundAs(err, "staff user")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE staff_users SET role = 'reception', doctor_id = NULL WHERE name = ?`, name); err != nil {
			return err
		}
		return moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, doctorID.Int64)...)
	})
	return mapErr(err, "staff user")
}

// StaffDoctor returns the doctor a staff user signs in as, 0 for an admin.
func (s *Store) StaffDoctor(ctx context.Context, name string) (int64, error) {
	var id sql.NullInt64
	if err := s.reader.QueryRowContext(ctx, `SELECT doctor_id FROM staff_users WHERE name = ?`, name).Scan(&id); err != nil {
		return 0, mapErr(err, "staff user")
	}
	return id.Int64, nil
}

// StaffAccount returns what staff sign-in checks of user name, its second
// factor's secret opened with the data keys, or not-found.
func (s *Store) StaffAccount(ctx context.Context, name string) (accounts.StaffAccount, error) {
	a := accounts.StaffAccount{Name: name}
	var hash string
	var doctor sql.NullInt64
	var sealed []byte
	err := s.reader.QueryRowContext(ctx, `SELECT password_hash, role, doctor_id, totp_sealed FROM staff_users WHERE name = ?`, name).
		Scan(&hash, &a.Role, &doctor, &sealed)
	if err != nil {
		return a, mapErr(err, "staff user")
	}
	a.PasswordHash, a.DoctorID = []byte(hash), doctor.Int64
	if a.TOTPSecret, err = s.keys.Open(pii.FieldStaffTOTP, sealed); err != nil {
		return a, err
	}
	return a, nil
}

// SetStaffTOTP seals secret as user name's second factor (NULL for "":
// none) and forgets its last used step; an unknown user is not found.
func (s *Store) SetStaffTOTP(ctx context.Context, name, secret string, now time.Time) error {
	sealed := s.keys.Seal(pii.FieldStaffTOTP, secret)
	key := 0
	if sealed != nil {
		key = int(s.keys.Newest())
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE staff_users SET totp_sealed = ?, totp_seal_key = ?, totp_last_step = 0, updated_at = ? WHERE name = ?`,
			sealed, key, ts(now), name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return booking.NotFound("staff user")
		}
		return nil
	})
	return mapErr(err, "")
}

// StaffAttempt decides a staff sign-in attempt with
// booking.DecideStaffAttempt in one write transaction (SQLite's write lock
// serializes them, where PostgreSQL takes a lock per name), so that
// concurrent wrong guesses are each counted and none slips past a lock.
func (s *Store) StaffAttempt(ctx context.Context, name string, a booking.StaffAttempt, now time.Time) (booking.StaffDecision, error) {
	key := booking.StaffLockKey(name)
	var d booking.StaffDecision
	err := s.write(ctx, func(tx *sql.Tx) error {
		var lock booking.StaffLock
		var lastFailure int64
		var lockedUntil sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT failures, last_failure_at, locked_until FROM staff_signin_failures WHERE name_key = ?`, key).
			Scan(&lock.Failures, &lastFailure, &lockedUntil)
		switch {
		case err == nil:
			lock.LastFailure = fromTS(lastFailure)
			if lockedUntil.Valid {
				lock.LockedUntil = fromTS(lockedUntil.Int64)
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var last int64
		err = tx.QueryRowContext(ctx, `SELECT totp_last_step FROM staff_users WHERE name = ?`, name).Scan(&last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		d = booking.DecideStaffAttempt(lock, last, a, now)
		switch d.Outcome {
		case booking.StaffAccepted:
			if _, err := tx.ExecContext(ctx, `DELETE FROM staff_signin_failures WHERE name_key = ?`, key); err != nil {
				return err
			}
			if d.LastStep != last {
				_, err = tx.ExecContext(ctx, `UPDATE staff_users SET totp_last_step = ? WHERE name = ?`, d.LastStep, name)
			}
			return err
		case booking.StaffRefused, booking.StaffReplayed:
			var until sql.NullInt64
			if !d.Lock.LockedUntil.IsZero() {
				until = sql.NullInt64{Int64: ts(d.Lock.LockedUntil), Valid: true}
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO staff_signin_failures (name_key, failures, last_failure_at, locked_until) VALUES (?, ?, ?, ?)
				 ON CONFLICT (name_key) DO UPDATE SET failures = excluded.failures,
				     last_failure_at = excluded.last_failure_at, locked_until = excluded.locked_until`,
				key, d.Lock.Failures, ts(d.Lock.LastFailure), until); err != nil {
				return err
			}
			// Forget the failures of other names that are a day old and
			// no longer locked (a lock lasts at most booking.StaffLockMax).
			_, err := tx.ExecContext(ctx, `DELETE FROM staff_signin_failures WHERE last_failure_at < ? AND name_key <> ?`,
				ts(now.Add(-booking.StaffFailureMemory)), key)
			return err
		}
		return nil
	})
	if err != nil {
		return booking.StaffDecision{}, mapErr(err, "")
	}
	return d, nil
}

// rekeyStaff re-seals with the newest data key the second-factor secrets
// sealed with an older one (Rekey's step for the staff: a few rows).
func (s *Store) rekeyStaff(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT name, totp_sealed FROM staff_users WHERE totp_seal_key NOT IN (0, ?)`, int(s.keys.Newest()))
	if err != nil {
		return err
	}
	type sealed struct {
		name   string
		secret []byte
	}
	var old []sealed
	for rows.Next() {
		var v sealed
		if err := rows.Scan(&v.name, &v.secret); err != nil {
			rows.Close()
			return err
		}
		old = append(old, v)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, o := range old {
		secret, err := s.keys.Open(pii.FieldStaffTOTP, o.secret)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE staff_users SET totp_sealed = ?, totp_seal_key = ? WHERE name = ?`,
			s.keys.Seal(pii.FieldStaffTOTP, secret), int(s.keys.Newest()), o.name); err != nil {
			return err
		}
	}
	return nil
}
