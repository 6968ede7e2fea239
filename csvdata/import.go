package csvdata

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// The import's file kinds, told by their header line (columns in order).
var headers = map[string][]string{
	"departments": {"department"},
	"doctors":     {"doctor", "department", "timezone"},
	"schedules":   {"doctor", "department", "weekdays", "start", "end", "slot_minutes", "capacity", "fee_cents", "horizon_days"},
	"patients":    {"patient", "phone", "email"},
}

// Kinds lists the header of each kind of file, for help texts.
func Kinds() map[string]string {
	out := map[string]string{}
	for k, h := range headers {
		out[k] = strings.Join(h, ",")
	}
	return out
}

// Bounds of an import.
const (
	MaxImportRows  = 5000
	MaxImportBytes = 2 << 20
	maxCell        = 200
	maxErrors      = 100
)

// limited reads at most n bytes and then fails with CodePayloadTooLarge,
// rather than end the file early as io.LimitReader would.
type limited struct {
	r io.Reader
	n int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, booking.Errorf(booking.CodePayloadTooLarge, "the file exceeds %d bytes", MaxImportBytes)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n+1] // one byte more tells a file of exactly n bytes from a longer one
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	if l.n < 0 {
		return 0, booking.Errorf(booking.CodePayloadTooLarge, "the file exceeds %d bytes", MaxImportBytes)
	}
	return k, err
}

// LineError is one refused line (1 is the header). Message is English (the
// API and `slotd import` show it); Key and Args are the sentence it was
// made from, for a front end to show in its reader's language (the key of
// i18n's catalogs is the English format), so this package needs no
// knowledge of languages.
type LineError struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
	Key     string `json:"-"`
	Args    []any  `json:"-"`
}

// lineError makes the LineError of line from a sentence and its arguments.
func lineError(line int, key string, args ...any) LineError {
	return LineError{Line: line, Message: fmt.Sprintf(key, args...), Key: key, Args: args}
}

// Report is what an import did, or with DryRun would do.
type Report struct {
	Kind   string      `json:"kind"`
	DryRun bool        `json:"dryRun"`
	Rows   int         `json:"rows"`
	Create int         `json:"created"`
	Exist  int         `json:"existing"`
	Errors []LineError `json:"errors"`
}

// Finder is what an import reads to find what exists: the catalog and
// patients by phone (accounts.Store).
type Finder interface {
	// ListAllDepartments and ListAllDoctors include the empty and the
	// deactivated: a re-run must not create either again.
	ListAllDepartments(ctx context.Context, p booking.Page) ([]booking.Department, error)
	ListAllDoctors(ctx context.Context, departmentID int64, p booking.Page) ([]booking.Doctor, error)
	ListSchedules(ctx context.Context, doctorID int64) ([]booking.Schedule, error)
	PatientByPhone(ctx context.Context, phone string) (booking.Patient, error)
}

// File is one CSV file to import, and whether the import is a DryRun.
type File struct {
	CSV    io.Reader
	DryRun bool
}

// Import reads one CSV file and creates, through svc, each of its records
// that does not exist yet: departments by name, doctors by name within a
// department, schedules by doctor, weekdays and hours, patients by phone.
// Running it again creates nothing. With f.DryRun it checks every line and
// counts what it would create, changing nothing. A line that cannot be
// imported is reported with its number and the others still are; an
// unreadable file or unknown header is an error of line 1.
func Import(ctx context.Context, svc *service.Service, find Finder, f File) (Report, error) {
	r, dryRun := f.CSV, f.DryRun
	rep := Report{DryRun: dryRun, Errors: []LineError{}}
	cr := csv.NewReader(&limited{r: r, n: MaxImportBytes})
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if be, ok := errors.AsType[*booking.Error](err); ok {
		return rep, be
	}
	if err != nil {
		return rep, booking.Errorf(booking.CodeInvalidRequest, "line 1: not a CSV header: %s", csvErr(err))
	}
	for i := range head {
		head[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff")))
	}
	for k, h := range headers {
		if slices.Equal(h, head) {
			rep.Kind = k
		}
	}
	if rep.Kind == "" {
		return rep, booking.Errorf(booking.CodeInvalidRequest, "line 1: unknown header %q; expected one of: departments (%s), doctors (%s), schedules (%s), patients (%s)",
			strings.Join(head, ","), strings.Join(headers["departments"], ","), strings.Join(headers["doctors"], ","),
			strings.Join(headers["schedules"], ","), strings.Join(headers["patients"], ","))
	}
	im, err := newImporter(ctx, svc, find, rep.Kind)
	if err != nil {
		return rep, err
	}
	im.dry = dryRun
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return rep, err
			}
			k := csvErr(err)
			le := LineError{Line: pe.StartLine, Message: k, Key: k}
			if pe.Err == csv.ErrFieldCount {
				le = lineError(pe.StartLine, "expected %d columns (%s)", len(head), strings.Join(head, ","))
			}
			rep.Errors = append(rep.Errors, le)
			if pe.Err != csv.ErrFieldCount {
				break // the rest cannot be read reliably
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rep.Errors) >= maxErrors {
			rep.Errors = append(rep.Errors, lineError(line, "too many refused lines: fix those above and run again"))
			break
		}
		rep.Rows++
		if rep.Rows > MaxImportRows {
			return rep, booking.Errorf(booking.CodeInvalidRequest, "line %d: at most %d rows per file", line, MaxImportRows)
		}
		created, err := im.row(ctx, rec)
		switch {
		case err != nil:
			rep.Errors = append(rep.Errors, lineErrorOf(line, err))
		case created:
			rep.Create++
		default:
			rep.Exist++
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	return rep, nil
}

// csvErr is the sentence of a CSV syntax error.
func csvErr(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		switch pe.Err {
		case csv.ErrBareQuote:
			return "a \" inside a cell that is not quoted"
		case csv.ErrQuote:
			return "a quoted cell lacks its closing \" or has a stray one"
		}
	}
	return "unreadable CSV"
}

