package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// TwilioBaseURL is Twilio's REST API, the default of Twilio.BaseURL.
const TwilioBaseURL = "https://api.twilio.com"

// Twilio sends SMS through Twilio's Messages API: one form-encoded POST
// to /2010-04-01/Accounts/{AccountSID}/Messages.json per attempt, with
// HTTP basic auth (the account SID and auth token), To, From (or
// MessagingServiceSid), Body and StatusCallback. Retries with backoff
// belong to the job system, which sees every failure.
//
// A 201 answer is success and carries the message's sid. A 400 (Twilio's
// refusal of this message: an invalid number, an opted-out recipient),
// 401, 403 and 404 are *Permanent errors with Twilio's code and message;
// 429, 5xx and network errors are ordinary errors, worth retrying.
type Twilio struct {
	// BaseURL is TwilioBaseURL when empty (tests: a local fake).
	BaseURL    string
	AccountSID string
	AuthToken  string
	// From is the sender: a phone number (E.164), or a messaging
	// service's SID ("MG…"), sent as MessagingServiceSid.
	From string
	// StatusCallback is the URL Twilio reports the message's states to
	// (POST /api/sms/twilio/status at the public URL); none when empty.
	StatusCallback string
	// Client sends the requests; nil means NewWebhookClient(DefaultTimeout).
	Client *http.Client
}

// ProviderError is a provider's refusal of a message: its HTTP status and
// its own error code and message.
type ProviderError struct {
	Provider string
	Status   int
	Code     int
	Message  string
}

func (e *ProviderError) Error() string {
	return fmt.Sprintf("%s: %d %s: %s", e.Provider, e.Status, http.StatusText(e.Status), e.reason())
}

// reason is the provider's code and message, what a delivery record keeps.
func (e *ProviderError) reason() string {
	if e.Code == 0 {
		return strings.TrimSpace(strconv.Itoa(e.Status) + " " + e.Message)
	}
	return strconv.Itoa(e.Code) + ": " + e.Message
}

// Notify sends m's SMS to m.Phone.
func (t *Twilio) Notify(ctx context.Context, m Message) error {
	_, err := t.Send(ctx, m)
	return err
}

// Send sends m's SMS to m.Phone and returns Twilio's sid of it.
func (t *Twilio) Send(ctx context.Context, m Message) (Receipt, error) {
	rc := Receipt{Channel: ChannelSMS}
	if strings.TrimSpace(m.Phone) == "" {
		return rc, permanent(fmt.Errorf("twilio: patient %d: %w", m.PatientID, ErrNoAddress))
	}
	form := url.Values{"To": {m.Phone}, "Body": {SMS(m)}}
	if strings.HasPrefix(t.From, "MG") {
		form.Set("MessagingServiceSid", t.From)
	} else {
		form.Set("From", t.From)
	}
	if t.StatusCallback != "" {
		form.Set("StatusCallback", t.StatusCallback)
	}
	base := t.BaseURL
	if base == "" {
		base = TwilioBaseURL
	}
	endpoint := strings.TrimSuffix(base, "/") + "/2010-04-01/Accounts/" + url.PathEscape(t.AccountSID) + "/Messages.json"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return rc, permanent(errors.New("twilio: invalid base URL"))
	}
	req.SetBasicAuth(t.AccountSID, t.AuthToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "slotd/1")
	client := t.Client
	if client == nil {
		client = defaultWebhookClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return rc, fmt.Errorf("twilio: POST Messages.json: %w", err)
	}
	defer resp.Body.Close()
	var body struct {
		SID     string `json:"sid"`
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&body)
	if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK {
		rc.ProviderID = body.SID
		return rc, nil
	}
	// Twilio's message names the refused number: Scrub hides it.
	perr := &ProviderError{Provider: "twilio", Status: resp.StatusCode, Code: body.Code, Message: Scrub(body.Message)}
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return rc, permanent(perr)
	}
	return rc, perr
}
