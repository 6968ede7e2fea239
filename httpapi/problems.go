package httpapi

import (
	_ "embed"
	"html/template"
	"net/http"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

//go:embed problems.html
var problemsHTML string

var problemPage = template.Must(template.New("problem").Parse(problemsHTML))

// problemType is what GET /problems/{code} says about a problem type.
type problemType struct {
	Type        string `json:"type"`
	Code        string `json:"code"`
	Title       string `json:"title"`
	Status      int    `json:"status"`
	Description string `json:"description"`
}

// problemDoc answers a problem type URI (the `type` of every problem) with
// what it means: HTML for a browser, JSON when Accept prefers it.
func (s *server) problemDoc(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	code := booking.Code(r.PathValue("code"))
	if !problem.Known(code) {
		return errorf(booking.CodeNotFound, "no such problem type")
	}
	spec := problem.Of(code)
	doc := problemType{Type: "/problems/" + string(code), Code: string(code), Title: spec.Title, Status: spec.Status, Description: problem.Describe(code)}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Vary", "Accept")
	if wantsJSON(r.Header.Get("Accept")) {
		writeJSON(w, http.StatusOK, doc)
		return nil
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return problemPage.Execute(w, doc)
}

// wantsJSON reads Accept just enough: JSON when a JSON type is named before
// any HTML one (so browsers, which name text/html first, get the page).
func wantsJSON(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/html", "application/xhtml+xml":
			return false
		case "application/json", "application/problem+json":
			return true
		}
	}
	return false
}
