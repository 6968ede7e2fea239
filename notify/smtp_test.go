package notify_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/slotd/slotd/notify"
)

// mailServer is an in-process SMTP server (github.com/emersion/go-smtp) on
// 127.0.0.1 that records what it receives. Its fields set how it behaves and
// must be set before the first connection.
type mailServer struct {
	addr string
	// roots trusts the certificate of a server that offers STARTTLS.
	roots *x509.CertPool
	// user and password, when set, make AUTH PLAIN required.
	user, password string
	// rcptErr and dataErr, when set, are the answers to RCPT and to DATA.
	rcptErr, dataErr error

	mu       sync.Mutex
	sessions int
	mails    []gotMail
}

// gotMail is one message the server accepted.
type gotMail struct {
	from, to string
	tls      bool
	authUser string
	data     []byte
}

type serverOpts struct {
	tls bool
	// implicit serves TLS from the first byte (SMTPS) instead of STARTTLS.
	implicit       bool
	user, password string
	rcptErr        error
	dataErr        error
}

// startMailServer starts a recording SMTP server; it stops when the test ends.
func startMailServer(t *testing.T, o serverOpts) *mailServer {
	t.Helper()
	ms := &mailServer{user: o.user, password: o.password, rcptErr: o.rcptErr, dataErr: o.dataErr}
	s := gosmtp.NewServer(gosmtp.BackendFunc(func(c *gosmtp.Conn) (gosmtp.Session, error) {
		ms.mu.Lock()
		ms.sessions++
		ms.mu.Unlock()
		return &mailSession{ms: ms, conn: c}, nil
	}))
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.ErrorLog = log.New(io.Discard, "", 0)
	if o.tls {
		cert, roots := selfSigned(t)
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		ms.roots = roots
	} else {
		// Without TLS the server would not offer AUTH; the client still
		// sends credentials only to localhost (net/smtp's rule).
		s.AllowInsecureAuth = true
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ms.addr = l.Addr().String()
	if o.implicit {
		l = tls.NewListener(l, s.TLSConfig)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return ms
}

func (ms *mailServer) received() ([]gotMail, int) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]gotMail(nil), ms.mails...), ms.sessions
}

// notifier returns an SMTP notifier pointed at the server.
func (ms *mailServer) notifier() *notify.SMTP {
	n := &notify.SMTP{Addr: ms.addr, From: "Saint-Louis Clinic <noreply@clinic.example>", Timeout: 5 * time.Second}
	if ms.roots != nil {
		n.TLSConfig = &tls.Config{RootCAs: ms.roots}
	}
	return n
}

type mailSession struct {
	ms       *mailServer
	conn     *gosmtp.Conn
	authUser string
	cur      gotMail
}

func (s *mailSession) AuthMechanisms() []string {
	if s.ms.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *mailSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.ms.user || pass != s.ms.password {
			return gosmtp.ErrAuthFailed
		}
		s.authUser = user
		return nil
	}), nil
}

func (s *mailSession) Mail(from string, _ *gosmtp.MailOptions) error {
	if s.ms.user != "" && s.authUser == "" {
		return gosmtp.ErrAuthRequired
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.cur = gotMail{from: from, tls: isTLS, authUser: s.authUser}
	return nil
}

func (s *mailSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if s.ms.rcptErr != nil {
		return s.ms.rcptErr
	}
	s.cur.to = to
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.ms.dataErr != nil {
		return s.ms.dataErr
	}
	s.cur.data = b
	s.ms.mu.Lock()
	s.ms.mails = append(s.ms.mails, s.cur)
	s.ms.mu.Unlock()
	return nil
}

func (s *mailSession) Reset()        { s.cur = gotMail{} }
func (s *mailSession) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "slotd test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// parseMail splits a received message into headers and decoded body.
func parseMail(t *testing.T, data []byte) (*mail.Message, string) {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("not an RFC 5322 message: %v\n%s", err, data)
	}
	var body io.Reader = msg.Body
	if msg.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return msg, string(b)
}

func TestSMTPHappyPathWithSTARTTLSAndAuth(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{tls: true, user: "slotd", password: "pa55word"})
	n := ms.notifier()
	n.User, n.Password, n.RequireTLS = "slotd", "pa55word", true
	n.Now = func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }

	m := sampleMessage(notify.KindConfirmation)
	if err := n.Notify(t.Context(), m); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	mails, _ := ms.received()
	if len(mails) != 1 {
		t.Fatalf("server got %d mails, want 1", len(mails))
	}
	got := mails[0]
	if got.to != "jane.doe@example.com" || got.from != "noreply@clinic.example" {
		t.Errorf("envelope from %q to %q", got.from, got.to)
	}
	if !got.tls || got.authUser != "slotd" {
		t.Errorf("tls %v, auth user %q: want STARTTLS and AUTH PLAIN", got.tls, got.authUser)
	}

	msg, body := parseMail(t, got.data)
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Appointment confirmed: Monday, 7 December 2026, 09:30 (Europe/Paris)"; subject != want {
		t.Errorf("Subject = %q, want %q", subject, want)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "jane.doe@example.com" || to[0].Name != "Jane Doe" {
		t.Errorf("To = %v (%v)", to, err)
	}
	if id := msg.Header.Get("Message-ID"); id != "<appt-42-confirmation.slotd@clinic.example>" {
		t.Errorf("Message-ID = %q", id)
	}
	if d := msg.Header.Get("Date"); d != "Mon, 30 Nov 2026 10:00:00 +0000" {
		t.Errorf("Date = %q", d)
	}
	if ct := msg.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	for _, s := range []string{"Hello Jane Doe,", "Dr Amélie Martin", "Monday, 7 December 2026, 09:30 (Europe/Paris)", "No. 3", "Appointment reference: 42"} {
		if !strings.Contains(body, s) {
			t.Errorf("body lacks %q:\n%s", s, body)
		}
	}
}

