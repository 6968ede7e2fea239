package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// staffObserver counts what StaffSignIn tells an observer.
type staffObserver struct {
	mu       sync.Mutex
	outcomes map[string]int
	lockouts int
}

func (o *staffObserver) Booked(string, bool, time.Duration) {}
func (o *staffObserver) Batch(int, time.Duration)           {}
func (o *staffObserver) StaffSignIn(outcome string, lockout bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.outcomes[outcome]++
	if lockout {
		o.lockouts++
	}
}

type staffFixture struct {
	store *sqlite.Store
	svc   *service.Service
	obs   *staffObserver
	now   *atomic.Int64
}

var st0 = time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)

func newStaffFixture(t *testing.T, opts service.Options) *staffFixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	testkit.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	testkit.NoError(t, st.Migrate(ctx))
	f := &staffFixture{store: st, obs: &staffObserver{outcomes: map[string]int{}}, now: &atomic.Int64{}}
	f.now.Store(st0.UnixNano())
	opts.Now = f.clock
	opts.Observer = f.obs
	f.svc = service.NewService(st, opts)
	hash, err := accounts.HashPassword("right-password")
	testkit.NoError(t, err)
	testkit.NoError(t, st.SetStaffPassword(ctx, "alice", hash, st0))
	return f
}

func (f *staffFixture) clock() time.Time        { return time.Unix(0, f.now.Load()).UTC() }
func (f *staffFixture) advance(d time.Duration) { f.now.Add(int64(d)) }

func (f *staffFixture) signIn(password, code string) (service.StaffIdentity, error) {
	return f.svc.StaffSignIn(context.Background(), service.StaffCredentials{Name: "alice", Password: password, TOTP: code, ClientAddr: "192.0.2.1"})
}

func errOf(_ service.StaffIdentity, err error) error { return err }

func (f *staffFixture) mustSignIn(t *testing.T, password, code string) {
	t.Helper()
	if _, err := f.signIn(password, code); err != nil {
		t.Fatalf("sign-in: %v", err)
	}
}

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := accounts.TOTPCode(secret, at)
	testkit.NoError(t, err)
	return code
}

func wantCode(t *testing.T, err error, code booking.Code) *booking.Error {
	t.Helper()
	var e *booking.Error
	if booking.ErrorCode(err) != code || !errors.As(err, &e) {
		t.Fatalf("got %v, want %s", err, code)
	}
	return e
}

func TestStaffSignInPassword(t *testing.T) {
	f := newStaffFixture(t, service.Options{})
	id, err := f.signIn("right-password", "")
	testkit.NoError(t, err)
	if id != (service.StaffIdentity{Name: "alice", Role: booking.RoleAdmin}) {
		t.Fatalf("identity %+v", id)
	}
	wantCode(t, errOf(f.signIn("wrong-password", "")), booking.CodeUnauthorized)
	// An unknown name and an ill-formed one read like a wrong password.
	_, err = f.svc.StaffSignIn(context.Background(), service.StaffCredentials{Name: "bob", Password: "right-password"})
	wantCode(t, err, booking.CodeUnauthorized)
	_, err = f.svc.StaffSignIn(context.Background(), service.StaffCredentials{Name: "no spaces", Password: "right-password"})
	wantCode(t, err, booking.CodeUnauthorized)
	if f.obs.outcomes["accepted"] != 1 || f.obs.outcomes["refused"] != 3 {
		t.Fatalf("observed %v", f.obs.outcomes)
	}
}

func TestStaffSignInLockout(t *testing.T) {
	f := newStaffFixture(t, service.Options{})
	for range booking.StaffFreeFailures {
		wantCode(t, errOf(f.signIn("wrong-password", "")), booking.CodeUnauthorized)
	}
	// The right password does not open a locked name.
	f.advance(30 * time.Second)
	e := wantCode(t, errOf(f.signIn("right-password", "")), booking.CodeRateLimited)
	if e.RetryAfter != 30*time.Second {
		t.Fatalf("retry after %v", e.RetryAfter)
	}
	f.advance(30 * time.Second)
	f.mustSignIn(t, "right-password", "")
	if f.obs.lockouts != 1 || f.obs.outcomes["locked"] != 1 {
		t.Fatalf("observed %v, %d lockouts", f.obs.outcomes, f.obs.lockouts)
	}
}

