package web

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// handleBookGroup books the review's slot for every person ticked under
// "Book for several at once" through service.Service.BookGroup, as
// POST /api/group-bookings does: all or nothing, on consecutive numbers,
// with the form's Idempotency-Key (a repeat replays). Success goes to the
// appointments.
func (s *server) handleBookGroup(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in to book"))
		return
	}
	slotID, err := strconv.ParseInt(r.PostFormValue("slot"), 10, 64)
	key := r.PostFormValue("key")
	if err != nil || slotID <= 0 {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "no slot chosen"))
		return
	}
	if !validKey(key) {
		s.renderError(w, r, booking.Errorf(booking.CodeMissingIdempotencyKey, "no idempotency key"))
		return
	}
	retry := bookRetry{SlotID: slotID, Key: key, Back: s.dayURL(r, slotID)}
	var people []int64
	seen := map[int64]bool{}
	for _, v := range r.PostForm["who"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 || seen[id] {
			s.renderBookError(w, r, booking.NotFound("patient"), retry)
			return
		}
		seen[id] = true
		people = append(people, id)
	}
	if len(people) < 1 || len(people) > booking.MaxGroup {
		s.renderBookError(w, r, booking.Errorf(booking.CodeInvalidRequest, "tick 1 to %d people", booking.MaxGroup), retry)
		return
	}
	if err := s.svc.AttemptBooking(sess.PatientID).Err(); err != nil {
		retry.Retry = true
		s.renderBookError(w, r, err, retry)
		return
	}
	// Each person's invitation code, where the campaign asks for one
	// (typed after a refusal invitation-required, below).
	codes := make([]string, len(people))
	for k, id := range people {
		codes[k] = invitationField(r, "invitation-"+strconv.FormatInt(id, 10))
	}
	if _, err := s.svc.BookGroup(r.Context(), sess.actor(), service.GroupBookingRequest{SlotID: slotID, PatientIDs: people, Key: key,
		Invitations: codes}); err != nil {
		retry.Retry = retryable(errorCode(err))
		if errorCode(err) == booking.CodeInvitationRequired {
			retry.Group = s.groupInvites(r, sess.PatientID, people, codes)
		}
		s.renderBookError(w, r, err, retry)
		return
	}
	redirect(w, r, "/appointments")
}

// groupInvites are the people of a group booking, by name, with the codes
// typed, for the form that asks each for an invitation code.
func (s *server) groupInvites(r *http.Request, account int64, people []int64, codes []string) []groupInvite {
	names := map[int64]string{}
	for _, p := range s.peopleOf(r, account) {
		names[p.ID] = p.Name
	}
	out := make([]groupInvite, len(people))
	for k, id := range people {
		out[k] = groupInvite{ID: id, Name: names[id], Code: codes[k]}
	}
	return out
}
