package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/problem"
)

// page is what every template receives: the layout's needs and the page's
// own Data.
type page struct {
	Title   string
	Session session
	Demo    bool
	// Notice is a one-line success message shown above the content.
	Notice string
	// Problem explains a failure shown above the content (or as the page).
	Problem *problemView
	Data    any

	srv    *server
	csrfID string
}

// problemView is a problem as a page shows it.
type problemView struct {
	Code    string
	Title   string
	Message string
	Detail  string
}

// CSRF returns the token for a form posting to action; templates call it
// as {{$.CSRF "/book"}}.
func (p *page) CSRF(action string) string { return p.srv.csrfToken(p.csrfID, action) }

// newPage starts a page for r, setting the CSRF cookie when missing.
func (s *server) newPage(w http.ResponseWriter, r *http.Request, title string) *page {
	return &page{Title: title, Session: s.sessionOf(r), Demo: s.demo, srv: s, csrfID: s.csrfID(w, r)}
}

// explain turns an error into what a page shows. Internal errors are logged
// and explained generically; their text never reaches the page.
func (s *server) explain(r *http.Request, err error) (*problemView, int) {
	code := errorCode(err)
	p := problemOf(code)
	v := &problemView{Code: string(code), Title: p.Title, Message: p.Message}
	var be *booking.Error
	switch {
	case code == booking.CodeInternal || code == booking.CodeUnavailable:
		s.log.ErrorContext(r.Context(), "web: request failed", "path", r.URL.Path, "code", string(code), "err", err)
	case asError(err, &be) && be.Code == booking.CodeNotOpenYet && be.OpensAt != nil:
		v.Detail = "Booking opens on " + be.OpensAt.UTC().Format("Mon 2 Jan 2006 at 15:04 MST") + "."
	}
	return v, problem.Status(code)
}

// renderError renders the error page for err.
func (s *server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	v, status := s.explain(r, err)
	p := s.newPage(w, r, v.Title)
	p.Problem = v
	if v.Code == string(booking.CodeRateLimited) || v.Code == string(booking.CodeUnavailable) || v.Code == string(booking.CodeOverloaded) {
		w.Header().Set("Retry-After", "2")
	}
	s.render(w, r, status, "error", p)
}

// render executes page name into a buffer and writes it, so that a
// template error never sends half a page.
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	t, ok := s.pages[name]
	if !ok {
		panic("web: no page " + name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log.ErrorContext(r.Context(), "web: template failed", "page", name, "err", err)
		http.Error(w, "internal error", problem.Status(booking.CodeInternal))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Pages show live counts and per-user data: never cache them.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// redirect answers a POST with 303 See Other (post/redirect/get).
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// funcs are the template helpers.
var funcs = template.FuncMap{
	"money":     money,
	"newKey":    newIdempotencyKey,
	"maskPhone": notify.MaskPhone,
	// list makes a template's own list of words (choices it shows).
	"list": func(v ...string) []string { return v },
	"pct": func(a, b int) int {
		if b <= 0 {
			return 0
		}
		return a * 100 / b
	},
}

// money formats cents as euros.
func money(cents int64) string {
	return fmt.Sprintf("€%d.%02d", cents/100, cents%100)
}

// parsePages parses each page template together with the layout.
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" {
			continue
		}
		pages[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n))
	}
	return pages
}

// Time formatting in a doctor's zone.

func zone(tz string) *time.Location {
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.UTC
}

func fmtDateTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 2 Jan 2006, 15:04")
}

func fmtClock(t time.Time, loc *time.Location) string { return t.In(loc).Format("15:04") }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