// lineErrorOf is what a line's error tells the person importing: a
// booking.Error's sentence (with its arguments, as made), else a generic one.
func lineErrorOf(line int, err error) LineError {
	if e, ok := errors.AsType[*booking.Error](err); ok {
		if e.Format == "" {
			return LineError{Line: line, Message: e.Message, Key: e.Message}
		}
		return LineError{Line: line, Message: e.Message, Key: e.Format, Args: e.Args}
	}
	if errors.Is(err, booking.ErrUnavailable) {
		return lineError(line, "the database is unavailable; run the import again")
	}
	return lineError(line, "internal error")
}

// importer holds what exists, updated as lines create (or, in a dry run,
// would create) records, so that a duplicate line counts once.
type importer struct {
	svc   *service.Service
	find  Finder
	kind  string
	dry   bool
	depts map[string]int64    // name → id (-1: would be created)
	docs  map[[2]string]int64 // (department name, doctor name) → id
	sched map[string]bool     // schedule key
	phone map[string]bool
}

func newImporter(ctx context.Context, svc *service.Service, find Finder, kind string) (*importer, error) {
	im := &importer{svc: svc, find: find, kind: kind, depts: map[string]int64{}, docs: map[[2]string]int64{},
		sched: map[string]bool{}, phone: map[string]bool{}}
	if kind == "patients" {
		return im, nil
	}
	ds, err := find.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, d := range ds {
		im.depts[strings.ToLower(d.Name)] = d.ID
		names[d.ID] = strings.ToLower(d.Name)
	}
	if kind == "departments" {
		return im, nil
	}
	docs, err := find.ListAllDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		im.docs[[2]string{names[d.DepartmentID], strings.ToLower(d.Name)}] = d.ID
	}
	if kind == "schedules" {
		ss, err := find.ListSchedules(ctx, 0)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			im.sched[schedKey(s)] = true
		}
	}
	return im, nil
}

func schedKey(s booking.Schedule) string {
	m, _ := booking.WeekdayMask(s.Weekdays)
	return fmt.Sprint(s.DoctorID, "|", m, "|", s.StartTime, "|", s.EndTime)
}

func invalid(format string, args ...any) error {
	return booking.Errorf(booking.CodeInvalidRequest, format, args...)
}

// cell trims and checks one cell: printable, bounded, never a formula.
func cell(v, name string, required bool) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "" && required:
		return "", invalid("%s is required", name)
	case utf8.RuneCountInString(v) > maxCell || !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", invalid("%s must be at most %d printable characters", name, maxCell)
	case unsafe(v):
		return "", invalid("%s must not start with = + - @ (a spreadsheet formula)", name)
	}
	return v, nil
}

// row imports one record and says whether it was (or would be) created.
func (im *importer) row(ctx context.Context, rec []string) (bool, error) {
	switch im.kind {
	case "departments":
		return im.department(ctx, rec)
	case "doctors":
		return im.doctor(ctx, rec)
	case "schedules":
		return im.schedule(ctx, rec)
	}
	return im.patient(ctx, rec)
}

func (im *importer) department(ctx context.Context, rec []string) (bool, error) {
	name, err := cell(rec[0], "department", true)
	if err != nil {
		return false, err
	}
	if _, ok := im.depts[strings.ToLower(name)]; ok {
		return false, nil
	}
	id := int64(-1)
	if !im.dry {
		d, err := im.svc.CreateDepartment(ctx, booking.Department{Name: name})
		if err != nil {
			return false, err
		}
		id = d.ID
	}
	im.depts[strings.ToLower(name)] = id
	return true, nil
}

