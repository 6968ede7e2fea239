package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// book is a POST /api/appointments by a patient token.
func book(tok, key string, body any) call {
	h := map[string]string{}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	return call{method: "POST", path: "/api/appointments", token: tok, body: body, header: h}
}

func slotBody(id int64) map[string]any { return map[string]any{"slotId": id} }

func TestBookCreatedAndReplayed(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 2)
	p := e.patient()
	tok := e.patientToken(p.ID)

	a := e.do(book(tok, "k-1", slotBody(sl.ID))).expect(t, http.StatusCreated)
	var ap booking.Appointment
	a.decode(t, &ap)
	if ap.ID == 0 || ap.SlotID != sl.ID || ap.PatientID != p.ID || ap.Status != booking.StatusBooked || ap.QueueNumber != 1 || ap.DoctorID != f.doctor.ID {
		t.Fatalf("%+v", ap)
	}
	if got := a.header.Get("Location"); got != "/api/appointments/"+strconv.FormatInt(ap.ID, 10) {
		t.Fatalf("Location %q", got)
	}
	if a.header.Get("RateLimit-Policy") != `"booking";q=5;w=10` {
		t.Fatalf("RateLimit-Policy %q", a.header.Get("RateLimit-Policy"))
	}
	if a.header.Get("RateLimit") != `"booking";r=4;t=2` {
		t.Fatalf("RateLimit %q", a.header.Get("RateLimit"))
	}

	// The retry answers the original appointment with 200, and takes no place.
	var again booking.Appointment
	e.do(book(tok, "k-1", slotBody(sl.ID))).expect(t, http.StatusOK).decode(t, &again)
	if again.ID != ap.ID || again.QueueNumber != 1 {
		t.Fatalf("%+v", again)
	}
	// A patientId equal to the token's is accepted: same fingerprint.
	e.do(book(tok, "k-1", map[string]any{"slotId": sl.ID, "patientId": p.ID})).expect(t, http.StatusOK)

	got, err := e.db.GetSlot(context.Background(), sl.ID)
	if err != nil || got.BookedCount != 1 {
		t.Fatalf("booked %d, %v", got.BookedCount, err)
	}

	// The appointment is visible to its patient.
	var seen booking.Appointment
	e.do(call{method: "GET", path: "/api/appointments/" + strconv.FormatInt(ap.ID, 10), token: tok}).expect(t, 200).decode(t, &seen)
	if seen.ID != ap.ID || seen.Status != booking.StatusBooked {
		t.Fatalf("%+v", seen)
	}
}

func TestBookHeldWhenFee(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1, func(s *booking.Slot) { s.FeeCents = 2500 })
	p := e.patient()
	var ap booking.Appointment
	e.do(book(e.patientToken(p.ID), "pay-1", slotBody(sl.ID))).expect(t, http.StatusCreated).decode(t, &ap)
	if ap.Status != booking.StatusHeld || ap.HoldExpiresAt == nil || !ap.HoldExpiresAt.Equal(t0.Add(15*time.Minute)) {
		t.Fatalf("%+v", ap)
	}
}

func TestBookAdminForPatient(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	p := e.patient()
	var ap booking.Appointment
	e.do(book(e.admin, "adm-1", map[string]any{"slotId": sl.ID, "patientId": p.ID})).expect(t, http.StatusCreated).decode(t, &ap)
	if ap.PatientID != p.ID {
		t.Fatalf("%+v", ap)
	}
	// An admin must name the patient.
	e.do(book(e.admin, "adm-2", slotBody(sl.ID))).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
}

