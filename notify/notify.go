// Package notify delivers notifications to patients about their
// appointments: confirmations, cancellations, expired holds, suspensions by
// the clinic and one-time sign-in codes.
//
// Four notifiers implement Notifier (and Sender, which tells the channel
// and the provider's id of a message):
//
//   - Log (the default) writes one structured line per message, with the
//     patient's phone and e-mail masked and login codes hidden;
//   - Webhook POSTs the message as JSON to the clinic's own system, signed
//     with HMAC-SHA256: ids and the texts to show, and the phone or e-mail
//     only to a gateway that delivers to it (Config.WebhookContact);
//   - SMTP sends a plain-text e-mail: it is the channel, so it is given the
//     address, and the body is the text the patient reads;
//   - Twilio sends the SMS text through Twilio's Messages API.
//
// A Router holds several at once (SMS, e-mail, another) and sends each
// message by the one that reaches the patient.
//
// Notifiers are called by the job worker, outside any database transaction,
// and delivery is at least once: a notifier may be called again with the same
// message after a failure, so every message carries an IdempotencyKey that
// receivers use to drop duplicates. A notifier returns a *Permanent error
// when trying again cannot help (no address, a 4xx from the webhook, a
// recipient the mail server rejects) so that the caller stops retrying.
//
// Personal data: phone numbers and e-mail addresses are never written to
// logs or error texts in full (see MaskPhone and MaskEmail), and login codes
// are never logged except by the Log notifier in demo mode (Log.ShowCodes).
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// Message kinds.
const (
	KindConfirmation = "confirmation"
	KindCancellation = "cancellation"
	KindExpiry       = "expiry"
	KindSuspension   = "suspension"
	KindLoginCode    = "login-code"
	KindRescheduled  = "rescheduled"
	KindReminder     = "reminder"
	KindOffer        = "waitlist-offer"
	// KindLeftoverOffer: a leftover dose is held for a standby.
	KindLeftoverOffer = "leftover-offer"
	KindRefund        = "refund"
	KindQueueAhead    = "queue-ahead"
)

// Message is one notification to a patient about an appointment.
//
// Its JSON form is the body the Webhook notifier posts; field names follow
// the HTTP API's camelCase.
type Message struct {
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	// AppointmentID is 0 for login codes.
	AppointmentID int64  `json:"appointmentId,omitempty"`
	PatientID     int64  `json:"patientId"`
	PatientName   string `json:"patientName,omitempty"`
	// Phone and Email are personal data: never logged in full.
	Phone      string    `json:"phone,omitempty"`
	Email      string    `json:"email,omitempty"`
	DoctorName string    `json:"doctorName,omitempty"`
	StartAt    time.Time `json:"startAt,omitzero"`
	// TimeZone is the doctor's IANA zone, in which times are shown.
	TimeZone    string `json:"timeZone,omitempty"`
	QueueNumber int    `json:"queueNumber,omitempty"`
	// Place is where the appointment is (the site's name and address,
	// booking.Site.Where) and MapURL a map of it, "" when unknown.
	Place  string `json:"place,omitempty"`
	MapURL string `json:"mapUrl,omitempty"`
	// OfferExpiresAt is when a waitlist offer lapses (waitlist-offer only).
	OfferExpiresAt time.Time `json:"offerExpiresAt,omitzero"`
	// Ahead is how many are to be called before the patient (queue-ahead
	// only).
	Ahead int `json:"ahead,omitempty"`
	// Reason is the clinic's reason for a suspension.
	Reason string `json:"reason,omitempty"`
	// RefundAmount is what was paid back (refund only), in the minor
	// units of Currency (the clinic's ISO 4217 code).
	RefundAmount int64  `json:"refundAmount,omitempty"`
	Currency     string `json:"currency,omitempty"`
	// Code is a one-time login code (login-code only). It is a secret: it
	// is never logged, except by the Log notifier with ShowCodes set.
	Code string `json:"code,omitempty"`
	// CheckInCode is the appointment's check-in code (confirmation and
	// reminder), typed at the clinic's kiosk on the day. It is never
	// logged.
	CheckInCode string `json:"checkInCode,omitempty"`
	// Language is the patient's language (an i18n.Languages tag); the
	// notifier's Config.Language when empty.
	Language string `json:"language,omitempty"`
	// Subject, Text and SMS are the message as people read it, in
	// Language (Text and SMS, notify.SMS: one SMS segment); the Webhook
	// notifier fills them in so that an SMS or mail gateway need not.
	Subject string `json:"subject,omitempty"`
	Text    string `json:"text,omitempty"`
	SMS     string `json:"sms,omitempty"`
	// Channel is the channel asked for (a sign-in code's: ChannelSMS or
	// ChannelEmail; the Router's choice when it cannot reach the patient
	// that way), then the one the message goes by, so that a gateway given
	// both contacts (--webhook-contact both) knows which to use.
	Channel string `json:"channel,omitempty"`
	// IdempotencyKey is a stable id of this message (e.g.
	// "appt-42-confirmation"), sent along so that receivers can drop the
	// duplicates that at-least-once delivery produces.
	IdempotencyKey string `json:"idempotencyKey"`
}

