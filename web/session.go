package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
)

// Cookie names.
const (
	sessionCookie = "slotd_session"
	csrfCookie    = "slotd_csrf"
	staffPrefix   = "staff:"
)

// session is who is signed in: a patient (PatientID > 0) or a staff user
// (Staff != ""; an admin, or the front desk when Reception), or nobody.
type session struct {
	PatientID int64
	Staff     string
	// Reception is set for a staff account of role reception: it reaches
	// the front desk's pages (s.desk), never the admin's (s.staff).
	Reception bool
	// DoctorID is set for a staff account of role doctor: it reaches only
	// that doctor's days (/doctor), never the admin pages.
	DoctorID int64
}

func (s session) Patient() bool  { return s.PatientID > 0 }
func (s session) IsStaff() bool  { return s.Staff != "" }
func (s session) IsAdmin() bool  { return s.IsStaff() && !s.Reception }
func (s session) IsDoctor() bool { return s.DoctorID > 0 }

// actor is who the session is, for the audit log of its changes.
func (s session) actor() booking.Actor {
	switch {
	case s.Patient():
		return booking.Actor{Role: string(auth.RolePatient), ID: strconv.FormatInt(s.PatientID, 10)}
	case s.Reception:
		return booking.Actor{Role: string(auth.RoleReception), ID: s.Staff}
	case s.IsStaff():
		return booking.Actor{Role: string(auth.RoleAdmin), ID: s.Staff}
	case s.IsDoctor():
		return booking.Actor{Role: string(auth.RoleDoctor), ID: strconv.FormatInt(s.DoctorID, 10)}
	}
	return booking.Actor{}
}

// sessionOf reads and verifies the session cookie. A missing, expired or
// forged cookie is no session, and so is one the Service does not admit
// (signed out, revoked, a departed patient's or a disabled staff user's),
// asked on every request.
func (s *server) sessionOf(r *http.Request) session {
	claims, ok := s.sessionClaims(r)
	if !ok {
		return session{}
	}
	switch claims.Role {
	case auth.RolePatient:
		if id, ok := claims.PatientID(); ok {
			return session{PatientID: id}
		}
	case auth.RoleAdmin, auth.RoleReception:
		if name, ok := strings.CutPrefix(claims.Subject, staffPrefix); ok && accounts.StaffNameOK(name) {
			return session{Staff: name, Reception: claims.Role == auth.RoleReception}
		}
	case auth.RoleDoctor:
		if id, ok := claims.DoctorID(); ok {
			return session{DoctorID: id}
		}
	}
	return session{}
}

// sessionClaims are the verified and admitted claims of the session
// cookie.
func (s *server) sessionClaims(r *http.Request) (auth.Claims, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return auth.Claims{}, false
	}
	claims, err := s.signer.VerifyPage(c.Value)
	if err != nil {
		return auth.Claims{}, false
	}
	if err := s.svc.Admit(r.Context(), string(claims.Role), claims.Subject, claims.Issued); err != nil {
		return auth.Claims{}, false
	}
	return claims, true
}

// signIn sets the session cookie: a JWT minted by the signer, so that any
// instance sharing the secret accepts it and nothing is kept server-side.
func (s *server) signIn(w http.ResponseWriter, r *http.Request, role auth.Role, sub string) error {
	tok, err := s.signer.MintPage(role, sub, s.sessionTTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: tok, Path: "/", MaxAge: int(s.sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: edge.Secure(r),
	})
	return nil
}

// signOut ends the session: the Service moves the mark of the cookie's
// subject, so that the cookie's value (and every other session and token
// of the subject minted until now) is refused from now on, then the
// cookie is cleared.
func (s *server) signOut(w http.ResponseWriter, r *http.Request) error {
	if claims, ok := s.sessionClaims(r); ok {
		if err := s.svc.SignOut(r.Context(), string(claims.Role), claims.Subject); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: edge.Secure(r),
	})
	return nil
}

// csrfID returns this browser's CSRF cookie value, setting a new random one
// when there is none. It must run before the page is written.
func (s *server) csrfID(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name: csrfCookie, Value: id, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: edge.Secure(r),
	})
	// Later reads in this request see it too.
	r.AddCookie(&http.Cookie{Name: csrfCookie, Value: id})
	return id
}

