package jobs

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// counting is a booking.Observer that counts offers and reminders.
type counting struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *counting) Booked(string, bool, time.Duration) {}
func (c *counting) Batch(int, time.Duration)           {}
func (c *counting) Offers(o string, n int)             { c.add("offer-"+o, n) }
func (c *counting) Reminders(o string, n int)          { c.add("reminder-"+o, n) }
func (c *counting) add(k string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[k] += n
}

func (c *counting) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[k]
}

// TestReminderInPatientLanguage: a reminder goes out in the language the
// patient chose, with the local time, the doctor and the number; one whose
// appointment was cancelled after the scan enqueued it is dropped; the
// observer counts both.
func TestReminderInPatientLanguage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		fr, other := f.patient(), f.patient()
		langs, ok := s.(interface {
			SetPatientLanguage(ctx context.Context, patientID int64, lang string) error
		})
		if !ok {
			t.Fatal("the store cannot remember a patient's language")
		}
		must(t, langs.SetPatientLanguage(f.ctx, fr.ID, "fr"))
		sl := f.slot(2, 0)
		obs := &counting{}
		at := sl.StartAt.Add(-24 * time.Hour)
		svc := service.NewService(s, service.Options{Now: clock(at), Observer: obs})
		// The runner binds the outbox now and works only once started,
		// after the cancel.
		rec := &recorder{}
		r := runner(t, s, Config{Service: svc, Notifier: rec}, false)
		as := f.book(sl.ID, t0, fr, other)
		scan, err := svc.SendReminders(f.ctx)
		must(t, err)
		if scan.Sent != 2 || obs.get("reminder-enqueued") != 2 {
			t.Fatalf("scan %+v, counted %d", scan, obs.get("reminder-enqueued"))
		}
		_, err = s.Cancel(f.ctx, as[1].ID, other.ID, at)
		must(t, err)

		must(t, r.Start(context.Background()))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = r.Stop(ctx)
		})
		drained(t, r)
		var reminders []notify.Message
		for _, m := range rec.messages() {
			if m.Kind == notify.KindReminder {
				reminders = append(reminders, m)
			}
		}
		if len(reminders) != 1 || reminders[0].PatientID != fr.ID {
			t.Fatalf("reminders %+v, want one for patient %d", reminders, fr.ID)
		}
		m := reminders[0]
		if m.Language != "fr" {
			t.Fatalf("language %q", m.Language)
		}
		subject, body := notify.Text(m)
		for _, want := range []string{"Rappel de rendez-vous", "Rappel de votre rendez-vous avec Dr. Martin le", "(Europe/Paris)", "n° 1"} {
			if !strings.Contains(subject+"\n"+body, want) {
				t.Errorf("the reminder lacks %q:\n%s\n%s", want, subject, body)
			}
		}
		if d, x := obs.get("reminder-delivered"), obs.get("reminder-dropped"); d != 1 || x != 1 {
			t.Fatalf("counted %d delivered and %d dropped, want 1 and 1", d, x)
		}
	})
}
