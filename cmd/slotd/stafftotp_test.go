package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/sqlite"
)

// TestStaffTOTPCommand: enrolling prints the otpauth:// URL and the secret
// once and stores the secret sealed (not in the database file as is);
// --remove removes it; an unknown user is refused.
func TestStaffTOTPCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	db := "sqlite:" + path
	stdin = strings.NewReader("long-enough-password\n")
	t.Cleanup(func() { stdin = os.Stdin })
	var out, errb bytes.Buffer
	testkit.NoError(t, run(ctx, []string{"staff-password", "--db", db, "--user", "alice"}, &out, &errb))
	out.Reset()
	testkit.NoError(t, run(ctx, []string{"staff-totp", "--db", db, "--user", "alice"}, &out, &errb))
	text := out.String()
	secret := strings.TrimSpace(text[strings.LastIndex(text, "secret: ")+len("secret: "):])
	if !strings.Contains(text, "otpauth://totp/slotd:alice?") || !strings.Contains(text, "secret="+secret) || len(secret) < 16 {
		t.Fatalf("enrol printed %q", text)
	}
	st, err := sqlite.Open(ctx, path)
	testkit.NoError(t, err)
	acc, err := st.StaffAccount(ctx, "alice")
	testkit.NoError(t, err)
	if acc.TOTPSecret != secret {
		t.Fatal("the stored secret is not the printed one")
	}
	var sealed []byte
	testkit.NoError(t, st.DB().QueryRowContext(ctx, `SELECT totp_sealed FROM staff_users WHERE name = 'alice'`).Scan(&sealed))
	if bytes.Contains(sealed, []byte(secret)) {
		t.Fatal("the secret is stored as is")
	}
	if _, err := accounts.TOTPCode(secret, time.Now()); err != nil {
		t.Fatalf("the printed secret makes no code: %v", err)
	}
	st.Close()

	out.Reset()
	testkit.NoError(t, run(ctx, []string{"staff-totp", "--db", db, "--user", "alice", "--remove"}, &out, &errb))
	if !strings.Contains(out.String(), "removed") {
		t.Fatalf("remove printed %q", out.String())
	}
	st, err = sqlite.Open(ctx, path)
	testkit.NoError(t, err)
	defer st.Close()
	if acc, err := st.StaffAccount(ctx, "alice"); err != nil || acc.TOTPSecret != "" {
		t.Fatalf("after --remove: %+v, %v", acc, err)
	}
	if err := run(ctx, []string{"staff-totp", "--db", db, "--user", "bob"}, &out, &errb); err == nil {
		t.Fatal("enrolled an unknown user")
	}
	if err := run(ctx, []string{"staff-totp", "--db", db, "--user", "bad name"}, &out, &errb); err == nil {
		t.Fatal("took an ill-formed name")
	}
}
