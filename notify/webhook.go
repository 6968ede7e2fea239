package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Webhook headers.
const (
	// HeaderSignature carries "sha256=" and the hex HMAC-SHA256, keyed with
	// the shared secret, of the string "<timestamp>.<body>": the value of
	// HeaderTimestamp, a full stop, and the raw request body. See Sign.
	HeaderSignature = "X-Slotd-Signature"
	// HeaderTimestamp is the time of sending in Unix seconds. It is signed
	// along with the body so that a receiver that rejects old timestamps
	// (say, older than 5 minutes) cannot be fed a recorded request again.
	HeaderTimestamp = "X-Slotd-Timestamp"
	// HeaderIdempotencyKey is the message's IdempotencyKey: delivery is at
	// least once, and receivers drop the requests whose key they have seen.
	HeaderIdempotencyKey = "Idempotency-Key"
)

// Webhook POSTs each message as JSON (the Message's JSON form) to URL,
// signed with Secret. The body carries ids and the texts the receiver must
// show (subject, text, SMS), never the patient's name field, and the phone
// or e-mail only when Contact says the receiver delivers to it (an SMS or
// mail gateway): a receiver that only records or forwards gets no contact
// data (docs/personal-data.md). It makes one attempt per call: retries with backoff belong to the
// job system, which must see each failure to schedule the next attempt.
//
// A 2xx answer is success. A 4xx other than 408 and 429 is a *Permanent
// error, since the receiver refuses this message and will refuse it again.
// Anything else (other answers, network errors, timeouts) is an ordinary
// error worth retrying.
type Webhook struct {
	URL    string
	Secret string
	// Contact is what the receiver delivers to: ContactNone (the default),
	// ContactPhone (an SMS gateway), ContactEmail (a mail gateway) or
	// ContactBoth.
	Contact string
	// Client sends the requests; nil means NewWebhookClient(DefaultTimeout).
	Client *http.Client
	// Now is the clock for the timestamp; nil means time.Now.
	Now func() time.Time
}

// NewWebhookClient returns the HTTP client a Webhook uses: every attempt is
// bounded by timeout (0 means DefaultTimeout) and redirects are not
// followed, since following one would hand personal data and a valid
// signature to whatever host the redirect names.
func NewWebhookClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// defaultWebhookClient serves Webhooks built without a Client.
var defaultWebhookClient = NewWebhookClient(DefaultTimeout)

// Sign returns the value of the signature header for a body sent at
// timestamp: "sha256=" + hex(HMAC-SHA256(secret, timestamp + "." + body)).
func Sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// VerifySignature reports whether header is the signature of body sent at
// timestamp under secret, comparing in constant time. It is what a receiver
// runs on the raw body before parsing it; the receiver should also reject
// timestamps far from its own clock. An empty secret verifies nothing.
func VerifySignature(secret, timestamp string, body []byte, header string) bool {
	if secret == "" || timestamp == "" || !strings.HasPrefix(header, "sha256=") {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(header, "sha256="))
	if err != nil {
		return false
	}
	want, _ := hex.DecodeString(strings.TrimPrefix(Sign(secret, timestamp, body), "sha256="))
	return hmac.Equal(got, want)
}

// Contact values of Webhook.Contact (--webhook-contact).
const (
	ContactNone  = "none"
	ContactPhone = "phone"
	ContactEmail = "email"
	ContactBoth  = "both"
)

// Notify sends m in one signed POST.
func (w *Webhook) Notify(ctx context.Context, m Message) error {
	_, err := w.Send(ctx, m)
	return err
}

// Send sends m in one signed POST; its receipt names the channel the
// receiver delivers to (Contact, or m.Channel when it does both).
func (w *Webhook) Send(ctx context.Context, m Message) (Receipt, error) {
	return Receipt{Channel: w.channel(m)}, w.post(ctx, m)
}

// channel is the channel a webhook's receiver delivers m by.
func (w *Webhook) channel(m Message) string {
	switch {
	case w.Contact == ContactPhone:
		return ChannelSMS
	case w.Contact == ContactEmail:
		return ChannelEmail
	case w.Contact == ContactBoth && m.Channel != "":
		return m.Channel
	}
	return ChannelWebhook
}

// post sends m in one signed POST.
func (w *Webhook) post(ctx context.Context, m Message) error {
	// The least the receiver needs: the texts are made, the name field is
	// not sent, and contact data only to the channel that delivers to it.
	// A receiver that delivers to nobody does not get the name inside the
	// texts either: they greet without it.
	if w.Contact != ContactPhone && w.Contact != ContactEmail && w.Contact != ContactBoth {
		m.PatientName = ""
	}
	m.Subject, m.Text = Text(m)
	m.SMS = SMS(m)
	m.PatientName = ""
	if w.Contact != ContactPhone && w.Contact != ContactBoth {
		m.Phone = ""
	}
	if w.Contact != ContactEmail && w.Contact != ContactBoth {
		m.Email = ""
	}
	body, err := json.Marshal(m)
	if err != nil {
		return permanent(fmt.Errorf("webhook: encode message: %w", err))
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	ts := strconv.FormatInt(now().Unix(), 10)

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		// A malformed URL stays malformed: retrying cannot help. The URL
		// itself is left out, as it may embed a token.
		return permanent(errors.New("webhook: invalid URL"))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "slotd-webhook/1")
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(HeaderSignature, Sign(w.Secret, ts, body))
	if m.IdempotencyKey != "" {
		req.Header.Set(HeaderIdempotencyKey, m.IdempotencyKey)
	}

	client := w.Client
	if client == nil {
		client = defaultWebhookClient
	}
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error repeats the whole URL, query string and all, which
		// may hold a token; name the endpoint without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("webhook: POST %s: %w", endpoint(req.URL), err)
	}
	defer resp.Body.Close()
	// Read a little of the answer so the connection can be reused; its
	// text stays out of the error, because receivers echo payloads and the
	// payload holds personal data.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))

	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	err = fmt.Errorf("webhook: POST %s: %s", endpoint(req.URL), resp.Status)
	if resp.StatusCode >= 400 && resp.StatusCode < 500 &&
		resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
		return permanent(err)
	}
	return err
}

// endpoint names a URL for error texts: scheme, host and path, without the
// user info and query string that may carry credentials.
func endpoint(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}
