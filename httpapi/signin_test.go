package httpapi

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// sentCodes is a notifier that keeps the sign-in codes it is given, by
// phone, and can be made to fail.
type sentCodes struct {
	mu    sync.Mutex
	last  map[string]string
	langs map[string]string
	chans []string // the channel each code asked for
	fail  bool
}

func (n *sentCodes) Notify(_ context.Context, m notify.Message) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		return errors.New("the SMS gateway is down")
	}
	if n.last == nil {
		n.last, n.langs = map[string]string{}, map[string]string{}
	}
	to := m.Phone
	if to == "" {
		to = m.Email // a sign-up code sent to an e-mail address
	}
	n.last[to], n.langs[to] = m.Code, m.Language
	n.chans = append(n.chans, m.Channel)
	return nil
}

func (n *sentCodes) channels() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.chans...)
}

func (n *sentCodes) code(phone string) (string, string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last[phone], n.langs[phone]
}

func askSigninCode(phone string) call {
	return call{method: "POST", path: "/api/signin/code", body: map[string]string{"phone": phone}}
}

func verifySignin(phone, code string) call {
	return call{method: "POST", path: "/api/signin/verify", body: map[string]string{"phone": phone, "code": code}}
}

// wrongCode is a code that is not code.
func wrongCode(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

// A registered phone and an unknown one get the same answer; the code
// sent signs the patient in with a patient token of the API.
func TestSigninCodeAndToken(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	known := e.do(askSigninCode(p.Phone)).expect(t, 202)
	unknown := e.do(askSigninCode("+4930999999999")).expect(t, 202)
	if string(known.body) != string(unknown.body) {
		t.Fatalf("known %s, unknown %s: the answers differ", known.body, unknown.body)
	}
	code, _ := e.codes.code(p.Phone)
	if len(code) != service.CodeDigits {
		t.Fatalf("code sent %q", code)
	}
	var tok struct {
		Token     string
		ExpiresAt time.Time
		PatientID int64
	}
	e.do(call{method: "POST", path: "/api/signin/verify", body: map[string]string{"phone": p.Phone, "code": code},
		header: map[string]string{"Accept-Language": "vi"}}).expect(t, 200).decode(t, &tok)
	if tok.PatientID != p.ID || !tok.ExpiresAt.Equal(t0.Add(DefaultSigninTokenTTL)) || tok.Token == "" {
		t.Fatalf("token answer %+v", tok)
	}
	e.do(call{method: "GET", path: "/api/me/appointments", token: tok.Token}).expect(t, 200)
	if got, err := e.db.GetPatient(context.Background(), p.ID); err != nil || got.Language != "vi" {
		t.Fatalf("language %q (%v), want the one signed in with", got.Language, err)
	}
	// The code is used: once only.
	e.do(verifySignin(p.Phone, code)).expect(t, 404, booking.CodeNotFound)
}

func TestSigninBadInput(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	before := e.snapshot()
	e.do(askSigninCode("not a phone")).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/signin/code", body: map[string]string{"phone": ""}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/signin/code", body: `{"phone":"+4930","extra":1}`, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(verifySignin(p.Phone, "12")).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/signin/verify", body: map[string]string{"phone": p.Phone}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(verifySignin(p.Phone, "12345a")).expect(t, 400, booking.CodeInvalidRequest)
	e.do(verifySignin("nope", "123456")).expect(t, 400, booking.CodeInvalidRequest)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused sign-in changed the database")
	}
}

