package httpapi

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Waiting rooms (docs/clinic.md, "Waiting rooms"): an admin announces an
// opening; a patient takes a place in its queue and polls it; once admitted
// the place carries the token that books the opening's slots.

// AdmissionHeader carries a waiting room's admission token on a booking.
const AdmissionHeader = "Slotd-Admission"

// openingView is an opening as anyone sees it: its seed only once drawn,
// so that anyone may check the pre-queue's order against the commitment.
type openingView struct {
	ID              int64      `json:"id"`
	ScheduleID      int64      `json:"scheduleId"`
	DoctorID        int64      `json:"doctorId"`
	OpensAt         time.Time  `json:"opensAt"`
	SeedCommitment  string     `json:"seedCommitment"`
	Seed            string     `json:"seed,omitempty"`
	DrawnAt         *time.Time `json:"drawnAt,omitempty"`
	Queued          int        `json:"queued"`
	AdmittedThrough int        `json:"admittedThrough"`
}

func newOpeningView(o booking.Opening) openingView {
	v := openingView{ID: o.ID, ScheduleID: o.ScheduleID, DoctorID: o.DoctorID, OpensAt: o.OpensAt.UTC(), SeedCommitment: o.Commitment,
		Queued: o.Queued, AdmittedThrough: o.AdmittedThrough}
	if o.DrawnAt != nil {
		t := o.DrawnAt.UTC()
		v.DrawnAt, v.Seed = &t, hex.EncodeToString(o.Seed)
	}
	return v
}

// announceOpening is POST /api/admin/openings: 201 with the opening.
func (s *server) announceOpening(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		ScheduleID int64   `json:"scheduleId"`
		OpensAt    instant `json:"opensAt"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	switch {
	case !validID(in.ScheduleID):
		return fieldErrorf("/scheduleId", "scheduleId must be an id 1 to %d", int64(booking.MaxID))
	case in.OpensAt.IsZero():
		return fieldErrorf("/opensAt", "opensAt is required (RFC 3339)")
	}
	o, err := s.svc.AnnounceOpening(r.Context(), in.ScheduleID, in.OpensAt.UTC())
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/openings/"+strconv.FormatInt(o.ID, 10))
	writeJSON(w, http.StatusCreated, newOpeningView(o))
	return nil
}

// listOpenings is GET /api/openings, paged by id.
func (s *server) listOpenings(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, withPage()...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	sp := p.store()
	os, err := s.svc.Openings(r.Context(), sp.After, sp.Limit)
	if err != nil {
		return err
	}
	out := make([]openingView, len(os))
	for i, o := range os {
		out[i] = newOpeningView(o)
	}
	writeJSON(w, http.StatusOK, pageOf(out, p, func(v openingView) int64 { return v.ID }))
	return nil
}

// getOpening is GET /api/openings/{id}.
func (s *server) getOpening(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	o, err := s.svc.Opening(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newOpeningView(o))
	return nil
}

// queuer is the caller's patient id: a place in a queue is a patient's own.
func queuer(c auth.Claims) (int64, error) {
	return ownPatient(c, "only patients take a place in an opening's queue")
}

// joinOpening is POST /api/openings/{id}/queue: 201 with the new place,
// 200 with the same one on a retry (which never improves it).
func (s *server) joinOpening(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	patient, err := queuer(c)
	if err != nil {
		return err
	}
	p, existed, err := s.svc.JoinOpening(r.Context(), id, patient)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/openings/"+strconv.FormatInt(id, 10)+"/queue")
	w.Header().Set("Cache-Control", "no-store")
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	writeJSON(w, status, placeView(p))
	return nil
}

// myPlace is GET /api/openings/{id}/queue: the caller's place, polled.
func (s *server) myPlace(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	patient, err := queuer(c)
	if err != nil {
		return err
	}
	p, err := s.svc.OpeningPlace(r.Context(), id, patient)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, placeView(p))
	return nil
}

// placeEvents is GET /api/openings/{id}/queue/events: the caller's place
// as server-sent events, an event "place" (the place's JSON, as GET
// .../queue answers it) at once and on each change, a comment every
// second otherwise, for service.PlaceStreamFor; then the client
// reconnects (EventSource does by itself). Errors come before the stream:
// 404 for someone not in the queue, 503 when this instance has
// service.MaxPlaceStreams open (poll GET .../queue instead).
func (s *server) placeEvents(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	patient, err := queuer(c)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	started := false
	return s.svc.WatchOpeningPlace(r.Context(), id, patient, func(p *booking.OpeningPlace) bool {
		if !started {
			h := w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-store")
			h.Set("X-Accel-Buffering", "no")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, "retry: 2000\n\n")
			started = true
		}
		if p == nil {
			fmt.Fprint(w, ": alive\n\n")
		} else {
			b, _ := json.Marshal(placeView(*p))
			fmt.Fprintf(w, "event: place\ndata: %s\n\n", b)
		}
		return rc.Flush() == nil
	})
}

// placeView keeps a place's times in UTC.
func placeView(p booking.OpeningPlace) booking.OpeningPlace {
	p.OpensAt, p.JoinedAt = p.OpensAt.UTC(), p.JoinedAt.UTC()
	return p
}

// openingReport is GET /api/admin/openings/{id}/report: the opening's
// fairness report (its requests as this instance measured them).
func (s *server) openingReport(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	rep, err := s.svc.OpeningReport(r.Context(), id)
	if err != nil {
		return err
	}
	rep.OpensAt = rep.OpensAt.UTC()
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// openingSummary is GET /api/openings/{id}/summary: the public summary of
// the opening's fairness report, where the clinic's policy publishes it
// (else 404); a few seconds old at most.
func (s *server) openingSummary(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	sum, err := s.svc.OpeningSummary(r.Context(), id)
	if err != nil {
		return err
	}
	sum.OpensAt = sum.OpensAt.UTC()
	w.Header().Set("Cache-Control", "public, max-age=10")
	writeJSON(w, http.StatusOK, sum)
	return nil
}

// openingDraw is GET /api/openings/{id}/draw: the pre-queue's published
// draw, for anyone to check with slotd verify-draw.
func (s *server) openingDraw(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	d, err := s.svc.OpeningDraw(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}
