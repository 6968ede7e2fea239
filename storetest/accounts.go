package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/phone"
)

// accountsStore is a store seen as both: accounts.Store and the
// booking.Store they sit beside (to create patients and slots).
type accountsStore interface {
	booking.Store
	accounts.Store
}

// testAccounts holds both stores' accounts (sign-in codes, their limits,
// staff passwords, the patient and day lists) to the same behaviour.
func testAccounts(t *testing.T, h Harness) {
	newStore := func(t testing.TB) accountsStore {
		t.Helper()
		s := h.New(t)
		acc, ok := s.(accountsStore)
		if !ok {
			t.Fatalf("the %T store does not implement accounts.Store", s)
		}
		return acc
	}
	t.Run("PatientLanguage", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		p, err := s.CreatePatient(ctx, booking.Patient{Name: "Minh", Phone: "+84901234567"})
		must(t, err)
		if got, err := s.GetPatient(ctx, p.ID); err != nil || got.Language != "" {
			t.Fatalf("a new patient's language is %q (%v), want the clinic's (\"\")", got.Language, err)
		}
		must(t, s.SetPatientLanguage(ctx, p.ID, "vi"))
		if got, err := s.GetPatient(ctx, p.ID); err != nil || got.Language != "vi" {
			t.Fatalf("language %q (%v), want vi", got.Language, err)
		}
		if err := s.SetPatientLanguage(ctx, p.ID+1000, "fr"); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown patient: %v, want not-found", err)
		}
	})
	t.Run("PatientByPhone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		// The store is given phones as the Service normalizes them.
		p, err := s.CreatePatient(ctx, booking.Patient{Name: "Anh", Phone: phone.Normalize("+33 6 12-34.56 (78)", "FR")})
		must(t, err)
		// A phone is one patient's: a second patient with it is a conflict.
		if _, err = s.CreatePatient(ctx, booking.Patient{Name: "Later twin", Phone: "+33612345678"}); booking.ErrorCode(err) != booking.CodeConflict {
			t.Fatalf("a second patient with one phone: %v, want conflict", err)
		}
		got, err := s.PatientByPhone(ctx, phone.Normalize("+33 (6) 12 34 56 78", "FR"))
		must(t, err)
		if got.ID != p.ID || got.Name != "Anh" {
			t.Fatalf("found %+v, want patient %d", got, p.ID)
		}
		if _, err := s.PatientByPhone(ctx, "+33699999999"); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown phone: %v, want not-found", err)
		}
	})

	t.Run("ListPatients", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		var ids []int64
		for i := 0; i < 5; i++ {
			p, err := s.CreatePatient(ctx, booking.Patient{Name: "P", Phone: "+3361000000" + string(rune('0'+i))})
			must(t, err)
			ids = append(ids, p.ID)
		}
		page, err := s.ListPatients(ctx, 0, 3)
		must(t, err)
		if len(page) != 3 || page[0].ID != ids[0] || page[2].ID != ids[2] {
			t.Fatalf("first page %+v", page)
		}
		page, err = s.ListPatients(ctx, ids[2], 3)
		must(t, err)
		if len(page) != 2 || page[0].ID != ids[3] {
			t.Fatalf("second page %+v", page)
		}
	})

	t.Run("CodeLimitPerPhone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		issue := func(at time.Time, hash string) error {
			return s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "phone-a", CodeHash: hash, Now: at, ExpiresAt: at.Add(accounts.CodeTTL), WindowStart: at.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone})
		}
		for i := 0; i < accounts.CodeMaxPerPhone; i++ {
			must(t, issue(now.Add(time.Duration(i)*time.Minute), "h"+string(rune('0'+i))))
		}
		err := issue(now.Add(3*time.Minute), "h3")
		var be *booking.Error
		if booking.ErrorCode(err) != booking.CodeRateLimited || !errors.As(err, &be) || be.RetryAfter <= 0 {
			t.Fatalf("4th code in the window: %v, want rate-limited with RetryAfter", err)
		}
		// Another phone is not limited by this one.
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "phone-b", CodeHash: "x", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone}))
		// Once the first code left the window, a new one may be sent.
		must(t, issue(now.Add(accounts.CodeWindow+time.Second), "h4"))
	})

	t.Run("UseCode", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "k", CodeHash: "right", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: 3}))
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "wrong", Now: now, MaxAttempts: 5}); booking.ErrorCode(err) != booking.CodeInvalidRequest {
			t.Fatalf("wrong code: %v", err)
		}
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "other", CodeHash: "right", Now: now, MaxAttempts: 5}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("code of another phone: %v", err)
		}
		must(t, s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "right", Now: now.Add(time.Minute), MaxAttempts: 5}))
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "right", Now: now.Add(time.Minute), MaxAttempts: 5}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("used twice: %v, want not-found", err)
		}
		// Expiry.
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "e", CodeHash: "c", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: 3}))
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "e", CodeHash: "c", Now: now.Add(accounts.CodeTTL), MaxAttempts: 5}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("expired code: %v, want not-found", err)
		}
		// The newest code counts.
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "n", CodeHash: "old", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: 3}))
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "n", CodeHash: "new", Now: now.Add(time.Second), ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: 3}))
		must(t, s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "n", CodeHash: "new", Now: now.Add(2 * time.Second), MaxAttempts: 5}))
	})

	t.Run("AttemptsAreCountedUnderConcurrency", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "k", CodeHash: "right", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: 3}))
		const guesses = 12
		start := make(chan struct{})
		var wg sync.WaitGroup
		codes := make([]booking.Code, guesses)
		for i := 0; i < guesses; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				codes[i] = booking.ErrorCode(s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "wrong", Now: now, MaxAttempts: accounts.CodeMaxAttempts}))
			}(i)
		}
		close(start)
		wg.Wait()
		count := map[booking.Code]int{}
		for _, c := range codes {
			count[c]++
		}
		if count[booking.CodeInvalidRequest] != accounts.CodeMaxAttempts || count[booking.CodeRateLimited] != guesses-accounts.CodeMaxAttempts {
			t.Fatalf("outcomes %v: want exactly %d wrong-code answers and the rest rate-limited", count, accounts.CodeMaxAttempts)
		}
		// Even the right code is refused now.
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "right", Now: now, MaxAttempts: accounts.CodeMaxAttempts}); booking.ErrorCode(err) != booking.CodeRateLimited {
			t.Fatalf("right code after the attempts ran out: %v", err)
		}
	})

	t.Run("SameCodeUsedConcurrently", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "k", CodeHash: "right", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: 3}))
		// Right answers and fewer wrong ones than the attempts allow, all
		// released at once: one right answer signs in, every other answer
		// finds the code used (never "too many wrong codes").
		const rights, wrongs = 16, accounts.CodeMaxAttempts - 1
		start := make(chan struct{})
		var wg sync.WaitGroup
		codes := make([]booking.Code, rights+wrongs)
		for i := range codes {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				typed := "right"
				if i >= rights {
					typed = "wrong"
				}
				<-start
				codes[i] = booking.ErrorCode(s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: typed, Now: now, MaxAttempts: accounts.CodeMaxAttempts}))
			}(i)
		}
		close(start)
		wg.Wait()
		count := map[booking.Code]int{}
		for _, c := range codes {
			count[c]++
		}
		if count[""] != 1 || count[booking.CodeRateLimited] != 0 {
			t.Fatalf("outcomes %v: want exactly one success and no rate-limited answer", count)
		}
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "right", Now: now, MaxAttempts: accounts.CodeMaxAttempts}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("used code: %v, want not-found", err)
		}
	})

	t.Run("UsedCodeIsNotAGuess", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		window := now.Add(-accounts.CodeWindow)
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "old", Now: now, MaxAttempts: accounts.CodeMaxAttempts}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("no code yet: %v, want not-found", err)
		}
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "k", CodeHash: "old", Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: window, MaxInWindow: 3}))
		must(t, s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "k", CodeHash: "new", Now: now.Add(time.Second), ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: window, MaxInWindow: 3}))
		// Only the newest code counts: the older one is no second chance,
		// neither before the newest is used nor after.
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "old", Now: now.Add(2 * time.Second), MaxAttempts: accounts.CodeMaxAttempts}); booking.ErrorCode(err) != booking.CodeInvalidRequest {
			t.Fatalf("older code while the newest is live: %v, want invalid-request", err)
		}
		must(t, s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "new", Now: now.Add(3 * time.Second), MaxAttempts: accounts.CodeMaxAttempts}))
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "old", Now: now.Add(4 * time.Second), MaxAttempts: accounts.CodeMaxAttempts}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("older code after the newest was used: %v, want not-found", err)
		}
		if err := s.UseLoginCode(ctx, accounts.UseCode{PhoneKey: "k", CodeHash: "new", Now: now.Add(5 * time.Second), MaxAttempts: accounts.CodeMaxAttempts}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("the used code again: %v, want not-found", err)
		}
	})

	t.Run("CodeLimitPerPhoneDay", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		issue := func(at time.Time) error {
			return s.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: "phone-a", CodeHash: "h", Now: at, ExpiresAt: at.Add(accounts.CodeTTL),
				WindowStart: at.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone,
				DayStart: at.Add(-accounts.CodeDay), MaxInDay: 4})
		}
		// One code an hour stays under the 15-minute limit, not the day's.
		for i := 0; i < 4; i++ {
			must(t, issue(now.Add(time.Duration(i)*time.Hour)))
		}
		err := issue(now.Add(4 * time.Hour))
		var be *booking.Error
		if !errors.As(err, &be) || be.Code != booking.CodeRateLimited || be.RetryAfter != 20*time.Hour {
			t.Fatalf("5th code in the day: %v, want rate-limited until the first leaves the day", err)
		}
		// Once the first code is a day old, one more may be sent.
		must(t, issue(now.Add(accounts.CodeDay+time.Second)))
	})

	// useCode checks a typed code with day limits of wrong codes.
	useCode := func(s accountsStore, key, hash string, at time.Time, attempts, perPhone, perClinic int) error {
		return s.UseLoginCode(context.Background(), accounts.UseCode{PhoneKey: key, CodeHash: hash, Now: at,
			MaxAttempts: attempts, MaxPhoneFailures: perPhone, MaxClinicFailures: perClinic})
	}
	issueAt := func(t *testing.T, s accountsStore, key, hash string, at time.Time) {
		t.Helper()
		must(t, s.IssueLoginCode(context.Background(), accounts.IssueCode{PhoneKey: key, CodeHash: hash, Now: at, ExpiresAt: at.Add(accounts.CodeTTL),
			WindowStart: at.Add(-accounts.CodeWindow), MaxInWindow: 1000}))
	}

	t.Run("FailuresPerPhoneDay", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		// Three wrong codes per code, over fresh codes: the phone's fourth
		// wrong code of the day is its last.
		for i := 0; i < 4; i++ {
			at := now.Add(time.Duration(i) * time.Minute)
			issueAt(t, s, "k", "right", at)
			if err := useCode(s, "k", "wrong", at, 3, 4, 100); booking.ErrorCode(err) != booking.CodeInvalidRequest {
				t.Fatalf("wrong code %d: %v", i, err)
			}
		}
		// Even a fresh code, typed right, is refused until the day rolls.
		at := now.Add(10 * time.Minute)
		issueAt(t, s, "k", "right", at)
		err := useCode(s, "k", "right", at, 3, 4, 100)
		var be *booking.Error
		if !errors.As(err, &be) || be.Code != booking.CodeRateLimited || !errors.Is(err, booking.ErrPhoneDayFailures) ||
			be.RetryAfter != booking.SigninDayEnd(at).Sub(at) {
			t.Fatalf("right code after the day's wrong codes: %v", err)
		}
		// Another phone is not limited by this one.
		issueAt(t, s, "other", "right", at)
		must(t, useCode(s, "other", "right", at, 3, 4, 100))
		// The next day, a fresh code signs in.
		next := booking.SigninDayEnd(at).Add(time.Minute)
		issueAt(t, s, "k", "right", next)
		must(t, useCode(s, "k", "right", next, 3, 4, 100))
	})

	t.Run("FailuresPerClinicDay", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		for _, key := range []string{"a", "b", "c"} {
			issueAt(t, s, key, "right", now)
			if err := useCode(s, key, "wrong", now, 5, 10, 3); booking.ErrorCode(err) != booking.CodeInvalidRequest {
				t.Fatalf("wrong code of %s: %v", key, err)
			}
		}
		// The clinic's day is over for everyone, with a right code too.
		issueAt(t, s, "d", "right", now)
		for _, key := range []string{"a", "d"} {
			if err := useCode(s, key, "right", now, 5, 10, 3); booking.ErrorCode(err) != booking.CodeRateLimited || !errors.Is(err, booking.ErrClinicDayFailures) {
				t.Fatalf("%s after the clinic's wrong codes: %v", key, err)
			}
		}
		next := booking.SigninDayEnd(now)
		issueAt(t, s, "d", "right", next)
		must(t, useCode(s, "d", "right", next, 5, 10, 3))
	})

	// Wrong codes released at once, of one phone and of many, never count
	// past the phone's or the clinic's limit of the day.
	t.Run("DayFailuresUnderConcurrency", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		const perPhone, perClinic, phones, guesses = 4, 10, 6, 24
		keys := make([]string, phones)
		for i := range keys {
			keys[i] = "phone-" + string(rune('a'+i))
			issueAt(t, s, keys[i], "right", now)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, guesses)
		for i := range errs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				errs[i] = useCode(s, keys[i%phones], "wrong", now, 100, perPhone, perClinic)
			}(i)
		}
		close(start)
		wg.Wait()
		wrong, byPhone := 0, map[string]int{}
		for i, err := range errs {
			switch {
			case booking.ErrorCode(err) == booking.CodeInvalidRequest:
				wrong++
				byPhone[keys[i%phones]]++
			case booking.ErrorCode(err) != booking.CodeRateLimited:
				t.Fatalf("guess %d: %v, want wrong-code or rate-limited", i, err)
			}
		}
		if wrong != perClinic {
			t.Fatalf("%d wrong codes counted, want exactly the clinic's %d", wrong, perClinic)
		}
		for k, n := range byPhone {
			if n > perPhone {
				t.Fatalf("phone %s: %d wrong codes counted, more than %d", k, n, perPhone)
			}
		}
		// One phone's guesses alone stop at the phone's limit.
		issueAt(t, s, "alone", "right", now)
		alone := make([]booking.Code, 3*perPhone)
		start = make(chan struct{})
		for i := range alone {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				alone[i] = booking.ErrorCode(useCode(s, "alone", "wrong", now, 100, perPhone, 0))
			}(i)
		}
		close(start)
		wg.Wait()
		count := map[booking.Code]int{}
		for _, c := range alone {
			count[c]++
		}
		if count[booking.CodeInvalidRequest] != perPhone || count[booking.CodeRateLimited] != len(alone)-perPhone {
			t.Fatalf("one phone's outcomes %v: want exactly %d wrong codes and the rest rate-limited", count, perPhone)
		}
	})

	// Codes of phones never asked for again (an unknown phone's) do not
	// stay: each new code deletes two of the oldest a day old.
	t.Run("StaleCodesPurged", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		in := h.Inspect(t, s)
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			issueAt(t, s, k, "x", now)
		}
		later := now.Add(accounts.CodeDay + time.Hour)
		for i := 0; i < 3; i++ {
			issueAt(t, s, "fresh", "y", later.Add(time.Duration(i)*time.Second))
		}
		if n := in.LoginCodes(t); n != 3 {
			t.Fatalf("%d codes left, want only the 3 fresh ones", n)
		}
		// A code of the day is never purged.
		issueAt(t, s, "fresh", "z", later.Add(time.Minute))
		if n := in.LoginCodes(t); n != 4 {
			t.Fatalf("%d codes, want 4", n)
		}
	})

	t.Run("StaffPasswords", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		if _, err := s.StaffPasswordHash(ctx, "admin"); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown user: %v", err)
		}
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$first"), now))
		must(t, s.SetStaffPassword(ctx, "admin", []byte("$2a$10$second"), now.Add(time.Hour)))
		h, err := s.StaffPasswordHash(ctx, "admin")
		must(t, err)
		if string(h) != "$2a$10$second" {
			t.Fatalf("hash %q, want the replaced one", h)
		}
		// A doctor's account: role doctor with its doctor; 0 makes it an
		// admin again; unknown users and doctors are not found.
		if id, err := s.StaffDoctor(ctx, "admin"); err != nil || id != 0 {
			t.Fatalf("a new staff user is an admin: %d, %v", id, err)
		}
		dep, err := s.CreateDepartment(ctx, booking.Department{Name: "GP"})
		must(t, err)
		doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Dr A", DepartmentID: dep.ID, TimeZone: "UTC"})
		must(t, err)
		must(t, s.SetStaffDoctor(ctx, "admin", doc.ID))
		if id, err := s.StaffDoctor(ctx, "admin"); err != nil || id != doc.ID {
			t.Fatalf("doctor account: %d, %v", id, err)
		}
		if err := s.SetStaffDoctor(ctx, "admin", doc.ID+100); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown doctor: %v", err)
		}
		if err := s.SetStaffDoctor(ctx, "nobody", doc.ID); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown user: %v", err)
		}
		must(t, s.SetStaffDoctor(ctx, "admin", 0))
		if id, _ := s.StaffDoctor(ctx, "admin"); id != 0 {
			t.Fatalf("back to admin: %d", id)
		}
		if _, err := s.StaffDoctor(ctx, "nobody"); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("unknown user: %v", err)
		}
	})

	t.Run("DoctorAppointments", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
		dep, err := s.CreateDepartment(ctx, booking.Department{Name: "GP"})
		must(t, err)
		doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Dr A", DepartmentID: dep.ID, TimeZone: "UTC"})
		must(t, err)
		sl, err := s.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: now.Add(2 * time.Hour), EndAt: now.Add(2*time.Hour + 15*time.Minute),
			Capacity: 2, OpensAt: now.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
		must(t, err)
		p, err := s.CreatePatient(ctx, booking.Patient{Name: "Pat", Phone: "+33600000001"})
		must(t, err)
		res, err := s.Book(ctx, sl.ID, []booking.BookRequest{{PatientID: p.ID, IdempotencyKey: "k1", Fingerprint: booking.Fingerprint(sl.ID)}}, now)
		must(t, err)
		must(t, res[0].Err)
		as, err := s.DoctorAppointments(ctx, doc.ID, now, now.Add(24*time.Hour))
		must(t, err)
		if len(as) != 1 || as[0].PatientID != p.ID || as[0].SlotID != sl.ID || as[0].DoctorID != doc.ID {
			t.Fatalf("day view %+v", as)
		}
		as, err = s.DoctorAppointments(ctx, doc.ID, now.Add(3*time.Hour), now.Add(24*time.Hour))
		must(t, err)
		if len(as) != 0 {
			t.Fatalf("outside the range: %+v", as)
		}
	})
}
