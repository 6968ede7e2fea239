package web

import (
	"context"
	"net/http"

	"github.com/slotd/slotd/booking"
)

// handleDepartment lists a department's doctors.
func (s *server) handleDepartment(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	deps, err := s.store.ListDepartments(ctx, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	var dep *booking.Department
	for i := range deps {
		if deps[i].ID == id {
			dep = &deps[i]
		}
	}
	if dep == nil {
		s.renderError(w, r, booking.NotFound("department"))
		return
	}
	docs, err := s.store.ListDoctors(ctx, id, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, dep.Name)
	p.Data = struct {
		Department booking.Department
		Doctors    []booking.Doctor
	}{*dep, docs}
	s.render(w, r, http.StatusOK, "department", p)
}

// departmentName is the name of department id, or fallback when it cannot
// be read: a name shown beside something else (a doctor, an appointment),
// so also of a department no longer offered to patients.
func (s *server) departmentName(ctx context.Context, id int64, fallback string) string {
	deps, err := s.store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return fallback
	}
	for _, d := range deps {
		if d.ID == id {
			return d.Name
		}
	}
	return fallback
}
