package httpapi

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// The services (visit types) patients choose from, and their admin.

// listServices lists the active services, by id, paged; ?doctorId= keeps
// those the doctor offers.
func (s *server) listServices(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.writeServices(w, r, false)
}

// listAllServices is the staff's list: withdrawn services too.
func (s *server) listAllServices(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.writeServices(w, r, true)
}

func (s *server) writeServices(w http.ResponseWriter, r *http.Request, all bool) error {
	q, err := parseQuery(r, withPage("doctorId")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	f := booking.ServiceFilter{All: all}
	if v, ok := q["doctorId"]; ok {
		if f.DoctorID, err = parseID(v, "doctorId"); err != nil {
			return inParam(err, "doctorId")
		}
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	vs, err := s.store.ListServices(ctx, f, p.store())
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, pageOf(vs, p, func(v booking.Service) int64 { return v.ID }))
	return nil
}

// getService reads one active service (a withdrawn one is not found).
func (s *server) getService(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	v, err := s.svc.GetService(r.Context(), id)
	if err == nil && !v.Active {
		err = booking.NotFound("service")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// serviceBody is the body of POST /api/admin/services and, every field
// optional, of PATCH /api/admin/services/{id}.
type serviceBody struct {
	Name      *string        `json:"name"`
	Minutes   *int           `json:"durationMinutes"`
	FeeCents  *int64         `json:"fee"`
	Level     *booking.Level `json:"level"`
	DoctorIDs *[]int64       `json:"doctorIds"`
	Notes     *string        `json:"notes"`
	Active    *bool          `json:"active"`
}

// update is the body as a change, its name cleaned like every name.
func (b serviceBody) update() (booking.ServiceUpdate, error) {
	u := booking.ServiceUpdate{Minutes: b.Minutes, FeeCents: b.FeeCents, Level: b.Level, DoctorIDs: b.DoctorIDs,
		Notes: b.Notes, Active: b.Active}
	if b.Name != nil {
		n, err := cleanName(*b.Name, "name")
		if err != nil {
			return u, err
		}
		u.Name = &n
	}
	return u, nil
}

func (s *server) createService(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in serviceBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name == nil || in.Minutes == nil || in.Level == nil {
		return errorf(booking.CodeInvalidRequest, "name, durationMinutes and level are required")
	}
	u, err := in.update()
	if err != nil {
		return err
	}
	v := u.Apply(booking.Service{Active: true, DoctorIDs: []int64{}})
	if err := v.Validate(); err != nil {
		return err
	}
	v, err = s.svc.CreateService(r.Context(), v)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/services/"+strconv.FormatInt(v.ID, 10))
	writeJSON(w, http.StatusCreated, v)
	return nil
}

func (s *server) updateService(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in serviceBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in == (serviceBody{}) {
		return errorf(booking.CodeInvalidRequest, "give at least one of name, durationMinutes, fee, level, doctorIds, notes, active")
	}
	u, err := in.update()
	if err != nil {
		return err
	}
	v, err := s.svc.UpdateService(r.Context(), id, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