func TestStaffSignInTOTP(t *testing.T) {
	f := newStaffFixture(t, service.Options{})
	ctx := context.Background()
	secret, url, err := f.svc.EnrolStaffTOTP(ctx, "alice")
	testkit.NoError(t, err)
	if secret == "" || len(url) < len("otpauth://totp/") || url[:len("otpauth://totp/")] != "otpauth://totp/" {
		t.Fatalf("enrolment %q %q", secret, url)
	}
	code := totpCode(t, secret, f.clock())
	// Without a code, or a wrong one, the right password is not enough.
	wantCode(t, errOf(f.signIn("right-password", "")), booking.CodeUnauthorized)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	wantCode(t, errOf(f.signIn("right-password", wrong)), booking.CodeUnauthorized)
	// The right code with a wrong password is refused too.
	wantCode(t, errOf(f.signIn("wrong-password", code)), booking.CodeUnauthorized)
	f.mustSignIn(t, "right-password", code)
	// The same code again, within its window: a replay.
	f.advance(5 * time.Second)
	wantCode(t, errOf(f.signIn("right-password", code)), booking.CodeUnauthorized)
	if f.obs.outcomes["replayed"] != 1 {
		t.Fatalf("observed %v", f.obs.outcomes)
	}
	// The next step's code works.
	f.advance(accounts.TOTPPeriod * time.Second)
	f.mustSignIn(t, "right-password", totpCode(t, secret, f.clock()))
	// Removed: the password alone signs in again.
	testkit.NoError(t, f.svc.RemoveStaffTOTP(ctx, "alice"))
	f.mustSignIn(t, "right-password", "")
	if _, _, err := f.svc.EnrolStaffTOTP(ctx, "nobody"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("enrol an unknown user: %v", err)
	}
	if err := f.svc.RemoveStaffTOTP(ctx, "nobody"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("remove an unknown user's: %v", err)
	}
	if err := f.svc.RemoveStaffTOTP(ctx, "bad name"); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("an ill-formed name: %v", err)
	}
}

func TestStaffSignInTOTPRequired(t *testing.T) {
	f := newStaffFixture(t, service.Options{StaffTOTPRequired: true})
	ctx := context.Background()
	e := wantCode(t, errOf(f.signIn("right-password", "")), booking.CodeForbidden)
	if want := "slotd staff-totp --user alice"; !strings.Contains(e.Message, want) {
		t.Fatalf("message %q does not say %q", e.Message, want)
	}
	// A wrong password is still just wrong.
	wantCode(t, errOf(f.signIn("wrong-password", "")), booking.CodeUnauthorized)
	// A doctor's account is not an admin: the requirement is not its.
	dep, err := f.store.CreateDepartment(ctx, booking.Department{Name: "GP"})
	testkit.NoError(t, err)
	doc, err := f.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr A", DepartmentID: dep.ID, TimeZone: "UTC"})
	testkit.NoError(t, err)
	hash, err := accounts.HashPassword("right-password")
	testkit.NoError(t, err)
	testkit.NoError(t, f.store.SetStaffPassword(ctx, "drA", hash, st0))
	testkit.NoError(t, f.store.SetStaffDoctor(ctx, "drA", doc.ID))
	id, err := f.svc.StaffSignIn(ctx, service.StaffCredentials{Name: "drA", Password: "right-password"})
	testkit.NoError(t, err)
	if id.Role != booking.RoleDoctor || id.DoctorID != doc.ID {
		t.Fatalf("doctor identity %+v", id)
	}
	// Enrolled, the admin signs in with a code.
	secret, _, err := f.svc.EnrolStaffTOTP(ctx, "alice")
	testkit.NoError(t, err)
	f.mustSignIn(t, "right-password", totpCode(t, secret, f.clock()))
	if f.obs.outcomes["totp-not-enrolled"] != 1 {
		t.Fatalf("observed %v", f.obs.outcomes)
	}
}

func TestStaffSignInNoAccounts(t *testing.T) {
	svc := service.NewService(nil, service.Options{})
	if _, err := svc.StaffSignIn(context.Background(), service.StaffCredentials{Name: "alice"}); err == nil {
		t.Fatal("no accounts store: no error")
	}
}

// TestStaffSignInReception: a reception account signs in as reception,
// and, as it sees personal data, is asked for a second factor when the
// clinic requires one.
func TestStaffSignInReception(t *testing.T) {
	f := newStaffFixture(t, service.Options{})
	ctx := context.Background()
	testkit.NoError(t, f.store.SetStaffReception(ctx, "alice"))
	id, err := f.svc.StaffSignIn(ctx, service.StaffCredentials{Name: "alice", Password: "right-password"})
	testkit.NoError(t, err)
	if id.Role != booking.RoleReception || id.DoctorID != 0 || id.Name != "alice" {
		t.Fatalf("reception identity %+v", id)
	}
	strict := newStaffFixture(t, service.Options{StaffTOTPRequired: true})
	testkit.NoError(t, strict.store.SetStaffReception(ctx, "alice"))
	wantCode(t, errOf(strict.signIn("right-password", "")), booking.CodeForbidden)
}
