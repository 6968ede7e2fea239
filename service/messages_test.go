package service

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/sqlite"
)

// scripted is an SMS channel that answers each attempt with the next
// error of errs (nil: accepted, with a sid).
type scripted struct {
	mu   sync.Mutex
	errs []error
	n    int
}

func (s *scripted) Notify(ctx context.Context, m notify.Message) error {
	_, err := s.Send(ctx, m)
	return err
}

func (s *scripted) Send(context.Context, notify.Message) (notify.Receipt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	var err error
	if len(s.errs) > 0 {
		err, s.errs = s.errs[0], s.errs[1:]
	}
	rc := notify.Receipt{Channel: notify.ChannelSMS}
	if err == nil {
		rc.ProviderID = "SM" + string(rune('0'+s.n))
	}
	return rc, err
}

// tally is a MessageObserver.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *tally) Message(channel, outcome string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[channel+"/"+outcome]++
}

// TestDeliveriesRecordAndCount: each attempt records its message (one
// record per key) and is counted; a final attempt's failure fails it; a
// provider's report moves it once and is counted once; bad reports are
// refused.
func TestDeliveriesRecordAndCount(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "Ada", Phone: "+33612345678"})
	if err != nil {
		t.Fatal(err)
	}
	ch := &scripted{errs: []error{errors.New("twilio: 503"), nil, errors.New("twilio: 500")}}
	obs := &tally{n: map[string]int{}}
	d := NewService(st, Options{}).Deliveries(DeliveriesOptions{Notifier: ch, Channels: []string{notify.ChannelSMS}, Observer: obs})
	m := notify.Message{Kind: notify.KindReminder, PatientID: p.ID, Phone: p.Phone, IdempotencyKey: "appt-1-reminder"}

	if err := d.Notify(ctx, m); err == nil || notify.IsPermanent(err) {
		t.Fatalf("first attempt: %v", err)
	}
	if err := d.Notify(ctx, m); err != nil {
		t.Fatal(err)
	}
	list, _ := st.PatientMessages(ctx, p.ID, booking.Page{})
	if len(list) != 1 || list[0].State != booking.MessageSent || list[0].Attempts != 2 || list[0].ProviderID != "SM2" {
		t.Fatalf("records %+v", list)
	}
	// The last attempt of another message fails it.
	m2 := m
	m2.IdempotencyKey = "appt-2-reminder"
	if err := d.Notify(FinalAttempt(ctx), m2); err == nil {
		t.Fatal("the scripted failure passed")
	}
	list, _ = st.PatientMessages(ctx, p.ID, booking.Page{})
	if list[0].State != booking.MessageFailed || list[0].Reason != "twilio: 500" {
		t.Fatalf("final attempt: %+v", list[0])
	}

	for range 2 { // a repeated report counts once
		r, err := d.Report(ctx, booking.MessageReport{ProviderID: "SM2", State: booking.MessageDelivered})
		if err != nil || r.State != booking.MessageDelivered {
			t.Fatalf("report: %+v %v", r, err)
		}
	}
	if _, err := d.Report(ctx, booking.MessageReport{ProviderID: "SMx", State: booking.MessageDelivered}); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("unknown sid: %v", err)
	}
	if _, err := d.Report(ctx, booking.MessageReport{ProviderID: "SM2", State: "lost"}); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("unknown state: %v", err)
	}
	want := map[string]int{"sms/retry": 1, "sms/sent": 1, "sms/failed": 1, "sms/delivered": 1}
	for k, n := range want {
		if obs.n[k] != n {
			t.Fatalf("counts %v, want %v", obs.n, want)
		}
	}
	if st := d.Channels(); len(st) != 1 || st[0].Working() || st[0].Reason != "twilio: 500" {
		t.Fatalf("channel status %+v", st)
	}

	// A sign-up code (no patient yet) is recorded too, and its report found.
	if err := d.Notify(FinalAttempt(ctx), notify.Message{Kind: notify.KindLoginCode, Phone: "+33600000000", IdempotencyKey: "login-signup"}); err != nil {
		t.Fatal(err)
	}
	if r, err := d.Report(ctx, booking.MessageReport{ProviderID: "SM4", State: booking.MessageDelivered}); err != nil || r.PatientID != 0 || r.Kind != notify.KindLoginCode {
		t.Fatalf("the sign-up code's report: %+v %v", r, err)
	}
}

// refusing is a notifier that no channel of reaches the patient.
type refusing struct{ n int }

func (r *refusing) Notify(context.Context, notify.Message) error {
	r.n++
	return &notify.Permanent{Err: notify.ErrNoChannel}
}

// TestSigninCodeNoChannelAnsweredAlike: a registered phone whose code no
// channel can deliver is answered as an unknown phone is (no enumeration),
// and counted as failed.
func TestSigninCodeNoChannelAnsweredAlike(t *testing.T) {
	ch := &refusing{}
	g, st, _, counts, _ := newSigninFixture(t, func(o *SigninOptions) { o.Notifier = ch })
	p, err := st.CreatePatient(context.Background(), booking.Patient{Name: "Ada", Phone: "+33612345678"})
	if err != nil {
		t.Fatal(err)
	}
	known, err := g.RequestSigninCode(context.Background(), SigninCodeRequest{Phone: p.Phone, Channel: notify.ChannelEmail, ClientAddr: "a"})
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := g.RequestSigninCode(context.Background(), SigninCodeRequest{Phone: "+33699999999", Channel: notify.ChannelEmail, ClientAddr: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if known.ExpiresAt != unknown.ExpiresAt || known.DemoCode != "" || ch.n != 1 {
		t.Fatalf("known %+v, unknown %+v, %d attempts", known, unknown, ch.n)
	}
	if counts.codes[SigninFailed] != 1 || counts.codes[SigninUnknown] != 1 {
		t.Fatalf("outcomes %v", counts.codes)
	}
	if _, err := g.RequestSigninCode(context.Background(), SigninCodeRequest{Phone: p.Phone, Channel: "fax", ClientAddr: "a"}); booking.ErrorCode(err) != booking.CodeInvalidRequest {
		t.Fatalf("channel fax: %v", err)
	}
}