// Notifier delivers one message. An error means "not delivered, try again
// later" unless it is (or wraps) a *Permanent.
type Notifier interface {
	Notify(ctx context.Context, m Message) error
}

// Permanent wraps an error that retrying cannot cure: the caller should give
// up on the message (and record why) instead of scheduling another attempt.
// Test for it with errors.As or IsPermanent.
type Permanent struct {
	Err error
}

// Error says the failure is permanent, then gives its cause.
func (e *Permanent) Error() string { return "permanent: " + e.Err.Error() }

// Unwrap returns the cause, so errors.Is(err, ErrNoAddress) works through it.
func (e *Permanent) Unwrap() error { return e.Err }

// IsPermanent reports whether err is or wraps a *Permanent.
func IsPermanent(err error) bool {
	var p *Permanent
	return errors.As(err, &p)
}

// permanent wraps err in a *Permanent.
func permanent(err error) error { return &Permanent{Err: err} }

// ErrNoAddress is the cause of the Permanent error the SMTP notifier returns
// for a message without an e-mail address.
var ErrNoAddress = errors.New("no address")

// DefaultTimeout bounds one delivery attempt of the Webhook and SMTP
// notifiers when no timeout is configured, so that a stuck receiver cannot
// hold a worker forever.
const DefaultTimeout = 10 * time.Second

// Config selects and configures a notifier for New.
type Config struct {
	// Kind is "log" (the default when empty, and only alone), "webhook",
	// "smtp", or a comma-separated list of webhook and smtp: several
	// channels at once, through a Router.
	Kind string
	// SMSProvider "twilio" adds Twilio's Messages API as the SMS channel
	// (with TwilioAccountSID, TwilioAuthToken and TwilioFrom); "" adds none.
	SMSProvider      string
	TwilioAccountSID string
	TwilioAuthToken  string
	TwilioFrom       string
	// TwilioBaseURL is TwilioBaseURL when empty; TwilioStatusCallback is
	// the URL of POST /api/sms/twilio/status (none when empty).
	TwilioBaseURL        string
	TwilioStatusCallback string
	// Language is the clinic's language, for messages without their own
	// (an i18n.Languages tag; English when empty).
	Language string
	// Logger is where the log notifier writes; nil means slog.Default().
	Logger *slog.Logger
	// ShowCodes makes the log notifier log login codes, so that a demo user
	// can sign in without a mail server. Demo mode only; other kinds ignore it.
	ShowCodes bool

	// WebhookURL (http or https) and WebhookSecret (the HMAC key) are
	// required for the webhook kind.
	WebhookURL    string
	WebhookSecret string
	// WebhookContact is the contact data the webhook's receiver delivers
	// to: "none" (the default: ids and texts only), "phone" (an SMS
	// gateway), "email" (a mail gateway) or "both".
	WebhookContact string

	// SMTPAddr (host:port) and SMTPFrom (an address, optionally with a
	// display name) are required for the smtp kind. SMTPUser and
	// SMTPPassword enable AUTH PLAIN; SMTPRequireTLS refuses to send unless
	// the server offers STARTTLS.
	SMTPAddr       string
	SMTPFrom       string
	SMTPUser       string
	SMTPPassword   string
	SMTPRequireTLS bool
	// SMTPImplicitTLS speaks TLS from the connection's start (SMTPS).
	SMTPImplicitTLS bool

	// Timeout bounds one webhook or SMTP delivery; 0 means DefaultTimeout.
	Timeout time.Duration
}

// New builds the notifier that cfg describes, or says which setting is
// missing or malformed. Errors name settings, never their values, since the
// values include secrets.
func New(cfg Config) (Notifier, error) {
	n, err := newNotifier(cfg)
	if err != nil || cfg.Language == "" {
		return n, err
	}
	return &inLanguage{next: n, lang: cfg.Language}, nil
}

// inLanguage gives messages without a language the clinic's.
type inLanguage struct {
	next Notifier
	lang string
}

func (l *inLanguage) Notify(ctx context.Context, m Message) error {
	_, err := l.Send(ctx, m)
	return err
}

func (l *inLanguage) Send(ctx context.Context, m Message) (Receipt, error) {
	if m.Language == "" {
		m.Language = l.lang
	}
	return Send(ctx, l.next, m)
}

func newNotifier(cfg Config) (Notifier, error) {
	if cfg.Timeout < 0 {
		return nil, errors.New("notify: timeout must not be negative")
	}
	kinds := strings.Split(cfg.Kind, ",")
	if cfg.SMSProvider == "" && len(kinds) == 1 {
		return newOne(cfg, cfg.Kind)
	}
	var r Router
	seen := map[string]bool{}
	for _, k := range kinds {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if k == "log" {
			return nil, errors.New("notify: the log notifier delivers nothing and goes alone, not with other channels")
		}
		if seen[k] {
			return nil, fmt.Errorf("notify: notifier %q is named twice", k)
		}
		seen[k] = true
		n, err := newOne(cfg, k)
		if err != nil {
			return nil, err
		}
		if err := r.add(n); err != nil {
			return nil, err
		}
	}
	switch cfg.SMSProvider {
	case "":
	case "twilio":
		t, err := newTwilio(cfg)
		if err != nil {
			return nil, err
		}
		if err := r.add(t); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("notify: unknown SMS provider %q (want twilio)", cfg.SMSProvider)
	}
	return &r, nil
}

