package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/slotd/slotd/booking"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite names a failed CHECK (all are named in the schema as on
// PostgreSQL, see booking/constraints.go) and a failed trigger (RAISE
// text), but a failed UNIQUE only by its columns (uniqueByColumns
// translates) and a failed foreign key not at all (conForeignKey: the
// caller names the missing kind).
const (
	conForeignKey       = "foreign_key"
	conSuspensionPeriod = "suspensions_period_key"
)

// uniqueByColumns maps the column list SQLite reports for a failed UNIQUE
// ("UNIQUE constraint failed: <this>") to the constraint's name. The column
// lists are distinct by design of the schema.
var uniqueByColumns = map[string]string{
	"departments.name":                  booking.ConDepartmentName,
	"services.name":                     booking.ConServiceName,
	"sites.name":                        booking.ConSiteName,
	"slots.resource_id, slots.start_at": booking.ConSlotResourceStart,
	"appointments.patient_id, appointments.idempotency_key": booking.ConPatientKey,
	"appointments.slot_id, appointments.patient_id":         booking.ConSlotPatientActive,
	"appointments.slot_id, appointments.queue_no":           booking.ConSlotQueueActive,
	"payments.trade_no":          booking.ConPaymentTrade,
	"patients.phone_index":       booking.ConPatientPhone,
	"patients.national_id_index": booking.ConPatientNationalID,
	"suspensions.resource_id, suspensions.from_at, suspensions.to_at":   conSuspensionPeriod,
	"round_applications.patient_id, round_applications.idempotency_key": booking.ConApplicationKey,
	"openings.schedule_id, openings.opens_at":                           booking.ConOpeningSchedule,
}

// constraintName tells which constraint err violated, by the name the
// PostgreSQL schema uses, or "" when err is not a constraint violation.
// It is the one place that reads SQLite's error text.
func constraintName(err error) string {
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_CONSTRAINT {
		return ""
	}
	msg := se.Error()
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return conForeignKey
	case sqlite3.SQLITE_CONSTRAINT_TRIGGER:
		if strings.Contains(msg, booking.ConNoOverlap) {
			return booking.ConNoOverlap
		}
		if strings.Contains(msg, booking.ConSlotNoOverlap) {
			return booking.ConSlotNoOverlap
		}
	}
	// The driver formats "<errstr>: <sqlite3_errmsg> (<code>)".
	for _, prefix := range []string{"UNIQUE constraint failed: ", "CHECK constraint failed: ", "NOT NULL constraint failed: "} {
		i := strings.Index(msg, prefix)
		if i < 0 {
			continue
		}
		rest := msg[i+len(prefix):]
		if j := strings.LastIndex(rest, " ("); j >= 0 {
			rest = rest[:j]
		}
		if prefix == "UNIQUE constraint failed: " {
			if name, ok := uniqueByColumns[rest]; ok {
				return name
			}
		}
		return rest
	}
	return "unknown"
}

// isCheck reports whether a constraint violation came from a CHECK (bad
// input, once the named cases are handled).
func isCheck(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_CHECK
}

// errDBClosedText is database/sql's message for a call on a closed *sql.DB.
// database/sql does not export that error, so it is recognised by its text.
const errDBClosedText = "sql: database is closed"

// unavailable reports whether err means the database could not be reached
// or did not answer in time: locked past busy_timeout, I/O failure, a file
// that cannot be opened, a store already closed (shutting down), or the
// caller's deadline.
func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	if strings.Contains(err.Error(), errDBClosedText) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR,
			sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL, sqlite3.SQLITE_INTERRUPT:
			return true
		}
	}
	return false
}

// bookingErr is the booking.Error for a violated constraint of Book.
func bookingErr(name string, slotID int64, cause error) error {
	if e := booking.ConstraintError(name, slotID); e != nil {
		e.Err = cause
		return e
	}
	return fmt.Errorf("sqlite: constraint %s violated: %w", name, cause)
}

// mapErr turns a driver error into the store's error vocabulary: a missing
// row is NotFound(kind), an unreachable or slow database wraps
// booking.ErrUnavailable, a unique name or (resource, start) is a conflict,
// a failed CHECK is an invalid request, a missing referenced row is
// NotFound, and anything else stays an internal error. Messages are ours;
// the driver's text stays in Err, for logs.
func mapErr(err error, kind string) error {
	if err == nil {
		return nil
	}
	var be *booking.Error
	if errors.As(err, &be) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) && kind != "" {
		return booking.NotFound(kind)
	}
	if unavailable(err) {
		return fmt.Errorf("%w: %v", booking.ErrUnavailable, err)
	}
	name := constraintName(err)
	if name == "" {
		return err
	}
	if e := booking.ConstraintError(name, 0); e != nil {
		e.Err = err
		return e
	}
	switch {
	case name == conForeignKey && kind != "":
		return &booking.Error{Code: booking.CodeNotFound, Message: kind + " not found", Err: err}
	case isCheck(err):
		return &booking.Error{Code: booking.CodeInvalidRequest, Message: "a value is out of range or malformed", Err: err}
	}
	return err
}
