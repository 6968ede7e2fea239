package events

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
)

// memOutbox is an Outbox in memory with the stores' contract: oldest first,
// the confirmed prefix deleted. (The stores' own RelayEvents is tested in
// storetest's events test and through cmd/slotd.)
type memOutbox struct {
	mu  sync.Mutex
	evs []booking.Event
}

func (o *memOutbox) RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	batch := o.evs[:min(limit, len(o.evs))]
	if len(batch) == 0 {
		return 0, nil
	}
	n, err := publish(append([]booking.Event(nil), batch...))
	o.evs = o.evs[n:]
	return n, err
}

func (o *memOutbox) EventBacklog(context.Context) (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return int64(len(o.evs)), nil
}

// someEvents are n events over a few appointments, several each.
func someEvents(n int) []booking.Event {
	evs := make([]booking.Event, n)
	types := []string{booking.EventHeld, booking.EventBooked, booking.EventCancelled}
	for i := range evs {
		evs[i] = booking.Event{ID: int64(i + 1), Type: types[(i/7)%3], AppointmentID: int64(i%7 + 1),
			SlotID: 3, PatientID: int64(i%7 + 100), Status: booking.StatusBooked, Time: time.Unix(1700000000, 0)}
	}
	return evs
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// relayAll runs a relay until the outbox is empty (liveness bounded
// generously), then stops it.
func relayAll(t *testing.T, o *memOutbox, pubs ...Publisher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &Relay{Outbox: o, Publishers: pubs, Logger: quiet(), Batch: 50, Idle: 10 * time.Millisecond}
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	testkit.Eventually(t, "the relay to empty the outbox", 2*time.Minute, func() bool {
		n, _ := o.EventBacklog(ctx)
		return n == 0
	})
	cancel()
	<-done
}

// checkOnceInOrder checks that got (CloudEvents bodies in arrival order)
// holds every event of want once after dedupe by id, and each
// appointment's events in id order.
func checkOnceInOrder(t *testing.T, want []booking.Event, got [][]byte) {
	t.Helper()
	seen := map[string]bool{}
	last := map[int64]int64{}
	for _, b := range got {
		var ce struct {
			SpecVersion, ID, Source, Type, Subject string
			Data                                   struct{ AppointmentID int64 }
		}
		if err := json.Unmarshal(b, &ce); err != nil {
			t.Fatal(err)
		}
		if ce.SpecVersion != "1.0" || ce.Source != Source || ce.Type == "" || ce.Subject != fmt.Sprintf("appointments/%d", ce.Data.AppointmentID) {
			t.Fatalf("not a slotd CloudEvent: %s", b)
		}
		if seen[ce.ID] {
			continue // a redelivery: the consumer's dedupe
		}
		seen[ce.ID] = true
		var id int64
		fmt.Sscan(ce.ID, &id)
		if id < last[ce.Data.AppointmentID] {
			t.Fatalf("appointment %d: event %d after %d", ce.Data.AppointmentID, id, last[ce.Data.AppointmentID])
		}
		last[ce.Data.AppointmentID] = id
	}
	if len(seen) != len(want) {
		t.Fatalf("%d distinct events arrived, want %d", len(seen), len(want))
	}
}

func TestKafkaOnKfake(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := NewKafka(c.ListenAddrs())
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	want := someEvents(200)
	relayAll(t, &memOutbox{evs: append([]booking.Event(nil), want...)}, k)

	cons, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(Topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var got [][]byte
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for len(got) < len(want) {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d: %v", len(got), len(want), err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var ce struct{ Subject string }
			_ = json.Unmarshal(r.Value, &ce)
			if "appointments/"+string(r.Key) != ce.Subject {
				t.Errorf("record key %q for %s", r.Key, ce.Subject)
			}
			got = append(got, r.Value)
		})
	}
	checkOnceInOrder(t, want, got)
}

