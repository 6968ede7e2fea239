package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/slotd/slotd/booking"
)

// The states a client may retry are unavailable (503 with Retry-After);
// the others stay what they are.
func TestUnavailableStates(t *testing.T) {
	for code, want := range map[string]bool{
		"08006": true, // connection failure
		"57P01": true, // admin shutdown
		"57P03": true, // cannot connect now (starting)
		"25006": true, // read-only transaction: a standby during a failover
		"53300": true, // too many connections
		"23505": false,
		"22P02": false,
	} {
		err := translate(&pgconn.PgError{Code: code}, "")
		if got := errors.Is(err, booking.ErrUnavailable); got != want {
			t.Errorf("SQLSTATE %s: unavailable %v, want %v (%v)", code, got, want, err)
		}
	}
}
