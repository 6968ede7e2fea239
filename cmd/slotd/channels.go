package main

import (
	"errors"
	"flag"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/notify"
)

// twilioFlags configure the built-in SMS channel (--sms-provider twilio).
type twilioFlags struct {
	accountSID string
	authToken  string // a secret: SLOTD_TWILIO_AUTH_TOKEN_FILE
	from       string
	baseURL    string
}

func (f *twilioFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.accountSID, "twilio-account-sid", "", "twilio: the account SID (AC…)")
	fs.StringVar(&f.authToken, "twilio-auth-token", "", "twilio: the auth token, which signs the requests and the status callbacks (a secret: SLOTD_TWILIO_AUTH_TOKEN_FILE)")
	fs.StringVar(&f.from, "twilio-from", "", "twilio: the sender, a phone number (+E.164) or a messaging service SID (MG…)")
	fs.StringVar(&f.baseURL, "twilio-base-url", notify.TwilioBaseURL, "twilio: the API's base URL (a test's local fake)")
}

// channels is what serve delivers messages with: the notifier and the
// names of its channels (for /readyz and the dashboard).
type channels struct {
	notifier notify.Notifier
	names    []string
}

// kinds is --notifier's list, log when nothing is configured.
func (f *serveFlags) kinds() []string {
	ks := splitList(f.notifier)
	if len(ks) == 0 && f.smsProvider == "" {
		return []string{"log"}
	}
	return ks
}

// codeChannels names the configured channels that can deliver a sign-in
// code to a patient, and whether a webhook is given no contact (it
// delivers only if its receiver looks patients up).
func (f *serveFlags) codeChannels() (names []string, blindWebhook bool) {
	if f.smsProvider != "" {
		names = append(names, f.smsProvider)
	}
	for _, k := range f.kinds() {
		switch {
		case k == "smtp":
			names = append(names, "smtp")
		case k == "webhook" && f.webhookContact != notify.ContactNone:
			names = append(names, "webhook")
		case k == "webhook":
			blindWebhook = true
		}
	}
	return names, blindWebhook
}

// errNoChannel is the refusal to serve patients who could not receive a
// sign-in code.
var errNoChannel = errors.New("no channel can deliver a sign-in code to a patient, so no patient could sign in: " +
	"set --sms-provider twilio (with --twilio-account-sid, --twilio-auth-token, --twilio-from), " +
	"--notifier smtp (with --smtp-addr, --smtp-from), --notifier webhook (with --webhook-url, --webhook-secret, --webhook-contact phone, email or both), " +
	"or several (--notifier smtp --sms-provider twilio); or, for a rig where no patient signs in, --notifier log --allow-undelivered")

// twilioCallback is the StatusCallback URL given to Twilio: the public
// URL and httpapi.TwilioStatusPath; "" without --public-url (Twilio then
// reports nothing, and messages stay sent).
func (f *serveFlags) twilioCallback() string {
	if f.smsProvider != "twilio" || f.interop.publicURL == "" {
		return ""
	}
	u, err := url.Parse(strings.TrimSuffix(f.interop.publicURL, "/"))
	if err != nil {
		return ""
	}
	return u.JoinPath(httpapi.TwilioStatusPath).String()
}

// codeChannelNames are the channels a sign-in code can go by (SMS,
// e-mail): what the sign-in page offers.
func (f *serveFlags) codeChannelNames() []string {
	var out []string
	for _, n := range f.channelNames() {
		if (n == notify.ChannelSMS || n == notify.ChannelEmail) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// newChannels builds the notifier the flags describe.
func (f *serveFlags) newChannels(logger *slog.Logger) (channels, error) {
	n, err := notify.New(notify.Config{
		Kind: strings.Join(f.kinds(), ","), Logger: logger, ShowCodes: f.demo, Language: f.locale.language,
		WebhookURL: f.webhookURL, WebhookSecret: f.webhookSecret, WebhookContact: f.webhookContact,
		SMTPAddr: f.smtpAddr, SMTPFrom: f.smtpFrom, SMTPUser: f.smtpUser, SMTPPassword: f.smtpPassword,
		SMTPRequireTLS: f.smtpRequireTLS.or(notify.RequireTLSByDefault(f.smtpAddr)), SMTPImplicitTLS: f.smtpImplicit,
		SMSProvider: f.smsProvider, TwilioAccountSID: f.twilio.accountSID, TwilioAuthToken: f.twilio.authToken,
		TwilioFrom: f.twilio.from, TwilioBaseURL: f.twilio.baseURL, TwilioStatusCallback: f.twilioCallback(),
	})
	if err != nil {
		return channels{}, err
	}
	return channels{notifier: n, names: f.channelNames()}, nil
}

// channelNames names the configured channels, SMS first.
func (f *serveFlags) channelNames() []string {
	var names []string
	if f.smsProvider != "" {
		names = append(names, notify.ChannelSMS)
	}
	for _, k := range f.kinds() {
		switch {
		case k == "smtp":
			names = append(names, notify.ChannelEmail)
		case k == "log":
			names = append(names, notify.ChannelLog)
		case k == "webhook" && f.webhookContact == notify.ContactPhone:
			names = append(names, notify.ChannelSMS)
		case k == "webhook" && f.webhookContact == notify.ContactEmail:
			names = append(names, notify.ChannelEmail)
		case k == "webhook" && f.webhookContact == notify.ContactBoth:
			names = append(names, notify.ChannelSMS, notify.ChannelEmail)
		case k == "webhook":
			names = append(names, notify.ChannelWebhook)
		}
	}
	return names
}
