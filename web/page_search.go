package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// searchPage is how many things one page of results shows.
const searchPage = 20

// handleSearch shows what the home page's box found: services (leading
// to their first free places), departments and doctors whose name starts
// with ?q=, one page at a time (?after=, the last hit's position).
func (s *server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	text, err := booking.NormalizeSearch(q.Get("q"))
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	var after int64
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "after must be a position"))
			return
		}
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	hits, err := s.store.Search(ctx, booking.SearchQuery{Prefix: text, Page: booking.Page{After: after, Limit: searchPage + 1}})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	more := ""
	if len(hits) > searchPage {
		hits = hits[:searchPage]
		more = "/search?q=" + url.QueryEscape(text) + "&after=" + itoa(hits[searchPage-1].Position())
	}
	p := s.newPage(w, r, "Search")
	p.Title = p.T("Results for “%s”", text)
	type hit struct {
		booking.SearchHit
		Link string
	}
	var services, departments, doctors []hit
	for _, h := range hits {
		switch h.Kind {
		case booking.HitService:
			services = append(services, hit{h, "/first-available?service=" + itoa(h.ID)})
		case booking.HitDepartment:
			departments = append(departments, hit{h, "/departments/" + itoa(h.ID)})
		default:
			doctors = append(doctors, hit{h, "/doctors/" + itoa(h.ID)})
		}
	}
	p.Data = struct {
		Query                          string
		Services, Departments, Doctors []hit
		More                           string
	}{text, services, departments, doctors, more}
	s.render(w, r, http.StatusOK, "search", p)
}
