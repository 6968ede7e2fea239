package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// The rules a store applies but does not make (docs/stores.md, "What it
// inherits"), where two stores could answer differently: the check and the
// defaults of a suspension, leaving the waiting list, what the expiry
// sweep triggers, a repeated join and the data-key check at start.

// auditOf lists the audit entries of one entity, newest first.
func auditOf(t testing.TB, s booking.Store, entity string, id int64) []booking.AuditEntry {
	t.Helper()
	es, err := s.ListAudit(context.Background(), booking.AuditFilter{Entity: entity, EntityID: id, Limit: booking.MaxAuditPage})
	must(t, err)
	return es
}

// countNotifications counts the committed notifications that match.
func countNotifications(t testing.TB, h Harness, s booking.Store, match func(booking.Notification) bool) int {
	t.Helper()
	n := 0
	for _, x := range h.Inspect(t, s).Notifications(t) {
		if match(x) {
			n++
		}
	}
	return n
}

// testSuspensionCheck: booking.CheckSuspension's check and defaults hold on
// both stores. The period is compared as stored (to the microsecond, in
// UTC), so no store records an empty one; the scope defaults to the
// doctor's; what the store sets (id, creation, lifting) is never taken
// from the request; the answer is what GetSuspension reads back.
func testSuspensionCheck(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	day := now.Add(12 * 24 * time.Hour)
	f.slot(1, startsAt(day))

	// An end 500 ns after the start is the same microsecond: empty.
	_, err := s.Suspend(f.ctx, booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day.Add(500 * time.Nanosecond), Reason: "x"}, now)
	wantCode(t, err, booking.CodeInvalidRequest)
	_, err = s.Suspend(f.ctx, booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day.Add(-time.Hour), Reason: "x"}, now)
	wantCode(t, err, booking.CodeInvalidRequest)
	for _, bad := range []booking.Suspension{
		{Scope: booking.ScopeDepartment, DoctorID: f.doctor.ID},
		{Scope: booking.ScopeDoctor},
		{Scope: booking.ScopeClinic, DepartmentID: f.dept.ID},
		{Scope: "ward", DoctorID: f.doctor.ID},
	} {
		bad.From, bad.To, bad.Reason = day, day.Add(time.Hour), "x"
		_, err := s.Suspend(f.ctx, bad, now)
		wantCode(t, err, booking.CodeInvalidRequest)
	}
	_, err = s.Suspend(f.ctx, booking.Suspension{Scope: booking.ScopeDepartment, DepartmentID: 999999, From: day, To: day.Add(time.Hour), Reason: "x"}, now)
	wantCode(t, err, booking.CodeNotFound)
	if e := errorsAs(err); e == nil || !strings.Contains(e.Message, "department") {
		t.Fatalf("an unknown department's closure: %v, want the department not found", err)
	}

	// No scope: the doctor's. The period in another zone, below the
	// microsecond; an id, a creation and a lifting the store must not take.
	paris, _ := time.LoadLocation("Europe/Paris")
	lifted := now.Add(-time.Hour)
	ask := booking.Suspension{ID: 424242, DoctorID: f.doctor.ID, From: day.In(paris).Add(700 * time.Nanosecond),
		To: day.Add(time.Hour + 1500*time.Nanosecond).In(paris), Reason: "training", CreatedAt: now.Add(-48 * time.Hour), LiftedAt: &lifted}
	at := now.Add(123 * time.Nanosecond)
	r, err := s.Suspend(f.ctx, ask, at)
	must(t, err)
	got := r.Suspension
	want := booking.Suspension{ID: got.ID, Scope: booking.ScopeDoctor, DoctorID: f.doctor.ID, From: day, To: day.Add(time.Hour + time.Microsecond),
		Reason: "training", CreatedAt: now}
	if got.ID == ask.ID || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) || got.From.Location() != time.UTC {
		t.Fatalf("suspend answered %+v, want %+v", got, want)
	}
	if r.Existing || r.SlotsClosed != 1 {
		t.Fatalf("suspend = %+v, want a new suspension closing 1 slot", r)
	}
	stored, err := s.GetSuspension(f.ctx, got.ID)
	must(t, err)
	if fmt.Sprintf("%+v", stored) != fmt.Sprintf("%+v", got) {
		t.Fatalf("GetSuspension = %+v, the answer was %+v", stored, got)
	}
	// The same period asked again, in other nanoseconds of the same
	// microseconds and with the scope spelled out: the same one.
	again, err := s.Suspend(f.ctx, booking.Suspension{Scope: booking.ScopeDoctor, DoctorID: f.doctor.ID, From: day.Add(100 * time.Nanosecond),
		To: day.Add(time.Hour + time.Microsecond + 900*time.Nanosecond), Reason: "other"}, now.Add(time.Minute))
	must(t, err)
	if !again.Existing || again.Suspension.ID != got.ID || again.SlotsClosed != 0 || again.Suspension.Reason != "training" {
		t.Fatalf("the repeat = %+v, want the first (%d) unchanged", again, got.ID)
	}
}

