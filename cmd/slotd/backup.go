package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// exitUsePgTools is backup's and restore's status on PostgreSQL, whose
// backups are the server's business (pg_dump, pgBackRest).
const exitUsePgTools = 2

const pgBackupAdvice = `slotd backs up only its embedded SQLite database. On PostgreSQL use the
server's own tools: pg_dump -Fc (a logical copy, restored with pg_restore)
or, for point-in-time recovery, pgBackRest or WAL archiving with
pg_basebackup. Then run 'slotd migrate' and 'slotd reconcile' against the
restored database. Either way keep the data keys (SLOTD_DATA_KEYS) and the
auth secret with, but apart from, the database's backups: they are never
inside them, and without the data keys the patients' personal data is lost.`

// runBackup copies the SQLite database, consistent while a server serves
// and writes it, to a new file. The data keys are not in the copy.
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	to := fs.String("to", "", "the backup file to write (must not exist)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if isPostgres(db.url) {
		fmt.Fprintln(stderr, pgBackupAdvice)
		return &exitStatus{code: exitUsePgTools, msg: "backup: use pg_dump or pgBackRest for PostgreSQL"}
	}
	path := sqlitePath(db.url)
	if path == "" {
		return fmt.Errorf("--db %q: want sqlite:PATH", db.url)
	}
	if *to == "" {
		return errors.New("give --to FILE")
	}
	start := time.Now()
	if err := sqlite.Backup(ctx, path, *to); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup of %s written to %s in %s\n", path, *to, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stdout, "the data keys are not in it: keep %s (or SLOTD_DATA_KEYS) and the auth secret safe, apart from it\n", keySource(&db))
	return nil
}

// keySource names where the data keys of db come from, for a message.
func keySource(db *dbFlags) string {
	if db.dataKeys != "" {
		return "--data-keys"
	}
	return sqlite.KeyFileOf(sqlitePath(db.url))
}

// runRestore puts a backup back as the SQLite database: it checks the copy
// (a whole database), migrates it to this binary's schema, checks that the
// data keys open its sealed data and runs the reconciliation, all on a
// copy beside the database; only then does the copy replace the database,
// whose former file is kept aside. The server must be stopped meanwhile.
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	from := fs.String("from", "", "the backup file (slotd backup --to) to restore")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if isPostgres(db.url) {
		fmt.Fprintln(stderr, pgBackupAdvice)
		return &exitStatus{code: exitUsePgTools, msg: "restore: use pg_restore or pgBackRest for PostgreSQL"}
	}
	path := sqlitePath(db.url)
	if path == "" {
		return fmt.Errorf("--db %q: want sqlite:PATH", db.url)
	}
	if *from == "" {
		return errors.New("give --from FILE")
	}
	if err := sqlite.CheckBackup(ctx, *from); err != nil {
		return err
	}
	// The keys are not in the backup: they must be where the server will
	// find them, or the sealed data could not be read.
	if db.dataKeys == "" {
		if _, err := os.Stat(sqlite.KeyFileOf(path)); err != nil {
			return fmt.Errorf("no data keys: put the data-keys file kept with the backups at %s, or give --data-keys (SLOTD_DATA_KEYS_FILE); the backup does not hold them", sqlite.KeyFileOf(path))
		}
	}
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	staged := path + ".restoring"
	for _, p := range sqliteFiles(staged) {
		os.Remove(p) // an interrupted earlier restore's
	}
	if err := copyFile(*from, staged); err != nil {
		return err
	}
	check := db
	check.url = "sqlite:" + staged
	rep, err := checkRestored(ctx, &check, stdout)
	if err != nil {
		for _, p := range sqliteFiles(staged) {
			os.Remove(p)
		}
		return fmt.Errorf("restore: the backup was not put in place: %w", err)
	}
	aside := ""
	if _, err := os.Stat(path); err == nil {
		aside = fmt.Sprintf("%s.before-restore-%s", path, time.Now().UTC().Format("20060102T150405Z"))
		for i, p := range sqliteFiles(path) {
			if err := os.Rename(p, sqliteFiles(aside)[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("restore: moving the database aside: %w", err)
			}
		}
	}
	if err := os.Rename(staged, path); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s from %s\n", path, *from)
	if aside != "" {
		fmt.Fprintf(stdout, "the former database is kept as %s\n", aside)
	}
	if rep.Violations() > 0 {
		return &exitStatus{code: 1, msg: "restore: the restored database breaks invariants (see the report; slotd reconcile --repair)"}
	}
	return nil
}

// checkRestored migrates the staged copy, reads every patient's sealed
// data with the keys and runs the reconciliation, printing its report.
func checkRestored(ctx context.Context, db *dbFlags, stdout io.Writer) (booking.Reconciliation, error) {
	var none booking.Reconciliation
	pending, err := db.pendingMigrations(ctx)
	if err != nil {
		return none, err
	}
	fmt.Fprintf(stdout, "migrations the backup lacks: %d\n", len(pending))
	// open migrates, then checks the keys against the database's check
	// values (a lost or wrong key is an error).
	store, err := db.open(ctx)
	if err != nil {
		return none, err
	}
	defer store.Close()
	keys, err := restoreKeys(db)
	if err != nil {
		return none, err
	}
	used, err := store.SealedWith(ctx)
	if err != nil {
		return none, err
	}
	for id, n := range used {
		if !keys.Has(id) {
			return none, fmt.Errorf("%d patients are sealed with data key %d, which the keys given lack", n, id)
		}
	}
	patients := 0
	for after := int64(0); ; {
		ps, err := store.ListPatients(ctx, after, 500)
		if err != nil {
			return none, fmt.Errorf("the data keys do not open the sealed data: %w", err)
		}
		if len(ps) == 0 {
			break
		}
		patients += len(ps)
		after = ps[len(ps)-1].ID
	}
	fmt.Fprintf(stdout, "data keys open the sealed data of all %d patients\n", patients)
	svc := service.NewService(store, service.Options{Timeout: time.Hour})
	rep, err := svc.Reconcile(ctx, false)
	if err != nil {
		return none, err
	}
	printReconciliation(stdout, rep, false)
	return rep, nil
}

// restoreKeys returns the keys db opens with.
func restoreKeys(db *dbFlags) (*pii.Keys, error) {
	if db.dataKeys == "" {
		return pii.LoadOrCreate(sqlite.KeyFileOf(sqlitePath(db.url))) // runRestore checked it exists
	}
	return pii.Parse(db.dataKeys)
}

// sqliteFiles are a database's file and its WAL companions.
func sqliteFiles(path string) [3]string {
	return [3]string{path, path + "-wal", path + "-shm"}
}

// copyFile copies from to the new file to (mode 0600), synced.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(to))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
