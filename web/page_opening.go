package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// An opening's waiting room (docs/clinic.md, "Waiting rooms"): the patient
// takes a place, the page follows it live (its place region from an event
// stream, /openings/{id}/events, or, without one, refreshed every 2
// seconds), and once admitted the admission is kept in a
// cookie that the booking form's POST /book sends back.

// admissionCookie carries the admission token to POST /book only.
const admissionCookie = "slotd_admission"

// openingPage is what opening.html shows.
type openingPage struct {
	Opening booking.Opening
	Opens   string
	Place   *booking.OpeningPlace
	Wait    string
	// Book is the day page of the opening's slots, where the admitted
	// patient books.
	Book string
	// Summary is the opening's public summary, where the clinic publishes
	// it.
	Summary string
}

func (s *server) openingPageOf(w http.ResponseWriter, r *http.Request, p *page, id int64) (openingPage, error) {
	o, err := s.svc.Opening(r.Context(), id)
	if err != nil {
		return openingPage{}, err
	}
	var pl *booking.OpeningPlace
	if p.Session.Patient() {
		got, err := s.svc.OpeningPlace(r.Context(), id, p.Session.PatientID)
		switch {
		case err == nil:
			pl = &got
		case booking.ErrorCode(err) != booking.CodeNotFound:
			return openingPage{}, err
		}
	}
	if pl != nil && pl.Admitted {
		http.SetCookie(w, &http.Cookie{Name: admissionCookie, Value: pl.Token, Path: "/book", HttpOnly: true,
			Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, Expires: *pl.TokenExpiresAt})
	}
	v := s.openingView(p, o, pl)
	if pol, err := s.svc.ClinicPolicy(r.Context()); err == nil && pol.PublicOpeningSummary {
		v.Summary = "/openings/" + itoa(id) + "/summary"
	}
	return v, nil
}

// openingView is what opening.html shows of opening o and the caller's
// place pl (nil: none).
func (s *server) openingView(p *page, o booking.Opening, pl *booking.OpeningPlace) openingPage {
	v := openingPage{Opening: o, Opens: p.pr.DateTime(o.OpensAt.In(s.clinicZone))}
	if pl == nil {
		return v
	}
	v.Place = pl
	v.Wait = p.pr.T("about %d minutes", (pl.ExpectedWaitSeconds+59)/60)
	if pl.ExpectedWaitSeconds < 60 {
		v.Wait = p.pr.T("less than a minute")
	}
	if pl.Admitted {
		v.Book = "/doctors/" + itoa(o.DoctorID)
	}
	return v
}

// handleOpening is an opening's page: ?partial=1 answers only the place,
// for the live region.
func (s *server) handleOpening(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Waiting room")
	v, err := s.openingPageOf(w, r, p, id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Data = v
	if r.URL.Query().Get("partial") == "1" {
		var buf bytes.Buffer
		if err := s.pages["opening"].ExecuteTemplate(&buf, "place", p); err != nil {
			s.log.ErrorContext(r.Context(), "web: template failed", "page", "opening", "err", err)
			http.Error(w, "internal error", problem.Status(booking.CodeInternal))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
		return
	}
	s.render(w, r, http.StatusOK, "opening", p)
}

// handleOpeningEvents streams the signed-in patient's place as the page's
// place region (service.WatchOpeningPlace): an event "place" with the
// region's HTML at once and on each change. At the admission it ends with
// an event "admitted": the page then fetches the region, whose answer sets
// the admission's cookie (a stream cannot set one once it has begun).
// Errors come before the stream, and the page polls instead.
func (s *server) handleOpeningEvents(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Waiting room")
	if !p.Session.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in"))
		return
	}
	o, err := s.svc.Opening(r.Context(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	started := false
	var buf bytes.Buffer
	err = s.svc.WatchOpeningPlace(r.Context(), id, p.Session.PatientID, func(pl *booking.OpeningPlace) bool {
		if !started {
			h := w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-store")
			h.Set("X-Accel-Buffering", "no")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, "retry: 2000\n\n")
			started = true
		}
		if pl == nil {
			fmt.Fprint(w, ": alive\n\n")
			return rc.Flush() == nil
		}
		p.Data = s.openingView(p, o, pl)
		buf.Reset()
		if err := s.pages["opening"].ExecuteTemplate(&buf, "place", p); err != nil {
			s.log.ErrorContext(r.Context(), "web: template failed", "page", "opening", "err", err)
			return false
		}
		fmt.Fprint(w, "event: place\n")
		for line := range strings.Lines(buf.String()) {
			fmt.Fprintf(w, "data: %s\n", strings.TrimRight(line, "\r\n"))
		}
		fmt.Fprint(w, "\n")
		if pl.Admitted {
			fmt.Fprint(w, "event: admitted\ndata: \n\n")
			_ = rc.Flush()
			return false
		}
		return rc.Flush() == nil
	})
	if err != nil && !started {
		s.renderError(w, r, err)
	}
}

// handleOpeningJoin takes the signed-in patient's place in the queue; a
// second press keeps the first place.
func (s *server) handleOpeningJoin(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in"))
		return
	}
	if _, _, err := s.svc.JoinOpening(r.Context(), id, sess.PatientID); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/openings/"+itoa(id))
}

// admissionOf is the admission token the browser keeps for POST /book.
func admissionOf(r *http.Request) string {
	if c, err := r.Cookie(admissionCookie); err == nil && len(c.Value) <= booking.MaxAdmissionTokenLen {
		return c.Value
	}
	return ""
}
