package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/slotd/slotd/booking"
)

// sqlstateDeadlock is PostgreSQL's deadlock_detected.
const sqlstateDeadlock = "40P01"

// translate turns a driver error into what booking.Store promises: an
// *booking.Error for conditions the caller can act on (notFound names the kind
// of object a pgx.ErrNoRows stands for), an error wrapping
// booking.ErrUnavailable when the database cannot be reached or did not
// answer in time, and the error itself (an internal error) otherwise. The
// driver error is kept in Err for the logs, never in Message.
func translate(err error, notFound string) error {
	if err == nil {
		return nil
	}
	var be *booking.Error
	if errors.As(err, &be) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) && notFound != "" {
		e := booking.NotFound(notFound)
		e.Err = err
		return e
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if e := booking.ConstraintError(pe.ConstraintName, 0); e != nil {
			e.Err = err
			return e
		}
		switch {
		case pe.Code == "23514" || pe.Code == "23502" || strings.HasPrefix(pe.Code, "22"):
			// A CHECK or NOT NULL constraint without a mapping, or a value
			// PostgreSQL cannot store: the input was bad.
			return &booking.Error{Code: booking.CodeInvalidRequest, Message: "a value is out of range or malformed", Err: err}
		case unavailableState(pe.Code):
			return unavailable(err)
		}
		return err
	}
	if isUnavailable(err) {
		return unavailable(err)
	}
	return err
}

// unavailable wraps err so that both booking.ErrUnavailable and the cause
// match errors.Is.
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", booking.ErrUnavailable, err)
}

// unavailableState reports SQLSTATEs that mean the server cannot serve us
// now rather than that the request is wrong: connection exceptions, the
// server shutting down or starting, too many connections, a statement
// cancelled (statement_timeout or our context), and a read-only transaction:
// a standby answered, as during a failover when the proxy already sends to
// the node being promoted.
func unavailableState(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"):
		return true
	case code == "57P01", code == "57P02", code == "57P03", code == "53300", code == "57014", code == "25006":
		return true
	}
	return false
}

// isUnavailable reports errors of the connection rather than of the SQL.
func isUnavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if pgconn.Timeout(err) || pgconn.SafeToRetry(err) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	// pgx and its pool report a closed connection or pool with plain errors.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "closed pool")
}

// constraintOf returns the name of the constraint a statement violated, or "".
func constraintOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.ConstraintName
	}
	return ""
}

// retryAlone reports whether a failed batch should be decided again one
// request at a time: a mapped constraint fired (a race with a transaction on
// another slot, or a patient that does not exist) or a deadlock between two
// batches that insert the same (patient, key) pairs in different orders.
func retryAlone(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	if pe.Code == sqlstateDeadlock {
		return true
	}
	switch pe.ConstraintName {
	case booking.ConPatientKey, booking.ConNoOverlap, booking.ConSlotPatientActive, booking.ConSlotCapacity,
		booking.ConAppointmentPatient, booking.ConRoundQuota:
		return true
	}
	return false
}