func TestBookBadRequests(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	before := e.snapshot()
	pid := int64(100)
	next := func() string { pid++; return e.patientToken(pid) } // a fresh patient each: no rate limit in the way

	e.do(call{method: "POST", path: "/api/appointments", token: next(), body: slotBody(sl.ID), invalid: true}).
		expect(t, 400, booking.CodeMissingIdempotencyKey)
	e.do(call{method: "POST", path: "/api/appointments", token: next(), body: slotBody(sl.ID), invalid: true, header: map[string]string{"Idempotency-Key": ""}}).
		expect(t, 400, booking.CodeMissingIdempotencyKey)
	for _, key := range []string{"has space", strings.Repeat("k", 65), "naïve", "tab\tkey"} {
		c := book(next(), key, slotBody(sl.ID))
		c.invalid = true
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(book(next(), strings.Repeat("k", 64), slotBody(sl.ID+1000))).expect(t, 404, booking.CodeNotFound) // 64 is fine
	for _, body := range []string{`{`, `{"slotId":"1"}`, `{"slotId":1,"extra":1}`, `{"slotId":1}{}`, `{"slotId":0}`, `{"slotId":-4}`,
		`{"slotId":1.5}`, `{"slotId":99999999999999999999}`, `[]`, `null`, ``, `{"slotId":1,"patientId":0}`} {
		c := book(next(), "bad-body", body)
		c.invalid = true
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	}
	// Not JSON: 400 invalid-request (documented choice over 415).
	c := book(next(), "ct", fmt.Sprintf(`{"slotId":%d}`, sl.ID))
	c.invalid = true
	c.header["Content-Type"] = "text/plain"
	e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	// Too large: 413.
	c = book(next(), "big", `{"slotId":1,"x":"`+strings.Repeat("a", 20<<10)+`"}`)
	c.invalid = true
	e.do(c).expect(t, 413, booking.CodePayloadTooLarge)

	if after := e.snapshot(); after != before {
		t.Fatalf("a refused request changed the database:\n%s\n---\n%s", before, after)
	}
}

func TestBookAuth(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	p := e.patient()
	before := e.snapshot()

	for name, tok := range map[string]string{
		"none":    "",
		"garbage": "garbage",
		"foreign": func() string {
			s, _ := auth.NewSigner([]byte("another-secret-another-secret-another"))
			tk, _ := s.Mint(auth.RoleAdmin, "1", time.Hour)
			return tk
		}(),
		"bad patient sub": e.token(auth.RolePatient, "abc"),
	} {
		a := e.do(book(tok, "k", slotBody(sl.ID)))
		a.expect(t, 401, booking.CodeUnauthorized)
		if !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("%s: WWW-Authenticate %q", name, a.header.Get("WWW-Authenticate"))
		}
	}
	// Expired token (tokens are verified against the real clock).
	expired, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": strconv.FormatInt(p.ID, 10), "role": "patient",
		"iat": time.Now().Add(-2 * time.Hour).Unix(), "exp": time.Now().Add(-time.Hour).Unix(),
	}).SignedString(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	e.do(book(expired, "k", slotBody(sl.ID))).expect(t, 401, booking.CodeUnauthorized)

	// A patient booking for someone else, and a doctor.
	e.do(book(e.patientToken(p.ID), "k", map[string]any{"slotId": sl.ID, "patientId": p.ID + 1})).expect(t, 404, booking.CodeNotFound)
	e.do(book(e.token(auth.RoleDoctor, "9"), "k", slotBody(sl.ID))).expect(t, 403, booking.CodeForbidden)

	if after := e.snapshot(); after != before {
		t.Fatal("a refused request changed the database")
	}
}

