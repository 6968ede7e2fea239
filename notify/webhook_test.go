package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/notify"
)

const testSecret = "whsec_test_0123456789"

// received is one request a test receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver starts an httptest server that records requests and answers
// with status; it returns the server and a function listing what it got.
func receiver(t *testing.T, status int) (*httptest.Server, func() []received) {
	t.Helper()
	var (
		mu  sync.Mutex
		got []received
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{header: r.Header.Clone(), body: body})
		mu.Unlock()
		w.WriteHeader(status)
		// Receivers may echo the payload; it must not end up in errors.
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []received {
		mu.Lock()
		defer mu.Unlock()
		return append([]received(nil), got...)
	}
}

func TestWebhookSignedPost(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t, http.StatusNoContent)
	now := time.Unix(1_800_000_000, 0)
	// A gateway that delivers both SMS and mail is given both addresses.
	w := &notify.Webhook{URL: srv.URL + "/hooks/slotd", Secret: testSecret, Contact: notify.ContactBoth, Now: func() time.Time { return now }}
	m := sampleMessage(notify.KindConfirmation)
	if err := w.Notify(t.Context(), m); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	m.PatientName = "" // never sent: the texts carry what is shown
	reqs := got()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	ts := r.header.Get("X-Slotd-Timestamp")
	if ts != strconv.FormatInt(now.Unix(), 10) {
		t.Errorf("timestamp = %q", ts)
	}
	sig := r.header.Get("X-Slotd-Signature")
	if !notify.VerifySignature(testSecret, ts, r.body, sig) {
		t.Errorf("signature %q does not verify", sig)
	}
	if r.header.Get("Idempotency-Key") != "appt-42-confirmation" {
		t.Errorf("Idempotency-Key = %q", r.header.Get("Idempotency-Key"))
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	var back notify.Message
	if err := json.Unmarshal(r.body, &back); err != nil {
		t.Fatalf("body is not a message: %v", err)
	}
	if !back.StartAt.Equal(m.StartAt) {
		t.Errorf("startAt %v, want %v", back.StartAt, m.StartAt)
	}
	back.StartAt = m.StartAt
	// The webhook adds the texts people read, in the message's language.
	if back.Subject == "" || !strings.Contains(back.Text, "Dr Amélie Martin") || back.SMS == "" || len([]rune(back.SMS)) > 160 {
		t.Errorf("texts: subject %q, text %q, sms %q", back.Subject, back.Text, back.SMS)
	}
	back.Subject, back.Text, back.SMS = "", "", ""
	if back != m {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, m)
	}
	// The wire names are the API's camelCase, contact data included.
	for _, s := range []string{`"kind":"confirmation"`, `"appointmentId":42`, `"email":"jane.doe@example.com"`, `"phone":"+33612345678"`, `"idempotencyKey":"appt-42-confirmation"`} {
		if !strings.Contains(string(r.body), s) {
			t.Errorf("body lacks %s: %s", s, r.body)
		}
	}
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	body := []byte(`{"kind":"confirmation"}`)
	sig := notify.Sign(testSecret, "1800000000", body)
	if !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Fatalf("Sign = %q", sig)
	}
	if !notify.VerifySignature(testSecret, "1800000000", body, sig) {
		t.Fatal("a good signature does not verify")
	}
	for name, ok := range map[string]bool{
		"other secret":    notify.VerifySignature("other", "1800000000", body, sig),
		"other timestamp": notify.VerifySignature(testSecret, "1800000001", body, sig),
		"other body":      notify.VerifySignature(testSecret, "1800000000", []byte(`{"kind":"cancellation"}`), sig),
		"no prefix":       notify.VerifySignature(testSecret, "1800000000", body, strings.TrimPrefix(sig, "sha256=")),
		"not hex":         notify.VerifySignature(testSecret, "1800000000", body, "sha256=zz"),
		"empty":           notify.VerifySignature(testSecret, "1800000000", body, ""),
		"empty secret":    notify.VerifySignature("", "1800000000", body, notify.Sign("", "1800000000", body)),
		"empty timestamp": notify.VerifySignature(testSecret, "", body, notify.Sign(testSecret, "", body)),
	} {
		if ok {
			t.Errorf("%s: verified", name)
		}
	}
}

func TestWebhookStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status    int
		wantErr   bool
		permanent bool
	}{
		{http.StatusOK, false, false},
		{http.StatusAccepted, false, false},
		{http.StatusInternalServerError, true, false},
		{http.StatusBadGateway, true, false},
		{http.StatusBadRequest, true, true},
		{http.StatusUnauthorized, true, true},
		{http.StatusNotFound, true, true},
		{http.StatusUnprocessableEntity, true, true},
		{http.StatusRequestTimeout, true, false},
		{http.StatusTooManyRequests, true, false},
		{http.StatusFound, true, false}, // redirects are not followed
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			srv, got := receiver(t, tc.status)
			w := &notify.Webhook{URL: srv.URL + "/h?token=abc123", Secret: testSecret}
			err := w.Notify(t.Context(), sampleMessage(notify.KindCancellation))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if notify.IsPermanent(err) != tc.permanent {
				t.Fatalf("err = %v, permanent %v, want %v", err, notify.IsPermanent(err), tc.permanent)
			}
			if err != nil {
				msg := err.Error()
				if !strings.Contains(msg, strconv.Itoa(tc.status)) {
					t.Errorf("error %q does not name the status", msg)
				}
				// Neither the echoed payload nor the URL's token reach the error.
				for _, s := range []string{"jane.doe@example.com", "+33612345678", "abc123"} {
					if strings.Contains(msg, s) {
						t.Errorf("error %q contains %q", msg, s)
					}
				}
			}
			if n := len(got()); n != 1 {
				t.Fatalf("receiver got %d requests, want exactly 1 (no retry inside)", n)
			}
		})
	}
}

func TestWebhookTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	// Cleanups run last-in first-out: release the handler, then close.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })

	w := &notify.Webhook{URL: srv.URL, Secret: testSecret, Client: notify.NewWebhookClient(100 * time.Millisecond)}
	start := time.Now()
	err := w.Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil {
		t.Fatal("a receiver that never answers: no error")
	}
	if notify.IsPermanent(err) {
		t.Fatalf("a timeout is retryable, got %v", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestWebhookContextCancelled(t *testing.T) {
	t.Parallel()
	srv, _ := receiver(t, http.StatusOK)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := (&notify.Webhook{URL: srv.URL, Secret: testSecret}).Notify(ctx, sampleMessage(notify.KindConfirmation))
	if !errors.Is(err, context.Canceled) || notify.IsPermanent(err) {
		t.Fatalf("err = %v, want a retryable context.Canceled", err)
	}
}

func TestWebhookConnectionRefused(t *testing.T) {
	t.Parallel()
	// A port that was free a moment ago: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = (&notify.Webhook{URL: "http://user:pw@" + addr + "/h?token=abc123", Secret: testSecret}).Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if err == nil || notify.IsPermanent(err) {
		t.Fatalf("err = %v, want a retryable error", err)
	}
	if strings.Contains(err.Error(), "abc123") || strings.Contains(err.Error(), "pw@") {
		t.Errorf("error leaks URL credentials: %v", err)
	}
}

func TestWebhookInvalidURL(t *testing.T) {
	t.Parallel()
	err := (&notify.Webhook{URL: "http://[::1", Secret: testSecret}).Notify(t.Context(), sampleMessage(notify.KindConfirmation))
	if !notify.IsPermanent(err) {
		t.Fatalf("err = %v, want Permanent", err)
	}
}

// TestWebhookSendsTheLeast: without a contact setting the body carries ids
// and the texts to show, never the phone, the e-mail or the name field; an
// SMS gateway is given the phone only, a mail gateway the e-mail only.
func TestWebhookSendsTheLeast(t *testing.T) {
	t.Parallel()
	m := sampleMessage(notify.KindConfirmation)
	for _, c := range []struct {
		contact     string
		phone, mail bool
	}{{"", false, false}, {notify.ContactNone, false, false}, {notify.ContactPhone, true, false}, {notify.ContactEmail, false, true}} {
		srv, got := receiver(t, http.StatusNoContent)
		w := &notify.Webhook{URL: srv.URL, Secret: testSecret, Contact: c.contact}
		if err := w.Notify(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		body := string(got()[0].body)
		if strings.Contains(body, m.Phone) != c.phone || strings.Contains(body, m.Email) != c.mail {
			t.Errorf("contact %q: phone sent %v, e-mail sent %v, want %v, %v: %s", c.contact,
				strings.Contains(body, m.Phone), strings.Contains(body, m.Email), c.phone, c.mail, body)
		}
		if strings.Contains(body, `"patientName"`) || !strings.Contains(body, `"patientId"`) || !strings.Contains(body, `"text"`) {
			t.Errorf("contact %q: want ids and texts, no name field: %s", c.contact, body)
		}
		// A receiver that delivers to nobody gets no name in the texts
		// either; a gateway greets the patient it delivers to.
		if named := strings.Contains(body, m.PatientName); named != (c.phone || c.mail) {
			t.Errorf("contact %q: name in the text %v, want %v: %s", c.contact, named, c.phone || c.mail, body)
		}
	}
	if _, err := notify.New(notify.Config{Kind: "webhook", WebhookURL: "https://x.example", WebhookSecret: "s", WebhookContact: "fax"}); err == nil {
		t.Error("an unknown webhook contact is accepted")
	}
}
