package main

import (
	"io"
	"testing"

	"github.com/slotd/slotd/notify"
)

// TestSMTPRequireTLSFlag: --smtp-require-tls defaults to on unless
// --smtp-addr is loopback, and an explicit value (flag or
// SLOTD_SMTP_REQUIRE_TLS) wins either way.
func TestSMTPRequireTLSFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{
		{args: []string{"--smtp-addr", "mail.example.com:587"}, want: true},
		{args: []string{"--smtp-addr", "127.0.0.1:25"}, want: false},
		{args: []string{"--smtp-addr", "localhost:25"}, want: false},
		{args: []string{"--smtp-addr", "127.0.0.1:25", "--smtp-require-tls"}, want: true},
		{args: []string{"--smtp-addr", "mail.example.com:587", "--smtp-require-tls=false"}, want: false},
		{args: []string{"--smtp-addr", "127.0.0.1:25"}, env: "true", want: true},
		{args: []string{"--smtp-addr", "mail.example.com:587"}, env: "false", want: false},
	} {
		t.Run("", func(t *testing.T) {
			if c.env != "" {
				t.Setenv("SLOTD_SMTP_REQUIRE_TLS", c.env)
			}
			var f serveFlags
			mustNil(t, parse(newServeFlagSet(&f), c.args, io.Discard))
			if got := f.smtpRequireTLS.or(notify.RequireTLSByDefault(f.smtpAddr)); got != c.want {
				t.Errorf("%v (env %q): require TLS %v, want %v", c.args, c.env, got, c.want)
			}
		})
	}
	var f serveFlags
	if err := parse(newServeFlagSet(&f), []string{"--smtp-require-tls=maybe"}, io.Discard); err == nil {
		t.Error("--smtp-require-tls=maybe accepted")
	}
}
