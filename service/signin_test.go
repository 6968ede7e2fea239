package service

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/sqlite"
)

type signinNotes struct {
	mu   sync.Mutex
	sent []notify.Message
	fail bool
}

func (n *signinNotes) Notify(_ context.Context, m notify.Message) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		return errors.New("gateway down")
	}
	n.sent = append(n.sent, m)
	return nil
}

type signinCounts struct {
	mu            sync.Mutex
	codes, checks map[string]int
}

func (c *signinCounts) SigninCode(o string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.codes[o]++
}

func (c *signinCounts) SigninChecked(o string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checks[o]++
}

func newSigninFixture(t *testing.T, mod func(*SigninOptions)) (*Signin, *sqlite.Store, *signinNotes, *signinCounts, SigninOptions) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	svc := NewService(st, Options{Now: func() time.Time { return now }})
	notes, counts := &signinNotes{}, &signinCounts{codes: map[string]int{}, checks: map[string]int{}}
	opts := SigninOptions{Accounts: st, Notifier: notes, PhoneKey: []byte("phone-key"), CodeKey: []byte("code-key"), Observer: counts}
	if mod != nil {
		mod(&opts)
	}
	return svc.NewSignin(opts), st, notes, counts, opts
}

func TestSigninOutcomes(t *testing.T) {
	ctx := context.Background()
	g, st, notes, counts, opts := newSigninFixture(t, func(o *SigninOptions) { o.Demo = true })
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "Lan", Phone: "+84901234567", Email: "lan@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: "call me"}); booking.ErrorCode(err) != booking.CodeInvalidRequest || !errors.Is(err, ErrMalformedSignin) {
		t.Fatalf("not a phone: %v", err)
	}
	long := "+84901234567" + strings.Repeat(" ", MaxSigninInput)
	if _, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: long}); !errors.Is(err, ErrMalformedSignin) {
		t.Fatalf("a phone beyond the bound: %v", err)
	}
	if _, err := g.VerifySigninCode(ctx, SigninVerify{Phone: long, Code: "123456"}); !errors.Is(err, ErrMalformedSignin) {
		t.Fatalf("a phone beyond the bound: %v", err)
	}
	unknown, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: "+84909999999", ClientAddr: "a"})
	if err != nil || unknown.DemoCode != "" || len(notes.sent) != 0 {
		t.Fatalf("unknown phone: %+v %v, %d sent", unknown, err, len(notes.sent))
	}
	sent, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: "+84 90 123 45 67", ClientAddr: "a", Language: "vi"})
	if err != nil || len(notes.sent) != 1 || notes.sent[0].Code != sent.DemoCode || notes.sent[0].Language != "vi" || notes.sent[0].Kind != notify.KindLoginCode {
		t.Fatalf("known phone: %+v %v %+v", sent, err, notes.sent)
	}
	// The code goes with both addresses: an SMTP notifier mails it.
	if m := notes.sent[0]; m.Phone != "+84901234567" || m.Email != "lan@example.org" {
		t.Fatalf("the code's message is addressed to %q and %q", m.Phone, m.Email)
	}
	if !sent.ExpiresAt.Equal(unknown.ExpiresAt) {
		t.Fatal("the answers of a known and an unknown phone differ")
	}
	if _, err := g.VerifySigninCode(ctx, SigninVerify{Phone: "+84909999999", Code: "123456"}); booking.ErrorCode(err) != booking.CodeInvalidRequest || errors.Is(err, ErrMalformedSignin) {
		t.Fatalf("an unknown phone's check: %v, want a wrong code like any", err)
	}
	// Another Signin with the same keys (the API's beside the pages')
	// checks the code.
	other := g.svc.NewSignin(opts)
	got, err := other.VerifySigninCode(ctx, SigninVerify{Phone: "+84901234567", Code: sent.DemoCode, Language: "fr"})
	if err != nil || got.ID != p.ID || got.Language != "fr" {
		t.Fatalf("right code: %+v %v", got, err)
	}
	if stored, _ := st.GetPatient(ctx, p.ID); stored.Language != "fr" {
		t.Fatalf("language %q not remembered", stored.Language)
	}
	if _, err := g.VerifySigninCode(ctx, SigninVerify{Phone: "+84901234567", Code: sent.DemoCode}); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("used code: %v", err)
	}
	if _, err := g.VerifySigninCode(ctx, SigninVerify{Phone: "+84901234567", Code: "12 34"}); !errors.Is(err, ErrMalformedSignin) {
		t.Fatalf("malformed code: %v", err)
	}
	want := map[string]int{SigninInvalid: 2, SigninUnknown: 1, SigninSent: 1}
	for k, v := range want {
		if counts.codes[k] != v {
			t.Fatalf("code outcomes %v, want %v", counts.codes, want)
		}
	}
	if counts.checks[SigninWrong] != 1 || counts.checks[SigninExpired] != 1 || counts.checks[SigninInvalid] != 2 {
		t.Fatalf("check outcomes %v", counts.checks)
	}
}

// Without demo mode no code is returned; a notifier failure is
// unavailable; a departed patient's right code is refused.
func TestSigninRefusals(t *testing.T) {
	ctx := context.Background()
	g, st, notes, counts, _ := newSigninFixture(t, func(o *SigninOptions) { o.CodesPerMinute = 2 })
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "Lan", Phone: "+84901234567"})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: p.Phone})
	if err != nil || sent.DemoCode != "" {
		t.Fatalf("no demo: %+v %v", sent, err)
	}
	inactive := false
	if _, err := st.UpdatePatient(ctx, p.ID, booking.PatientUpdate{Active: &inactive}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.VerifySigninCode(ctx, SigninVerify{Phone: p.Phone, Code: notes.sent[0].Code}); booking.ErrorCode(err) != booking.CodeBookingBlocked {
		t.Fatalf("departed: %v", err)
	}
	notes.fail = true
	if _, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: p.Phone}); booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("not sent: %v", err)
	}
	// Two codes spent the budget; unknown phones are still answered
	// nothing new: everyone waits.
	var be *booking.Error
	if _, err := g.RequestSigninCode(ctx, SigninCodeRequest{Phone: "+84909999999"}); !errors.As(err, &be) || be.Code != booking.CodeRateLimited || be.RetryAfter <= 0 {
		t.Fatalf("budget spent: %v", err)
	}
	if counts.checks[SigninDeparted] != 1 || counts.codes[SigninFailed] != 1 || counts.codes[SigninClinic] != 1 {
		t.Fatalf("outcomes %v %v", counts.codes, counts.checks)
	}
}
