package notify

import (
	"context"
	"errors"
	"regexp"
	"unicode/utf8"
)

// Channels of a delivery (Receipt.Channel, Message.Channel).
const (
	ChannelSMS     = "sms"
	ChannelEmail   = "email"
	ChannelWebhook = "webhook" // a receiver given no contact data
	ChannelLog     = "log"     // delivered nowhere
)

// Receipt is what a channel says of a message it accepted: which channel
// it was and the provider's id of the message (Twilio's sid), if any.
type Receipt struct {
	Channel    string
	ProviderID string
}

// Sender is a Notifier that tells how a message went. Every notifier of
// this package is one.
type Sender interface {
	Notifier
	Send(ctx context.Context, m Message) (Receipt, error)
}

// Send sends m through n, with n's receipt when n is a Sender.
func Send(ctx context.Context, n Notifier, m Message) (Receipt, error) {
	if s, ok := n.(Sender); ok {
		return s.Send(ctx, m)
	}
	return Receipt{}, n.Notify(ctx, m)
}

// Router delivers each message by one of several channels: SMS to the
// patient's phone, e-mail to their address, or Other (a log, a webhook
// given no contact data) when neither serves the patient.
//
// The channel is the message's own choice (Message.Channel, a sign-in
// code's) when it can reach the patient that way, else SMS when the
// patient has a phone, else e-mail. The chosen channel is given only its
// own address, and the message says which channel it went by.
type Router struct {
	SMS, Email, Other Notifier
}

// ErrNoChannel is the cause of the Permanent error of a message that no
// configured channel can deliver to this patient.
var ErrNoChannel = errors.New("no configured channel reaches the patient")

// Notify sends m by its channel.
func (r *Router) Notify(ctx context.Context, m Message) error {
	_, err := r.Send(ctx, m)
	return err
}

// Send sends m by its channel and tells which it was.
func (r *Router) Send(ctx context.Context, m Message) (Receipt, error) {
	ch := r.Route(m)
	var n Notifier
	switch ch {
	case ChannelSMS:
		n, m.Email = r.SMS, ""
	case ChannelEmail:
		n, m.Phone = r.Email, ""
	case "":
		return Receipt{}, permanent(ErrNoChannel)
	default:
		n = r.Other
	}
	m.Channel = ch
	rc, err := Send(ctx, n, m)
	if ch == ChannelSMS || ch == ChannelEmail || rc.Channel == "" {
		rc.Channel = ch
	}
	return rc, err
}

// Route is the channel m goes by: ChannelSMS, ChannelEmail, "other" for
// Other, or "" when none reaches the patient.
func (r *Router) Route(m Message) string {
	sms := r.SMS != nil && m.Phone != ""
	email := r.Email != nil && m.Email != ""
	switch {
	case m.Channel == ChannelEmail && email:
		return ChannelEmail
	case sms:
		return ChannelSMS
	case email:
		return ChannelEmail
	case r.Other != nil:
		return "other"
	}
	return ""
}

// Reason is a failure's cause fit for a delivery record: the provider's
// code and message when it gave them, else the error's text, without
// phone numbers or e-mail addresses and at most 300 bytes.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var pe *ProviderError
	s := err.Error()
	if errors.As(err, &pe) {
		s = pe.reason()
	}
	s = Scrub(s)
	for len(s) > 300 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

var (
	// No dots: an IP address in a network error is not a phone, and
	// providers write numbers in E.164.
	phoneLike = regexp.MustCompile(`\+?\d[\d ()-]{5,}\d`)
	emailLike = regexp.MustCompile(`[^\s<>"'@]+@[^\s<>"'@]+\.[^\s<>"'@]+`)
)

// Scrub hides what looks like a phone number or an e-mail address in a
// provider's text (Twilio names the number it refuses), so that a
// delivery record or a log line holds neither.
func Scrub(s string) string {
	s = emailLike.ReplaceAllStringFunc(s, MaskEmail)
	return phoneLike.ReplaceAllStringFunc(s, MaskPhone)
}
