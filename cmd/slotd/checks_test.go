package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/pii"
)

// parseServe is serve's flags as parsed from args.
func parseServe(t *testing.T, args ...string) *serveFlags {
	t.Helper()
	var f serveFlags
	fs := newServeFlagSet(&f)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &f
}

// TestServeChecksItsFlags: serve refuses what cannot work and warns, naming
// the flag to set, of what works but loses something; a clinic's
// complete set-up starts with no warning.
func TestServeChecksItsFlags(t *testing.T) {
	quiet := []string{"--notifier", "webhook", "--webhook-url", "https://sms.example/hook", "--webhook-contact", "phone", "--payment-secret", "s"}
	for _, c := range []struct {
		name  string
		args  []string
		flags []string // the warnings', in order
		err   string
	}{
		{name: "complete", args: quiet},
		{name: "demo", args: []string{"--demo"}},
		{name: "defaults: no channel", err: "--sms-provider twilio"},
		{name: "log acknowledged", args: []string{"--notifier", "log", "--allow-undelivered"}, flags: []string{"--allow-undelivered", "--payment-secret"}},
		{name: "twilio", args: []string{"--sms-provider", "twilio", "--public-url", "https://clinic.example", "--payment-secret", "s"}},
		{name: "twilio without callbacks", args: []string{"--sms-provider", "twilio", "--payment-secret", "s"}, flags: []string{"--public-url"}},
		{name: "smtp and twilio", args: []string{"--notifier", "smtp", "--sms-provider", "twilio", "--public-url", "https://clinic.example", "--payment-secret", "s"}},
		{name: "unknown sms provider", args: []string{"--sms-provider", "pigeon"}, err: "--sms-provider must be twilio"},
		{name: "webhook to nobody", args: []string{"--notifier", "webhook", "--webhook-url", "https://x.example/", "--payment-secret", "s"}, flags: []string{"--webhook-contact"}},
		{name: "public metrics", args: append([]string{"--addr", ":8080"}, quiet...), flags: []string{"--metrics-addr"}},
		{name: "metrics kept apart", args: append([]string{"--addr", "0.0.0.0:8080", "--metrics-addr", "[::1]:9090"}, quiet...)},
		{name: "public pprof", args: append([]string{"--metrics-addr", "10.0.0.5:9090"}, quiet...), flags: []string{"--metrics-addr"}},
		{name: "public bench", args: append([]string{"--addr", "192.0.2.1:80", "--metrics-addr", "localhost:9090", "--bench-endpoints"}, quiet...), flags: []string{"--bench-endpoints"}},
		{name: "tls half", args: []string{"--tls-cert", "c.pem"}, err: "--tls-cert and --tls-key"},
		{name: "engine", args: []string{"--engine", "fast"}, err: "--engine must be"},
		{name: "reminders", args: []string{"--reminders", "soon"}, err: "--reminders"},
		{name: "postgres without keys", args: []string{"--db", "postgres://db/slotd", "--auth-secret", strings.Repeat("s", 32)}, err: "--data-keys"},
		{name: "postgres without auth secret", args: []string{"--db", "postgres://db/slotd", "--data-keys", pii.Generate()}, err: "--auth-secret"},
		{name: "bad keys", args: []string{"--data-keys", "1:short"}, err: "--data-keys"},
		{name: "stripe", args: append([]string{"--payment-provider", "stripe", "--stripe-secret-key", "sk", "--stripe-webhook-secret", "whsec"}, quiet...)},
		{name: "stripe without its keys", args: []string{"--payment-provider", "stripe", "--stripe-secret-key", "sk"}, err: "--stripe-webhook-secret"},
		{name: "simulated outside the demo", args: []string{"--payment-provider", "simulated"}, err: "--payment-provider simulated"},
		{name: "unknown provider", args: []string{"--payment-provider", "paypal"}, err: "--payment-provider must be"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, err := parseServe(t, c.args...).check()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("check = %v, want an error naming %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var flags []string
			for _, w := range ws {
				if !strings.Contains(w.msg, w.flag) {
					t.Errorf("warning %q does not name its flag %s", w.msg, w.flag)
				}
				flags = append(flags, w.flag)
			}
			if !slices.Equal(flags, c.flags) {
				t.Fatalf("warnings %+v, want of %v", ws, c.flags)
			}
		})
	}
}

// TestCheckSettlesDefaults: the defaults that depend on other flags.
func TestCheckSettlesDefaults(t *testing.T) {
	f := parseServe(t, "--reminders", "", "--allow-undelivered")
	if _, err := f.check(); err != nil || f.lanes.Depth != 1 || f.reminderOffsets == nil || len(f.reminderOffsets) != 0 {
		t.Fatalf("SQLite, no reminders: depth %d, reminders %v (%v)", f.lanes.Depth, f.reminderOffsets, err)
	}
	f = parseServe(t, "--allow-undelivered", "--db", "postgres://x/y", "--data-keys", pii.Generate(), "--auth-secret", strings.Repeat("s", 32))
	if _, err := f.check(); err != nil || f.lanes.Depth != 2 || !slices.Equal(f.reminderOffsets, []time.Duration{24 * time.Hour, 2 * time.Hour}) {
		t.Fatalf("PostgreSQL: depth %d, reminders %v (%v)", f.lanes.Depth, f.reminderOffsets, err)
	}
}
