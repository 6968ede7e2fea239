// Package postgres is booking.Store on PostgreSQL 15+ through pgx/v5: the
// source of truth in production. Its schema lives in migrations/ (applied by
// Migrate, never implicitly by Open) and its SQL is hand-written here.
//
// Capacity is decided by a conditional update of the slot's counter under
// the slot's row lock, one transaction per batch of requests; the schema's
// constraints (CHECK, partial unique indexes, exclusion) refuse whatever a
// bug would let through.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options configure Open.
type Options struct {
	// MaxConns caps the pool; default 20.
	MaxConns int32
	// WarmConns is how many connections the pool keeps open (its
	// MinConns) and Open establishes before it returns, each readied for
	// the booking batch when it is made (warmConn): an opening then
	// neither opens connections nor prepares and plans statements in its
	// first seconds. 0 (the default, tests and one-shot commands) opens
	// connections lazily and leaves them cold; at most MaxConns.
	WarmConns int32
	// ConnectTimeout bounds establishing one connection and the initial
	// ping, so that a database that is down is reported, not waited for.
	// Default 5s; a connect_timeout in the DSN wins for connections.
	ConnectTimeout time.Duration
	// Keys seal the patients' personal data (package pii); required.
	// Every instance of one database must be given the same keys.
	Keys *pii.Keys
	// Enqueue is the store's transactional outbox: every transaction that
	// changes state calls it with itself and the notifications it
	// announces (docs/contracts/lifecycle.md), before it commits, and only
	// when there is something to announce. An error from it rolls the
	// change back, so a committed change always has its messages and a
	// rolled-back one never does. nil enqueues nothing.
	Enqueue func(ctx context.Context, tx pgx.Tx, ns []booking.Notification) error
	// OutboxStatement is the booking batch's outbox: the one statement
	// that writes ns's job row, which Book sends with its writes and
	// COMMIT in one pipeline instead of calling Enqueue in a round trip
	// of its own. Other changes use Enqueue; Book falls back to it when nil.
	OutboxStatement func(ns []booking.Notification) (string, []any, error)
	// Events says a relay publishes the domain events (events.go): Open
	// starts its cursor when none has started, so that the changes from
	// then on are published. Off (the default), nothing is started.
	Events bool
}

// Store is booking.Store on a pgx connection pool.
type Store struct {
	pool *pgxpool.Pool
	keys *pii.Keys

	// racy makes Book read-then-write without the row lock. It exists only
	// so that the conformance suite can prove that its race tests fail on a
	// store that races; it is settable from tests only (export_test.go).
	racy bool

	// enqueue and outboxStmt are Options.Enqueue and
	// Options.OutboxStatement.
	enqueue    func(ctx context.Context, tx pgx.Tx, ns []booking.Notification) error
	outboxStmt func(ns []booking.Notification) (string, []any, error)
	// queries counts the queries and pipelines sent (Queries).
	queries *atomic.Int64
}

var _ booking.Store = (*Store)(nil)

// Open connects to the database at dsn (a postgres:// URL or key=value
// string) and checks that it answers. It does not migrate: run Migrate
// first. An unreachable database gives an error wrapping
// booking.ErrUnavailable.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.Keys == nil {
		return nil, errors.New("postgres: no data keys: set --data-keys or SLOTD_DATA_KEYS (every instance must share them)")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse DSN: %w", err)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 20
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 5 * time.Second
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	}
	queries := new(atomic.Int64)
	cfg.ConnConfig.Tracer = newTracer(queries)
	warm := min(max(opts.WarmConns, 0), opts.MaxConns)
	if warm > 0 {
		cfg.MinConns = warm
		cfg.AfterConnect = warmConn(opts.OutboxStatement)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, translate(fmt.Errorf("postgres: open: %w", err), "")
	}
	s := &Store{pool: pool, keys: opts.Keys, queries: queries,
		enqueue: opts.Enqueue, outboxStmt: opts.OutboxStatement}
	pctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	if err := s.Ping(pctx); err != nil {
		pool.Close()
		return nil, err
	}
	if opts.Events {
		if err := s.StartEvents(pctx); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if warm > 0 {
		// Longer than one connection's timeout: on a busy machine the
		// connections and their statements take a while all at once.
		wctx, wcancel := context.WithTimeout(ctx, 6*opts.ConnectTimeout)
		defer wcancel()
		if err := s.warmPool(wctx, int(warm)); err != nil {
			pool.Close()
			return nil, translate(fmt.Errorf("postgres: open %d warm connections: %w", warm, err), "")
		}
	}
	return s, nil
}

// Queries counts the queries and pipelines this store's pool sent since
// Open: with a read replica (--db-read) it tells, per pool, which database
// served what (slotd_db_queries_total).
func (s *Store) Queries() int64 { return s.queries.Load() }

