package web

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// messageWords show a message's kind, channel and state in the reader's
// language; each value is the English key of i18n's catalogs, and a code
// not listed here shows as stored.
var messageWords = map[string]string{
	"confirmation": "booking confirmed", "cancellation": "cancellation", "expiry": "hold expired",
	"suspension": "cancelled by the clinic", "login-code": "sign-in code", "rescheduled": "moved",
	"reminder": "reminder", "waitlist-offer": "waiting-list offer",
	"sms": "SMS", "email": "e-mail", "webhook": "webhook", "log": "log only", "none": "no channel",
	booking.MessageQueued: "queued", booking.MessageSent: "sent", booking.MessageDelivered: "delivered", booking.MessageFailed: "failed",
}

// messageRow is one message as the staff page shows it.
type messageRow struct {
	When, Kind, Channel, State, Reason string
	Failed                             bool
	Attempts                           int
}

// messagesData is the staff page of a patient's messages.
type messagesData struct {
	Patient booking.Patient
	Rows    []messageRow
	Next    int64
}

// messagesPerPage is the staff page's page of messages.
const messagesPerPage = 50

// handleStaffPatientMessages shows how far each message to a patient
// went: kind, channel, state and the provider's reason of a failure,
// newest first, paged by ?after=.
func (s *server) handleStaffPatientMessages(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.handleNotFound(w, r)
		return
	}
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	patient, err := s.store.GetPatient(ctx, id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ms, err := s.svc.PatientMessages(r.Context(), id, booking.Page{After: max(after, 0), Limit: messagesPerPage + 1})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	pr := s.printer(r)
	word := func(code string) string {
		if w, ok := messageWords[code]; ok {
			return pr.T(w)
		}
		return code
	}
	d := messagesData{Patient: patient}
	if len(ms) > messagesPerPage {
		ms = ms[:messagesPerPage]
		d.Next = ms[len(ms)-1].ID
	}
	for _, m := range ms {
		d.Rows = append(d.Rows, messageRow{When: pr.DateTime(m.CreatedAt.In(s.clinicZone)), Kind: word(m.Kind), Channel: word(m.Channel),
			State: word(m.State), Reason: m.Reason, Failed: m.State == booking.MessageFailed, Attempts: m.Attempts})
	}
	p := s.newPage(w, r, "Messages")
	p.Data = d
	s.render(w, r, http.StatusOK, "staff_messages", p)
}
