package web

import (
	"bytes"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
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

	// Lang is the page's language (its lang attribute); Languages and
	// Here feed the language switch.
	Lang      string
	Languages []i18n.Language
	Here      string

	// Clinic is the clinic's name (its first site's) the header shows;
	// Site the name of the site a page belongs to, when it is another.
	Clinic string
	Site   string

	srv    *server
	pr     *i18n.Printer
	csrfID string
}

// T translates a sentence of a template: {{$.T "Book %s" .Time}}. Its key is
// the English text; i18n/catalog holds the other languages.
func (p *page) T(key string, args ...any) string { return p.pr.T(key, args...) }

// Money formats a fee in the clinic's currency and the page's language.
func (p *page) Money(minor int64) string { return p.pr.Money(p.srv.currency, minor) }

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
// title is an English key, translated here.
func (s *server) newPage(w http.ResponseWriter, r *http.Request, title string) *page {
	pr := s.printer(r)
	p := &page{Title: pr.T(title), Session: s.sessionOf(r), Demo: s.demo, srv: s, pr: pr, csrfID: s.csrfID(w, r),
		Lang: pr.Lang(), Languages: i18n.Languages, Here: r.URL.RequestURI(), Clinic: "slotd"}
	if sites := s.sites(r.Context()); len(sites) > 0 {
		p.Clinic = sites[0].Name
	}
	return p
}

// atSite names site in the header of p, a page that belongs to it (the
// clinic's own first site needs no second name).
func (p *page) atSite(site booking.Site) {
	if site.Name != p.Clinic {
		p.Site = site.Name
	}
}

// explain turns an error into what a page shows. Internal errors are logged
// and explained generically; their text never reaches the page.
func (s *server) explain(r *http.Request, err error) (*problemView, int) {
	code := errorCode(err)
	p := problemOf(code)
	pr := s.printer(r)
	v := &problemView{Code: string(code), Title: pr.T(p.Title), Message: pr.T(p.Message)}
	var be *booking.Error
	switch {
	case code == booking.CodeInternal || code == booking.CodeUnavailable:
		s.log.ErrorContext(r.Context(), "web: request failed", "path", r.URL.Path, "code", string(code), "err", err)
	case asError(err, &be) && be.Code == booking.CodeNotOpenYet && be.OpensAt != nil:
		// In the clinic's zone, as every time on the pages.
		v.Detail = pr.T("Booking opens on %s (%s).", pr.DateTime(be.OpensAt.In(s.clinicZone)), s.clinicZone.String())
	}
	return v, problem.Status(code)
}

// detail is a booking error's own sentence in pr's language: the sentence
// Errorf was given, with its arguments (the catalogs' key is the English
// format), else its message; a sentence the catalogs lack stays English.
func detail(pr *i18n.Printer, be *booking.Error) string {
	if be.Format != "" {
		return pr.T(be.Format, be.Args...)
	}
	return pr.T(be.Message)
}

// renderError renders the error page for err.
func (s *server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	v, status := s.explain(r, err)
	p := s.newPage(w, r, "")
	p.Title = v.Title
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
	"newKey":    newIdempotencyKey,
	"maskPhone": notify.MaskPhone,
	// initial is a name's last word's first letter: the stand-in for a
	// doctor without a photo.
	"initial": func(name string) string {
		f := strings.Fields(name)
		if len(f) == 0 {
			return ""
		}
		r, _ := utf8.DecodeRuneInString(f[len(f)-1])
		return string(r)
	},
	"pct": func(a, b int) int {
		if b <= 0 {
			return 0
		}
		return a * 100 / b
	},
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

func fmtDateTime(pr *i18n.Printer, t time.Time, loc *time.Location) string {
	return pr.DateTime(t.In(loc))
}

func fmtClock(pr *i18n.Printer, t time.Time, loc *time.Location) string { return pr.Clock(t.In(loc)) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Currency is the clinic currency's ISO 4217 code, for fee inputs.
func (p *page) Currency() string { return p.srv.currency.Code }

// Link writes a translated sentence whose part in [brackets] is a link to
// href, so that each language places the link inside its own whole
// sentence: {{$.Link ($.T "[Sign in] with your phone number to book.") $d.SignIn}}.
// The text is escaped; href must be a path of the site. A sentence without
// brackets is written whole, as a link.
func (p *page) Link(sentence, href string) template.HTML {
	if !strings.HasPrefix(href, "/") || strings.HasPrefix(href, "//") {
		return template.HTML(template.HTMLEscapeString(sentence))
	}
	before, rest, ok := strings.Cut(sentence, "[")
	inner, after, ok2 := strings.Cut(rest, "]")
	if !ok || !ok2 {
		before, inner, after = "", sentence, ""
	}
	esc := template.HTMLEscapeString
	return template.HTML(esc(before) + `<a href="` + esc(href) + `">` + esc(inner) + `</a>` + esc(after))
}

// List writes a profile's items (specialties, languages) as one line.
func (p *page) List(items []string) string { return strings.Join(items, ", ") }

// Joined writes the non-empty strings of parts separated by " · ", so a
// missing part leaves no stray separator; other values (a zero fee's
// false, say) are left out.
func (p *page) Joined(parts ...any) string {
	var out []string
	for _, x := range parts {
		if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, " · ")
}