// testJoinReplay: booking.JoinReplay on both stores. The same patient and
// key again answer the entry made (existed), for the same request; for
// another request they are key-reused and make nothing.
func testJoinReplay(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	p := f.patient()
	e := f.join(p, "replay")
	ask := booking.WaitlistEntry{PatientID: p.ID, DoctorID: f.doctor.ID, From: now, To: now.Add(30 * 24 * time.Hour), IdempotencyKey: "replay"}
	must(t, booking.CheckWaitlistEntry(&ask, now))
	again, existed, err := s.JoinWaitlist(f.ctx, ask, now.Add(time.Minute))
	if err != nil || !existed || again.ID != e.ID || again.Position != e.Position {
		t.Fatalf("the same join again: %+v existed=%v (%v), want entry %d", again, existed, err, e.ID)
	}
	ask.To = ask.To.Add(24 * time.Hour)
	must(t, booking.CheckWaitlistEntry(&ask, now))
	_, _, err = s.JoinWaitlist(f.ctx, ask, now.Add(time.Minute))
	wantCode(t, err, booking.CodeKeyReused)
	if es, err := s.ListWaitlist(f.ctx, p.ID); err != nil || len(es) != 1 {
		t.Fatalf("entries after a reused key: %+v (%v), want the first only", es, err)
	}
}

