package sqlite

// Placeholder while issue 4 is implemented: delete with lifecycle_pending.go.

import (
	"testing"

	"github.com/slotd/slotd/booking"
)

// Notifications is the harness's outbox reader (placeholder, see above).
func (i inspector) Notifications(testing.TB) []booking.Notification { return nil }