func TestBookConflicts(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ctx := context.Background()

	full := e.slot(f, 1)
	p1, p2 := e.patient(), e.patient()
	e.do(book(e.patientToken(p1.ID), "a", slotBody(full.ID))).expect(t, 201)

	p := e.do(book(e.patientToken(p2.ID), "b", slotBody(full.ID))).expect(t, 409, booking.CodeSlotFull).problem(t)
	if p.SlotID != full.ID {
		t.Fatalf("slotId %d", p.SlotID)
	}

	two := e.slot(f, 2)
	e.do(book(e.patientToken(p1.ID), "c", slotBody(two.ID))).expect(t, 201)
	e.do(book(e.patientToken(p1.ID), "d", slotBody(two.ID))).expect(t, 409, booking.CodeAlreadyBooked)

	// Another doctor's slot at the same time as p1's first booking.
	same := e.slot(f, 1, func(s *booking.Slot) {
		s.DoctorID = f.doctor2.ID
		s.StartAt = full.StartAt.Add(10 * time.Minute)
		s.EndAt = s.StartAt.Add(30 * time.Minute)
	})
	e.do(book(e.patientToken(p1.ID), "e", slotBody(same.ID))).expect(t, 409, booking.CodeOverlapping)

	opens := t0.Add(time.Hour)
	later := e.slot(f, 1, func(s *booking.Slot) { s.OpensAt = opens })
	p = e.do(book(e.patientToken(p2.ID), "f", slotBody(later.ID))).expect(t, 409, booking.CodeNotOpenYet).problem(t)
	if p.OpensAt != opens.Format(time.RFC3339) || p.SlotID != later.ID {
		t.Fatalf("%+v", p)
	}

	closed := e.slot(f, 1)
	st := booking.SlotClosed
	if _, err := e.db.UpdateSlot(ctx, closed.ID, booking.SlotUpdate{Status: &st}); err != nil {
		t.Fatal(err)
	}
	e.do(book(e.patientToken(p2.ID), "g", slotBody(closed.ID))).expect(t, 409, booking.CodeSlotClosed)

	started := e.slot(f, 1)
	e.clock.set(started.StartAt)
	e.do(book(e.patientToken(p2.ID), "h", slotBody(started.ID))).expect(t, 409, booking.CodeSlotClosed)
	e.clock.set(t0)

	e.do(book(e.patientToken(p2.ID), "i", slotBody(999999))).expect(t, 404, booking.CodeNotFound)

	// Same key, other slot.
	other := e.slot(f, 1)
	e.do(book(e.patientToken(p1.ID), "a", slotBody(other.ID))).expect(t, 422, booking.CodeKeyReused)
}

// blockingStore holds Book until released, to have a request in flight.
type blockingStore struct {
	booking.Store
	entered chan struct{}
	release chan struct{}
	blocked atomic.Bool
}

func (b *blockingStore) Book(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	if b.blocked.CompareAndSwap(false, true) {
		b.entered <- struct{}{}
		<-b.release
	}
	return b.Store.Book(ctx, slotID, reqs, now)
}

func TestBookKeyInUse(t *testing.T) {
	bs := &blockingStore{entered: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, withStore(func(s booking.Store) booking.Store { bs.Store = s; return bs }))
	f := e.fixture()
	sl := e.slot(f, 1)
	p := e.patient()
	tok := e.patientToken(p.ID)

	first := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/appointments", strings.NewReader(fmt.Sprintf(`{"slotId":%d}`, sl.ID)))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "same")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	<-bs.entered
	e.do(book(tok, "same", slotBody(sl.ID))).expect(t, 409, booking.CodeKeyInUse)
	close(bs.release)
	if st := <-first; st != 201 {
		t.Fatalf("first request answered %d", st)
	}
	e.do(book(tok, "same", slotBody(sl.ID))).expect(t, 200)
}

func TestBookRateLimited(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 10)
	p := e.patient()
	tok := e.patientToken(p.ID)

	// Every well-formed attempt counts, a refused one too (no such slot).
	for i := 0; i < 5; i++ {
		a := e.do(book(tok, fmt.Sprint("gone-", i), slotBody(sl.ID+1000))).expect(t, 404)
		if want := fmt.Sprintf(`"booking";r=%d;t=%d`, 4-i, (i+1)*2); a.header.Get("RateLimit") != want {
			t.Fatalf("attempt %d: RateLimit %q, want %q", i, a.header.Get("RateLimit"), want)
		}
	}
	a := e.do(book(tok, "k", slotBody(sl.ID))).expect(t, 429, booking.CodeRateLimited)
	if a.header.Get("Retry-After") != "2" || a.problem(t).RetryAfter != 2 {
		t.Fatalf("Retry-After %q %+v", a.header.Get("Retry-After"), a.problem(t))
	}
	if a.header.Get("RateLimit") != `"booking";r=0;t=10` || a.header.Get("RateLimit-Policy") == "" {
		t.Fatalf("RateLimit %q", a.header.Get("RateLimit"))
	}
	// Another patient is not affected.
	other := e.patient()
	e.do(book(e.patientToken(other.ID), "k", slotBody(sl.ID))).expect(t, 201)

	// After the advised wait one attempt passes.
	e.clock.add(2 * time.Second)
	e.do(book(tok, "k", slotBody(sl.ID))).expect(t, 201)
	e.do(book(tok, "k2", slotBody(sl.ID))).expect(t, 429)
}

