package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/testkit"

	"github.com/slotd/slotd/notify/twiliotest"
)

// TestServeRefusesNoChannel: outside --demo, serve does not start when
// no channel can deliver a sign-in code, and its error names the flags;
// --notifier log starts only with --allow-undelivered.
func TestServeRefusesNoChannel(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "slotd.db")
	for _, args := range [][]string{{}, {"--notifier", "log"}, {"--notifier", "webhook,smtp", "--notifier", "log"}} {
		var out, errb syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, args...), &out, &errb)
		cancel()
		if err == nil || err.Error() != errNoChannel.Error() {
			t.Fatalf("%v: %v, want the refusal", args, err)
		}
		for _, flag := range []string{"--sms-provider twilio", "--twilio-auth-token", "--notifier smtp", "--smtp-addr", "--webhook-contact", "--allow-undelivered"} {
			if !strings.Contains(err.Error(), flag) {
				t.Errorf("the refusal does not name %s: %v", flag, err)
			}
		}
		if strings.Contains(errb.String(), "slotd listening") {
			t.Fatalf("%v: it listened:\n%s", args, errb.String())
		}
	}
}

// mailbox is an SMTP server (github.com/emersion/go-smtp) on 127.0.0.1
// that keeps the bodies it receives.
type mailbox struct {
	addr  string
	mu    sync.Mutex
	mails []string
}

func startMailbox(t *testing.T) *mailbox {
	t.Helper()
	mb := &mailbox{}
	s := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) { return &mailboxSession{mb: mb}, nil }))
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	mustNil(t, err)
	mb.addr = l.Addr().String()
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return mb
}

func (mb *mailbox) all() []string {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	return append([]string(nil), mb.mails...)
}

type mailboxSession struct{ mb *mailbox }

