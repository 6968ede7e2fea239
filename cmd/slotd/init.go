package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// clinicSettingFlags are serve's flags whose value `slotd init` keeps in the
// database (clinic_settings, under the flag's name): serve takes a kept
// value for each of them that neither its command line nor its environment
// sets.
var clinicSettingFlags = []string{"clinic-name", "clinic-timezone", "default-language", "currency", "phone-region"}

// The files `slotd init --secrets DIR` writes, named as the systemd unit's
// credentials and the Kubernetes Secret's keys.
const (
	authSecretFile    = "auth-secret"
	dataKeysFile      = "data-keys"
	paymentSecretFile = "payment-secret"
)

// initSecrets are the secrets a new installation starts with.
type initSecrets struct {
	authSecret, dataKeys, paymentSecret string
}

func (s initSecrets) files() [][2]string {
	return [][2]string{{authSecretFile, s.authSecret}, {dataKeysFile, s.dataKeys}, {paymentSecretFile, s.paymentSecret}}
}

// runInit sets up a new clinic's installation: its secrets (files in
// --secrets DIR, mode 0600, or printed with --print for a secret store),
// its database (migrated, the clinic's settings kept in it) and its first
// admin, whose generated password is shown once.
func runInit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	var db dbFlags
	fs.StringVar(&db.url, "db", defaultDB, "database: sqlite:PATH or postgres://…")
	secretsDir := fs.String("secrets", "", "write the auth secret, data keys and payment secret as files (mode 0600) into this directory; existing files are never overwritten")
	print := fs.Bool("print", false, "print the secrets as SLOTD_…=value lines instead, for a secret store (nothing written but the database)")
	admin := fs.String("admin", "admin", "the first admin's staff user name")
	var clinic serveFlags
	clinic.interop.register(fs)
	clinic.locale.register(fs)
	// Only the clinic's settings of serve's flags are init's.
	keep := map[string]bool{"db": true, "secrets": true, "print": true, "admin": true}
	for _, n := range clinicSettingFlags {
		keep[n] = true
	}
	pruned := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if keep[f.Name] {
			pruned.Var(f.Value, f.Name, f.Usage)
		}
	})
	pruned.Usage = func() {
		fmt.Fprint(pruned.Output(), `Usage: slotd init (--secrets DIR | --print) [--db URL] [--admin NAME] [clinic settings]

Sets up a new installation: generates the auth secret, the data keys and a
payment-callback secret, migrates the database, keeps the clinic's settings
in it and creates the first admin, whose generated password is printed once.
Clinic settings not given as flags are asked for when standard input is a
terminal. Keep the secrets apart from the database's backups: without the
data keys the patients' sealed personal data cannot be read.

`)
		pruned.PrintDefaults()
	}
	if err := parse(pruned, args, stderr); err != nil {
		return err
	}
	if (*secretsDir == "") == !*print {
		return errors.New("give either --secrets DIR (files) or --print (for a secret store)")
	}
	if !accounts.StaffNameOK(*admin) {
		return errors.New("--admin must be 1 to 64 letters, digits, dots, dashes or underscores")
	}
	given := map[string]bool{}
	pruned.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := askSettings(pruned, given, stderr); err != nil {
		return err
	}
	if err := clinic.locale.check(); err != nil {
		return err
	}
	if _, err := time.LoadLocation(clinic.interop.clinicZone); err != nil || clinic.interop.clinicZone == "" {
		return fmt.Errorf("--clinic-timezone %q is no IANA time zone", clinic.interop.clinicZone)
	}
	settings := map[string]string{}
	for _, n := range clinicSettingFlags {
		settings[n] = pruned.Lookup(n).Value.String()
	}

	secrets, err := newSecrets()
	if err != nil {
		return err
	}
	var written []string
	if *secretsDir != "" {
		if written, err = writeSecrets(*secretsDir, secrets); err != nil {
			return err
		}
	}
	db.authSecret, db.dataKeys = secrets.authSecret, secrets.dataKeys
	password, err := initDatabase(ctx, &db, *admin, settings)
	if err != nil {
		// The keys never sealed anything that stays: remove them, so
		// that init can run again.
		for _, p := range written {
			os.Remove(p)
		}
		return err
	}
	if *print {
		fmt.Fprintf(stdout, "SLOTD_AUTH_SECRET=%s\nSLOTD_DATA_KEYS=%s\nSLOTD_PAYMENT_SECRET=%s\n",
			secrets.authSecret, secrets.dataKeys, secrets.paymentSecret)
	} else {
		fmt.Fprintf(stdout, "secrets written (mode 0600): %s\n", strings.Join(written, " "))
		fmt.Fprintf(stdout, "serve with SLOTD_AUTH_SECRET_FILE, SLOTD_DATA_KEYS_FILE and SLOTD_PAYMENT_SECRET_FILE naming them\n")
	}
	fmt.Fprintf(stdout, "clinic: %s, %s, language %s, currency %s, phone region %s\n", settings["clinic-name"],
		settings["clinic-timezone"], settings["default-language"], settings["currency"], settings["phone-region"])
	fmt.Fprintf(stdout, "admin user: %s\nadmin password (shown once, not stored): %s\n", *admin, password)
	fmt.Fprintln(stdout, "keep the data keys and the auth secret safe and apart from the database's backups: without the data keys the patients' personal data is lost")
	return nil
}

