package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database at path to the new file
// to, while other processes (a serving slotd) go on reading and writing
// it: VACUUM INTO reads one snapshot (a WAL read transaction, which
// blocks no writer) and writes it compacted. The copy is written beside to
// and renamed into place once synced, so that to is a whole backup or
// absent. The data keys are never in it: the key file beside the database
// is not copied, and the database holds only their check values.
func Backup(ctx context.Context, path, to string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("sqlite: backup: %s exists: choose a new file", to)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	tmp := to + ".partial"
	os.Remove(tmp) // a crashed earlier attempt's
	db, err := sql.Open("sqlite", dsn(path, ""))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		os.Remove(tmp)
		return mapErr(fmt.Errorf("sqlite: backup: %w", err), "")
	}
	if err := syncFile(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, to); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return syncFile(filepath.Dir(to))
}

// CheckBackup tells whether the file at path is a whole SQLite database
// (PRAGMA quick_check), reading it only.
func CheckBackup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	defer db.Close()
	var verdict string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&verdict); err != nil {
		return fmt.Errorf("sqlite: %s is no SQLite database: %w", path, err)
	}
	if verdict != "ok" {
		return fmt.Errorf("sqlite: %s is damaged: %s", path, verdict)
	}
	return nil
}

// syncFile fsyncs a file or directory.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sqlite: sync %s: %w", path, err)
	}
	return nil
}