func TestSMTPSuspensionBodyHasReason(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{})
	m := sampleMessage(notify.KindSuspension)
	m.Reason = "Dr Martin is at a conference"
	if err := ms.notifier().Notify(t.Context(), m); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	mails, _ := ms.received()
	if len(mails) != 1 {
		t.Fatalf("got %d mails", len(mails))
	}
	msg, body := parseMail(t, mails[0].data)
	if mails[0].tls {
		t.Error("TLS without a server that offers it?")
	}
	if !strings.HasPrefix(msg.Header.Get("Subject"), "Appointment cancelled by the clinic") {
		t.Errorf("Subject = %q", msg.Header.Get("Subject"))
	}
	if !strings.Contains(body, "Reason: Dr Martin is at a conference") {
		t.Errorf("body lacks the reason:\n%s", body)
	}
}

func TestSMTPHeaderInjection(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{})
	m := sampleMessage(notify.KindConfirmation)
	m.DoctorName = "Dr X\r\nBcc: attacker@evil.example"
	m.PatientName = "Jane\r\nBcc: attacker@evil.example"
	if err := ms.notifier().Notify(t.Context(), m); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	mails, _ := ms.received()
	msg, _ := parseMail(t, mails[0].data)
	if bcc := msg.Header.Get("Bcc"); bcc != "" {
		t.Fatalf("a name injected a header: Bcc: %s", bcc)
	}
}

func TestSMTPNoAddressIsPermanent(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{})
	for _, email := range []string{"", "   "} {
		m := sampleMessage(notify.KindConfirmation)
		m.Email = email
		err := ms.notifier().Notify(t.Context(), m)
		if !notify.IsPermanent(err) || !errors.Is(err, notify.ErrNoAddress) {
			t.Fatalf("email %q: err = %v, want Permanent ErrNoAddress", email, err)
		}
		if !strings.Contains(err.Error(), "no address") {
			t.Errorf("err = %q", err)
		}
	}
	if _, sessions := ms.received(); sessions != 0 {
		t.Errorf("connected %d times for a message without an address", sessions)
	}
}

func TestSMTPMalformedAddressIsPermanent(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{})
	m := sampleMessage(notify.KindConfirmation)
	m.Email = "jane.doe at example.com"
	err := ms.notifier().Notify(t.Context(), m)
	if !notify.IsPermanent(err) {
		t.Fatalf("err = %v, want Permanent", err)
	}
	if strings.Contains(err.Error(), "jane.doe") {
		t.Errorf("error leaks the address: %v", err)
	}
}

func TestSMTPRequireTLSRefusesPlainServer(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{})
	n := ms.notifier()
	n.RequireTLS = true
	err := n.Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil || notify.IsPermanent(err) || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("err = %v, want a retryable STARTTLS error", err)
	}
	if mails, _ := ms.received(); len(mails) != 0 {
		t.Fatalf("sent %d mails in clear", len(mails))
	}
}

// TestSMTPRequireTLSByDefault: --smtp-require-tls is on for any server but
// one on the loopback, where a plain server (no STARTTLS) is sent to; the
// same server refused with the default of a remote host sends nothing.
func TestSMTPRequireTLSByDefault(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:25": false, "[::1]:25": false, "localhost:25": false, "LOCALHOST:587": false, "127.0.0.53:25": false,
		"mail.example.com:587": true, "10.0.0.5:25": true, "[2001:db8::1]:25": true, "192.168.1.1:465": true,
	} {
		if got := notify.RequireTLSByDefault(addr); got != want {
			t.Errorf("RequireTLSByDefault(%q) = %v, want %v", addr, got, want)
		}
	}

	ms := startMailServer(t, serverOpts{}) // 127.0.0.1, no STARTTLS
	n, err := notify.New(notify.Config{Kind: "smtp", SMTPAddr: ms.addr, SMTPFrom: "noreply@clinic.example",
		SMTPRequireTLS: notify.RequireTLSByDefault(ms.addr)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Notify(t.Context(), sampleMessage(notify.KindConfirmation)); err != nil {
		t.Fatalf("loopback server, default: %v, want sent", err)
	}
	if mails, _ := ms.received(); len(mails) != 1 || mails[0].tls {
		t.Fatalf("loopback server, default: %d mails, want 1 in clear", len(mails))
	}

	// The default of a remote host, against the same plain server.
	plain := startMailServer(t, serverOpts{})
	n, err = notify.New(notify.Config{Kind: "smtp", SMTPAddr: plain.addr, SMTPFrom: "noreply@clinic.example",
		SMTPRequireTLS: notify.RequireTLSByDefault("mail.example.com:587")})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil || notify.IsPermanent(err) || !strings.Contains(err.Error(), "does not offer STARTTLS") ||
		!strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("plain server, TLS required: %v, want a clear retryable STARTTLS error", err)
	}
	if mails, _ := plain.received(); len(mails) != 0 {
		t.Fatalf("sent %d mails in clear", len(mails))
	}
}

