// Package accounts is who may sign in: patients found by phone with
// one-time codes, and staff users with passwords. It holds the interface
// both stores implement (storetest holds them to the same behaviour), the
// sign-in policy and the pure rules on names, phones and passwords; the
// sign-in service (service.Signin), the web UI and `slotd staff-password`
// use it, and nothing here touches HTTP.
package accounts

import (
	"context"
	"errors"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/slotd/slotd/booking"
)

// Store is what sign-in and the staff pages need from the database beyond
// booking.Store. Both stores implement it (postgres/accounts.go,
// sqlite/accounts.go).
//
// Errors are *booking.Error for conditions a page can explain (not found,
// rate limited) and wrap booking.ErrUnavailable when the database is down.
// Phone numbers and codes are personal data and secrets: implementations
// never log them, and store codes only as the keyed hashes they are given.
type Store interface {
	// PatientByPhone finds the patient whose phone is phone (E.164, as
	// service.Service.NormalizePhone returns it), by the phone's keyed hash
	// (a phone is one patient's); not found otherwise, and for an erased
	// patient.
	PatientByPhone(ctx context.Context, phone string) (booking.Patient, error)
	// PatientsByEmail finds the patients with an e-mail address, in any
	// case, by its keyed hash; oldest first, at most 50.
	PatientsByEmail(ctx context.Context, email string) ([]booking.Patient, error)
	// PatientsByName finds the people with a name (in any case, spacing
	// or Unicode form: pii.NormalizeName) and a birth date (YYYY-MM-DD),
	// by the keyed hash of the pair; oldest first, at most 50. Names stay
	// sealed.
	PatientsByName(ctx context.Context, name, birthDate string) ([]booking.Patient, error)
	// ListPatients lists up to limit patients with ids above afterID, by id.
	ListPatients(ctx context.Context, afterID int64, limit int) ([]booking.Patient, error)
	// DoctorAppointments lists the appointments (any state) in a doctor's
	// slots starting in [from, to), by slot start and queue number.
	DoctorAppointments(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Appointment, error)

	// IssueLoginCode records a sign-in code's hash for c.PhoneKey, valid
	// until c.ExpiresAt, unless c.MaxInWindow codes were issued for it after
	// c.WindowStart or c.MaxInDay after c.DayStart: then it records nothing
	// and returns CodeRateLimited with RetryAfter set.
	IssueLoginCode(ctx context.Context, c IssueCode) error
	// UseLoginCode answers u.CodeHash against the newest code of u.PhoneKey
	// as booking.DecideCodeUse decides, in one transaction: nil on success
	// (the code is used), CodeNotFound when the newest code is used or
	// expired (an older one never counts), CodeInvalidRequest for a wrong
	// code (one attempt counted on the code, and one wrong code counted for
	// the phone's and the clinic's day, booking.SigninDay) and
	// CodeRateLimited once u.MaxAttempts were used, or the phone's
	// (u.MaxPhoneFailures) or the clinic's (u.MaxClinicFailures) wrong codes
	// of the day ran out (errors.Is booking.ErrPhoneDayFailures or
	// booking.ErrClinicDayFailures, RetryAfter until the day rolls). The day
	// counts are shared by every instance on the database, and concurrent
	// wrong codes never count past a limit.
	UseLoginCode(ctx context.Context, u UseCode) error

	// SignUpPatient adds the patient who signed up (p: name, phone or
	// e-mail, language, birth date, sex), sealed as CreatePatient seals,
	// with booking.AuditSignup's entry in the same transaction; a phone
	// another patient has is a conflict.
	SignUpPatient(ctx context.Context, p booking.Patient, now time.Time) (booking.Patient, error)

	// SetPatientLanguage remembers the language a patient chose (an
	// i18n.Languages tag), which Patient.Language then returns.
	SetPatientLanguage(ctx context.Context, patientID int64, lang string) error

	// SetStaffPassword creates a staff user or replaces its password hash
	// (a bcrypt hash, see HashPassword), and moves the user's revocation
	// marks (booking.StaffSubjects) to now in the same transaction: the
	// tokens signed in with the old password end.
	SetStaffPassword(ctx context.Context, name string, hash []byte, now time.Time) error
	// SetStaffDisabled disables a staff user (it cannot sign in; its marks
	// close, so its tokens are refused) or enables it again (its marks
	// open from now: tokens from before stay refused); an unknown user is
	// not found.
	SetStaffDisabled(ctx context.Context, name string, disabled bool, now time.Time) error
	// StaffDisabled reports whether a staff user is disabled, or not found.
	StaffDisabled(ctx context.Context, name string) (bool, error)
	// StaffPasswordHash returns a staff user's password hash, or not found.
	StaffPasswordHash(ctx context.Context, name string) ([]byte, error)
	// SetStaffDoctor makes a staff user the account of a doctor (role
	// doctor: it sees only that doctor's days), or an admin with 0; an
	// unknown user or doctor is not found.
	SetStaffDoctor(ctx context.Context, name string, doctorID int64) error
	// SetStaffReception makes a staff user reception (the front desk,
	// booking.Desk: it finds, adds and books for people, and runs nothing
	// of the clinic); SetStaffDoctor with 0 makes it an admin again. An
	// unknown user is not found.
	SetStaffReception(ctx context.Context, name string) error
	// SetStaffSites limits a staff user to sites (as
	// booking.CheckStaffSites returns them; none: every site), audited
	// (booking.AuditStaffSites), and moves the user's revocation marks in
	// the same transaction, as a changed password does: its sessions and
	// tokens from before end, and the next sign-in works on the new
	// sites. An unknown user or site is not found.
	SetStaffSites(ctx context.Context, name string, sites []int64, now time.Time) error
	// StaffSites returns the sites a staff user is limited to, sorted
	// (empty: every site), or not found.
	StaffSites(ctx context.Context, name string) ([]int64, error)
	// StaffDoctor returns the doctor a staff user is, 0 for an admin.
	StaffDoctor(ctx context.Context, name string) (int64, error)

	// StaffAccount returns what staff sign-in checks of user name, its
	// second factor's secret opened, or not found.
	StaffAccount(ctx context.Context, name string) (StaffAccount, error)
	// SetStaffTOTP enrols secret (base32, see NewTOTP) as user name's
	// second factor, sealed at rest, and forgets its last used step; ""
	// removes the second factor. An unknown user is not found.
	SetStaffTOTP(ctx context.Context, name, secret string, now time.Time) error
	// StaffAttempt decides attempt a with booking.DecideStaffAttempt on
	// the failures counted under booking.StaffLockKey(name) (names that
	// are no user's count too) and the last used step of user name, in one
	// transaction that concurrent attempts on the name wait for, and
	// stores what it decided: failures counted, reset or left, the step
	// remembered.
	StaffAttempt(ctx context.Context, name string, a booking.StaffAttempt, now time.Time) (booking.StaffDecision, error)
}

