package notify_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/notify/twiliotest"
)

func twilioFor(f *twiliotest.Fake, from string) *notify.Twilio {
	return &notify.Twilio{BaseURL: f.URL, AccountSID: twiliotest.AccountSID, AuthToken: twiliotest.AuthToken, From: from,
		StatusCallback: "https://clinic.example/api/sms/twilio/status"}
}

var codeMessage = notify.Message{Kind: notify.KindLoginCode, PatientID: 7, Phone: "+33612345678", Email: "p@example.org", Code: "123456", IdempotencyKey: "login-1"}

func TestTwilioSendsTheDocumentedRequest(t *testing.T) {
	f := twiliotest.New(t)
	rc, err := twilioFor(f, "+15005550006").Send(context.Background(), codeMessage)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) != 1 || rc.ProviderID != reqs[0].SID || !strings.HasPrefix(rc.ProviderID, "SM") || rc.Channel != notify.ChannelSMS {
		t.Fatalf("receipt %+v, requests %+v", rc, reqs)
	}
	form := reqs[0].Form
	if form.Get("To") != "+33612345678" || form.Get("From") != "+15005550006" || !strings.Contains(form.Get("Body"), "123456") ||
		form.Get("StatusCallback") != "https://clinic.example/api/sms/twilio/status" || form.Get("MessagingServiceSid") != "" {
		t.Fatalf("form %v", form)
	}
	// A messaging service SID goes as MessagingServiceSid.
	if _, err := twilioFor(f, "MG0123").Send(context.Background(), codeMessage); err != nil {
		t.Fatal(err)
	}
	if form := f.Requests()[1].Form; form.Get("MessagingServiceSid") != "MG0123" || form.Get("From") != "" {
		t.Fatalf("form %v", form)
	}
}

func TestTwilioErrors(t *testing.T) {
	for _, tc := range []struct {
		status    int
		permanent bool
		reason    string
	}{
		{http.StatusBadRequest, true, "21211: The 'To' number +33******78 is not a valid phone number."},
		{http.StatusTooManyRequests, false, "20429: Too Many Requests"},
		{http.StatusInternalServerError, false, "20500: Internal Server Error"},
		{http.StatusServiceUnavailable, false, "20500: Internal Server Error"},
	} {
		f := twiliotest.New(t, tc.status)
		_, err := twilioFor(f, "+15005550006").Send(context.Background(), codeMessage)
		if err == nil || notify.IsPermanent(err) != tc.permanent {
			t.Fatalf("%d: err %v, want permanent %v", tc.status, err, tc.permanent)
		}
		if got := notify.Reason(err); got != tc.reason {
			t.Fatalf("%d: reason %q, want %q", tc.status, got, tc.reason)
		}
		if strings.Contains(err.Error(), "612345678") || strings.Contains(err.Error(), "123456") {
			t.Fatalf("the error shows the phone or the code: %v", err)
		}
	}
	// Wrong credentials are Twilio's 401: permanent.
	f := twiliotest.New(t)
	tw := twilioFor(f, "+15005550006")
	tw.AuthToken = "wrong"
	if _, err := tw.Send(context.Background(), codeMessage); !notify.IsPermanent(err) || !strings.Contains(notify.Reason(err), "20003") {
		t.Fatalf("bad credentials: %v", err)
	}
	// No phone: permanent, nothing sent.
	if _, err := tw.Send(context.Background(), notify.Message{PatientID: 1}); !errors.Is(err, notify.ErrNoAddress) || !notify.IsPermanent(err) {
		t.Fatalf("no phone: %v", err)
	}
	// Twilio down: an ordinary error.
	down := &notify.Twilio{BaseURL: "http://127.0.0.1:1", AccountSID: twiliotest.AccountSID, AuthToken: "x", From: "+1"}
	if _, err := down.Send(context.Background(), codeMessage); err == nil || notify.IsPermanent(err) {
		t.Fatalf("unreachable Twilio: %v", err)
	}
}