// testLeaveWaitlist: booking.DecideLeave on both stores. A live entry is
// CANCELLED (out of the queue) and audited once; leaving again, or
// leaving an entry that has ended, answers it as it is and writes
// nothing; another patient's entry is not found; a running offer is
// cancelled with its entry, and the place passes to the next one waiting.
func testLeaveWaitlist(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1)
	holder := f.mustBook(sl.ID, f.patient())
	p, q, r, x := f.patient(), f.patient(), f.patient(), f.patient()
	e := f.join(p, "leave")

	left, err := s.LeaveWaitlist(f.ctx, e.ID, p.ID, now.Add(time.Minute))
	must(t, err)
	if left.ID != e.ID || left.State != booking.EntryCancelled || left.Position != 0 || !left.UpdatedAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("left: %+v", left)
	}
	if es := auditOf(t, s, booking.EntityWaitlist, e.ID); len(es) != 2 || es[0].Action != "leave" {
		t.Fatalf("the entry's audit after leaving: %+v, want join and leave", es)
	}
	again, err := s.LeaveWaitlist(f.ctx, e.ID, p.ID, now.Add(2*time.Minute))
	must(t, err)
	if again.State != booking.EntryCancelled || !again.UpdatedAt.Equal(left.UpdatedAt) {
		t.Fatalf("leaving again: %+v, want the entry as it was left", again)
	}
	if es := auditOf(t, s, booking.EntityWaitlist, e.ID); len(es) != 2 {
		t.Fatalf("leaving again wrote audit entries: %+v", es)
	}
	_, err = s.LeaveWaitlist(f.ctx, f.join(q, "other").ID, p.ID, now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.LeaveWaitlist(f.ctx, e.ID+1_000_000, p.ID, now)
	wantCode(t, err, booking.CodeNotFound)

	// An ended entry (fulfilled: the patient booked elsewhere) stays so.
	done := f.join(r, "done")
	f.mustBook(f.slot(1).ID, r)
	ended, err := s.LeaveWaitlist(f.ctx, done.ID, r.ID, now.Add(3*time.Minute))
	must(t, err)
	if ended.State != booking.EntryFulfilled || !ended.UpdatedAt.Equal(f.entry(r).UpdatedAt) {
		t.Fatalf("leaving a fulfilled entry: %+v", ended)
	}

	// An offer: q is offered the slot's place, x waits behind; q leaves.
	f.join(x, "behind")
	_, err = s.Cancel(f.ctx, holder.ID, 0, now)
	must(t, err)
	offers, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(offers) != 1 || offers[0].PatientID != q.ID {
		t.Fatalf("offers %+v, want one to patient %d", offers, q.ID)
	}
	due := func() int {
		return countNotifications(t, h, s, func(n booking.Notification) bool { return n.Kind == booking.NotifyOfferDue && n.SlotID == sl.ID })
	}
	before := due()
	qe, err := s.LeaveWaitlist(f.ctx, f.entry(q).ID, q.ID, now.Add(time.Minute))
	must(t, err)
	if qe.State != booking.EntryCancelled || qe.AppointmentID != offers[0].ID {
		t.Fatalf("leaving with an offer: %+v", qe)
	}
	if o, _ := s.GetAppointment(f.ctx, offers[0].ID); o.Status != booking.StatusCancelled {
		t.Fatalf("the offer of a left entry is %s, want CANCELLED", o.Status)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 1 || due() != before+1 {
		t.Fatalf("after leaving with an offer: booked %d, %d offer jobs (before %d), want the place kept for the next entry",
			got.BookedCount, due(), before)
	}
	next, err := s.MakeOffers(f.ctx, sl.ID, now.Add(time.Minute))
	must(t, err)
	if len(next) != 1 || next[0].PatientID != x.ID {
		t.Fatalf("the left offer's place went to %+v, want patient %d", next, x.ID)
	}
	// x's offer has passed its deadline but the sweep has not run: leaving
	// still cancels it (it is HELD), and with nobody waiting the place is open.
	late := next[0].HoldExpiresAt.Add(time.Second)
	xe, err := s.LeaveWaitlist(f.ctx, f.entry(x).ID, x.ID, late)
	must(t, err)
	if o, _ := s.GetAppointment(f.ctx, next[0].ID); xe.State != booking.EntryCancelled || o.Status != booking.StatusCancelled {
		t.Fatalf("leaving with a stale offer: entry %s, offer %s", xe.State, o.Status)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 0 {
		t.Fatalf("booked %d after the last offer was left, want 0", got.BookedCount)
	}
	checkInvariants(t, h, s)
}

// testExpiryEffects: what booking.DecideExpiry says the sweep's expired
// holds trigger, on both stores: each expiry audited (from HELD, by the
// context's actor) and announced once; an expired offer ends its entry
// EXPIRED; the places go to the entries still waiting (an offer job in
// the same transaction) before open booking, the rest back to it.
func testExpiryEffects(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2, withFee(100))
	p := f.patient()
	hold := wantOK(t, f.book(sl.ID, req(p, sl.ID, "hold")))
	other := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "other")))
	w1, w2 := f.patient(), f.patient()
	f.join(w1, "w1")
	f.join(w2, "w2")
	_, err := s.Cancel(f.ctx, other.ID, 0, now)
	must(t, err)
	offers, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(offers) != 1 || offers[0].PatientID != w1.ID {
		t.Fatalf("offers %+v, want one to patient %d", offers, w1.ID)
	}
	offer := offers[0]
	due := func() int {
		return countNotifications(t, h, s, func(n booking.Notification) bool { return n.Kind == booking.NotifyOfferDue && n.SlotID == sl.ID })
	}
	dueBefore := due()

	if got, err := s.ExpireHolds(f.ctx, now.Add(time.Hour), 0); err != nil || len(got) != 0 {
		t.Fatalf("a pass of limit 0 expired %d (%v)", len(got), err)
	}
	at := now.Add(time.Duration(max(sl.HoldSeconds, booking.DefaultOfferMinutes*60)+60) * time.Second)
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: booking.ActorSystem, ID: "expiry-test"})
	expired, err := s.ExpireHolds(ctx, at, 100)
	must(t, err)
	if len(expired) != 2 {
		t.Fatalf("expired %+v, want the hold and the offer", expired)
	}
	for _, a := range []booking.Appointment{hold, offer} {
		got, err := s.GetAppointment(f.ctx, a.ID)
		must(t, err)
		if got.Status != booking.StatusExpired {
			t.Fatalf("appointment %d is %s after the sweep", a.ID, got.Status)
		}
		if n := notifications(t, h, s, booking.NotifyExpiry, a.ID); n != 1 {
			t.Fatalf("%d expiry notices for appointment %d, want 1", n, a.ID)
		}
		es := auditOf(t, s, booking.EntityAppointment, a.ID)
		if len(es) == 0 || es[0].Action != "expire" || es[0].ActorID != "expiry-test" || !strings.Contains(es[0].Before, string(booking.StatusHeld)) ||
			!strings.Contains(es[0].After, string(booking.StatusExpired)) {
			t.Fatalf("appointment %d's last audit entry: %+v, want its expiry by the sweep's actor", a.ID, es)
		}
	}
	if e := f.entry(w1); e.State != booking.EntryExpired {
		t.Fatalf("the expired offer's entry is %s", e.State)
	}
	// Two places released, one entry still waiting: one kept for it, one open.
	if got := f.getSlot(sl.ID); got.BookedCount != 1 || due() != dueBefore+1 {
		t.Fatalf("after the sweep: booked %d, %d offer jobs (before %d), want 1 place kept and one job", got.BookedCount, due(), dueBefore)
	}
	wantOK(t, f.bookAt(sl.ID, req(f.patient(), sl.ID, "open"), at))
	wantCode(t, f.bookAt(sl.ID, req(f.patient(), sl.ID, "full"), at).Err, booking.CodeSlotFull)
	next, err := s.MakeOffers(f.ctx, sl.ID, at)
	must(t, err)
	if len(next) != 1 || next[0].PatientID != w2.ID {
		t.Fatalf("the kept place went to %+v, want patient %d", next, w2.ID)
	}
	// Again at the same instant: nothing left to expire, nothing announced.
	notes := len(h.Inspect(t, s).Notifications(t))
	if again, err := s.ExpireHolds(ctx, at, 100); err != nil || len(again) != 0 {
		t.Fatalf("a second pass expired %d (%v)", len(again), err)
	}
	if n := len(h.Inspect(t, s).Notifications(t)); n != notes {
		t.Fatalf("a pass that expired nothing wrote %d notifications", n-notes)
	}
	checkInvariants(t, h, s)
	offerInvariants(t, f, []booking.Patient{w1, w2})
}