// Migrate applies the embedded migrations to the database at dsn without
// data keys: enough for a database that has no patients yet (tests, a new
// deployment's first step); MigrateKeys otherwise.
func Migrate(ctx context.Context, dsn string) error { return MigrateKeys(ctx, dsn, nil) }

// MigrateKeys applies the embedded migrations to the database at dsn, 00016
// sealing existing personal data with keys, then checks keys against the
// database (a lost or wrong key is an error). Several processes may run it
// at once: a PostgreSQL session advisory lock held for the duration
// serializes them, and the later ones find nothing to do.
func MigrateKeys(ctx context.Context, dsn string, keys *pii.Keys) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	// Poll for the lock every second (goose's default is every 5s) for up
	// to 5 minutes, so that a second migrator waits briefly, not long.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithSessionLocker(locker),
		goose.WithGoMigrations(migrateSeal(keys)))
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return translate(fmt.Errorf("postgres: migrate: %w", err), "")
	}
	if keys == nil {
		return nil
	}
	// The data-key check, at every start (pii.CheckKeys decides).
	if err := pii.CheckKeys(ctx, db, keys, sqlInsertDataKey); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// stdlib registers the "pgx" database/sql driver that Migrate uses.
var _ = stdlib.GetDefaultDriver

// Pool returns the connection pool, for tests and tools that need raw SQL.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return translate(fmt.Errorf("postgres: ping: %w", err), "")
	}
	return nil
}

// Close releases the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// CreateDepartment adds a department; a taken name is a conflict.
func (s *Store) CreateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	if d.SiteID != 0 {
		// Checked rather than left to the foreign key, whose error would
		// not say which reference failed.
		if _, err := s.GetSite(ctx, d.SiteID); err != nil {
			return booking.Department{}, err
		}
	}
	d, err := createAudited(s, ctx, booking.EntityDepartment, scanDepartment,
		func(d booking.Department) (int64, any) {
			return d.ID, map[string]any{"name": d.Name, "siteId": d.SiteID}
		},
		`INSERT INTO departments (name, site_id) VALUES ($1, COALESCE(NULLIF($2, 0), (SELECT min(id) FROM sites)))
		 RETURNING `+departmentColumns, d.Name, d.SiteID)
	return d, translate(err, "")
}

const departmentColumns = `id, name, site_id, created_at`

func scanDepartment(r pgx.Row) (booking.Department, error) {
	var d booking.Department
	err := r.Scan(&d.ID, &d.Name, &d.SiteID, &d.CreatedAt)
	d.CreatedAt = d.CreatedAt.UTC()
	return d, err
}

// ListDepartments lists the departments with an active doctor, by id.
func (s *Store) ListDepartments(ctx context.Context, p booking.Page) ([]booking.Department, error) {
	return s.ListDepartmentsBy(ctx, booking.DepartmentFilter{}, p)
}

// ListAllDepartments is ListDepartments with the empty ones, for staff.
func (s *Store) ListAllDepartments(ctx context.Context, p booking.Page) ([]booking.Department, error) {
	return s.ListDepartmentsBy(ctx, booking.DepartmentFilter{All: true}, p)
}

// ListDepartmentsBy lists the departments f selects, by id.
func (s *Store) ListDepartmentsBy(ctx context.Context, f booking.DepartmentFilter, p booking.Page) ([]booking.Department, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+departmentColumns+` FROM departments d
		 WHERE d.id > $1 AND ($4::bigint = 0 OR d.site_id = $4) AND ($3 OR EXISTS (SELECT 1 FROM resources r
		       WHERE r.department_id = d.id AND r.kind = 'doctor' AND r.active))
		 ORDER BY id LIMIT NULLIF($2, 0)`,
		p.After, p.Limit, f.All, f.SiteID)
	ds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Department, error) { return scanDepartment(r) })
	return ds, translate(err, "")
}

const doctorColumns = `id, name, department_id, timezone, active, created_at, title, specialties, languages, bio,
	consulting_room, COALESCE((SELECT etag FROM doctor_photos WHERE doctor_id = resources.id), '')`

func scanDoctor(r pgx.Row) (booking.Doctor, error) {
	var d booking.Doctor
	var specialties, languages string
	err := r.Scan(&d.ID, &d.Name, &d.DepartmentID, &d.TimeZone, &d.Active, &d.CreatedAt,
		&d.Title, &specialties, &languages, &d.Bio, &d.ConsultingRoom, &d.Photo)
	d.CreatedAt = d.CreatedAt.UTC()
	d.Specialties, d.Languages = booking.SplitItems(specialties), booking.SplitItems(languages)
	return d, err
}