// csrfToken is the token of a form posting to action: an HMAC of the
// browser's CSRF cookie and the action, so a token is good only for its own
// form and only in the browser it was rendered for. Another site can
// neither read the cookie nor compute the HMAC.
func (s *server) csrfToken(id, action string) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte(id + "\x00" + action))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF verifies a POST: the Origin header, when sent, must be this
// host, and the form's token must match the cookie and the path posted to.
func (s *server) checkCSRF(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	c, err := r.Cookie(csrfCookie)
	if err != nil || len(c.Value) != 32 {
		return false
	}
	got := r.PostFormValue("csrf")
	want := s.csrfToken(c.Value, r.URL.Path)
	return hmac.Equal([]byte(got), []byte(want))
}

// postForm parses a POST form (bounded to 64 KiB; a doctor's photo form,
// multipart, to the photo's bound and a little) and checks its CSRF
// token; on failure it renders the error page and returns false.
func (s *server) postForm(w http.ResponseWriter, r *http.Request) bool {
	limit := int64(64 << 10)
	parse := r.ParseForm
	if r.Pattern == photoFormPattern {
		limit = booking.MaxPhotoBytes + 64<<10
		parse = func() error { return r.ParseMultipartForm(limit) }
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := parse(); err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "the form could not be read"))
		return false
	}
	if !s.checkCSRF(r) {
		s.renderError(w, r, booking.Errorf(booking.CodeForbidden, "the form has expired"))
		return false
	}
	return true
}

// patientForm reads a patient's POSTed form (postForm) and their session;
// without a patient session it answers unauthorized and returns false.
func (s *server) patientForm(w http.ResponseWriter, r *http.Request) (session, bool) {
	if !s.postForm(w, r) {
		return session{}, false
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in"))
		return session{}, false
	}
	return sess, true
}

// staff wraps an admin's page: without a staff session GET pages redirect
// to the staff sign-in and POSTs are refused; the front desk's session is
// forbidden; POSTs are CSRF-checked.
func (s *server) staff(h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return s.staffAs(func(sess session) bool { return sess.IsAdmin() }, h)
}

// desk wraps a front desk's page (booking.Desk: reception and admins):
// finding and adding people, a doctor's day with booking, cancelling and
// rescheduling for them, check-in.
func (s *server) desk(h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return s.staffAs(func(sess session) bool { return booking.Desk(sess.actor().Role) }, h)
}

func (s *server) staffAs(may func(session) bool, h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess := s.sessionOf(r)
		if !sess.IsStaff() {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/staff/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "staff sign-in required"))
			return
		}
		if !may(sess) {
			s.renderError(w, r, booking.Errorf(booking.CodeForbidden, "this page is an admin's"))
			return
		}
		if r.Method == http.MethodPost && !s.postForm(w, r) {
			return
		}
		h(w, r, sess)
	}
}

// doctorPage wraps a doctor's page like staff does for admins: only a
// doctor's session reaches it, and it reaches only that doctor.
func (s *server) doctorPage(h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess := s.sessionOf(r)
		if !sess.IsDoctor() {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/staff/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "a doctor's sign-in is required"))
			return
		}
		if r.Method == http.MethodPost && !s.postForm(w, r) {
			return
		}
		h(w, r, sess)
	}
}

// requirePatient redirects a visitor who is not a signed-in patient to the
// sign-in page, coming back to next afterwards; it reports whether the
// request may go on.
func (s *server) requirePatient(w http.ResponseWriter, r *http.Request, next string) (session, bool) {
	sess := s.sessionOf(r)
	if sess.Patient() {
		return sess, true
	}
	http.Redirect(w, r, "/signin?next="+url.QueryEscape(next), http.StatusSeeOther)
	return sess, false
}

// newIdempotencyKey returns a fresh key for one booking form: 22 URL-safe
// characters of randomness after a "web-" prefix.
func newIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "web-" + base64.RawURLEncoding.EncodeToString(b)
}

// validKey reports whether k is an acceptable Idempotency-Key: 1 to 64
// visible ASCII characters, as the API requires.
func validKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// pathID reads a positive integer path value.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, booking.NotFound("page")
	}
	return id, nil
}