func (s *mailboxSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (s *mailboxSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (s *mailboxSession) Reset()                                 {}
func (s *mailboxSession) Logout() error                          { return nil }
func (s *mailboxSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, body, _ := bytes.Cut(b, []byte("\r\n\r\n"))
	text, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	if err != nil {
		return err
	}
	s.mb.mu.Lock()
	s.mb.mails = append(s.mb.mails, string(text))
	s.mb.mu.Unlock()
	return nil
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

// TestSigninCodeByEmailAndSMS runs serve with two channels, e-mail to a
// real SMTP server started here and SMS through a fake Twilio: a patient
// with both asks for the code by e-mail, signs in with the code the mail
// holds, then asks by SMS, which Twilio reports delivered (a forged
// report is refused); both deliveries are recorded (staff see them),
// counted, and /readyz names both channels as working. The Twilio auth
// token is read from a secret file.
func TestSigninCodeByEmailAndSMS(t *testing.T) {
	mb := startMailbox(t)
	tw := twiliotest.New(t)
	const secret = "channels-test-secret-0123456789abcdefgh"
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "slotd.db")
	// The auth token is a secret: given as a file, as a mounted secret is.
	token := filepath.Join(dir, "twilio-auth-token")
	mustNil(t, os.WriteFile(token, []byte(twiliotest.AuthToken+"\n"), 0o600))
	in := startInstance(t, []string{"SLOTD_DB=" + db, "SLOTD_AUTH_SECRET=" + secret, "SLOTD_TWILIO_AUTH_TOKEN_FILE=" + token},
		"--notifier", "smtp", "--smtp-addr", mb.addr, "--smtp-from", "Clinic <noreply@clinic.example>",
		"--sms-provider", "twilio", "--twilio-base-url", tw.URL, "--twilio-account-sid", twiliotest.AccountSID,
		"--twilio-from", "+15005550006", "--public-url", "https://clinic.example")
	defer in.stop(t)
	signer, err := auth.NewSigner([]byte(secret))
	mustNil(t, err)
	admin, _ := signer.Mint(auth.RoleAdmin, "ops", time.Hour)
	code, body := call(t, "POST", in.url+"/api/admin/patients", admin, "", map[string]any{"name": "Ada", "phone": "+33612345678", "email": "ada@example.org"})
	var p struct{ ID int64 }
	if code != 201 || json.Unmarshal(body, &p) != nil {
		t.Fatalf("create patient: %d %s", code, body)
	}

	if code, body := call(t, "POST", in.url+"/api/signin/code", "", "", map[string]any{"phone": "+33612345678", "channel": "email"}); code != 202 {
		t.Fatalf("code by e-mail: %d %s", code, body)
	}
	var mail string
	testkit.Eventually(t, "the code's e-mail", 20*time.Second, func() bool {
		ms := mb.all()
		if len(ms) == 1 {
			mail = ms[0]
		}
		return mail != ""
	})
	sent := sixDigits.FindString(mail)
	if sent == "" {
		t.Fatalf("no code in the mail:\n%s", mail)
	}
	if n := len(tw.Requests()); n != 0 {
		t.Fatalf("the e-mail code also went by SMS (%d requests)", n)
	}
	code, body = call(t, "POST", in.url+"/api/signin/verify", "", "", map[string]any{"phone": "+33612345678", "code": sent})
	if code != 200 || !strings.Contains(string(body), fmt.Sprintf(`"patientId":%d`, p.ID)) {
		t.Fatalf("sign in with the mailed code: %d %s", code, body)
	}

	if code, body := call(t, "POST", in.url+"/api/signin/code", "", "", map[string]any{"phone": "+33612345678", "channel": "sms"}); code != 202 {
		t.Fatalf("code by SMS: %d %s", code, body)
	}
	reqs := tw.Requests()
	if len(reqs) != 1 || reqs[0].Form.Get("To") != "+33612345678" || !sixDigits.MatchString(reqs[0].Form.Get("Body")) ||
		reqs[0].Form.Get("StatusCallback") != "https://clinic.example/api/sms/twilio/status" {
		t.Fatalf("Twilio got %+v", reqs)
	}
	// Twilio reports the SMS delivered, signed over the public URL it was
	// given; a forged report is refused.
	report := func(token string) int {
		t.Helper()
		form := url.Values{"MessageSid": {reqs[0].SID}, "MessageStatus": {"delivered"}, "AccountSid": {twiliotest.AccountSID}}
		req, _ := http.NewRequest("POST", in.url+"/api/sms/twilio/status", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(auth.TwilioSignatureHeader, auth.TwilioSignature(token, reqs[0].Form.Get("StatusCallback"), form))
		res, err := http.DefaultClient.Do(req)
		mustNil(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	if code := report("not-the-token"); code != 401 {
		t.Fatalf("forged report: %d", code)
	}
	if code := report(twiliotest.AuthToken); code != 204 {
		t.Fatalf("report: %d", code)
	}
	// An unknown phone is answered alike and sent nothing.
	if code, _ := call(t, "POST", in.url+"/api/signin/code", "", "", map[string]any{"phone": "+33699999999", "channel": "email"}); code != 202 || len(mb.all()) != 1 {
		t.Fatalf("unknown phone: %d, %d mails", code, len(mb.all()))
	}

	code, body = call(t, "GET", fmt.Sprintf("%s/api/admin/patients/%d/messages", in.url, p.ID), admin, "", nil)
	if code != 200 || !strings.Contains(string(body), `"channel":"sms","state":"delivered","providerId":"`+reqs[0].SID) ||
		!strings.Contains(string(body), `"channel":"email","state":"sent"`) || strings.Contains(string(body), sent) || strings.Contains(string(body), "ada@") {
		t.Fatalf("messages: %d %s", code, body)
	}
	code, body = call(t, "GET", in.url+"/readyz", "", "", nil)
	var ready struct {
		Channels []struct {
			Channel string
			Working bool
		}
	}
	if code != 200 || json.Unmarshal(body, &ready) != nil || len(ready.Channels) != 2 ||
		ready.Channels[0].Channel != "sms" || !ready.Channels[0].Working || ready.Channels[1].Channel != "email" || !ready.Channels[1].Working {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	res, err := http.Get(in.url + "/metrics")
	mustNil(t, err)
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`slotd_messages_total{channel="email",outcome="sent"} 1`, `slotd_messages_total{channel="sms",outcome="sent"} 1`,
		`slotd_messages_total{channel="sms",outcome="delivered"} 1`, `slotd_messages_total{channel="email",outcome="failed"} 0`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if logs := in.logs.String(); strings.Contains(logs, sent) || strings.Contains(logs, "ada@example.org") || strings.Contains(logs, "+33612345678") {
		t.Fatalf("the log shows the code or the contact:\n%s", logs)
	}
}
