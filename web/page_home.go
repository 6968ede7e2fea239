package web

import (
	"net/http"

	"github.com/slotd/slotd/booking"
)

// handleHome lists the departments: the first step of booking.
func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	deps, err := s.store.ListDepartments(ctx, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Book an appointment")
	p.Data = struct{ Departments []booking.Department }{deps}
	s.render(w, r, http.StatusOK, "home", p)
}
