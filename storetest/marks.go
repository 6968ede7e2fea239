package storetest

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// calendarStore is a store that keeps calendar links too (ical.Tokens).
type calendarStore interface {
	SetCalendarToken(ctx context.Context, patientID int64, hash string, now time.Time) error
	CalendarTokenCreated(ctx context.Context, patientID int64) (time.Time, error)
}

// markOf returns sub's mark from the store (found false: none).
func markOf(t *testing.T, s booking.Store, sub booking.Subject) (booking.Mark, bool) {
	t.Helper()
	ms, err := s.MarksSince(context.Background(), time.Unix(0, 0), true)
	must(t, err)
	for _, m := range ms {
		if m.Subject == sub {
			return m, true
		}
	}
	return booking.Mark{}, false
}

// testRevocationMarks holds both stores' revocation marks to the same
// behaviour: they only move forward, the changes that end a subject's
// tokens move them in their own transactions (erasure, deactivation, a
// staff password, a disabled staff user), and the Service admits tokens
// against them.
func testRevocationMarks(t *testing.T, h Harness) {
	t.Run("MoveForwardOnly", func(t *testing.T) {
		t.Parallel()
		s := h.New(t)
		ctx := context.Background()
		sub := booking.Subject{Role: booking.RolePatient, ID: "7"}
		t1 := time.Date(2026, 12, 2, 10, 0, 0, 123456000, time.UTC)
		must(t, s.MoveMarks(ctx, t1, sub))
		must(t, s.MoveMarks(ctx, t1.Add(-time.Hour), sub)) // never back
		m, ok := markOf(t, s, sub)
		if !ok || !m.ValidAfter.Equal(t1) || m.Closed {
			t.Fatalf("mark %+v %v, want %v open (to the microsecond)", m, ok, t1)
		}
		ms, err := s.MarksOf(ctx, booking.Subject{Role: booking.RolePatient, ID: "8"}, sub, booking.Subject{Role: booking.RoleAdmin, ID: "7"})
		must(t, err)
		if len(ms) != 1 || ms[0].Subject != sub || !ms[0].ValidAfter.Equal(t1) {
			t.Fatalf("marks of three subjects, one marked: %+v", ms)
		}
		ms, err = s.MarksSince(ctx, t1, false)
		must(t, err)
		if len(ms) != 0 {
			t.Fatalf("marks after %v: %+v, want none (strictly after)", t1, ms)
		}
		ms, err = s.MarksSince(ctx, t1.Add(-time.Microsecond), false)
		must(t, err)
		if len(ms) != 1 || ms[0].Subject != sub {
			t.Fatalf("marks since just before: %+v", ms)
		}
		for _, bad := range []booking.Subject{{Role: "root", ID: "1"}, {Role: booking.RoleAdmin, ID: ""},
			{Role: booking.RoleAdmin, ID: string(make([]byte, booking.MaxMarkSubject+1))}} {
			wantCode(t, s.MoveMarks(ctx, t1, bad), booking.CodeInvalidRequest)
		}
	})

	t.Run("ConcurrentMovesKeepTheLatest", func(t *testing.T) {
		t.Parallel()
		s := h.New(t)
		ctx := context.Background()
		sub := booking.Subject{Role: booking.RoleAdmin, ID: "staff:ana"}
		base := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		const n = 32
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs <- s.MoveMarks(ctx, base.Add(time.Duration(i)*time.Millisecond), sub)
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err)
		}
		if m, _ := markOf(t, s, sub); !m.ValidAfter.Equal(base.Add((n - 1) * time.Millisecond)) {
			t.Fatalf("mark %v after %d concurrent moves, want the latest %v", m.ValidAfter, n, base.Add((n-1)*time.Millisecond))
		}
	})

	t.Run("DeactivationAndErasure", func(t *testing.T) {
		t.Parallel()
		s := h.New(t)
		ctx := context.Background()
		p, err := s.CreatePatient(ctx, booking.Patient{Name: "Lan", Phone: "+84901230001"})
		must(t, err)
		sub := booking.PatientSubject(p.ID)
		off, on := false, true
		_, err = s.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Active: &off})
		must(t, err)
		closed, ok := markOf(t, s, sub)
		if !ok || !closed.Closed {
			t.Fatalf("a deactivated patient's mark %+v %v, want closed", closed, ok)
		}
		// A sign-out racing the deactivation does not open it again.
		must(t, s.MoveMarks(ctx, time.Now(), sub))
		if m, _ := markOf(t, s, sub); !m.Closed {
			t.Fatal("a move opened a deactivated patient's mark")
		}
		_, err = s.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Active: &on})
		must(t, err)
		if m, _ := markOf(t, s, sub); m.Closed || m.ValidAfter.Before(closed.ValidAfter) {
			t.Fatalf("a reactivated patient's mark %+v, want open and not earlier than %v", m, closed.ValidAfter)
		}
		// An update that leaves the activity alone moves nothing.
		before, _ := markOf(t, s, sub)
		name := "Lan N."
		_, err = s.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Name: &name})
		must(t, err)
		if m, _ := markOf(t, s, sub); m != before {
			t.Fatalf("a rename moved the mark: %+v → %+v", before, m)
		}

		cal, ok := s.(calendarStore)
		if !ok {
			t.Fatalf("the %T store keeps no calendar links", s)
		}
		must(t, cal.SetCalendarToken(ctx, p.ID, "hash-of-lan", now))
		acc, ok := s.(accountsStore)
		if !ok {
			t.Fatalf("the %T store does not implement accounts.Store", s)
		}
		// Codes of the patient's phone and of another one.
		must(t, acc.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "key-of-lan", CodeHash: "code-hash", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone}))
		must(t, acc.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "key-of-other", CodeHash: "code-hash", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone}))
		_, err = s.ErasePatient(ctx, booking.Erasure{PatientID: p.ID, Reason: "asked to be forgotten", At: now, LoginKey: "key-of-lan"})
		must(t, err)
		if m, _ := markOf(t, s, sub); !m.Closed {
			t.Fatalf("an erased patient's mark %+v, want closed", m)
		}
		_, err = cal.CalendarTokenCreated(ctx, p.ID)
		wantCode(t, err, booking.CodeNotFound)
		wantCode(t, acc.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "key-of-lan", CodeHash: "code-hash", Now: now, MaxAttempts: accounts.CodeMaxAttempts}), booking.CodeNotFound)
		must(t, acc.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "key-of-other", CodeHash: "code-hash", Now: now, MaxAttempts: accounts.CodeMaxAttempts}))
		// Erasing again changes nothing and fails nothing.
		_, err = s.ErasePatient(ctx, booking.Erasure{PatientID: p.ID, Reason: "again", At: now})
		must(t, err)
	})

	t.Run("StaffPasswordAndDisable", func(t *testing.T) {
		t.Parallel()
		s := h.New(t)
		acc, ok := s.(accountsStore)
		if !ok {
			t.Fatalf("the %T store does not implement accounts.Store", s)
		}
		ctx := context.Background()
		hash, err := accounts.HashPassword("correct horse")
		must(t, err)
		wantCode(t, acc.SetStaffDisabled(ctx, "nobody", true, now), booking.CodeNotFound)
		_, err = acc.StaffDisabled(ctx, "nobody")
		wantCode(t, err, booking.CodeNotFound)

		must(t, acc.SetStaffPassword(ctx, "ana", hash, now))
		page := booking.Subject{Role: booking.RoleAdmin, ID: "staff:ana"}
		first, ok := markOf(t, s, page)
		if !ok || first.Closed {
			t.Fatalf("after a password: mark %+v %v, want an open one", first, ok)
		}
		if _, ok := markOf(t, s, booking.Subject{Role: booking.RoleAdmin, ID: "ana"}); !ok {
			t.Fatal("the API subject of the name has no mark")
		}
		must(t, acc.SetStaffDisabled(ctx, "ana", true, now))
		if d, err := acc.StaffDisabled(ctx, "ana"); err != nil || !d {
			t.Fatalf("disabled: %v %v", d, err)
		}
		if m, _ := markOf(t, s, page); !m.Closed {
			t.Fatalf("a disabled user's mark %+v, want closed", m)
		}
		// A new password does not enable a disabled user.
		must(t, acc.SetStaffPassword(ctx, "ana", hash, now))
		if m, _ := markOf(t, s, page); !m.Closed {
			t.Fatal("a password change opened a disabled user's mark")
		}
		must(t, acc.SetStaffDisabled(ctx, "ana", false, now))
		if d, err := acc.StaffDisabled(ctx, "ana"); err != nil || d {
			t.Fatalf("enabled: %v %v", d, err)
		}
		if m, _ := markOf(t, s, page); m.Closed || !m.ValidAfter.After(first.ValidAfter) {
			t.Fatalf("an enabled user's mark %+v, want open and later than %v", m, first.ValidAfter)
		}

		// A doctor's account: its doctor's tokens end with it.
		f := newFixture(t, s)
		must(t, acc.SetStaffPassword(ctx, "drx", hash, now))
		must(t, acc.SetStaffDoctor(ctx, "drx", f.doctor.ID))
		must(t, acc.SetStaffDisabled(ctx, "drx", true, now))
		if m, ok := markOf(t, s, booking.Subject{Role: booking.RoleDoctor, ID: strconv.FormatInt(f.doctor.ID, 10)}); !ok || !m.Closed {
			t.Fatalf("the disabled doctor account's doctor mark %+v %v, want closed", m, ok)
		}
	})

	t.Run("ServiceErasureDeletesCodes", func(t *testing.T) {
		t.Parallel()
		s := h.New(t)
		acc := s.(accountsStore)
		ctx := context.Background()
		svc := service.NewService(s, service.Options{Now: func() time.Time { return now },
			LoginKey: func(phone string) string { return "key:" + phone }})
		p, err := svc.CreatePatient(ctx, booking.Patient{Name: "Thu", Phone: "+84901230009"})
		must(t, err)
		must(t, acc.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "key:" + p.Phone, CodeHash: "code-hash", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone}))
		_, err = svc.ErasePatient(ctx, p.ID, "asked to be forgotten")
		must(t, err)
		wantCode(t, acc.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "key:" + p.Phone, CodeHash: "code-hash", Now: now, MaxAttempts: accounts.CodeMaxAttempts}), booking.CodeNotFound)
	})

	t.Run("ServiceAdmits", func(t *testing.T) {
		t.Parallel()
		s := h.New(t)
		ctx := context.Background()
		svc := service.NewService(s, service.Options{Now: func() time.Time { return now }})
		p, err := s.CreatePatient(ctx, booking.Patient{Name: "Mai", Phone: "+84901230002"})
		must(t, err)
		id := strconv.FormatInt(p.ID, 10)
		issued := time.Now()
		must(t, svc.Admit(ctx, booking.RolePatient, id, issued))
		must(t, svc.SignOut(ctx, booking.RolePatient, id))
		wantCode(t, svc.Admit(ctx, booking.RolePatient, id, issued), booking.CodeUnauthorized)
		// A token of the same second (as iat says) is refused too, and
		// one minted after the sign-out is good.
		wantCode(t, svc.Admit(ctx, booking.RolePatient, id, issued.Truncate(time.Second)), booking.CodeUnauthorized)
		m, _ := markOf(t, s, booking.PatientSubject(p.ID))
		wantCode(t, svc.Admit(ctx, booking.RolePatient, id, m.ValidAfter), booking.CodeUnauthorized) // equal: the mark wins
		must(t, svc.Admit(ctx, booking.RolePatient, id, m.ValidAfter.Add(time.Microsecond)))
		// Another subject is untouched.
		must(t, svc.Admit(ctx, booking.RolePatient, id+"0", issued))

		// Deactivation: every token, old or new, gets the departed
		// patient's refusal at once on this instance.
		off := false
		_, err = svc.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Active: &off})
		must(t, err)
		wantCode(t, svc.Admit(ctx, booking.RolePatient, id, time.Now().Add(time.Hour)), booking.CodeBookingBlocked)

		// Another instance (its own Service on the same database) sees a
		// move within its MarkRefresh; with 0 staleness allowed, at once.
		other := service.NewService(s, service.Options{Now: func() time.Time { return now }, MarkRefresh: time.Nanosecond})
		q, err := s.CreatePatient(ctx, booking.Patient{Name: "Hoa", Phone: "+84901230003"})
		must(t, err)
		qid := strconv.FormatInt(q.ID, 10)
		issued = time.Now()
		must(t, other.Admit(ctx, booking.RolePatient, qid, issued))
		must(t, svc.SignOut(ctx, booking.RolePatient, qid))
		wantCode(t, other.Admit(ctx, booking.RolePatient, qid, issued), booking.CodeUnauthorized)
	})
}