// TestMalformedBookingsSpendNothing: a client's malformed requests are
// answered 400 and leave the patient's budget whole, so the first correct
// request after them books (it once got 429).
func TestMalformedBookingsSpendNothing(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 10)
	p := e.patient()
	tok := e.patientToken(p.ID)

	bad := []call{
		book(tok, "", slotBody(sl.ID)),                             // no Idempotency-Key
		book(tok, "k", `{"slotId":`),                               // truncated
		book(tok, "k", map[string]any{"slotId": 0}),                // out of range
		book(tok, "k", map[string]any{"slotId": "41"}),             // wrong type
		book(tok, "k", map[string]any{"slotId": sl.ID, "seat": 1}), // unknown member
		book(tok, "k", map[string]any{"slotId": sl.ID, "patientId": -1}),
	}
	for round := 0; round < 2; round++ { // twelve, more than the budget of five
		for i, c := range bad {
			c.invalid = true
			a := e.do(c).expect(t, 400)
			if a.header.Get("RateLimit") != "" {
				t.Fatalf("bad request %d spent the budget: RateLimit %q", i, a.header.Get("RateLimit"))
			}
		}
	}
	// The same for a reschedule's malformed body.
	for i := 0; i < 6; i++ {
		c := call{method: "POST", path: "/api/appointments/1/reschedule", token: tok, body: map[string]any{"slotId": 0},
			header: map[string]string{"Idempotency-Key": "r"}, invalid: true}
		e.do(c).expect(t, 400)
	}
	a := e.do(book(tok, "k", slotBody(sl.ID))).expect(t, 201)
	if a.header.Get("RateLimit") != `"booking";r=4;t=2` {
		t.Fatalf("RateLimit %q after the malformed requests", a.header.Get("RateLimit"))
	}
	// An admin's malformed booking does not spend the named patient's budget either.
	for i := 0; i < 6; i++ {
		c := book(e.admin, "", map[string]any{"slotId": sl.ID, "patientId": p.ID})
		c.invalid = true
		e.do(c).expect(t, 400)
	}
	a = e.do(book(tok, "k2", slotBody(sl.ID))).expect(t, 409, booking.CodeAlreadyBooked)
	if a.header.Get("RateLimit") != `"booking";r=3;t=4` {
		t.Fatalf("RateLimit %q after the admin's malformed requests", a.header.Get("RateLimit"))
	}
}

// downStore is a database that cannot be reached.
type downStore struct{ booking.Store }

var errDown = fmt.Errorf("%w: dial tcp 10.1.2.3:5432: connection refused", booking.ErrUnavailable)

func (downStore) Ping(context.Context) error { return errDown }
func (downStore) Book(context.Context, int64, []booking.BookRequest, time.Time) ([]booking.BookResult, error) {
	return nil, errDown
}
func (downStore) ListDepartmentsBy(context.Context, booking.DepartmentFilter, booking.Page) ([]booking.Department, error) {
	return nil, errDown
}
func (downStore) GetAppointment(context.Context, int64) (booking.Appointment, error) {
	return booking.Appointment{}, errDown
}

func TestUnavailable(t *testing.T) {
	e := newEnv(t, withStore(func(s booking.Store) booking.Store { return downStore{s} }))
	p := e.patient()
	tok := e.patientToken(p.ID)
	for _, c := range []call{
		book(tok, "k", slotBody(1)),
		{method: "GET", path: "/readyz"},
		{method: "GET", path: "/api/departments"},
		{method: "GET", path: "/api/appointments/1", token: tok},
	} {
		a := e.doAllow(c, true).expect(t, 503, booking.CodeUnavailable)
		if strings.Contains(string(a.body), "10.1.2.3") {
			t.Fatalf("driver text leaked: %s", a.body)
		}
		if a.problem(t).RetryAfter < 1 {
			t.Fatalf("no retryAfter: %s", a.body)
		}
	}
}

func TestClosedStoreIsNot500(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	p := e.patient()
	e.db.Close()
	a := e.doAllow(book(e.patientToken(p.ID), "k", slotBody(sl.ID)), true)
	a.expect(t, 503, booking.CodeUnavailable)
	e.doAllow(call{method: "GET", path: "/readyz"}, true).expect(t, 503, booking.CodeUnavailable)
}

