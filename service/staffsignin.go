package service

import (
	"context"
	"errors"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
)

// StaffCredentials are what a person typed to sign in as staff.
type StaffCredentials struct {
	// Name is the staff user name as typed (the front end trims it).
	Name string
	// Password is compared with the user's bcrypt hash.
	Password string
	// TOTP is the six-digit code of the user's second factor; needed only
	// when the user has one enrolled (`slotd staff-totp`).
	TOTP string
	// ClientAddr is the client's address as the front end sees it: the
	// front end spends its per-address sign-in budget with it before the
	// call. The Service keeps it out of the store and the logs.
	ClientAddr string
}

// StaffIdentity is who signed in.
type StaffIdentity struct {
	Name string
	// Role is booking.RoleAdmin, booking.RoleReception for the front
	// desk, or booking.RoleDoctor for a doctor's account, which acts as
	// DoctorID only.
	Role     string
	DoctorID int64
}

// StaffObserver is what an Options.Observer may also implement to count
// staff sign-ins: each attempt's outcome (one of booking.StaffOutcomes:
// a booking.StaffOutcome's name, or booking.StaffNotEnrolled for an admin
// refused by Options.StaffTOTPRequired) and whether it locked the name.
type StaffObserver interface {
	StaffSignIn(outcome string, lockout bool)
}

// dummyHash is compared against when a staff user does not exist, so that
// a wrong name takes as long as a wrong password.
var dummyHash, _ = accounts.HashPassword("slotd-no-such-user")

var errNoAccounts = errors.New("service: staff sign-in needs an accounts store (Options.Accounts)")

// ErrStaffDisabled refuses the sign-in of a staff user disabled with
// `slotd staff-disable`.
var ErrStaffDisabled = booking.Errorf(booking.CodeForbidden, "this staff account is disabled (slotd staff-disable)")

// StaffSignIn checks a staff sign-in: the password (bcrypt, against a
// dummy hash for an unknown name, so that both take as long), then the
// second factor when the user has one, and lets the store decide the
// attempt (booking.DecideStaffAttempt): a name locked by its failures is
// rate-limited with RetryAfter even with the right password, failures are
// counted in the database for every instance, a code's time step works
// once. A wrong name, password or code are one unauthorized refusal. With
// Options.StaffTOTPRequired an admin without a second factor is refused
// (forbidden, saying how to enrol) after the right password.
func (s *Service) StaffSignIn(ctx context.Context, c StaffCredentials) (StaffIdentity, error) {
	if s.accounts == nil {
		return StaffIdentity{}, errNoAccounts
	}
	now := s.now()
	hash, known := dummyHash, false
	var acc accounts.StaffAccount
	nameOK := accounts.StaffNameOK(c.Name)
	if nameOK {
		a, err := bounded(s, ctx, func(ctx context.Context) (accounts.StaffAccount, error) { return s.accounts.StaffAccount(ctx, c.Name) })
		switch {
		case err == nil:
			acc, hash, known = a, a.PasswordHash, true
		case booking.ErrorCode(err) != booking.CodeNotFound:
			return StaffIdentity{}, err
		}
	}
	attempt := booking.StaffAttempt{Verified: accounts.PasswordMatches(hash, c.Password) && known}
	if attempt.Verified && acc.TOTPSecret != "" {
		attempt.TOTPStep, attempt.Verified = accounts.TOTPStep(acc.TOTPSecret, c.TOTP, now)
	}
	if !nameOK {
		// No such name can be a user's, nor a key of the failures.
		s.observeStaff(booking.StaffDecision{Outcome: booking.StaffRefused})
		return StaffIdentity{}, booking.StaffDecision{Outcome: booking.StaffRefused}.Err()
	}
	d, err := bounded(s, ctx, func(ctx context.Context) (booking.StaffDecision, error) {
		return s.accounts.StaffAttempt(ctx, c.Name, attempt, now)
	})
	if err != nil {
		return StaffIdentity{}, err
	}
	if err := d.Err(); err != nil {
		s.observeStaff(d)
		return StaffIdentity{}, err
	}
	// Only the right credentials learn that the account is disabled.
	disabled, err := bounded(s, ctx, func(ctx context.Context) (bool, error) { return s.accounts.StaffDisabled(ctx, c.Name) })
	if err != nil {
		return StaffIdentity{}, err
	}
	if disabled {
		return StaffIdentity{}, ErrStaffDisabled
	}
	if acc.DoctorID == 0 && acc.TOTPSecret == "" && s.staffTOTPRequired {
		if o, ok := s.observer.(StaffObserver); ok {
			o.StaffSignIn(booking.StaffNotEnrolled, false)
		}
		return StaffIdentity{}, booking.Errorf(booking.CodeForbidden,
			"an admin needs a second factor here: enrol one with `slotd staff-totp --user %s`, then sign in with its code", c.Name)
	}
	s.observeStaff(d)
	switch {
	case acc.DoctorID > 0:
		return StaffIdentity{Name: c.Name, Role: booking.RoleDoctor, DoctorID: acc.DoctorID}, nil
	case acc.Role == booking.RoleReception:
		return StaffIdentity{Name: c.Name, Role: booking.RoleReception}, nil
	}
	return StaffIdentity{Name: c.Name, Role: booking.RoleAdmin}, nil
}

func (s *Service) observeStaff(d booking.StaffDecision) {
	if o, ok := s.observer.(StaffObserver); ok {
		o.StaffSignIn(d.Outcome.String(), d.NewLock)
	}
}

// EnrolStaffTOTP gives staff user name a new second factor, replacing any
// it had, and returns its secret and otpauth:// URL, to be shown once to
// the user (never logged). An unknown user is not found.
func (s *Service) EnrolStaffTOTP(ctx context.Context, name string) (secret, url string, err error) {
	if s.accounts == nil {
		return "", "", errNoAccounts
	}
	if !accounts.StaffNameOK(name) {
		return "", "", booking.Errorf(booking.CodeInvalidRequest, "a staff user name is 1 to 64 letters, digits, dots, dashes or underscores")
	}
	if secret, url, err = accounts.NewTOTP(name); err != nil {
		return "", "", err
	}
	_, err = bounded(s, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.accounts.SetStaffTOTP(ctx, name, secret, s.now())
	})
	if err != nil {
		return "", "", err
	}
	return secret, url, nil
}

// RemoveStaffTOTP removes staff user name's second factor; an unknown user
// is not found.
func (s *Service) RemoveStaffTOTP(ctx context.Context, name string) error {
	if s.accounts == nil {
		return errNoAccounts
	}
	if !accounts.StaffNameOK(name) {
		return booking.Errorf(booking.CodeInvalidRequest, "a staff user name is 1 to 64 letters, digits, dots, dashes or underscores")
	}
	_, err := bounded(s, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.accounts.SetStaffTOTP(ctx, name, "", s.now())
	})
	return err
}
