package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// codeBox is a notifier keeping the codes it was asked to send.
type codeBox struct {
	mu   sync.Mutex
	sent []notify.Message
}

func (b *codeBox) Notify(_ context.Context, m notify.Message) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, m)
	return nil
}

func (b *codeBox) last() notify.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sent[len(b.sent)-1]
}

// signupCounts counts the sign-ups' outcomes (service.SignupObserver).
type signupCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *signupCounts) Signup(o string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[o]++
}

// testSignup holds the Service's sign-up to the same behaviour on both
// stores: a new patient with sealed birth date and sex, its audit entry,
// a registered address signed in unchanged, wrong and used codes, the
// switch, export and erasure, and one patient however many sign up at once
// with one code.
func testSignup(t *testing.T, h Harness) {
	s := h.New(t)
	acc, ok := s.(accountsStore)
	if !ok {
		t.Fatalf("the %T store does not implement accounts.Store", s)
	}
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	svc := service.NewService(s, service.Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }, PhoneRegion: "FR"})
	box, counts := &codeBox{}, &signupCounts{n: map[string]int{}}
	opts := service.SigninOptions{Accounts: acc, Notifier: box, PhoneKey: []byte("phone-key"), CodeKey: []byte("code-key"),
		Demo: true, SignupObserver: counts}
	g := svc.NewSignin(opts)
	ctx := context.Background()
	codeFor := func(r service.SignupCodeRequest) string {
		t.Helper()
		sent, err := g.RequestSignupCode(ctx, r)
		must(t, err)
		if sent.DemoCode == "" || box.last().Code != sent.DemoCode {
			t.Fatalf("the code sent (%+v) is not the one shown in demo mode", box.last())
		}
		return sent.DemoCode
	}

	// A new phone: the code goes to it, and the sign-up creates the patient.
	code := codeFor(service.SignupCodeRequest{Phone: "06 11 22 33 44", ClientAddr: "10.0.0.1", Language: "fr"})
	if m := box.last(); m.Phone != "+33611223344" || m.Email != "" || m.PatientID != 0 || m.Kind != notify.KindLoginCode || m.Language != "fr" {
		t.Fatalf("the code went as %+v", m)
	}
	profile := booking.SignupProfile{Name: "  Océane Signup-Nouvelle ", BirthDate: "1990-04-02", Sex: "female"}
	// A wrong code counts as at sign-in and creates nobody.
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	if _, err := g.Signup(ctx, service.SignupRequest{Phone: "+33611223344", Code: wrong, Profile: profile, ClientAddr: "10.0.0.1"}); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("a wrong code: %v, want invalid-request", err)
	}
	up, err := g.Signup(ctx, service.SignupRequest{Phone: "0611223344", Code: code, Profile: profile, Language: "fr", ClientAddr: "10.0.0.1"})
	must(t, err)
	if !up.Created || up.Patient.ID == 0 {
		t.Fatalf("sign-up: %+v, want a new patient", up)
	}
	p, err := s.GetPatient(ctx, up.Patient.ID)
	must(t, err)
	if p.Name != "Océane Signup-Nouvelle" || p.Phone != "+33611223344" || p.BirthDate != "1990-04-02" || p.Sex != "female" || p.Language != "fr" || !p.Active {
		t.Fatalf("the new patient reads back as %+v", p)
	}
	raw := h.Inspect(t, s).PatientBytes(t)
	for _, plain := range []string{"Océane", "1990-04-02", "female", "611223344"} {
		if bytes.Contains(raw, []byte(plain)) {
			t.Fatalf("the patients' rows hold %q in plain", plain)
		}
	}
	es, err := s.ListAudit(ctx, booking.AuditFilter{Entity: booking.EntityPatient, EntityID: p.ID, Limit: 10})
	must(t, err)
	if len(es) != 1 || es[0].Action != "signup" || es[0].ActorRole != booking.RolePatient || es[0].ActorID != fmt.Sprint(p.ID) ||
		strings.ReplaceAll(es[0].After, " ", "") != fmt.Sprintf(`{"id":%d}`, p.ID) {
		t.Fatalf("the sign-up's audit entries: %+v", es)
	}
	// The code is used: it signs nobody up twice.
	if _, err := g.Signup(ctx, service.SignupRequest{Phone: "0611223344", Code: code, Profile: profile, ClientAddr: "10.0.0.1"}); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("a used code: %v, want not-found", err)
	}

	// The registered phone again: its right code signs into its account,
	// whose name stays.
	code = codeFor(service.SignupCodeRequest{Phone: "+33611223344", ClientAddr: "10.0.0.2"})
	again, err := g.Signup(ctx, service.SignupRequest{Phone: "+33 6 11 22 33 44", Code: code, Profile: booking.SignupProfile{Name: "Someone Else"}, ClientAddr: "10.0.0.2"})
	must(t, err)
	if again.Created || again.Patient.ID != p.ID || again.Patient.Name != p.Name {
		t.Fatalf("a registered phone's sign-up: %+v, want patient %d signed in unchanged", again, p.ID)
	}

	// An e-mail address: the code goes to it only.
	code = codeFor(service.SignupCodeRequest{Email: "Kim.Signup@Example.org", ClientAddr: "10.0.0.3"})
	if m := box.last(); m.Email != "Kim.Signup@Example.org" || m.Phone != "" {
		t.Fatalf("the e-mail code went as %+v", m)
	}
	byMail, err := g.Signup(ctx, service.SignupRequest{Email: "kim.signup@example.org", Code: code, Profile: booking.SignupProfile{Name: "Kim"}, ClientAddr: "10.0.0.3"})
	must(t, err)
	if !byMail.Created || byMail.Patient.Email != "kim.signup@example.org" || byMail.Patient.Phone != "" {
		t.Fatalf("e-mail sign-up: %+v", byMail)
	}

	// An expired code.
	code = codeFor(service.SignupCodeRequest{Phone: "+33611220000", ClientAddr: "10.0.0.4"})
	clock.Add(int64(10 * time.Minute))
	if _, err := g.Signup(ctx, service.SignupRequest{Phone: "+33611220000", Code: code, Profile: profile, ClientAddr: "10.0.0.4"}); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("an expired code: %v, want not-found", err)
	}

	// Exported, then erased with the rest of the personal data.
	ex, err := svc.ExportPatient(ctx, p.ID)
	must(t, err)
	if ex.Patient.BirthDate != "1990-04-02" || ex.Patient.Sex != "female" {
		t.Fatalf("the export holds %+v", ex.Patient)
	}
	if _, err := svc.ErasePatient(ctx, p.ID, "asked"); err != nil {
		t.Fatal(err)
	}
	if p, err = s.GetPatient(ctx, p.ID); err != nil || p.BirthDate != "" || p.Sex != "" || p.Name != "" {
		t.Fatalf("after erasure: %+v (%v)", p, err)
	}

	// Many at once with one code: exactly one patient.
	const racers = 16
	code = codeFor(service.SignupCodeRequest{Phone: "+33655555555", ClientAddr: "10.0.1.0"})
	before, err := acc.ListPatients(ctx, 0, 100)
	must(t, err)
	var start, done sync.WaitGroup
	start.Add(1)
	var created, refused atomic.Int32
	ids := make(chan int64, racers)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			up, err := g.Signup(ctx, service.SignupRequest{Phone: "+33655555555", Code: code,
				Profile: booking.SignupProfile{Name: fmt.Sprintf("Racer %d", i)}, ClientAddr: fmt.Sprintf("10.0.2.%d", i)})
			switch {
			case err == nil && up.Created:
				created.Add(1)
				ids <- up.Patient.ID
			case booking.ErrorCode(err) == booking.CodeNotFound:
				refused.Add(1) // the code was used by another
			default:
				t.Errorf("racer %d: %+v, %v", i, up, err)
			}
		}()
	}
	start.Done()
	done.Wait()
	close(ids)
	after, err := acc.ListPatients(ctx, 0, 100)
	must(t, err)
	if created.Load() != 1 || refused.Load() != racers-1 || len(after) != len(before)+1 {
		t.Fatalf("%d racers with one code: %d created, %d refused, %d patients more; want 1, %d, 1",
			racers, created.Load(), refused.Load(), len(after)-len(before), racers-1)
	}
	if got, err := acc.PatientByPhone(ctx, "+33655555555"); err != nil || got.ID != <-ids {
		t.Fatalf("the phone's patient: %+v (%v)", got, err)
	}
	counts.mu.Lock()
	if counts.n[service.SignupCreated] != 3 || counts.n[service.SignupExisting] != 1 || counts.n[service.SigninWrong] != 1 {
		t.Errorf("outcomes counted: %v", counts.n)
	}
	counts.mu.Unlock()

	// Turned off: both steps refuse, and nothing is sent.
	opts.SignupOff = true
	off := svc.NewSignin(opts)
	n := len(box.sent)
	if _, err := off.RequestSignupCode(ctx, service.SignupCodeRequest{Phone: "+33612121212"}); booking.ErrorCode(err) != booking.CodeSignupDisabled {
		t.Fatalf("code with sign-up off: %v", err)
	}
	if _, err := off.Signup(ctx, service.SignupRequest{Phone: "+33612121212", Code: "123456", Profile: profile}); booking.ErrorCode(err) != booking.CodeSignupDisabled {
		t.Fatalf("sign-up off: %v", err)
	}
	if len(box.sent) != n || off.SignupEnabled() || !g.SignupEnabled() {
		t.Fatal("sign-up off sent a code, or says it is on")
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		n = n*10 + int(c-'0')
	}
	return n
}