// testDataKeys: pii.CheckKeys at every start of both stores. The same keys
// start; other keys, a wrong data key, a wrong index key and a missing key
// that sealed a patient are refused (pii.ErrKeys); a key added is
// recorded, so a wrong copy of it is refused at the next start; a key
// nothing is sealed with may be dropped.
func testDataKeys(t *testing.T, h Harness) {
	if h.Keyed == nil {
		t.Skip("the harness has no Keyed")
	}
	parse := func(text string) *pii.Keys {
		k, err := pii.Parse(text)
		must(t, err)
		return k
	}
	entry := func(text, id string) string { // "id:secret" of key id in text
		for _, e := range strings.Split(text, ",") {
			if strings.HasPrefix(e, id+":") {
				return e
			}
		}
		t.Fatalf("no key %s in the keys", id)
		return ""
	}
	secret := func(text, id string) string { return strings.TrimPrefix(entry(text, id), id+":") }
	text, other := pii.Generate(), pii.Generate()
	with2 := pii.AddKey(text, 1)
	s, restart := h.Keyed(t, parse(text))
	f := newFixture(t, s)
	p := f.patient() // sealed with key 1
	must(t, restart(parse(text)))
	for name, bad := range map[string]string{
		"other keys":             other,
		"a wrong data key 1":     entry(text, "index") + "," + entry(other, "1"),
		"a wrong index key":      entry(other, "index") + "," + entry(text, "1"),
		"key 1 missing, 2 given": entry(with2, "index") + "," + entry(with2, "2"),
	} {
		if err := restart(parse(bad)); !errors.Is(err, pii.ErrKeys) {
			t.Errorf("a start with %s: %v, want pii.ErrKeys", name, err)
		}
	}
	// Key 2 added: recorded at that start, so a wrong key 2 is refused.
	must(t, restart(parse(with2)))
	if err := restart(parse(text + ",2:" + secret(other, "1"))); !errors.Is(err, pii.ErrKeys) {
		t.Fatalf("a wrong key 2 after key 2 was recorded: %v, want pii.ErrKeys", err)
	}
	must(t, restart(parse(with2)))
	// Key 2 dropped again: nothing is sealed with it, it may go.
	must(t, restart(parse(text)))
	if got, err := s.GetPatient(f.ctx, p.ID); err != nil || got.Name != p.Name {
		t.Fatalf("the patient after the starts: %+v (%v)", got, err)
	}
}
