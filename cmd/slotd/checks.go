package main

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// warning is a setting serve starts with that an operator most likely
// did not mean, and the flag that changes it.
type warning struct {
	flag, msg string
}

// check is serve's one look at its flags before it opens anything. What
// cannot work is refused, naming the flag: missing or malformed secrets, a
// half TLS pair, an unknown engine, no channel for the sign-in codes
// outside the demo. What works but loses something (codes to the log
// only, acknowledged; metrics on the public address) is returned, to be
// logged once at start. Only what needs the database (--demo on real data)
// is checked where it opens. It also settles the defaults that depend on
// other flags (batch depth, reminders).
func (f *serveFlags) check() ([]warning, error) {
	if err := f.db.checkSecrets(); err != nil {
		return nil, err
	}
	if err := f.checkPayments(); err != nil {
		return nil, err
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	if f.engine != service.EngineBatched && f.engine != service.EngineDirect {
		return nil, fmt.Errorf("--engine must be %s or %s", service.EngineBatched, service.EngineDirect)
	}
	if f.smsProvider != "" && f.smsProvider != "twilio" {
		return nil, errors.New("--sms-provider must be twilio (any other SMS gateway: --notifier webhook --webhook-contact phone)")
	}
	reminders, err := booking.ParseReminders(f.reminders)
	if err != nil {
		return nil, fmt.Errorf("--reminders: %w", err)
	}
	if reminders == nil {
		reminders = []time.Duration{} // none, not the defaults
	}
	f.reminderOffsets = reminders
	if f.lanes.Depth == 0 {
		f.lanes.Depth = 2
		if sqlitePath(f.db.url) != "" {
			f.lanes.Depth = 1
		}
	}

	var ws []warning
	warn := func(flag, format string, args ...any) {
		ws = append(ws, warning{flag, fmt.Sprintf(format, args...)})
	}
	// Outside the demo a patient signs in with a code, so a channel must
	// be able to deliver one; --notifier log (a rig where nobody signs in)
	// must say so with --allow-undelivered.
	codes, blindWebhook := f.codeChannels()
	switch {
	case f.demo:
	case len(codes) == 0 && blindWebhook:
		warn("--webhook-contact", "--webhook-contact none sends the webhook no phone or e-mail: its receiver can deliver only if it looks patients up itself; set --webhook-contact phone, email or both")
	case len(codes) == 0 && !f.allowUndelivered:
		return nil, errNoChannel
	case len(codes) == 0:
		warn("--allow-undelivered", "--allow-undelivered: --notifier log only writes messages to this log, without their sign-in codes: they reach no patient, so no patient can sign in with a code")
	}
	if f.smsProvider == "twilio" && f.interop.publicURL == "" {
		warn("--public-url", "without --public-url Twilio is given no status callback: SMS stay 'sent', never 'delivered' or 'failed' by Twilio's word")
	}
	if f.paymentProvider == providerSigned && f.paymentSecret == "" && !f.demo {
		warn("--payment-secret", "no --payment-secret (SLOTD_PAYMENT_SECRET): payment callbacks are refused, held appointments cannot be paid")
	}
	switch {
	case f.metricsAddr == "" && !loopback(f.addr):
		warn("--metrics-addr", "/metrics is served on the public --addr %s: set --metrics-addr 127.0.0.1:9090 to keep it to the monitoring", f.addr)
	case f.metricsAddr != "" && !loopback(f.metricsAddr):
		warn("--metrics-addr", "--metrics-addr %s is not a loopback address: /debug/pprof (profiles, goroutine dumps) answers whoever reaches it", f.metricsAddr)
	}
	if f.bench && !loopback(f.addr) {
		warn("--bench-endpoints", "--bench-endpoints serves POST /bench/echo on the public --addr %s: it is for measuring, not for a clinic's server", f.addr)
	}
	return ws, nil
}

// loopback tells whether a listen address reaches only this machine: a
// loopback IP or localhost. An empty host (":8080") listens everywhere.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
