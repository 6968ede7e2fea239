package web

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// langCookie remembers a person's choice of language for a year.
const langCookie = "lang"

// printer is the language of r: the remembered choice, else
// Accept-Language, else the clinic's default.
func (s *server) printer(r *http.Request) *i18n.Printer {
	choice := ""
	if c, err := r.Cookie(langCookie); err == nil {
		choice = c.Value
	}
	return i18n.New(i18n.Pick(choice, r.Header.Get("Accept-Language"), s.defaultLang))
}

// handleLanguage sets the language cookie and returns to the page. By GET
// (a plain link, for visitors) it changes nothing else: a link followed from
// anywhere must not change what a signed-in patient's notifications say.
// By POST (the form the pages show a signed-in patient, CSRF-checked) it
// also stores the language for the patient's notifications.
func (s *server) handleLanguage(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && !s.postForm(w, r) {
		return
	}
	to := i18n.Supported(r.FormValue("to"))
	if to == "" {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "language"))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: to, Path: "/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	if sess := s.sessionOf(r); r.Method == http.MethodPost && sess.Patient() {
		s.rememberLanguage(r, sess.PatientID, to)
	}
	http.Redirect(w, r, safeNext(r.FormValue("next"), "/"), http.StatusSeeOther)
}

// rememberLanguage stores a signed-in patient's language for their
// notifications. A failure only logs: the pages keep the cookie's choice.
func (s *server) rememberLanguage(r *http.Request, patientID int64, lang string) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	if err := s.accounts.SetPatientLanguage(ctx, patientID, lang); err != nil {
		s.log.Warn("web: remembering a patient's language failed", "patientId", patientID, "err", err)
	}
}