// StaffAccount is a staff user as sign-in checks it.
type StaffAccount struct {
	Name         string
	PasswordHash []byte
	// Role is booking.RoleAdmin, RoleDoctor or RoleReception.
	Role string
	// DoctorID is the doctor the user signs in as; 0 for another role.
	DoctorID int64
	// TOTPSecret is the base32 secret of the user's second factor; ""
	// when none is enrolled.
	TOTPSecret string
}

// IssueCode is one sign-in code to record (Store.IssueLoginCode).
type IssueCode struct {
	PhoneKey, CodeHash string
	Now, ExpiresAt     time.Time
	// At most MaxInWindow codes after WindowStart, and MaxInDay after
	// DayStart (0: no daily limit).
	WindowStart time.Time
	MaxInWindow int
	DayStart    time.Time
	MaxInDay    int
}

// UseCode is one typed sign-in code to check (Store.UseLoginCode).
type UseCode struct {
	PhoneKey, CodeHash string
	Now                time.Time
	MaxAttempts        int // wrong guesses allowed per code
	// Wrong codes allowed per phone and per clinic per booking.SigninDay
	// (0: no limit).
	MaxPhoneFailures, MaxClinicFailures int
}

// Sign-in code policy.
const (
	CodeTTL         = 5 * time.Minute  // a code is valid this long
	CodeMaxAttempts = 5                // wrong guesses allowed per code
	CodeMaxPerPhone = 3                // codes sent per phone per CodeWindow
	CodeWindow      = 15 * time.Minute // the window of CodeMaxPerPhone
	// CodeMaxPerPhoneDay codes are sent per phone per CodeDay.
	CodeMaxPerPhoneDay = 10
	CodeDay            = 24 * time.Hour
	// FailuresPerPhoneDay wrong codes are allowed per phone per
	// booking.SigninDay, over all its codes; DefaultFailuresPerDay per
	// clinic (--signin-failures-per-day).
	FailuresPerPhoneDay   = 10
	DefaultFailuresPerDay = 1000
)

// StaffNameOK reports whether name is a usable staff user name: 1 to 64
// letters, digits, dots, dashes or underscores.
func StaffNameOK(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Staff password length limits: bcrypt ignores bytes beyond 72.
const (
	PasswordMinLen = 8
	PasswordMaxLen = 72
)

// CheckNewPassword says why a new staff password is refused, or nil.
func CheckNewPassword(password string) error {
	if len(password) < PasswordMinLen {
		return errors.New("the password must be at least 8 characters")
	}
	if len(password) > PasswordMaxLen {
		return errors.New("the password must be at most 72 bytes (bcrypt's limit)")
	}
	return nil
}

// HashPassword returns the bcrypt hash stored for a staff password.
func HashPassword(password string) ([]byte, error) {
	return bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
}

// PasswordMatches reports whether password is the one hash was made from.
func PasswordMatches(hash []byte, password string) bool {
	return bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
}
