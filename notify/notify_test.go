package notify_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/notify"
)

func TestNew(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	smtp := func(edit func(*notify.Config)) notify.Config {
		c := notify.Config{Kind: "smtp", SMTPAddr: "mail.example.com:587", SMTPFrom: "Clinic <noreply@clinic.example>"}
		if edit != nil {
			edit(&c)
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		cfg     notify.Config
		want    string // the notifier's type, or "" for an error
		errText string // a part of the error
	}{
		{name: "default is log", cfg: notify.Config{Logger: logger}, want: "*notify.Log"},
		{name: "log", cfg: notify.Config{Kind: "log", ShowCodes: true}, want: "*notify.Log"},
		{name: "webhook", cfg: notify.Config{Kind: "webhook", WebhookURL: "https://clinic.example/hooks/slotd", WebhookSecret: "s3cret"}, want: "*notify.Webhook"},
		{name: "webhook without URL", cfg: notify.Config{Kind: "webhook", WebhookSecret: "s"}, errText: "URL is required"},
		{name: "webhook relative URL", cfg: notify.Config{Kind: "webhook", WebhookURL: "/hooks", WebhookSecret: "s"}, errText: "absolute http or https"},
		{name: "webhook ftp URL", cfg: notify.Config{Kind: "webhook", WebhookURL: "ftp://clinic.example/x", WebhookSecret: "s"}, errText: "absolute http or https"},
		{name: "webhook without secret", cfg: notify.Config{Kind: "webhook", WebhookURL: "https://clinic.example/h"}, errText: "secret is required"},
		{name: "smtp", cfg: smtp(nil), want: "*notify.SMTP"},
		{name: "smtp with auth", cfg: smtp(func(c *notify.Config) { c.SMTPUser, c.SMTPPassword, c.SMTPRequireTLS = "u", "p", true }), want: "*notify.SMTP"},
		{name: "smtp without addr", cfg: smtp(func(c *notify.Config) { c.SMTPAddr = "" }), errText: "address (host:port) is required"},
		{name: "smtp addr without port", cfg: smtp(func(c *notify.Config) { c.SMTPAddr = "mail.example.com" }), errText: "host:port"},
		{name: "smtp without from", cfg: smtp(func(c *notify.Config) { c.SMTPFrom = "" }), errText: "From address is required"},
		{name: "smtp bad from", cfg: smtp(func(c *notify.Config) { c.SMTPFrom = "not an address" }), errText: "From address is malformed"},
		{name: "smtp user without password", cfg: smtp(func(c *notify.Config) { c.SMTPUser = "u" }), errText: "needs a password"},
		{name: "smtp password without user", cfg: smtp(func(c *notify.Config) { c.SMTPPassword = "hunter2" }), errText: "needs a user"},
		{name: "negative timeout", cfg: smtp(func(c *notify.Config) { c.Timeout = -time.Second }), errText: "negative"},
		{name: "unknown kind", cfg: notify.Config{Kind: "sms"}, errText: `unknown notifier kind "sms"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, err := notify.New(tc.cfg)
			if tc.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("New: err = %v, want one containing %q", err, tc.errText)
				}
				// Validation errors name settings, never secret values.
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := fmt.Sprintf("%T", n); got != tc.want {
				t.Fatalf("New gave %s, want %s", got, tc.want)
			}
		})
	}
}

func TestNewPassesSettings(t *testing.T) {
	t.Parallel()
	n, err := notify.New(notify.Config{Kind: "smtp", SMTPAddr: "m.example:25", SMTPFrom: "a@b.example", SMTPUser: "u", SMTPPassword: "p", SMTPRequireTLS: true, Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := n.(*notify.SMTP)
	if s.Addr != "m.example:25" || s.From != "a@b.example" || s.User != "u" || s.Password != "p" || !s.RequireTLS || s.Timeout != 3*time.Second {
		t.Errorf("settings not passed: %+v", s)
	}
	w, err := notify.New(notify.Config{Kind: "webhook", WebhookURL: "http://127.0.0.1:1/h", WebhookSecret: "k", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if wh := w.(*notify.Webhook); wh.Client == nil || wh.Client.Timeout != 2*time.Second || wh.Secret != "k" {
		t.Errorf("webhook settings not passed: %+v", wh)
	}
	l, _ := notify.New(notify.Config{ShowCodes: true})
	if lg := l.(*notify.Log); !lg.ShowCodes || lg.Logger == nil {
		t.Errorf("log settings not passed: %+v", lg)
	}
}

func TestPermanent(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	err := fmt.Errorf("deliver: %w", &notify.Permanent{Err: cause})
	var p *notify.Permanent
	if !errors.As(err, &p) || p.Err != cause || !notify.IsPermanent(err) || !errors.Is(err, cause) {
		t.Fatalf("Permanent does not unwrap: %v", err)
	}
	if notify.IsPermanent(cause) || notify.IsPermanent(nil) {
		t.Fatal("IsPermanent true for an ordinary error")
	}
	if got := p.Error(); got != "permanent: boom" {
		t.Fatalf("Error() = %q", got)
	}
}