func TestSigninVerifyStatuses(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	// No code yet, then an expired one.
	e.do(verifySignin(p.Phone, "123456")).expect(t, 404, booking.CodeNotFound)
	e.do(askSigninCode(p.Phone)).expect(t, 202)
	code, _ := e.codes.code(p.Phone)
	e.do(verifySignin(p.Phone, wrongCode(code))).expect(t, 400, booking.CodeInvalidRequest)
	e.clock.add(6 * time.Minute)
	e.do(verifySignin(p.Phone, code)).expect(t, 404, booking.CodeNotFound)
	// A code's wrong guesses run out; a new code may be asked for.
	e.do(askSigninCode(p.Phone)).expect(t, 202)
	code, _ = e.codes.code(p.Phone)
	for i := 0; i < 5; i++ {
		e.do(verifySignin(p.Phone, wrongCode(code))).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(verifySignin(p.Phone, code)).expect(t, 429, booking.CodeRateLimited)
	// A departed patient's right code signs nobody in.
	gone := e.patient()
	inactive := false
	if _, err := e.db.UpdatePatient(context.Background(), gone.ID, booking.PatientUpdate{Active: &inactive}); err != nil {
		t.Fatal(err)
	}
	e.do(askSigninCode(gone.Phone)).expect(t, 202)
	code, _ = e.codes.code(gone.Phone)
	e.do(verifySignin(gone.Phone, code)).expect(t, 409, booking.CodeBookingBlocked)
}

// Ten wrong codes of a phone in a day, over all its codes, refuse even a
// fresh right code until the day rolls; other phones are not refused.
func TestSigninPhoneDayLimit(t *testing.T) {
	e := newEnv(t)
	p, other := e.patient(), e.patient()
	wrongs := 0
	for wrongs < 10 {
		e.do(askSigninCode(p.Phone)).expect(t, 202)
		code, _ := e.codes.code(p.Phone)
		for i := 0; i < 5 && wrongs < 10; i++ {
			e.do(verifySignin(p.Phone, wrongCode(code))).expect(t, 400, booking.CodeInvalidRequest)
			wrongs++
		}
	}
	e.do(askSigninCode(p.Phone)).expect(t, 202)
	code, _ := e.codes.code(p.Phone)
	a := e.do(verifySignin(p.Phone, code)).expect(t, 429, booking.CodeRateLimited)
	if want := strconv.Itoa(int(booking.SigninDayEnd(e.clock.Now()).Sub(e.clock.Now()).Seconds())); a.header.Get("Retry-After") != want {
		t.Fatalf("Retry-After %q, want %s (midnight UTC)", a.header.Get("Retry-After"), want)
	}
	e.do(askSigninCode(other.Phone)).expect(t, 202)
	oc, _ := e.codes.code(other.Phone)
	e.do(verifySignin(other.Phone, oc)).expect(t, 200)
	e.clock.set(booking.SigninDayEnd(e.clock.Now()))
	e.do(askSigninCode(p.Phone)).expect(t, 202)
	code, _ = e.codes.code(p.Phone)
	e.do(verifySignin(p.Phone, code)).expect(t, 200)
}

// Beyond the clinic's wrong codes of the day, every check is refused.
func TestSigninClinicDayLimit(t *testing.T) {
	e := newEnv(t, withSignin(func(o *service.SigninOptions) { o.FailuresPerDay = 2 }))
	a, b, c := e.patient(), e.patient(), e.patient()
	for _, p := range []booking.Patient{a, b} {
		e.do(askSigninCode(p.Phone)).expect(t, 202)
		code, _ := e.codes.code(p.Phone)
		e.do(verifySignin(p.Phone, wrongCode(code))).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(askSigninCode(c.Phone)).expect(t, 202)
	code, _ := e.codes.code(c.Phone)
	e.do(verifySignin(c.Phone, code)).expect(t, 429, booking.CodeRateLimited)
}

// Code requests: the phone's limit answers alike for an unknown phone; the
// address's limit and the clinic's budget refuse with Retry-After; the
// budget is spent only by codes sent.
func TestSigninCodeLimits(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	for _, ph := range []string{p.Phone, "+4930999999999"} {
		for i := 0; i < 3; i++ {
			e.do(askSigninCode(ph)).expect(t, 202)
		}
		if a := e.do(askSigninCode(ph)).expect(t, 429, booking.CodeRateLimited); a.header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
	}

	perAddr := newEnv(t, withSignin(func(o *service.SigninOptions) { o.CodesPerAddress = 2 }))
	perAddr.do(askSigninCode("+4930999999991")).expect(t, 202)
	perAddr.do(askSigninCode("+4930999999992")).expect(t, 202)
	perAddr.do(askSigninCode("+4930999999993")).expect(t, 429, booking.CodeRateLimited)

	budget := newEnv(t, withSignin(func(o *service.SigninOptions) { o.CodesPerMinute = 1 }))
	// Unknown phones do not spend the budget...
	for i := 0; i < 3; i++ {
		budget.do(askSigninCode("+493099999990"+strconv.Itoa(i))).expect(t, 202)
	}
	// ...a code sent does; then everyone waits.
	budget.do(askSigninCode(budget.patient().Phone)).expect(t, 202)
	budget.do(askSigninCode(budget.patient().Phone)).expect(t, 429, booking.CodeRateLimited)
	budget.do(askSigninCode("+4930999999909")).expect(t, 429, booking.CodeRateLimited)
}

// A code that cannot be sent is 503 with Retry-After, not a 500.
func TestSigninCodeNotSent(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	e.codes.fail = true
	e.doAllow(askSigninCode(p.Phone), true).expect(t, 503, booking.CodeUnavailable)
}
