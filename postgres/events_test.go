package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestRelayMissesNoLateCommit: the log's ids are drawn before commit, so
// an entry can commit after entries with larger ids. The relay reads in
// windows of commits, not after the last id: the late entry is published
// once its transaction commits, never skipped, and nothing is published
// twice; pages smaller than a window and a partly confirmed page go on
// where they stopped; what an earlier version left in outbox_events goes
// first.
func TestRelayMissesNoLateCommit(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.StartEvents(ctx))
	// An entry as sqlInsertAudit writes it, its id returned.
	const entry = `INSERT INTO audit_log (at, actor_role, actor_id, entity, entity_id, action, after, patient_id, tx)
		VALUES (now(), 'system', '-', 'appointment', $1, 'book', jsonb_build_object('status', 'BOOKED', 'slotId', 1, 'patientId', 2), 2,
			(SELECT pg_current_xact_id() FROM event_cursor)) RETURNING id`
	var published []int64
	relay := func(limit, confirm int) int {
		t.Helper()
		n, err := s.RelayEvents(ctx, limit, func(evs []booking.Event) (int, error) {
			for _, e := range evs[:min(confirm, len(evs))] {
				published = append(published, e.AppointmentID)
			}
			return min(confirm, len(evs)), nil
		})
		must(err)
		return n
	}

	// An earlier version's unpublished event.
	_, err := s.Pool().Exec(ctx, `INSERT INTO outbox_events (type, appointment_id, slot_id, patient_id, status, occurred_at)
		VALUES ('slotd.appointment.booked.v1', 100, 1, 2, 'BOOKED', now())`)
	must(err)

	late, err := s.Pool().Begin(ctx)
	must(err)
	defer late.Rollback(ctx)
	var lateID int64
	must(late.QueryRow(ctx, entry, 1).Scan(&lateID))
	for appt := 2; appt <= 4; appt++ {
		var id int64
		must(s.Pool().QueryRow(ctx, entry, appt).Scan(&id))
		if id <= lateID {
			t.Fatalf("entry %d drew id %d, not above the open transaction's %d", appt, id, lateID)
		}
	}
	if n := relay(10, 10); n != 1 {
		t.Fatalf("first round published %d, want the outbox's one event", n)
	}
	// A page of 2 of the 3 committed, and of those only 1 confirmed.
	if n := relay(2, 1); n != 1 {
		t.Fatalf("a partly confirmed page: %d", n)
	}
	relay(10, 10)
	must(late.Commit(ctx))
	if backlog, err := s.EventBacklog(ctx); err != nil || backlog != 1 {
		t.Fatalf("backlog %d (%v) with the late entry committed, want 1", backlog, err)
	}
	relay(10, 10)
	relay(10, 10)
	if want := []int64{100, 2, 3, 4, 1}; !slices.Equal(published, want) {
		t.Fatalf("published appointments %v, want %v: each once, the late one after it committed", published, want)
	}
	if backlog, err := s.EventBacklog(ctx); err != nil || backlog != 0 {
		t.Fatalf("backlog %d (%v) after everything was published", backlog, err)
	}

	// Many pages of one window: all of it, once, in id order.
	published = nil
	for appt := 1; appt <= 1200; appt++ {
		_, err := s.Pool().Exec(ctx, entry, 1000+appt)
		must(err)
	}
	deadline := time.Now().Add(time.Minute)
	for len(published) < 1200 && time.Now().Before(deadline) {
		relay(500, 500)
	}
	for i, a := range published {
		if a != int64(1001+i) {
			t.Fatalf("published %d: appointment %d, want %d (%d in all)", i, a, 1001+i, len(published))
		}
	}
	if relay(500, 500) != 0 || len(published) != 1200 {
		t.Fatalf("%d published, want 1200 and no more", len(published))
	}
}

// TestAuditNamesItsTransactionOnceARelayStarted: without a relay the
// audit rows carry no transaction id, so a clinic without brokers writes
// no entry in the relay's index; once one started, every row does.
func TestAuditNamesItsTransactionOnceARelayStarted(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	write := func() {
		t.Helper()
		tx, err := s.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		a := booking.Appointment{ID: 1, SlotID: 1, PatientID: 1, Status: booking.StatusBooked}
		if err := writeAudit(ctx, tx, booking.AuditAppointment(ctx, time.Now(), booking.AppointmentChange{Action: "book", Appointment: a})); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if err := s.StartEvents(ctx); err != nil {
		t.Fatal(err)
	}
	write()
	var without, with int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE tx IS NULL), count(*) FILTER (WHERE tx IS NOT NULL) FROM audit_log`).Scan(&without, &with); err != nil {
		t.Fatal(err)
	}
	if without != 1 || with != 1 {
		t.Fatalf("%d rows without a transaction id and %d with, want 1 before the relay started and 1 after", without, with)
	}
}
