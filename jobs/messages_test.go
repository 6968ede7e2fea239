package jobs

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/notify/twiliotest"
	"github.com/slotd/slotd/service"
)

// counts is a MessageObserver that keeps its counts.
type counts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) Message(channel, outcome string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[channel+"/"+outcome]++
}

func (c *counts) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// TestTwilioDeliveryRetriedThenFailed: a confirmation sent by SMS through
// (a fake) Twilio meets a 429, is retried by the job with backoff, then
// refused with a 400: its record says failed with Twilio's code and
// message (the number masked), after two attempts, and the metric counts
// one retry and one failure. A second confirmation goes: sent, with sid.
func TestTwilioDeliveryRetriedThenFailed(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		fake := twiliotest.New(t, http.StatusTooManyRequests, http.StatusBadRequest)
		n, err := notify.New(notify.Config{SMSProvider: "twilio", TwilioBaseURL: fake.URL,
			TwilioAccountSID: twiliotest.AccountSID, TwilioAuthToken: twiliotest.AuthToken, TwilioFrom: "+15005550006"})
		must(t, err)
		svc := svcAt(s, clock(t0))
		obs := &counts{}
		d := svc.Deliveries(service.DeliveriesOptions{Notifier: n, Channels: []string{notify.ChannelSMS}, Observer: obs})
		r := runner(t, s, Config{Service: svc, Notifier: d}, true)
		p := f.patient()
		f.book(f.slot(2, 0).ID, t0, p)
		var m booking.Message
		eventually(t, "the failed confirmation", 30*time.Second, func() bool {
			ms, err := s.PatientMessages(context.Background(), p.ID, booking.Page{Limit: 10})
			must(t, err)
			if len(ms) == 1 {
				m = ms[0]
			}
			return m.State == booking.MessageFailed
		})
		drained(t, r)
		if m.Attempts != 2 || m.Channel != notify.ChannelSMS || m.Kind != notify.KindConfirmation ||
			!strings.HasPrefix(m.Reason, "21211: The 'To' number +33******") || strings.Contains(m.Reason, p.Phone) {
			t.Fatalf("record %+v", m)
		}
		if obs.get("sms/retry") != 1 || obs.get("sms/failed") != 1 || obs.get("sms/sent") != 0 {
			t.Fatalf("counts %v", obs.n)
		}
		if st := d.Channels(); len(st) != 1 || st[0].Working() || st[0].Reason == "" {
			t.Fatalf("channel status %+v", st)
		}
		if got := len(fake.Requests()); got != 2 {
			t.Fatalf("%d requests to Twilio, want 2", got)
		}

		p2 := f.patient()
		f.book(f.slot(2, 0).ID, t0, p2)
		eventually(t, "the sent confirmation", 20*time.Second, func() bool {
			ms, err := s.PatientMessages(context.Background(), p2.ID, booking.Page{Limit: 10})
			must(t, err)
			if len(ms) == 1 {
				m = ms[0]
			}
			return m.State == booking.MessageSent
		})
		if reqs := fake.Requests(); m.ProviderID != reqs[len(reqs)-1].SID || m.Attempts != 1 || obs.get("sms/sent") != 1 {
			t.Fatalf("record %+v, counts %v", m, obs.n)
		}
		if st := d.Channels(); !st[0].Working() {
			t.Fatalf("channel status %+v", st)
		}
	})
}

// marksCounted is the real store, counting the jobs' own delivery marks
// and refusing to record the deliveries to patient refuse.
type marksCounted struct {
	booking.Store
	marks  atomic.Int32
	refuse atomic.Int64
}

func (m *marksCounted) MarkMessage(ctx context.Context, mk booking.MessageMark) error {
	m.marks.Add(1)
	return m.Store.MarkMessage(ctx, mk)
}

func (m *marksCounted) RecordMessages(ctx context.Context, as []booking.MessageAttempt) (map[string]booking.Message, error) {
	for _, a := range as {
		if a.PatientID == m.refuse.Load() {
			return nil, errors.New("record refused")
		}
	}
	return m.Store.RecordMessages(ctx, as)
}

// TestDeliveryRecordIsTheMark: through the deliveries (which record each
// message), a batch of three confirmations, one refused for good by its
// receiver, writes no mark of its own: the records say sent, sent and
// failed. When a record cannot be written, the job marks that message
// itself, so that a retry does not send it again.
func TestDeliveryRecordIsTheMark(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		ps := []booking.Patient{f.patient(), f.patient(), f.patient(), f.patient()}
		refused := ps[2].ID
		rec := &recorder{fail: func(_ int, m notify.Message) error {
			if m.PatientID == refused {
				return &notify.Permanent{Err: notify.ErrNoAddress}
			}
			return nil
		}}
		counted := &marksCounted{Store: s}
		svc := service.NewService(counted, service.Options{Now: clock(t0)})
		d := svc.Deliveries(service.DeliveriesOptions{Notifier: rec})
		r := runner(t, s, Config{Service: svc, Notifier: d}, true)
		f.book(f.slot(3, 0).ID, t0, ps[:3]...)
		eventually(t, "three confirmations tried", 20*time.Second, func() bool { return rec.tries() == 3 })
		drained(t, r)
		for i, p := range ps[:3] {
			want := booking.MessageSent
			if p.ID == refused {
				want = booking.MessageFailed
			}
			ms, err := s.PatientMessages(f.ctx, p.ID, booking.Page{Limit: 10})
			must(t, err)
			if len(ms) != 1 || ms[0].State != want || ms[0].Attempts != 1 {
				t.Fatalf("patient %d's records %+v, want one %s after one attempt", i, ms, want)
			}
		}
		if n := counted.marks.Load(); n != 0 {
			t.Fatalf("%d marks written beside the deliveries' records, want none", n)
		}

		counted.refuse.Store(ps[3].ID)
		f.book(f.slot(1, 0).ID, t0, ps[3])
		eventually(t, "the fourth confirmation marked", 20*time.Second, func() bool {
			ms, err := s.PatientMessages(f.ctx, ps[3].ID, booking.Page{Limit: 10})
			must(t, err)
			return len(ms) == 1 && ms[0].State == booking.MessageSent
		})
		drained(t, r)
		if n := counted.marks.Load(); n != 1 || rec.tries() != 4 {
			t.Fatalf("%d marks and %d sends after an unrecorded delivery, want 1 and 4", n, rec.tries())
		}
	})
}
