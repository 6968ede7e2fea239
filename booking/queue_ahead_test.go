package booking

import (
	"testing"
	"time"
)

// TestQueueAheadNotice: the n-th of the order after a call is told, as
// Position counts those ahead; off at 0, nobody when fewer wait.
func TestQueueAheadNotice(t *testing.T) {
	start := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	var d QueueDay
	for i := 1; i <= 4; i++ {
		d.Entries = append(d.Entries, QueueEntry{AppointmentID: int64(i), Status: StatusArrived, QueueNumber: i, StartAt: start, Step: QueueWaiting})
	}
	id, ok := QueueAheadNotice(d, 3, 3)
	if !ok || id != 4 || d.Position(id, 3).Ahead != 3 {
		t.Fatalf("3 ahead: %d %v", id, ok)
	}
	if _, ok := QueueAheadNotice(d, 3, 0); ok {
		t.Fatal("0 is off")
	}
	if _, ok := QueueAheadNotice(d, 3, 4); ok {
		t.Fatal("four waiting: nobody has four ahead")
	}
}
