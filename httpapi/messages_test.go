package httpapi

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
)

const (
	twilioTestToken = "twilio-test-token"
	twilioTestURL   = "https://clinic.test/api/sms/twilio/status"
)

// twilioCallback is a status callback as Twilio sends it, signed with
// token over the URL Twilio was given.
func twilioCallback(token string, form url.Values) call {
	return call{method: "POST", path: TwilioStatusPath, body: form.Encode(), invalid: true, header: map[string]string{
		"Content-Type":             "application/x-www-form-urlencoded",
		auth.TwilioSignatureHeader: auth.TwilioSignature(token, twilioTestURL, form),
	}}
}

// TestTwilioStatusCallback: a signed report moves the message (delivered,
// or failed with Twilio's ErrorCode); a wrong or missing signature is 401
// and changes nothing; an unknown sid is 404, an unknown status 400.
func TestTwilioStatusCallback(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	ctx := context.Background()
	for _, sid := range []string{"SMdelivered", "SMfailed"} {
		if _, err := e.db.RecordMessages(ctx, []booking.MessageAttempt{{Key: sid, PatientID: p.ID, Kind: "reminder", Channel: "sms",
			State: booking.MessageSent, ProviderID: sid, At: t0}}); err != nil {
			t.Fatal(err)
		}
	}
	state := func(sid string) booking.Message {
		t.Helper()
		ms, err := e.db.PatientMessages(ctx, p.ID, booking.Page{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.ProviderID == sid {
				return m
			}
		}
		t.Fatalf("no message %s", sid)
		return booking.Message{}
	}
	form := url.Values{"MessageSid": {"SMdelivered"}, "MessageStatus": {"delivered"}, "AccountSid": {"AC1"}, "To": {p.Phone}}

	forged := twilioCallback("another-token", form)
	e.do(forged).expect(t, 401, booking.CodeBadSignature)
	unsigned := twilioCallback(twilioTestToken, form)
	delete(unsigned.header, auth.TwilioSignatureHeader)
	e.do(unsigned).expect(t, 401, booking.CodeBadSignature)
	tampered := twilioCallback(twilioTestToken, form)
	tampered.body = strings.Replace(form.Encode(), "delivered", "failed", 1)
	e.do(tampered).expect(t, 401, booking.CodeBadSignature)
	if m := state("SMdelivered"); m.State != booking.MessageSent {
		t.Fatalf("a refused callback changed the message: %+v", m)
	}

	e.do(twilioCallback(twilioTestToken, form)).expect(t, 204)
	if m := state("SMdelivered"); m.State != booking.MessageDelivered {
		t.Fatalf("after delivered: %+v", m)
	}
	late := url.Values{"MessageSid": {"SMdelivered"}, "MessageStatus": {"sent"}}
	e.do(twilioCallback(twilioTestToken, late)).expect(t, 204)
	if m := state("SMdelivered"); m.State != booking.MessageDelivered {
		t.Fatalf("a late sent report moved it back: %+v", m)
	}

	undelivered := url.Values{"MessageSid": {"SMfailed"}, "MessageStatus": {"undelivered"}, "ErrorCode": {"30003"}}
	e.do(twilioCallback(twilioTestToken, undelivered)).expect(t, 204)
	if m := state("SMfailed"); m.State != booking.MessageFailed || m.Reason != "30003: undelivered" {
		t.Fatalf("after undelivered: %+v", m)
	}

	e.do(twilioCallback(twilioTestToken, url.Values{"MessageSid": {"SMnone"}, "MessageStatus": {"sent"}})).expect(t, 404, booking.CodeNotFound)
	e.do(twilioCallback(twilioTestToken, url.Values{"MessageSid": {"SMfailed"}, "MessageStatus": {"teleported"}})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(twilioCallback(twilioTestToken, url.Values{"MessageStatus": {"sent"}})).expect(t, 400, booking.CodeInvalidRequest)
	big := twilioCallback(twilioTestToken, url.Values{"MessageSid": {"SMfailed"}, "MessageStatus": {"sent"}, "Body": {strings.Repeat("x", maxTwilioCallback)}})
	e.do(big).expect(t, 400, booking.CodeInvalidRequest)

	// Staff see both, newest first, and no contact data.
	a := e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/patients/%d/messages?limit=1", p.ID), token: e.admin}).expect(t, 200)
	body := string(a.body)
	if !strings.Contains(body, `"providerId":"SMfailed"`) || !strings.Contains(body, `"next":"`) || strings.Contains(body, p.Phone) {
		t.Fatalf("messages page: %s", body)
	}
	e.do(call{method: "GET", path: "/api/admin/patients/999999/messages", token: e.admin}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/patients/%d/messages?limit=0", p.ID), token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// /readyz names the configured channel.
	r := e.do(call{method: "GET", path: "/readyz"}).expect(t, 200)
	if !strings.Contains(string(r.body), `"channel":"sms","working":true`) {
		t.Fatalf("/readyz: %s", r.body)
	}
}

// TestSigninCodeChannel: the channel a code should go by reaches the
// notifier; another value is 400 and sends nothing.
func TestSigninCodeChannel(t *testing.T) {
	e := newEnv(t)
	p := e.patient()
	e.do(call{method: "POST", path: "/api/signin/code", body: map[string]any{"phone": p.Phone, "channel": "email"}}).expect(t, 202)
	sent := e.codes.channels()
	if len(sent) != 1 || sent[0] != notify.ChannelEmail {
		t.Fatalf("sent %+v", sent)
	}
	e.do(call{method: "POST", path: "/api/signin/code", body: map[string]any{"phone": p.Phone, "channel": "fax"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	// An unknown phone answers alike, whichever channel it asks for.
	e.do(call{method: "POST", path: "/api/signin/code", body: map[string]any{"phone": "+33699999999", "channel": "email"}}).expect(t, 202)
	if n := len(e.codes.channels()); n != 1 {
		t.Fatalf("%d codes sent, want 1", n)
	}
}