// TestSMTPImplicitTLS: with ImplicitTLS the session is TLS from the first
// byte, which satisfies RequireTLS without STARTTLS.
func TestSMTPImplicitTLS(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{tls: true, implicit: true})
	n := ms.notifier()
	n.RequireTLS, n.ImplicitTLS = true, true
	if err := n.Notify(t.Context(), sampleMessage(notify.KindConfirmation)); err != nil {
		t.Fatalf("Notify over implicit TLS: %v", err)
	}
	if mails, _ := ms.received(); len(mails) != 1 || !mails[0].tls {
		t.Fatalf("implicit TLS: %+v, want one mail over TLS", mails)
	}
	// A plain client against it fails, and nothing is sent.
	n.ImplicitTLS = false
	n.Timeout = 2 * time.Second
	if err := n.Notify(t.Context(), sampleMessage(notify.KindConfirmation)); err == nil {
		t.Fatal("a plain session with an SMTPS server succeeded")
	}
	if mails, _ := ms.received(); len(mails) != 1 {
		t.Fatalf("%d mails, want still 1", len(mails))
	}
}

func TestSMTPUntrustedCertificate(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{tls: true})
	n := ms.notifier()
	n.TLSConfig = nil // the system roots do not know the test certificate
	err := n.Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil || notify.IsPermanent(err) {
		t.Fatalf("err = %v, want a retryable TLS error", err)
	}
	if mails, _ := ms.received(); len(mails) != 0 {
		t.Fatalf("sent %d mails despite a bad certificate", len(mails))
	}
}

func TestSMTPWrongPasswordIsRetryable(t *testing.T) {
	t.Parallel()
	ms := startMailServer(t, serverOpts{tls: true, user: "slotd", password: "right"})
	n := ms.notifier()
	n.User, n.Password = "slotd", "wrong"
	err := n.Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	// The operator can fix the password; the message should wait for it.
	if err == nil || notify.IsPermanent(err) || !strings.Contains(err.Error(), "AUTH") {
		t.Fatalf("err = %v, want a retryable AUTH error", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestSMTPRejections(t *testing.T) {
	t.Parallel()
	echo := "mailbox <jane.doe@example.com> unknown"
	for _, tc := range []struct {
		name      string
		opts      serverOpts
		permanent bool
	}{
		{"rcpt 550", serverOpts{rcptErr: &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: echo}}, true},
		{"rcpt 451", serverOpts{rcptErr: &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: echo}}, false},
		{"data 554", serverOpts{dataErr: &gosmtp.SMTPError{Code: 554, EnhancedCode: gosmtp.EnhancedCode{5, 6, 0}, Message: "content rejected"}}, true},
		{"data 452", serverOpts{dataErr: &gosmtp.SMTPError{Code: 452, EnhancedCode: gosmtp.EnhancedCode{4, 3, 1}, Message: "insufficient storage"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ms := startMailServer(t, tc.opts)
			err := ms.notifier().Notify(t.Context(), sampleMessage(notify.KindConfirmation))
			if err == nil {
				t.Fatal("a rejected mail: no error")
			}
			if notify.IsPermanent(err) != tc.permanent {
				t.Fatalf("err = %v: permanent %v, want %v", err, notify.IsPermanent(err), tc.permanent)
			}
			if strings.Contains(err.Error(), "jane.doe@example.com") {
				t.Errorf("error leaks the address: %v", err)
			}
			if strings.Contains(tc.name, "rcpt") && !strings.Contains(err.Error(), "j***@example.com") {
				t.Errorf("error lost the masked address: %v", err)
			}
		})
	}
}

func TestSMTPTimeout(t *testing.T) {
	t.Parallel()
	// A server that accepts the connection and never greets.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})

	n := &notify.SMTP{Addr: l.Addr().String(), From: "noreply@clinic.example", Timeout: 150 * time.Millisecond}
	start := time.Now()
	err = n.Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil || notify.IsPermanent(err) {
		t.Fatalf("err = %v, want a retryable timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v despite a 150ms timeout", d)
	}
}

func TestSMTPConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = (&notify.SMTP{Addr: addr, From: "noreply@clinic.example"}).Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil || notify.IsPermanent(err) {
		t.Fatalf("err = %v, want a retryable error", err)
	}
}