// CreateDoctor adds a doctor resource; an unknown department is not found.
func (s *Store) CreateDoctor(ctx context.Context, d booking.Doctor) (booking.Doctor, error) {
	d, err := createAudited(s, ctx, booking.EntityDoctor, scanDoctor,
		func(d booking.Doctor) (int64, any) { return d.ID, map[string]any{"departmentId": d.DepartmentID} },
		`INSERT INTO resources (kind, name, department_id, timezone) VALUES ('doctor', $1, $2, $3)
		 RETURNING `+doctorColumns, d.Name, d.DepartmentID, d.TimeZone)
	return d, translate(err, "")
}

// GetDoctor returns one doctor.
func (s *Store) GetDoctor(ctx context.Context, id int64) (booking.Doctor, error) {
	d, err := scanDoctor(s.pool.QueryRow(ctx,
		`SELECT `+doctorColumns+` FROM resources WHERE id = $1 AND kind = 'doctor'`, id))
	return d, translate(err, "doctor")
}

// ListDoctors lists the active doctors of a department, or all with
// departmentID 0, by id (a deactivated doctor is hidden from listings).
func (s *Store) ListDoctors(ctx context.Context, departmentID int64, p booking.Page) ([]booking.Doctor, error) {
	return s.ListDoctorsBy(ctx, booking.DoctorFilter{DepartmentID: departmentID}, p)
}

// ListAllDoctors is ListDoctors with the deactivated doctors, for staff.
func (s *Store) ListAllDoctors(ctx context.Context, departmentID int64, p booking.Page) ([]booking.Doctor, error) {
	return s.ListDoctorsBy(ctx, booking.DoctorFilter{DepartmentID: departmentID, All: true}, p)
}

// ListDoctorsBy lists the doctors f selects, by id.
func (s *Store) ListDoctorsBy(ctx context.Context, f booking.DoctorFilter, p booking.Page) ([]booking.Doctor, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+doctorColumns+` FROM resources
		 WHERE kind = 'doctor' AND (active OR $2) AND ($1::bigint = 0 OR department_id = $1) AND id > $3
		   AND ($5::bigint = 0 OR department_id IN (SELECT id FROM departments WHERE site_id = $5))
		 ORDER BY id LIMIT NULLIF($4, 0)`,
		f.DepartmentID, f.All, p.After, p.Limit, f.SiteID)
	ds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Doctor, error) { return scanDoctor(r) })
	return ds, translate(err, "")
}

const scheduleColumns = `id, resource_id, weekdays, start_time, end_time, slot_minutes, capacity,
	fee_cents, horizon_days, opens_at_time, hold_minutes, COALESCE(to_char(end_date, 'YYYY-MM-DD'), ''),
	max_active, max_per_day, cancel_cutoff_hours, no_show_limit, no_show_block_days, created_at,
	COALESCE(reminders, ''), COALESCE(offer_minutes, 0), COALESCE(to_char(generated_through, 'YYYY-MM-DD'), ''),
	refund_full_hours, refund_partial_percent, refund_partial_hours`

func scanSchedule(r pgx.Row) (booking.Schedule, error) {
	var (
		sc   booking.Schedule
		mask int16
	)
	o := &sc.Policy
	err := r.Scan(&sc.ID, &sc.DoctorID, &mask, &sc.StartTime, &sc.EndTime, &sc.SlotMinutes, &sc.Capacity,
		&sc.FeeCents, &sc.HorizonDays, &sc.OpensAtTime, &sc.HoldMinutes, &sc.EndDate,
		&o.MaxActive, &o.MaxPerDay, &o.CancelCutoffHours, &o.NoShowLimit, &o.NoShowBlockDays, &sc.CreatedAt,
		&sc.Reminders, &sc.OfferMinutes, &sc.GeneratedThrough,
		&o.RefundFullHours, &o.RefundPartialPercent, &o.RefundPartialHours)
	sc.Weekdays = booking.WeekdaysOf(mask)
	sc.CreatedAt = sc.CreatedAt.UTC()
	return sc, err
}

// CreateSchedule adds a schedule, filling the documented defaults for zero
// horizon, opening time and hold time; an unknown doctor is not found, and
// a schedule overlapping another of the doctor's is refused
// (booking.ScheduleOverlap) under the doctor's lock.
func (s *Store) CreateSchedule(ctx context.Context, sc booking.Schedule) (booking.Schedule, error) {
	return s.saveSchedule(ctx, sc, false)
}

// ListSchedules lists a doctor's schedules, or all with doctorID 0, by id.
func (s *Store) ListSchedules(ctx context.Context, doctorID int64) ([]booking.Schedule, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+scheduleColumns+` FROM schedules WHERE ($1::bigint = 0 OR resource_id = $1) ORDER BY id`, doctorID)
	ss, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Schedule, error) { return scanSchedule(r) })
	return ss, translate(err, "")
}
