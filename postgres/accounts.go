package postgres

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// The accounts methods below implement accounts.Store: patients found by
// phone, one-time sign-in codes and staff passwords. Phone numbers and codes
// are personal data and secrets: nothing here logs them, and login codes are
// stored only as keyed hashes that the sign-in service computes.

var _ accounts.Store = (*Store)(nil)

// SignUpPatient adds a patient who signed up, audited as its own sign-up.
func (s *Store) SignUpPatient(ctx context.Context, p booking.Patient, now time.Time) (booking.Patient, error) {
	var out booking.Patient
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var err error
		if out, err = s.scanPatient(tx.QueryRow(ctx, sqlInsertPatient, append(s.sealedPatient(p), p.Language)...)); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditSignup(now, out.ID)}, nil
	})
	return out, translate(err, "")
}

// ListPatients lists up to limit patients with ids above afterID, by id.
func (s *Store) ListPatients(ctx context.Context, afterID int64, limit int) ([]booking.Patient, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+patientColumns+` FROM patients WHERE id > $1 ORDER BY id LIMIT $2`, afterID, limit)
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Patient, error) { return s.scanPatient(r) })
	return ps, translate(err, "")
}

// DoctorAppointments lists the appointments in a doctor's slots starting in
// [from, to), by start and queue number: the staff's day view.
func (s *Store) DoctorAppointments(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Appointment, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
		 WHERE s.resource_id = $1 AND s.start_at >= $2 AND s.start_at < $3
		 ORDER BY s.start_at, a.queue_no, a.id`, doctorID, from, to)
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	return as, translate(err, "")
}

// ArrivalCandidates lists up to limit BOOKED and ARRIVED appointments of
// ordinary slots starting in [from, to], by start then id
// (appointments_due_idx).
func (s *Store) ArrivalCandidates(ctx context.Context, from, to time.Time, limit int) ([]booking.Appointment, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
		 WHERE a.status IN (`+booking.StatusBookedSQL+`, `+booking.StatusArrivedSQL+`)
		   AND a.start_at >= $1 AND a.start_at <= $2 AND a.round_id IS NULL
		 ORDER BY a.start_at, a.id LIMIT $3`, from, to, limit)
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	if as == nil {
		as = []booking.Appointment{}
	}
	return as, translate(err, "")
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
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('login:' || $1, 0))`, c.PhoneKey); err != nil {
			return err
		}
		var inWindow, inDay int
		var oldestInWindow, oldestInDay *time.Time
		if err := tx.QueryRow(ctx,
			`SELECT count(*) FILTER (WHERE created_at > $2), min(created_at) FILTER (WHERE created_at > $2),
			        count(*) FILTER (WHERE created_at > $3), min(created_at) FILTER (WHERE created_at > $3)
			 FROM login_codes WHERE phone_key = $1 AND created_at > $4`,
			c.PhoneKey, c.WindowStart, c.DayStart, keep).Scan(&inWindow, &oldestInWindow, &inDay, &oldestInDay); err != nil {
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
		if _, err := tx.Exec(ctx,
			`DELETE FROM login_codes WHERE phone_key = $1 AND created_at <= $2 AND expires_at <= $3`,
			c.PhoneKey, keep, c.Now); err != nil {
			return err
		}
		// And the oldest stale codes of any phone, two per code recorded:
		// codes recorded for unknown phones are never asked for again, and
		// the table stays about one day of codes.
		if _, err := tx.Exec(ctx,
			`DELETE FROM login_codes WHERE id IN (SELECT id FROM login_codes WHERE created_at <= $1 AND expires_at <= $2
			 ORDER BY created_at LIMIT 2 FOR UPDATE SKIP LOCKED)`, stale, c.Now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO login_codes (phone_key, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			c.PhoneKey, c.CodeHash, c.Now, c.ExpiresAt)
		return err
	})
	return translate(err, "")
}

// issueRefusal is the rate-limited answer when n codes since start reach
// most, waiting until the oldest of them leaves the window; nil otherwise.
func issueRefusal(n, most int, oldest *time.Time, start time.Time) error {
	if n < most {
		return nil
	}
	wait := time.Second
	if oldest != nil {
		wait = max(oldest.Sub(start), time.Second)
	}
	return &booking.Error{Code: booking.CodeRateLimited, Message: "too many sign-in codes were requested for this phone", RetryAfter: wait}
}

// clinicScope is the signin_failures scope of the whole clinic's wrong
// codes (a phone's scope is its 64-hex-digit key).
const clinicScope = "clinic"

// UseLoginCode answers u.CodeHash against the newest code of u.PhoneKey, as
// booking.DecideCodeUse decides, in one transaction under the phone's lock
// (the one IssueLoginCode takes): a wrong code commits its counted attempt
// and the day's wrong codes of the phone and of the clinic, a right one
// marks the code used, so parallel guesses cannot pass u.MaxAttempts nor the
// phone's day nor two right answers both sign in. The clinic's count is
// raised only while under its limit, in one statement, so wrong codes of
// many phones at once cannot pass it either.
func (s *Store) UseLoginCode(ctx context.Context, u accounts.UseCode) error {
	var use booking.CodeUse
	day := booking.SigninDay(u.Now)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('login:' || $1, 0))`, u.PhoneKey); err != nil {
			return err
		}
		var id int64
		check := booking.CodeCheck{TypedHash: u.CodeHash, Now: u.Now, MaxAttempts: u.MaxAttempts,
			MaxPhoneFailures: u.MaxPhoneFailures, MaxClinicFailures: u.MaxClinicFailures}
		var usedAt *time.Time
		err := tx.QueryRow(ctx,
			`SELECT id, code_hash, attempts, expires_at, used_at FROM login_codes WHERE phone_key = $1
			 ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`, u.PhoneKey).Scan(&id, &check.Code.Hash, &check.Code.Attempts, &check.Code.ExpiresAt, &usedAt)
		check.Found = err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		check.Code.Used = usedAt != nil
		if err := tx.QueryRow(ctx,
			`SELECT coalesce(sum(failures) FILTER (WHERE scope = $1), 0), coalesce(sum(failures) FILTER (WHERE scope = $2), 0)
			 FROM signin_failures WHERE scope IN ($1, $2) AND day = $3`,
			u.PhoneKey, clinicScope, day).Scan(&check.PhoneFailures, &check.ClinicFailures); err != nil {
			return err
		}
		use = booking.DecideCodeUse(check)
		switch use {
		case booking.CodeWrong:
			// The clinic's count first: when wrong codes of other phones
			// reached its limit meanwhile, this one is refused with it
			// and nothing is counted.
			var n int
			err := tx.QueryRow(ctx,
				`INSERT INTO signin_failures (scope, day, failures) VALUES ($1, $2, 1)
				 ON CONFLICT (scope, day) DO UPDATE SET failures = signin_failures.failures + 1
				 WHERE signin_failures.failures < $3 RETURNING failures`, clinicScope, day, limitOrMax(u.MaxClinicFailures)).Scan(&n)
			if errors.Is(err, pgx.ErrNoRows) {
				use = booking.CodeClinicDayExhausted
				return nil
			}
			if err != nil {
				return err
			}
			if n == 1 { // the day's first wrong code: forget the days before
				if _, err := tx.Exec(ctx, `DELETE FROM signin_failures WHERE day < $1`, day); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx,
				`INSERT INTO signin_failures (scope, day, failures) VALUES ($1, $2, 1)
				 ON CONFLICT (scope, day) DO UPDATE SET failures = signin_failures.failures + 1`, u.PhoneKey, day); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `UPDATE login_codes SET attempts = attempts + 1 WHERE id = $1`, id)
			return err
		case booking.CodeAccepted:
			_, err = tx.Exec(ctx, `UPDATE login_codes SET attempts = attempts + 1, used_at = $2 WHERE id = $1`, id, u.Now)
			return err
		}
		return nil
	})
	if err != nil {
		return translate(err, "")
	}
	return use.Err(u.Now)
}

