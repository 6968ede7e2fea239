package web

import (
	"bytes"
	"net/http"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// An opening's waiting room (docs/clinic.md, "Waiting rooms"): the patient
// takes a place, the page follows it live (its place region refreshes
// itself every 2 seconds), and once admitted the admission is kept in a
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
}

func (s *server) openingPageOf(w http.ResponseWriter, r *http.Request, p *page, id int64) (openingPage, error) {
	o, err := s.svc.Opening(r.Context(), id)
	if err != nil {
		return openingPage{}, err
	}
	v := openingPage{Opening: o, Opens: p.pr.DateTime(o.OpensAt.In(s.clinicZone))}
	if !p.Session.Patient() {
		return v, nil
	}
	pl, err := s.svc.OpeningPlace(r.Context(), id, p.Session.PatientID)
	switch {
	case booking.ErrorCode(err) == booking.CodeNotFound:
		return v, nil
	case err != nil:
		return v, err
	}
	v.Place = &pl
	v.Wait = p.pr.T("about %d minutes", (pl.ExpectedWaitSeconds+59)/60)
	if pl.ExpectedWaitSeconds < 60 {
		v.Wait = p.pr.T("less than a minute")
	}
	if pl.Admitted {
		http.SetCookie(w, &http.Cookie{Name: admissionCookie, Value: pl.Token, Path: "/book", HttpOnly: true,
			Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, Expires: *pl.TokenExpiresAt})
		v.Book = "/doctors/" + itoa(o.DoctorID)
	}
	return v, nil
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
