package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/service"
)

// runStaffTOTP enrols (or with --remove removes) a staff user's second
// factor through the Service. Enrolling prints the otpauth:// URL and the
// secret once, on standard output only: the database keeps the secret
// sealed with the data keys, and nothing logs it.
func runStaffTOTP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("staff-totp", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	var user string
	fs.StringVar(&user, "user", "", "staff user name (the user must exist: slotd staff-password)")
	remove := fs.Bool("remove", false, "remove the user's second factor instead: the password alone signs in again (an admin not at all under serve's --staff-totp-required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: slotd staff-totp --user NAME [--remove] [--db URL]

Enrols a second factor (TOTP, RFC 6238: 6 digits every 30 seconds) for a
staff user, replacing any it had. It prints an otpauth:// URL (make it a QR
code for an authenticator app) and the secret, once: add it to the app and
keep no other copy. From then on the staff sign-in page needs the app's
current code beside the password; each code works once. With --remove the
second factor is removed.

`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !accounts.StaffNameOK(user) {
		return errors.New("--user must be 1 to 64 letters, digits, dots, dashes or underscores")
	}
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := service.NewService(store, service.Options{})
	if *remove {
		if err := svc.RemoveStaffTOTP(ctx, user); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "second factor of staff user %s removed\n", user)
		return nil
	}
	secret, url, err := svc.EnrolStaffTOTP(ctx, user)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "second factor of staff user %s enrolled; add it to an authenticator app (shown once):\n%s\nsecret: %s\n", user, url, secret)
	return nil
}
