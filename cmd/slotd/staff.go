package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
)

// stdin is where staff-password reads the password; tests replace it.
var stdin io.Reader = os.Stdin

// runStaffPassword sets (creating the user if needed) a staff user's web UI
// password, read from standard input without echo when it is a terminal,
// and stores its bcrypt hash; the store moves the user's revocation marks
// in the same transaction, so the sessions and tokens from before end.
func runStaffPassword(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("staff-password", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	var user string
	fs.StringVar(&user, "user", "", "staff user name (letters, digits, . - _)")
	doctor := fs.Int64("doctor", 0, "make the user the account of this doctor id (role doctor: only that doctor's days); 0 makes it an admin; without it the role stays")
	reception := fs.Bool("reception", false, "make the user reception (the front desk: find and add people, book, cancel, reschedule and check in for them; nothing of the clinic's settings, staff or exports)")
	sitesFlag := fs.String("sites", "", "limit the user to these site ids, comma-separated (a receptionist sees hers), or \"all\" for every site; without it the sites stay")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !accounts.StaffNameOK(user) {
		return errors.New("--user must be 1 to 64 letters, digits, dots, dashes or underscores")
	}
	sites, err := parseSites(*sitesFlag)
	if err != nil {
		return err
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "doctor" })
	if given && *reception {
		return errors.New("--reception and --doctor are two roles: give one")
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
	switch {
	case *reception:
		if err := store.SetStaffReception(ctx, user); err != nil {
			return err
		}
	case given:
		if err := store.SetStaffDoctor(ctx, user, *doctor); err != nil {
			return err
		}
	}
	if sites != nil {
		ctx := booking.WithActor(ctx, booking.Actor{Role: booking.ActorSystem, ID: "slotd-staff-password"})
		if err := store.SetStaffSites(ctx, user, sites, time.Now()); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "password of staff user %s set\n", user)
	return nil
}

// parseSites reads --sites: nil when not given, none for "all", else the
// ids as booking.CheckStaffSites returns them.
func parseSites(v string) ([]int64, error) {
	switch strings.TrimSpace(v) {
	case "":
		return nil, nil
	case "all":
		return []int64{}, nil
	}
	var ids []int64
	for _, f := range strings.Split(v, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, errors.New("--sites must be site ids separated by commas, or all")
		}
		ids = append(ids, id)
	}
	clean, refusal := booking.CheckStaffSites(ids)
	if refusal != nil {
		return nil, refusal
	}
	return clean, nil
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

// runStaffDisable disables a staff user, or enables it again with
// --enable. A disabled user cannot sign in, and every session and token of
// theirs is refused (401) — a running server refuses them within
// service.DefaultMarkRefresh. Enabling lets the user sign in again; the
// sessions from before stay refused.
func runStaffDisable(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("staff-disable", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	var user string
	fs.StringVar(&user, "user", "", "staff user name (letters, digits, . - _)")
	enable := fs.Bool("enable", false, "enable the user again instead (sessions from before stay refused)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: slotd staff-disable --user NAME [--enable]

Disables staff user NAME: it cannot sign in to the web UI, and every page
session and API token of it (page sessions, tokens minted with --sub NAME or
--sub staff:NAME, and a doctor account's doctor tokens) is refused with 401,
by every running instance within a second. With --enable the user may sign
in again; sessions and tokens from before stay refused.

`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !accounts.StaffNameOK(user) {
		return errors.New("--user must be 1 to 64 letters, digits, dots, dashes or underscores")
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.SetStaffDisabled(ctx, user, !*enable, time.Now()); err != nil {
		if booking.ErrorCode(err) == booking.CodeNotFound {
			return fmt.Errorf("there is no staff user %s (slotd staff-password creates one)", user)
		}
		return err
	}
	if *enable {
		fmt.Fprintf(stdout, "staff user %s enabled\n", user)
	} else {
		fmt.Fprintf(stdout, "staff user %s disabled: its sessions and tokens are refused\n", user)
	}
	return nil
}