func TestAppointmentsReadAndCancel(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	s1, s2 := e.slot(f, 1), e.slot(f, 1)
	p1, p2 := e.patient(), e.patient()
	t1, t2 := e.patientToken(p1.ID), e.patientToken(p2.ID)
	var a1, a2 booking.Appointment
	e.do(book(t1, "1", slotBody(s1.ID))).expect(t, 201).decode(t, &a1)
	e.do(book(t1, "2", slotBody(s2.ID))).expect(t, 201).decode(t, &a2)
	path1 := "/api/appointments/" + strconv.FormatInt(a1.ID, 10)

	// Others' appointments are not found; admins see all; doctors nothing.
	e.do(call{method: "GET", path: path1, token: t2}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: path1, token: e.admin}).expect(t, 200)
	e.do(call{method: "GET", path: path1, token: e.token(auth.RoleDoctor, "1")}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "GET", path: "/api/appointments/424242", token: t1}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: path1}).expect(t, 401, booking.CodeUnauthorized)

	var mine []booking.Appointment
	e.do(call{method: "GET", path: "/api/me/appointments", token: t1}).expect(t, 200).items(t, &mine)
	if len(mine) != 2 || mine[0].ID != a2.ID {
		t.Fatalf("%+v", mine)
	}
	e.do(call{method: "GET", path: "/api/me/appointments", token: t2}).expect(t, 200).items(t, &mine)
	if len(mine) != 0 {
		t.Fatalf("%+v", mine)
	}
	e.do(call{method: "GET", path: "/api/me/appointments", token: e.admin}).expect(t, 403, booking.CodeForbidden)

	// Cancel: others cannot, the owner can, twice.
	e.do(call{method: "DELETE", path: path1, token: t2}).expect(t, 404, booking.CodeNotFound)
	var c booking.Appointment
	e.do(call{method: "DELETE", path: path1, token: t1}).expect(t, 200).decode(t, &c)
	if c.Status != booking.StatusCancelled {
		t.Fatalf("%+v", c)
	}
	e.do(call{method: "DELETE", path: path1, token: t1}).expect(t, 200).decode(t, &c)
	if c.Status != booking.StatusCancelled {
		t.Fatalf("%+v", c)
	}
	sl, _ := e.db.GetSlot(context.Background(), s1.ID)
	if sl.BookedCount != 0 {
		t.Fatalf("booked %d after cancel", sl.BookedCount)
	}
	// The place is free again for someone else.
	e.do(book(t2, "x", slotBody(s1.ID))).expect(t, 201)

	e.do(call{method: "GET", path: "/api/me/appointments?status=CANCELLED", token: t1}).expect(t, 200).items(t, &mine)
	if len(mine) != 1 || mine[0].ID != a1.ID {
		t.Fatalf("%+v", mine)
	}
	e.do(call{method: "GET", path: "/api/me/appointments?status=BOOKED", token: t1}).expect(t, 200).items(t, &mine)
	if len(mine) != 1 || mine[0].ID != a2.ID {
		t.Fatalf("%+v", mine)
	}

	// Admin cancels anyone's; after the start it is too late.
	path2 := "/api/appointments/" + strconv.FormatInt(a2.ID, 10)
	e.clock.set(s2.StartAt)
	e.do(call{method: "DELETE", path: path2, token: t1}).expect(t, 409, booking.CodeAlreadyStarted)
	e.clock.set(t0)
	e.do(call{method: "DELETE", path: path2, token: e.admin}).expect(t, 200)
	e.do(call{method: "DELETE", path: path2, token: e.token(auth.RoleDoctor, "1")}).expect(t, 403, booking.CodeForbidden)
}

func TestBookUnknownPatient(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	before := e.snapshot()
	e.do(book(e.admin, "k", map[string]any{"slotId": sl.ID, "patientId": 434343})).expect(t, 404, booking.CodeNotFound)
	// A valid token of a patient that does not exist.
	a := e.doAllow(book(e.patientToken(424242), "k", slotBody(sl.ID)), true)
	a.expect(t, 404, booking.CodeNotFound)
	if e.snapshot() != before {
		t.Fatal("database changed")
	}
}
