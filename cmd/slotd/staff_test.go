package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// TestStaffDisable: staff-disable refuses the user's tokens minted before
// it (and the user's sign-in, see web), --enable lets new ones in while
// the old stay refused, and a password change ends the older tokens too.
func TestStaffDisable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "staff.db")
	db := "sqlite:" + path
	old := stdin
	t.Cleanup(func() { stdin = old })
	cli := func(input string, args ...string) (string, error) {
		t.Helper()
		stdin = strings.NewReader(input)
		var out, errb syncBuffer
		err := run(ctx, append(args, "--db", db), &out, &errb)
		return out.String() + errb.String(), err
	}
	if out, err := cli("", "migrate"); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	if out, err := cli("correct horse\n", "staff-password", "--user", "carol"); err != nil {
		t.Fatalf("staff-password: %v %s", err, out)
	}
	if _, err := cli("", "staff-disable", "--user", "nobody"); err == nil || !strings.Contains(err.Error(), "no staff user nobody") {
		t.Fatalf("disabling an unknown user: %v", err)
	}
	if _, err := cli("", "staff-disable", "--user", "bad name"); err == nil {
		t.Fatal("a bad user name was accepted")
	}
	if out, _ := cli("", "staff-disable", "--help"); !strings.Contains(out, "--enable") || !strings.Contains(out, "refused with 401") {
		t.Fatalf("--help does not explain the command: %s", out)
	}

	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := service.NewService(store, service.Options{MarkRefresh: time.Nanosecond}) // another process: read every time
	admit := func(issued time.Time) error {
		return svc.Admit(ctx, string(auth.RoleAdmin), "staff:carol", issued)
	}
	before := time.Now()
	if err := admit(before); err != nil {
		t.Fatalf("a token after the password: %v", err)
	}
	if out, err := cli("", "staff-disable", "--user", "carol"); err != nil || !strings.Contains(out, "disabled") {
		t.Fatalf("staff-disable: %v %s", err, out)
	}
	if code := booking.ErrorCode(admit(before)); code != booking.CodeUnauthorized {
		t.Fatalf("a disabled user's token: %q, want unauthorized", code)
	}
	if code := booking.ErrorCode(admit(time.Now().Add(time.Minute))); code != booking.CodeUnauthorized {
		t.Fatalf("a token minted while disabled: %q, want unauthorized", code)
	}
	if disabled, err := store.StaffDisabled(ctx, "carol"); err != nil || !disabled {
		t.Fatalf("StaffDisabled: %v %v", disabled, err)
	}
	if out, err := cli("", "staff-disable", "--user", "carol", "--enable"); err != nil || !strings.Contains(out, "enabled") {
		t.Fatalf("--enable: %v %s", err, out)
	}
	if code := booking.ErrorCode(admit(before)); code != booking.CodeUnauthorized {
		t.Fatalf("a token from before the disable, after --enable: %q, want unauthorized", code)
	}
	after := time.Now()
	if err := admit(after); err != nil {
		t.Fatalf("a token minted after --enable: %v", err)
	}
	if out, err := cli("another horse\n", "staff-password", "--user", "carol"); err != nil {
		t.Fatalf("staff-password again: %v %s", err, out)
	}
	if code := booking.ErrorCode(admit(after)); code != booking.CodeUnauthorized {
		t.Fatalf("a token from before the password change: %q, want unauthorized", code)
	}
}

// TestStaffPasswordReception: --reception makes the account the front
// desk's (its sign-in is reception's), --doctor 0 an admin again, and the
// two roles at once are refused before anything is read.
func TestStaffPasswordReception(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "staff.db")
	db := "sqlite:" + path
	old := stdin
	t.Cleanup(func() { stdin = old })
	cli := func(input string, args ...string) (string, error) {
		t.Helper()
		stdin = strings.NewReader(input)
		var out, errb syncBuffer
		err := run(ctx, append(args, "--db", db), &out, &errb)
		return out.String() + errb.String(), err
	}
	if out, err := cli("front desk horse\n", "staff-password", "--user", "rita", "--reception"); err != nil {
		t.Fatalf("staff-password --reception: %v %s", err, out)
	}
	if _, err := cli("front desk horse\n", "staff-password", "--user", "rita", "--reception", "--doctor", "1"); err == nil ||
		!strings.Contains(err.Error(), "two roles") {
		t.Fatalf("--reception with --doctor: %v", err)
	}
	role := func() string {
		t.Helper()
		store, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		a, err := store.StaffAccount(ctx, "rita")
		if err != nil {
			t.Fatal(err)
		}
		return a.Role
	}
	if got := role(); got != booking.RoleReception {
		t.Fatalf("role %q, want reception", got)
	}
	if out, err := cli("front desk horse\n", "staff-password", "--user", "rita", "--doctor", "0"); err != nil {
		t.Fatalf("back to admin: %v %s", err, out)
	}
	if got := role(); got != booking.RoleAdmin {
		t.Fatalf("role %q, want admin", got)
	}
}

// TestStaffPasswordSites: --sites limits the user to sites (audited as the
// command line), "all" lifts the limit, and bad ids or an unknown site are
// refused.
func TestStaffPasswordSites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sites.db")
	db := "sqlite:" + path
	old := stdin
	t.Cleanup(func() { stdin = old })
	cli := func(args ...string) (string, error) {
		t.Helper()
		stdin = strings.NewReader("front desk horse\n")
		var out, errb syncBuffer
		err := run(ctx, append(args, "--db", db), &out, &errb)
		return out.String() + errb.String(), err
	}
	if out, err := cli("staff-password", "--user", "rita", "--reception", "--sites", "1, 1"); err != nil {
		t.Fatalf("staff-password --sites 1: %v %s", err, out)
	}
	sites := func() string {
		t.Helper()
		store, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		ids, err := store.StaffSites(ctx, "rita")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Trim(strings.Join(strings.Fields(strings.Trim(fmt.Sprint(ids), "[]")), ","), ",")
	}
	if got := sites(); got != "1" {
		t.Fatalf("rita's sites %q, want 1", got)
	}
	for _, bad := range []string{"x", "0", "1,,2", "999"} {
		if _, err := cli("staff-password", "--user", "rita", "--sites", bad); err == nil {
			t.Errorf("--sites %q was accepted", bad)
		}
	}
	if got := sites(); got != "1" {
		t.Fatalf("rita's sites after refused changes %q, want 1", got)
	}
	if out, err := cli("staff-password", "--user", "rita", "--sites", "all"); err != nil {
		t.Fatalf("--sites all: %v %s", err, out)
	}
	if got := sites(); got != "" {
		t.Fatalf("rita's sites after all: %q, want none", got)
	}
}
