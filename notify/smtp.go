package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"
)

// SMTP sends each message as a plain-text e-mail to the patient's address.
// It makes one attempt per call; retries belong to the job system.
//
// It uses STARTTLS whenever the server offers it, and with RequireTLS
// refuses to send otherwise; with ImplicitTLS the connection is TLS from
// its first byte (SMTPS, port 465) and STARTTLS does not apply. With User set it authenticates with AUTH PLAIN,
// which net/smtp allows only over TLS or to a server on localhost, so a
// password never crosses the network in clear.
//
// A message without an e-mail address, with a malformed one, or that the
// server rejects with a 5xx reply to RCPT or to the end of DATA yields a
// *Permanent error: that message will never be accepted. Other failures
// (4xx replies, network errors, a missing STARTTLS, a refused login) are
// ordinary errors, because they can pass or be fixed by the operator.
//
// Error texts never contain the recipient's full address, even when the
// server's reply quotes it.
type SMTP struct {
	// Addr is the server's host:port.
	Addr string
	// From is the sender, as an address with an optional display name
	// ("Clinic <noreply@clinic.example>").
	From string
	// User and Password enable AUTH PLAIN when User is set.
	User, Password string
	// RequireTLS refuses to send over a connection without STARTTLS
	// (unless ImplicitTLS). RequireTLSByDefault is its default.
	RequireTLS bool
	// ImplicitTLS speaks TLS from the connection's start (SMTPS).
	ImplicitTLS bool
	// TLSConfig is used for STARTTLS and implicit TLS; nil verifies the server's certificate
	// against the system roots for the host part of Addr.
	TLSConfig *tls.Config
	// Timeout bounds one whole delivery; 0 means DefaultTimeout.
	Timeout time.Duration
	// LocalName is the name given in EHLO; empty means "localhost".
	LocalName string
	// Now is the clock for the Date header; nil means time.Now.
	Now func() time.Time
}

// Notify sends m to m.Email.
func (s *SMTP) Notify(ctx context.Context, m Message) error {
	_, err := s.Send(ctx, m)
	return err
}

// Send sends m to m.Email (see Notify).
func (s *SMTP) Send(ctx context.Context, m Message) (Receipt, error) {
	return Receipt{Channel: ChannelEmail}, s.deliver(ctx, m)
}

// deliver sends m to m.Email in one SMTP session.
func (s *SMTP) deliver(ctx context.Context, m Message) error {
	if strings.TrimSpace(m.Email) == "" {
		return permanent(fmt.Errorf("smtp: patient %d: %w", m.PatientID, ErrNoAddress))
	}
	to, err := mail.ParseAddress(m.Email)
	if err != nil {
		return permanent(fmt.Errorf("smtp: patient %d: malformed address %s", m.PatientID, MaskEmail(m.Email)))
	}
	from, err := mail.ParseAddress(s.From)
	if err != nil {
		return errors.New("smtp: the From address is malformed")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	msg := buildMail(from, &mail.Address{Name: m.PatientName, Address: to.Address}, m, now())

	err = s.send(ctx, from.Address, to.Address, msg)
	if err != nil && ctx.Err() != nil {
		// The deadline or cancellation is the cause worth reporting; the
		// i/o timeout it provoked says less.
		return fmt.Errorf("smtp: %w (%v)", ctx.Err(), redactEmail(err.Error(), to.Address))
	}
	return err
}

// send runs one SMTP session. Errors are already free of the recipient's
// full address.
func (s *SMTP) send(ctx context.Context, from, to string, msg []byte) error {
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return errors.New("smtp: the server address must be host:port")
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	dialer := net.Dialer{Deadline: deadline}
	conn, err := dialer.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("smtp: connect to %s: %w", s.Addr, err)
	}
	defer conn.Close()
	// net/smtp knows no context: a deadline on the connection bounds the
	// whole session, and cancelling ctx moves it to now, which unblocks
	// any read or write in progress.
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	tlsConfig := func() *tls.Config {
		cfg := s.TLSConfig
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		} else {
			cfg = cfg.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		return cfg
	}
	if s.ImplicitTLS {
		tc := tls.Client(conn, tlsConfig())
		if err := tc.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("smtp: TLS handshake with %s: %w", s.Addr, err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("smtp: greeting: %w", err)
	}
	defer c.Close()
	if s.LocalName != "" {
		if err := c.Hello(s.LocalName); err != nil {
			return smtpError("EHLO", err, to)
		}
	}

	if s.ImplicitTLS {
		// Already TLS: nothing to start.
	} else if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(tlsConfig()); err != nil {
			return smtpError("STARTTLS", err, to)
		}
	} else if s.RequireTLS {
		return fmt.Errorf("smtp: %s does not offer STARTTLS and TLS is required (--smtp-require-tls): nothing was sent; "+
			"use a server that offers STARTTLS, implicit TLS (--smtp-implicit-tls), or --smtp-require-tls=false", s.Addr)
	}

	if s.User != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return errors.New("smtp: the server does not offer AUTH")
		}
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Password, host)); err != nil {
			return smtpError("AUTH", err, to)
		}
	}

	if err := c.Mail(from); err != nil {
		return smtpError("MAIL", err, to)
	}
	if err := c.Rcpt(to); err != nil {
		return smtpError("RCPT", err, to)
	}
	w, err := c.Data()
	if err != nil {
		return smtpError("DATA", err, to)
	}
	if _, err := w.Write(msg); err != nil {
		return smtpError("DATA", err, to)
	}
	if err := w.Close(); err != nil {
		return smtpError("DATA", err, to)
	}
	// The server has accepted the message. A failed QUIT must not turn
	// into an error: the job system would send the e-mail a second time.
	_ = c.Quit()
	return nil
}