// askSettings asks on a terminal for each clinic setting not given, with
// the flag's default as the answer to a bare Enter.
func askSettings(fs *flag.FlagSet, given map[string]bool, stderr io.Writer) error {
	if !stdinIsTerminal() {
		return nil
	}
	in := bufio.NewReader(stdin)
	for _, n := range clinicSettingFlags {
		if given[n] {
			continue
		}
		fl := fs.Lookup(n)
		fmt.Fprintf(stderr, "%s [%s]: ", fl.Usage, fl.Value.String())
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("reading %s: %w", n, err)
		}
		if v := strings.TrimSpace(line); v != "" {
			if err := fl.Value.Set(v); err != nil {
				return fmt.Errorf("--%s: %w", n, err)
			}
		}
	}
	return nil
}

// stdinIsTerminal tells whether a person may be answering on stdin: a
// script or a unit's ExecStartPre gets no questions (a test replaces it).
var stdinIsTerminal = func() bool {
	f, ok := stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newSecrets generates a new installation's secrets.
func newSecrets() (initSecrets, error) {
	raw := make([]byte, 2*auth.MinSecretLen)
	if _, err := rand.Read(raw); err != nil {
		return initSecrets{}, err
	}
	return initSecrets{
		authSecret:    hex.EncodeToString(raw[:auth.MinSecretLen]),
		dataKeys:      pii.Generate(),
		paymentSecret: hex.EncodeToString(raw[auth.MinSecretLen:]),
	}, nil
}

// writeSecrets writes each secret as a file of its own in dir (created
// 0700), mode 0600, after checking that none exists: a second init must
// not replace keys that sealed data.
func writeSecrets(dir string, s initSecrets) ([]string, error) {
	for _, f := range s.files() {
		p := filepath.Join(dir, f[0])
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s exists: init never overwrites secrets (data sealed with those keys would be lost); remove it yourself if it is unused", p)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range s.files() {
		p := filepath.Join(dir, f[0])
		err := writeExclusive(p, f[1]+"\n")
		if err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return nil, err
		}
		written = append(written, p)
	}
	return written, nil
}

// writeExclusive creates path (mode 0600) with text, refusing an existing
// file.
func writeExclusive(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// initDatabase migrates the database with the new keys, keeps the clinic's
// settings and creates the first admin with a generated password, which it
// returns. A database that already has staff users is refused: it is not a
// new installation's.
func initDatabase(ctx context.Context, db *dbFlags, admin string, settings map[string]string) (string, error) {
	if err := mkdirFor(db.url); err != nil {
		return "", err
	}
	store, err := db.open(ctx)
	if err != nil {
		return "", err
	}
	defer store.Close()
	if _, err := store.StaffPasswordHash(ctx, admin); err == nil {
		return "", fmt.Errorf("the staff user %s exists already: this database is not a new installation's", admin)
	} else if booking.ErrorCode(err) != booking.CodeNotFound {
		return "", err
	}
	raw := make([]byte, 15)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	password := strings.ToLower(base32.StdEncoding.EncodeToString(raw)) // 24 characters, 120 bits
	hash, err := accounts.HashPassword(password)
	if err != nil {
		return "", err
	}
	if err := store.SetClinicSettings(ctx, settings); err != nil {
		return "", err
	}
	if err := store.SetStaffPassword(ctx, admin, hash, time.Now()); err != nil {
		return "", err
	}
	return password, nil
}

// useClinicSettings sets each of fs's clinic-setting flags that neither the
// command line nor the environment set (parse has run) to the value kept
// in the database, if any.
func useClinicSettings(ctx context.Context, fs *flag.FlagSet, store store) error {
	kept, err := store.ClinicSettings(ctx)
	if err != nil {
		return fmt.Errorf("reading the clinic's settings: %w", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, n := range clinicSettingFlags {
		v, ok := kept[n]
		if !ok || set[n] || fs.Lookup(n) == nil {
			continue
		}
		if err := fs.Set(n, v); err != nil {
			return fmt.Errorf("the clinic's setting %s (kept by slotd init): %w", n, err)
		}
	}
	return nil
}