// limitOrMax is a limit for SQL, where 0 (no limit) is the largest count.
func limitOrMax(n int) int {
	if n <= 0 {
		return math.MaxInt32
	}
	return n
}

// SetPatientLanguage remembers the patient's language; an unknown patient
// is not found.
func (s *Store) SetPatientLanguage(ctx context.Context, patientID int64, lang string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE patients SET language = $2 WHERE id = $1`, patientID, lang)
	if err == nil && tag.RowsAffected() == 0 {
		return booking.NotFound("patient")
	}
	return translate(err, "")
}

// SetStaffPassword creates staff user name or replaces its password hash;
// a changed password ends the user's tokens (its marks move to now,
// staying closed while the user is disabled).
func (s *Store) SetStaffPassword(ctx context.Context, name string, hash []byte, now time.Time) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var doctorID *int64
		var disabled bool
		if err := tx.QueryRow(ctx,
			`INSERT INTO staff_users (name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $3)
			 ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at
			 RETURNING doctor_id, disabled_at IS NOT NULL`,
			name, string(hash), now).Scan(&doctorID, &disabled); err != nil {
			return err
		}
		return moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, deref(doctorID))...)
	})
	return translate(err, "")
}

// SetStaffDisabled disables staff user name (it cannot sign in and its
// tokens are refused) or enables it again (tokens from before stay
// refused); an unknown user is not found.
func (s *Store) SetStaffDisabled(ctx context.Context, name string, disabled bool, now time.Time) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var doctorID *int64
		if err := tx.QueryRow(ctx,
			`UPDATE staff_users SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, $3) END WHERE name = $1 RETURNING doctor_id`,
			name, disabled, now).Scan(&doctorID); err != nil {
			return err
		}
		return moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, deref(doctorID))...)
	})
	return translate(err, "staff user")
}

// StaffDisabled reports whether staff user name is disabled, or not found.
func (s *Store) StaffDisabled(ctx context.Context, name string) (bool, error) {
	var disabled bool
	if err := s.pool.QueryRow(ctx, `SELECT disabled_at IS NOT NULL FROM staff_users WHERE name = $1`, name).Scan(&disabled); err != nil {
		return false, translate(err, "staff user")
	}
	return disabled, nil
}

// deref is an optional id, 0 when absent.
func deref(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id
}

// StaffPasswordHash returns the password hash of staff user name, or
// not-found.
func (s *Store) StaffPasswordHash(ctx context.Context, name string) ([]byte, error) {
	var h string
	err := s.pool.QueryRow(ctx, `SELECT password_hash FROM staff_users WHERE name = $1`, name).Scan(&h)
	if err != nil {
		return nil, translate(err, "staff user")
	}
	return []byte(h), nil
}

// SetStaffDoctor makes staff user name the account of doctor doctorID
// (role doctor), or an admin again with 0; an unknown user or doctor is
// not found.
func (s *Store) SetStaffDoctor(ctx context.Context, name string, doctorID int64) error {
	tag, err := s.pool.Exec(ctx, `UPDATE staff_users SET role = CASE WHEN $2::bigint = 0 THEN 'admin' ELSE 'doctor' END,
		doctor_id = NULLIF($2::bigint, 0) WHERE name = $1
		AND ($2::bigint = 0 OR EXISTS (SELECT 1 FROM resources WHERE id = $2 AND kind = 'doctor'))`, name, doctorID)
	if err != nil {
		return translate(err, "")
	}
	if tag.RowsAffected() == 0 {
		return booking.NotFound("staff user or doctor")
	}
	return nil
}

// SetStaffReception makes staff user name reception, no doctor's account
// any more; its tokens from before (an admin's, a doctor's) end, as a
// changed password's do. An unknown user is not found.
func (s *Store) SetStaffReception(ctx context.Context, name string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var doctorID *int64
		var disabled bool
		if err := tx.QueryRow(ctx, `SELECT doctor_id, disabled_at IS NOT NULL FROM staff_users WHERE name = $1 FOR UPDATE`, name).
			Scan(&doctorID, &disabled); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE staff_users SET role = 'reception', doctor_id = NULL WHERE name = $1`, name); err != nil {
			return err
		}
		return moveMarks(ctx, tx, time.Now(), closedIf(disabled), booking.StaffSubjects(name, deref(doctorID))...)
	})
	return translate(err, "staff user")
}

