package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/slotd/slotd/accounts"
)

// stdin is where staff-password reads the password; tests replace it.
var stdin io.Reader = os.Stdin

// runStaffPassword sets (creating the user if needed) a staff user's web UI
// password, read from standard input without echo when it is a terminal,
// and stores its bcrypt hash.
func runStaffPassword(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("staff-password", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	var user string
	fs.StringVar(&user, "user", "", "staff user name (letters, digits, . - _)")
	doctor := fs.Int64("doctor", 0, "make the user the account of this doctor id (role doctor: only that doctor's days); 0 makes it an admin; without it the role stays")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !accounts.StaffNameOK(user) {
		return errors.New("--user must be 1 to 64 letters, digits, dots, dashes or underscores")
	}
	password, err := readPassword(stderr)
	if err != nil {
		return err
	}
	if err := accounts.CheckNewPassword(password); err != nil {
		return err
	}
	hash, err := accounts.HashPassword(password)
	if err != nil {
		return err
	}
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.SetStaffPassword(ctx, user, hash, time.Now()); err != nil {
		return err
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "doctor" })
	if given {
		if err := store.SetStaffDoctor(ctx, user, *doctor); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "password of staff user %s set\n", user)
	return nil
}

// readPassword reads one line: from a terminal without echo (asking twice),
// else from the input as is.
func readPassword(stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		a, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stderr, "Again: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		if string(a) != string(b) {
			return "", errors.New("the passwords differ")
		}
		return string(a), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", errors.New("no password on standard input")
	}
	return strings.TrimRight(line, "\r\n"), nil
}