// RequireTLSByDefault is RequireTLS's default for a server at addr
// (host:port): on, except for a loopback host (a relay on the same
// machine), where mail does not cross the network before the relay.
func RequireTLSByDefault(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// smtpError describes a failed SMTP step with the recipient's address
// masked, and marks as Permanent a 5xx reply about the recipient or the
// content, which the server will give again. A 5xx to the other steps
// (EHLO, AUTH, MAIL) is about our configuration, not this message, and is
// left retryable so that messages survive until the operator fixes it.
func smtpError(step string, err error, to string) error {
	var tp *textproto.Error
	if errors.As(err, &tp) {
		e := fmt.Errorf("smtp: %s: %d %s", step, tp.Code, redactEmail(tp.Msg, to))
		if tp.Code >= 500 && (step == "RCPT" || step == "DATA") {
			return permanent(e)
		}
		return e
	}
	return errors.New("smtp: " + step + ": " + redactEmail(err.Error(), to))
}

// buildMail renders the RFC 5322 message: headers, then the body from Text
// as quoted-printable UTF-8, so that names with accents and long lines
// survive any relay.
func buildMail(from, to *mail.Address, m Message, date time.Time) []byte {
	subject, body := Text(m)
	to = &mail.Address{Name: headerSafe(to.Name), Address: to.Address}

	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", from.String())
	header("To", to.String())
	// Q-encoding also encodes any CR or LF, so a doctor's name or a reason
	// cannot inject headers.
	header("Subject", mime.QEncoding.Encode("utf-8", headerSafe(subject)))
	header("Date", date.Format(time.RFC1123Z))
	header("Message-ID", messageID(m.IdempotencyKey, from.Address))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	// Asks autoresponders not to answer (RFC 3834).
	header("Auto-Submitted", "auto-generated")
	b.WriteString("\r\n")

	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(body))
	_ = qp.Close()
	return b.Bytes()
}

// messageID derives the Message-ID from the idempotency key, so that every
// attempt at one message carries the same id and mail systems that dedupe
// by Message-ID show a retried e-mail once. A key with characters not
// allowed in a Message-ID is hashed; without a key the id is random.
func messageID(key, from string) string {
	domain := "slotd.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 && at+1 < len(from) {
		domain = from[at+1:]
	}
	left := key
	if left == "" {
		var r [16]byte
		_, _ = rand.Read(r[:])
		left = hex.EncodeToString(r[:])
	} else if !msgIDSafe(key) {
		sum := sha256.Sum256([]byte(key))
		left = hex.EncodeToString(sum[:16])
	}
	return "<" + left + "." + "slotd@" + domain + ">"
}

// msgIDSafe reports whether s may stand as it is left of "@" in a
// Message-ID: letters, digits, '-' and '_' only (a strict subset of
// RFC 5322's dot-atom-text).
func msgIDSafe(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// headerSafe turns control characters into spaces so that a value cannot
// break out of its header line.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