// A broker that takes a record and never answers does not hold Publish
// past its context: the relay goes on (and the server can stop).
func TestKafkaPublishEndsWithItsContext(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, nil, true // read, never answered
	})
	k, err := NewKafka(c.ListenAddrs())
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		n, err := k.Publish(ctx, []Message{Encode(someEvents(1)[0])})
		if n != 0 {
			err = fmt.Errorf("%d confirmed by a broker that never answered", n)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a record the broker never answered was reported published")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Publish still waiting 29 s after its context ended")
	}
}

// A broker that is down keeps the events in the outbox; nothing is lost.
func TestBrokerDownKeepsEvents(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	o := &memOutbox{evs: someEvents(10)}
	a := NewAMQP("amqp://guest:guest@" + addr + "/")
	r := &Relay{Outbox: o, Publishers: []Publisher{a}, Logger: quiet()}
	n, err := o.RelayEvents(context.Background(), 10, r.publish)
	if err == nil || n != 0 {
		t.Fatalf("published %d, err %v", n, err)
	}
	if left, _ := o.EventBacklog(context.Background()); left != 10 {
		t.Fatalf("backlog %d after a failed round, want 10", left)
	}
}

// rabbitURL starts a throwaway rabbitmq-server for the test and returns its
// URL; without one it skips, except under CI=true.
func rabbitURL(t *testing.T) string {
	t.Helper()
	bin := "/usr/lib/rabbitmq/bin/rabbitmq-server"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("rabbitmq-server is not installed (.ci/run installs it)")
		}
		t.Skip("rabbitmq-server is not installed: skipping the RabbitMQ test (apt-get install rabbitmq-server)")
	}
	if u := os.Getenv("SLOTD_TEST_AMQP"); u != "" {
		return u
	}
	free := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	port, dist := free(), free()
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	name := fmt.Sprintf("slotdtest%d@localhost", port)
	cmd.Env = append(os.Environ(), "HOME="+dir, "RABBITMQ_NODENAME="+name,
		fmt.Sprintf("RABBITMQ_NODE_PORT=%d", port), fmt.Sprintf("RABBITMQ_DIST_PORT=%d", dist),
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1", "ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"), "RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "none"), "RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "plugins"))
	if err := os.WriteFile(filepath.Join(dir, "plugins"), []byte("[].\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Its own process group: the script starts the Erlang VM as a child,
	// which must end with the test too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	url := fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", port)
	var err error
	if !testkit.Poll(2*time.Minute, func() bool {
		var c *amqp.Connection
		if c, err = amqp.Dial(url); err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("rabbitmq-server did not start: %v", err)
	}
	return url
}

func TestRabbitMQWithConfirmsAndDeadLetters(t *testing.T) {
	url := rabbitURL(t)
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := DeclareQueue(ch, "test.consumer"); err != nil {
		t.Fatal(err)
	}
	a := NewAMQP(url)
	defer a.Close()
	want := someEvents(120)
	relayAll(t, &memOutbox{evs: append([]booking.Event(nil), want...)}, a)

	ds, err := ch.Consume("test.consumer", "", false, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	timeout := time.After(2 * time.Minute)
	for len(got) < len(want) {
		select {
		case d := <-ds:
			if d.MessageId == "" || d.DeliveryMode != amqp.Persistent {
				t.Fatalf("message id %q, mode %d", d.MessageId, d.DeliveryMode)
			}
			got = append(got, d.Body)
			if len(got) == 1 {
				// A consumer that cannot handle a message rejects it: it
				// goes to the dead letters, not back to the queue.
				if err := d.Reject(false); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := d.Ack(false); err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatalf("received %d of %d", len(got), len(want))
		}
	}
	checkOnceInOrder(t, want, got)
	var dead int
	if !testkit.Poll(time.Minute, func() bool {
		q, err := ch.QueueDeclarePassive(DeadLetterQueue, true, false, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		dead = q.Messages
		return dead == 1
	}) {
		t.Fatalf("dead letters: %d, want 1", dead)
	}
}