// add gives n the Router's slots it serves: SMS, e-mail (a webhook given
// both contacts serves both) or the other one.
func (r *Router) add(n Notifier) error {
	sms, email := false, false
	switch n := n.(type) {
	case *Twilio:
		sms = true
	case *SMTP:
		email = true
	case *Webhook:
		sms = n.Contact == ContactPhone || n.Contact == ContactBoth
		email = n.Contact == ContactEmail || n.Contact == ContactBoth
	}
	if !sms && !email {
		if r.Other != nil {
			return errors.New("notify: two notifiers deliver to no contact")
		}
		r.Other = n
	}
	if sms {
		if r.SMS != nil {
			return errors.New("notify: two SMS channels (--sms-provider and a webhook given phones): keep one")
		}
		r.SMS = n
	}
	if email {
		if r.Email != nil {
			return errors.New("notify: two e-mail channels (smtp and a webhook given e-mail addresses): keep one")
		}
		r.Email = n
	}
	return nil
}

// newTwilio checks the Twilio settings.
func newTwilio(cfg Config) (*Twilio, error) {
	if cfg.TwilioAccountSID == "" || cfg.TwilioAuthToken == "" || cfg.TwilioFrom == "" {
		return nil, errors.New("notify: twilio: an account SID, an auth token and a From number or messaging service SID are required")
	}
	if !strings.HasPrefix(cfg.TwilioAccountSID, "AC") {
		return nil, errors.New("notify: twilio: the account SID starts with AC")
	}
	if cfg.TwilioBaseURL != "" {
		if u, err := url.Parse(cfg.TwilioBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("notify: twilio: the base URL must be an absolute http or https URL")
		}
	}
	if cfg.TwilioStatusCallback != "" {
		if u, err := url.Parse(cfg.TwilioStatusCallback); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("notify: twilio: the status callback must be an absolute http or https URL")
		}
	}
	return &Twilio{BaseURL: cfg.TwilioBaseURL, AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
		From: cfg.TwilioFrom, StatusCallback: cfg.TwilioStatusCallback, Client: NewWebhookClient(cfg.Timeout)}, nil
}

// newOne builds the notifier of one kind.
func newOne(cfg Config, kind string) (Notifier, error) {
	switch kind {
	case "", "log":
		logger := cfg.Logger
		if logger == nil {
			logger = slog.Default()
		}
		return &Log{Logger: logger, ShowCodes: cfg.ShowCodes}, nil

	case "webhook":
		if cfg.WebhookURL == "" {
			return nil, errors.New("notify: webhook: a URL is required")
		}
		u, err := url.Parse(cfg.WebhookURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("notify: webhook: the URL must be an absolute http or https URL")
		}
		if cfg.WebhookSecret == "" {
			// An unsigned webhook would let anyone who finds the receiver's
			// URL forge notifications, so there is no unsigned mode.
			return nil, errors.New("notify: webhook: a secret is required")
		}
		contact := cfg.WebhookContact
		switch contact {
		case "":
			contact = ContactNone
		case ContactNone, ContactPhone, ContactEmail, ContactBoth:
		default:
			return nil, errors.New("notify: webhook: the contact must be none, phone, email or both")
		}
		return &Webhook{
			URL:     cfg.WebhookURL,
			Secret:  cfg.WebhookSecret,
			Contact: contact,
			Client:  NewWebhookClient(cfg.Timeout),
		}, nil

	case "smtp":
		if cfg.SMTPAddr == "" {
			return nil, errors.New("notify: smtp: an address (host:port) is required")
		}
		if host, port, err := net.SplitHostPort(cfg.SMTPAddr); err != nil || host == "" || port == "" {
			return nil, errors.New("notify: smtp: the address must be host:port")
		}
		if cfg.SMTPFrom == "" {
			return nil, errors.New("notify: smtp: a From address is required")
		}
		if _, err := mail.ParseAddress(cfg.SMTPFrom); err != nil {
			return nil, errors.New("notify: smtp: the From address is malformed")
		}
		if (cfg.SMTPUser == "") != (cfg.SMTPPassword == "") {
			return nil, errors.New("notify: smtp: a user needs a password and a password needs a user")
		}
		return &SMTP{
			Addr:       cfg.SMTPAddr,
			From:       cfg.SMTPFrom,
			User:       cfg.SMTPUser,
			Password:   cfg.SMTPPassword,
			RequireTLS: cfg.SMTPRequireTLS, ImplicitTLS: cfg.SMTPImplicitTLS,
			Timeout: cfg.Timeout,
		}, nil
	}
	return nil, fmt.Errorf("notify: unknown notifier kind %q (want log, webhook or smtp)", cfg.Kind)
}