// StaffDoctor returns the doctor a staff user signs in as, 0 for an admin.
func (s *Store) StaffDoctor(ctx context.Context, name string) (int64, error) {
	var id *int64
	if err := s.pool.QueryRow(ctx, `SELECT doctor_id FROM staff_users WHERE name = $1`, name).Scan(&id); err != nil {
		return 0, translate(err, "staff user")
	}
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

// StaffAccount returns what staff sign-in checks of user name, its second
// factor's secret opened with the data keys, or not-found.
func (s *Store) StaffAccount(ctx context.Context, name string) (accounts.StaffAccount, error) {
	a := accounts.StaffAccount{Name: name}
	var hash string
	var doctor *int64
	var sealed []byte
	err := s.pool.QueryRow(ctx, `SELECT password_hash, role, doctor_id, totp_sealed FROM staff_users WHERE name = $1`, name).
		Scan(&hash, &a.Role, &doctor, &sealed)
	if err != nil {
		return a, translate(err, "staff user")
	}
	a.PasswordHash = []byte(hash)
	if doctor != nil {
		a.DoctorID = *doctor
	}
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
	tag, err := s.pool.Exec(ctx,
		`UPDATE staff_users SET totp_sealed = $2, totp_seal_key = $3, totp_last_step = 0, updated_at = $4 WHERE name = $1`,
		name, sealed, key, now)
	if err != nil {
		return translate(err, "")
	}
	if tag.RowsAffected() == 0 {
		return booking.NotFound("staff user")
	}
	return nil
}

// StaffAttempt decides a staff sign-in attempt with
// booking.DecideStaffAttempt in one transaction. A transaction-scoped
// advisory lock on the name's key serializes the attempts on one name on
// every instance (there may be no row to lock yet), so that concurrent
// wrong guesses are each counted and none slips past a lock.
func (s *Store) StaffAttempt(ctx context.Context, name string, a booking.StaffAttempt, now time.Time) (booking.StaffDecision, error) {
	key := booking.StaffLockKey(name)
	var d booking.StaffDecision
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('staff-signin:' || $1, 0))`, key); err != nil {
			return err
		}
		var lock booking.StaffLock
		var lockedUntil *time.Time
		err := tx.QueryRow(ctx, `SELECT failures, last_failure_at, locked_until FROM staff_signin_failures WHERE name_key = $1`, key).
			Scan(&lock.Failures, &lock.LastFailure, &lockedUntil)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if lockedUntil != nil {
			lock.LockedUntil = *lockedUntil
		}
		var last int64
		err = tx.QueryRow(ctx, `SELECT totp_last_step FROM staff_users WHERE name = $1 FOR UPDATE`, name).Scan(&last)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		d = booking.DecideStaffAttempt(lock, last, a, now)
		switch d.Outcome {
		case booking.StaffAccepted:
			if _, err := tx.Exec(ctx, `DELETE FROM staff_signin_failures WHERE name_key = $1`, key); err != nil {
				return err
			}
			if d.LastStep != last {
				_, err = tx.Exec(ctx, `UPDATE staff_users SET totp_last_step = $2 WHERE name = $1`, name, d.LastStep)
			}
			return err
		case booking.StaffRefused, booking.StaffReplayed:
			var until *time.Time
			if !d.Lock.LockedUntil.IsZero() {
				until = &d.Lock.LockedUntil
			}
			if _, err := tx.Exec(ctx,
				`INSERT INTO staff_signin_failures (name_key, failures, last_failure_at, locked_until) VALUES ($1, $2, $3, $4)
				 ON CONFLICT (name_key) DO UPDATE SET failures = excluded.failures,
				     last_failure_at = excluded.last_failure_at, locked_until = excluded.locked_until`,
				key, d.Lock.Failures, d.Lock.LastFailure, until); err != nil {
				return err
			}
			// Forget the failures of other names that are a day old and
			// no longer locked (a lock lasts at most booking.StaffLockMax).
			_, err := tx.Exec(ctx, `DELETE FROM staff_signin_failures WHERE last_failure_at < $1 AND name_key <> $2`,
				now.Add(-booking.StaffFailureMemory), key)
			return err
		}
		return nil
	})
	if err != nil {
		return booking.StaffDecision{}, translate(err, "")
	}
	return d, nil
}

// rekeyStaff re-seals with the newest data key the second-factor secrets
// sealed with an older one (Rekey's step for the staff: a few rows).
func (s *Store) rekeyStaff(ctx context.Context, tx pgx.Tx) error {
	rows, _ := tx.Query(ctx, `SELECT name, totp_sealed FROM staff_users WHERE totp_seal_key NOT IN (0, $1) FOR UPDATE`, int(s.keys.Newest()))
	type sealed struct {
		name   string
		secret []byte
	}
	old, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sealed, error) {
		var v sealed
		return v, r.Scan(&v.name, &v.secret)
	})
	if err != nil {
		return err
	}
	for _, o := range old {
		secret, err := s.keys.Open(pii.FieldStaffTOTP, o.secret)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE staff_users SET totp_sealed = $2, totp_seal_key = $3 WHERE name = $1`,
			o.name, s.keys.Seal(pii.FieldStaffTOTP, secret), int(s.keys.Newest())); err != nil {
			return err
		}
	}
	return nil
}
