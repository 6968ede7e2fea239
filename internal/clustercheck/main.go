// Command clustercheck is scripts/cluster's helper for the event brokers:
//
//	clustercheck kafka ADDR                  run an in-memory Kafka (franz-go's kfake) on ADDR until SIGTERM
//	clustercheck declare AMQP-URL QUEUE      declare a durable consumer queue bound to every event
//	clustercheck count AMQP-URL QUEUE KAFKA WANT
//	                                         consume both until WANT distinct event ids arrived on each
//	                                         (dedupe by CloudEvents id), then check that no other id follows
//	clustercheck replica BASE REPLICA-DSN INSTANCES
//	                                         internal/replicacheck through BASE (HAProxy), with the
//	                                         comma-separated instance URLs' metrics; tokens are signed
//	                                         with SLOTD_AUTH_SECRET
//
// Debian packages no Kafka server, so the reference deployment runs kfake:
// slotd's producer speaks the real protocol to it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/events"
	"github.com/slotd/slotd/internal/replicacheck"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "clustercheck:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: clustercheck kafka|declare|count …")
	}
	switch {
	case args[0] == "kafka" && len(args) == 2:
		_, port, err := splitPort(args[1])
		if err != nil {
			return err
		}
		c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
		if err != nil {
			return err
		}
		defer c.Close()
		fmt.Println("kfake listening on", c.ListenAddrs())
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		<-ctx.Done()
		return nil
	case args[0] == "declare" && len(args) == 3:
		conn, err := amqp.Dial(args[1])
		if err != nil {
			return err
		}
		defer conn.Close()
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		return events.DeclareQueue(ch, args[2])
	case args[0] == "replica" && len(args) == 4:
		signer, err := auth.NewSigner([]byte(os.Getenv("SLOTD_AUTH_SECRET")))
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		saw, err := replicacheck.Run(ctx, replicacheck.Config{Base: args[1], Replica: args[2],
			Instances: strings.Split(args[3], ","), Signer: signer})
		if err != nil {
			return err
		}
		fmt.Println(saw)
		return nil
	case args[0] == "count" && len(args) == 5:
		want, err := strconv.Atoi(args[4])
		if err != nil {
			return err
		}
		r, rerr := countRabbit(args[1], args[2], want)
		k, kerr := countKafka(args[3], want)
		fmt.Printf("events: want %d distinct; rabbitmq %d distinct of %d received; kafka %d distinct of %d received\n",
			want, r.distinct, r.received, k.distinct, k.received)
		if rerr != nil || kerr != nil {
			return fmt.Errorf("rabbitmq: %v; kafka: %v", rerr, kerr)
		}
		if r.distinct != want || k.distinct != want {
			return fmt.Errorf("not exactly one event per state change")
		}
		return nil
	}
	return fmt.Errorf("bad arguments %q", args)
}

func splitPort(addr string) (string, int, error) {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			p, err := strconv.Atoi(addr[i+1:])
			return addr[:i], p, err
		}
	}
	return "", 0, fmt.Errorf("no port in %q", addr)
}

type tally struct {
	distinct, received int
	seen               map[string]bool
}

func (t *tally) add(body []byte) error {
	var ce struct{ ID string }
	if err := json.Unmarshal(body, &ce); err != nil || ce.ID == "" {
		return fmt.Errorf("not a CloudEvent: %.80s", body)
	}
	t.received++
	if !t.seen[ce.ID] {
		t.seen[ce.ID] = true
		t.distinct++
	}
	return nil
}

// settle is how long a consumer keeps listening after reaching want, to
// catch an extra event.
const settle = 3 * time.Second

func countRabbit(url, queue string, want int) (tally, error) {
	t := tally{seen: map[string]bool{}}
	conn, err := amqp.Dial(url)
	if err != nil {
		return t, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return t, err
	}
	ds, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		return t, err
	}
	deadline := time.After(3 * time.Minute)
	var quiet <-chan time.Time
	for {
		select {
		case d := <-ds:
			if err := t.add(d.Body); err != nil {
				return t, err
			}
			if err := d.Ack(false); err != nil {
				return t, err
			}
			if t.distinct >= want && quiet == nil {
				quiet = time.After(settle)
			}
		case <-quiet:
			return t, nil
		case <-deadline:
			return t, fmt.Errorf("timed out")
		}
	}
}

func countKafka(addr string, want int) (tally, error) {
	t := tally{seen: map[string]bool{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(events.Topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return t, err
	}
	defer cl.Close()
	deadline := time.Now().Add(3 * time.Minute)
	var quietAt time.Time
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		var ferr error
		fs.EachRecord(func(r *kgo.Record) {
			if err := t.add(r.Value); err != nil && ferr == nil {
				ferr = err
			}
		})
		if ferr != nil {
			return t, ferr
		}
		now := time.Now()
		if t.distinct >= want && quietAt.IsZero() {
			quietAt = now.Add(settle)
		}
		switch {
		case !quietAt.IsZero() && now.After(quietAt):
			return t, nil
		case now.After(deadline):
			return t, fmt.Errorf("timed out")
		}
	}
}
