package httpapi

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// messageJSON is a message's delivery record as the API answers it.
type messageJSON struct {
	ID         int64     `json:"id"`
	PatientID  int64     `json:"patientId"`
	Kind       string    `json:"kind"`
	Channel    string    `json:"channel"`
	State      string    `json:"state"`
	ProviderID string    `json:"providerId,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Attempts   int       `json:"attempts"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

func messageOf(m booking.Message) messageJSON {
	return messageJSON{ID: m.ID, PatientID: m.PatientID, Kind: m.Kind, Channel: m.Channel, State: m.State,
		ProviderID: m.ProviderID, Reason: m.Reason, Attempts: m.Attempts, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// patientMessages is GET /api/admin/patients/{id}/messages: the delivery
// records of a patient's messages, newest first, paged.
func (s *server) patientMessages(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	if _, err := s.store.GetPatient(ctx, id); err != nil {
		return storeErr(ctx, err)
	}
	ms, err := s.svc.PatientMessages(r.Context(), id, p.store())
	if err != nil {
		return err
	}
	out := make([]messageJSON, len(ms))
	for i, m := range ms {
		out[i] = messageOf(m)
	}
	writeJSON(w, http.StatusOK, pageOf(out, p, func(m messageJSON) int64 { return m.ID }))
	return nil
}

// TwilioStatusPath is where Twilio posts its status callbacks: the
// StatusCallback of each message is the public URL with this path.
const TwilioStatusPath = "/api/sms/twilio/status"

// maxTwilioCallback bounds a status callback's form: Twilio's carry a
// dozen short fields.
const maxTwilioCallback = 8 << 10

// twilioStatus is POST /api/sms/twilio/status, Twilio's status callback
// of a message it accepted. It is authenticated by X-Twilio-Signature
// over the URL Twilio was given (Config.TwilioCallbackURL) and the POST
// parameters: a missing or wrong signature is 401 bad-signature and
// changes nothing. It records queued, sent, delivered, undelivered or
// failed (the last two as failed, with Twilio's ErrorCode) and answers
// 204; a repeated or late report changes nothing.
func (s *server) twilioStatus(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if s.deliveries == nil || s.twilioToken == "" || s.twilioURL == "" {
		return errorf(booking.CodeNotFound, "Twilio status callbacks are not served here")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTwilioCallback)
	if err := r.ParseForm(); err != nil {
		return errorf(booking.CodeInvalidRequest, "the body must be a form of at most %d bytes", maxTwilioCallback)
	}
	if !auth.VerifyTwilioSignature(s.twilioToken, s.twilioURL, r.PostForm, r.Header.Get(auth.TwilioSignatureHeader)) {
		return errorf(booking.CodeBadSignature, "the %s header is missing or does not match the URL and parameters", auth.TwilioSignatureHeader)
	}
	form := r.PostForm
	sid, status, code := form.Get("MessageSid"), form.Get("MessageStatus"), form.Get("ErrorCode")
	state, ok := twilioState(status)
	switch {
	case sid == "" || len(sid) > 64:
		return errorf(booking.CodeInvalidRequest, "MessageSid is required")
	case !ok:
		return errorf(booking.CodeInvalidRequest, "MessageStatus is not one of Twilio's")
	case len(code) > 16:
		return errorf(booking.CodeInvalidRequest, "ErrorCode is too long")
	}
	reason := ""
	if state == booking.MessageFailed {
		reason = status
		if code != "" {
			reason = code + ": " + status
		}
	}
	if _, err := s.deliveries.Report(r.Context(), booking.MessageReport{ProviderID: sid, State: state, Reason: reason}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// twilioState maps a MessageStatus of Twilio's callbacks to a message
// state: queued, accepted, scheduled and sending are still queued; sent;
// delivered (and read); undelivered, failed and canceled failed. ok is
// false for a status Twilio does not document.
func twilioState(status string) (state string, ok bool) {
	switch status {
	case "queued", "accepted", "scheduled", "sending":
		return booking.MessageQueued, true
	case "sent":
		return booking.MessageSent, true
	case "delivered", "read":
		return booking.MessageDelivered, true
	case "undelivered", "failed", "canceled":
		return booking.MessageFailed, true
	}
	return "", false
}

// channelsJSON is the delivery channels' part of /readyz.
func channelsJSON(d *service.Deliveries) []map[string]any {
	out := []map[string]any{}
	if d == nil {
		return out
	}
	for _, c := range d.Channels() {
		m := map[string]any{"channel": c.Channel, "working": c.Working()}
		if !c.LastSent.IsZero() {
			m["lastSent"] = c.LastSent.UTC().Format(time.RFC3339)
		}
		if !c.LastFailure.IsZero() {
			m["lastFailure"] = c.LastFailure.UTC().Format(time.RFC3339)
			m["reason"] = c.Reason
		}
		out = append(out, m)
	}
	return out
}