// deptID finds a department named in a line; it must exist already (the
// departments file is imported first).
func (im *importer) deptID(v string) (string, int64, error) {
	name, err := cell(v, "department", true)
	if err != nil {
		return "", 0, err
	}
	id, ok := im.depts[strings.ToLower(name)]
	if !ok {
		return "", 0, invalid("no department %q: import the departments first", name)
	}
	return strings.ToLower(name), id, nil
}

func (im *importer) doctor(ctx context.Context, rec []string) (bool, error) {
	name, err := cell(rec[0], "doctor", true)
	if err != nil {
		return false, err
	}
	dept, deptID, err := im.deptID(rec[1])
	if err != nil {
		return false, err
	}
	tz, err := cell(rec[2], "timezone", true)
	if err != nil {
		return false, err
	}
	if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
		return false, invalid("timezone must be an IANA time zone such as Europe/Berlin")
	}
	key := [2]string{dept, strings.ToLower(name)}
	if _, ok := im.docs[key]; ok {
		return false, nil
	}
	id := int64(-1)
	if !im.dry {
		d, err := im.svc.CreateDoctor(ctx, booking.Doctor{Name: name, DepartmentID: deptID, TimeZone: tz})
		if err != nil {
			return false, err
		}
		id = d.ID
	}
	im.docs[key] = id
	return true, nil
}

var weekdayNames = map[string]time.Weekday{"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday,
	"wed": time.Wednesday, "thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday}

func (im *importer) schedule(ctx context.Context, rec []string) (bool, error) {
	name, err := cell(rec[0], "doctor", true)
	if err != nil {
		return false, err
	}
	dept, _, err := im.deptID(rec[1])
	if err != nil {
		return false, err
	}
	docID, ok := im.docs[[2]string{dept, strings.ToLower(name)}]
	if !ok {
		return false, invalid("no doctor %q in department %q: import the doctors first", name, rec[1])
	}
	sc := booking.Schedule{DoctorID: docID}
	for _, w := range strings.FieldsFunc(strings.ToLower(rec[2]), func(r rune) bool { return r == ';' || r == ' ' || r == '|' }) {
		d, ok := weekdayNames[w]
		if !ok {
			return false, invalid("weekdays must be names such as mon;thu, not %q", w)
		}
		sc.Weekdays = append(sc.Weekdays, d)
	}
	if sc.StartTime, err = cell(rec[3], "start", true); err != nil {
		return false, err
	}
	if sc.EndTime, err = cell(rec[4], "end", true); err != nil {
		return false, err
	}
	ints := []struct {
		v    string
		name string
		dst  *int
	}{{rec[5], "slot_minutes", &sc.SlotMinutes}, {rec[6], "capacity", &sc.Capacity}, {rec[8], "horizon_days", &sc.HorizonDays}}
	for _, f := range ints {
		if strings.TrimSpace(f.v) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f.v))
		if err != nil {
			return false, invalid("%s must be a whole number", f.name)
		}
		*f.dst = n
	}
	if v := strings.TrimSpace(rec[7]); v != "" {
		if sc.FeeCents, err = strconv.ParseInt(v, 10, 64); err != nil || sc.FeeCents < 0 || sc.FeeCents > booking.MaxFeeCents {
			return false, invalid("fee_cents must be 0 to %d", booking.MaxFeeCents)
		}
	}
	if err := schedule.Normalize(&sc); err != nil {
		return false, err
	}
	key := schedKey(sc)
	if im.sched[key] {
		return false, nil
	}
	if docID > 0 && !im.dry {
		if _, _, err := im.svc.CreateSchedule(ctx, sc); err != nil {
			return false, err
		}
	}
	im.sched[key] = true
	return true, nil
}

func (im *importer) patient(ctx context.Context, rec []string) (bool, error) {
	name, err := cell(rec[0], "patient", true)
	if err != nil {
		return false, err
	}
	// The one normalization (E.164, national numbers in the clinic's
	// region): nothing a spreadsheet runs (exports quote the +).
	phone := im.svc.NormalizePhone(rec[1])
	if phone == "" {
		return false, invalid("phone must be a telephone number (national in the clinic's region, or with +country code)")
	}
	email, err := cell(rec[2], "email", false)
	if err != nil {
		return false, err
	}
	if email != "" && (!strings.Contains(email, "@") || strings.ContainsAny(email, " ,;")) {
		return false, invalid("email must be an address such as name@example.org")
	}
	if im.phone[phone] {
		return false, nil
	}
	switch _, err := im.find.PatientByPhone(ctx, phone); {
	case err == nil:
		im.phone[phone] = true
		return false, nil
	case booking.ErrorCode(err) != booking.CodeNotFound:
		return false, err
	}
	if !im.dry {
		if _, err := im.svc.CreatePatient(ctx, booking.Patient{Name: name, Phone: phone, Email: email}); err != nil {
			return false, err
		}
	}
	im.phone[phone] = true
	return true, nil
}
