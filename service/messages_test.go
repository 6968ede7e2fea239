package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
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

// deliveriesStore is a migrated SQLite store with one patient, Ada.
func deliveriesStore(t *testing.T) (*sqlite.Store, booking.Patient) {
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
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "Ada", Phone: "+33612345678"})
	if err != nil {
		t.Fatal(err)
	}
	return st, p
}

// TestDeliveriesRecordAndCount: each attempt records its message (one
// record per key) and is counted; a final attempt's failure fails it; a
// provider's report moves it once and is counted once; bad reports are
// refused.
func TestDeliveriesRecordAndCount(t *testing.T) {
	ctx := context.Background()
	st, p := deliveriesStore(t)
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

// heldRecords counts the store's RecordMessages calls by size and holds
// the first until hold is closed.
type heldRecords struct {
	booking.Store
	hold    chan struct{}
	mu      sync.Mutex
	sizes   []int
	started bool
}

func (h *heldRecords) RecordMessages(ctx context.Context, as []booking.MessageAttempt) (map[string]booking.Message, error) {
	h.mu.Lock()
	first := !h.started
	h.started = true
	h.sizes = append(h.sizes, len(as))
	h.mu.Unlock()
	if first {
		<-h.hold
	}
	return h.Store.RecordMessages(ctx, as)
}

func (h *heldRecords) calls() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sizes)
}

// TestDeliveriesRecordTogether: the records of messages sent while one is
// being written are written together, in one store call, as soon as it
// ends; one naming a patient no longer there fails alone, the others of
// its batch recorded one by one.
func TestDeliveriesRecordTogether(t *testing.T) {
	ctx := context.Background()
	st, p := deliveriesStore(t)
	held := &heldRecords{Store: st, hold: make(chan struct{})}
	d := NewService(held, Options{}).Deliveries(DeliveriesOptions{Notifier: &scripted{}})
	const n = 20
	recorded := make([]bool, n)
	var wg sync.WaitGroup
	send := func(i int) {
		m := notify.Message{Kind: notify.KindReminder, PatientID: p.ID, Phone: p.Phone, IdempotencyKey: fmt.Sprintf("appt-%d-reminder", i)}
		if i == n-1 {
			m.PatientID = 1 << 40 // erased meanwhile
		}
		wg.Go(func() {
			ok, err := d.NotifyRecorded(ctx, m)
			if err != nil {
				t.Error(err)
			}
			recorded[i] = ok
		})
	}
	send(0)
	testkit.Eventually(t, "the first record's write", 10*time.Second, func() bool { return len(held.calls()) == 1 })
	for i := 1; i < n; i++ {
		send(i)
	}
	testkit.Eventually(t, "the others queued", 10*time.Second, func() bool {
		d.records.mu.Lock()
		defer d.records.mu.Unlock()
		return len(d.records.queue) == n-1
	})
	close(held.hold)
	wg.Wait()
	calls := held.calls()
	if len(calls) != 2+n-1 || calls[0] != 1 || calls[1] != n-1 {
		t.Fatalf("store calls of sizes %v, want 1, then the %d queued together, then each alone", calls, n-1)
	}
	for i, ok := range recorded {
		if ok != (i != n-1) {
			t.Fatalf("message %d recorded: %v", i, ok)
		}
	}
	list, err := st.PatientMessages(ctx, p.ID, booking.Page{Limit: 50})
	if err != nil || len(list) != n-1 {
		t.Fatalf("%d records (%v), want %d", len(list), err, n-1)
	}
	for _, m := range list {
		if m.State != booking.MessageSent || m.Attempts != 1 {
			t.Fatalf("record %+v, want sent once", m)
		}
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