// TestRouter checks the channel of each message: the asked one when it
// reaches the patient, else SMS, else e-mail, and only that channel's
// address goes out.
func TestRouter(t *testing.T) {
	sms, email := &recorder{}, &recorder{}
	r := &notify.Router{SMS: sms, Email: email}
	for _, tc := range []struct {
		m    notify.Message
		want string
	}{
		{notify.Message{Phone: "+33612345678", Email: "a@b.example"}, notify.ChannelSMS},
		{notify.Message{Phone: "+33612345678", Email: "a@b.example", Channel: notify.ChannelEmail}, notify.ChannelEmail},
		{notify.Message{Phone: "+33612345678", Channel: notify.ChannelEmail}, notify.ChannelSMS}, // no address: by SMS
		{notify.Message{Email: "a@b.example", Channel: notify.ChannelSMS}, notify.ChannelEmail},
	} {
		rc, err := r.Send(context.Background(), tc.m)
		if err != nil || rc.Channel != tc.want {
			t.Fatalf("%+v: %+v %v, want %s", tc.m, rc, err, tc.want)
		}
	}
	if got := sms.got; len(got) != 2 || got[0].Email != "" || got[0].Channel != notify.ChannelSMS {
		t.Fatalf("SMS channel got %+v", got)
	}
	if got := email.got; len(got) != 2 || got[0].Phone != "" || got[0].Channel != notify.ChannelEmail {
		t.Fatalf("e-mail channel got %+v", got)
	}
	if _, err := (&notify.Router{SMS: sms}).Send(context.Background(), notify.Message{Email: "a@b.example"}); !errors.Is(err, notify.ErrNoChannel) || !notify.IsPermanent(err) {
		t.Fatalf("no channel: %v", err)
	}
}

// TestNewChannels checks what several channels at once may be.
func TestNewChannels(t *testing.T) {
	tw := notify.Config{SMSProvider: "twilio", TwilioAccountSID: twiliotest.AccountSID, TwilioAuthToken: "t", TwilioFrom: "+1"}
	both := tw
	both.Kind, both.SMTPAddr, both.SMTPFrom = "smtp", "m.example:25", "a@b.example"
	n, err := notify.New(both)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := n.(*notify.Router); !ok || r.SMS == nil || r.Email == nil || r.Other != nil {
		t.Fatalf("twilio and smtp: %#v", n)
	}
	for name, cfg := range map[string]notify.Config{
		"log with twilio":     {Kind: "log", SMSProvider: "twilio", TwilioAccountSID: twiliotest.AccountSID, TwilioAuthToken: "t", TwilioFrom: "+1"},
		"two sms channels":    {Kind: "webhook", WebhookURL: "https://h.example", WebhookSecret: "s", WebhookContact: "phone", SMSProvider: "twilio", TwilioAccountSID: twiliotest.AccountSID, TwilioAuthToken: "t", TwilioFrom: "+1"},
		"twilio without sid":  {SMSProvider: "twilio", TwilioAuthToken: "t", TwilioFrom: "+1"},
		"twilio bad sid":      {SMSProvider: "twilio", TwilioAccountSID: "x", TwilioAuthToken: "t", TwilioFrom: "+1"},
		"unknown sms":         {SMSProvider: "carrier-pigeon"},
		"smtp named twice":    {Kind: "smtp,smtp", SMTPAddr: "m.example:25", SMTPFrom: "a@b.example"},
		"twilio bad base url": {SMSProvider: "twilio", TwilioAccountSID: twiliotest.AccountSID, TwilioAuthToken: "t", TwilioFrom: "+1", TwilioBaseURL: "ftp://x"},
	} {
		if _, err := notify.New(cfg); err == nil {
			t.Fatalf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "+1") {
			t.Fatalf("%s: the error shows a value: %v", name, err)
		}
	}
}

// recorder is a channel that keeps what it is given.
type recorder struct{ got []notify.Message }

func (r *recorder) Notify(_ context.Context, m notify.Message) error {
	r.got = append(r.got, m)
	return nil
}

// TestScrub: a provider's text keeps no phone or address, and the rest of
// it (codes, an IP address) stays readable.
func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		"The 'To' number +33612345678 is not a valid phone number.": "The 'To' number +33******78 is not a valid phone number.",
		"550 5.1.1 <jane.doe@example.org>: unknown user":            "550 5.1.1 <j***@example.org>: unknown user",
		"dial tcp 127.0.0.1:1: connect: connection refused":         "dial tcp 127.0.0.1:1: connect: connection refused",
		"21211: invalid": "21211: invalid",
	} {
		if got := notify.Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}
