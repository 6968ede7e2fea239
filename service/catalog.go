package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// CreateDepartment adds a department; an admin limited to sites adds it
// on one of them (departmentSite).
func (s *Service) CreateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	site, err := s.departmentSite(ctx, d.SiteID)
	if err != nil {
		return booking.Department{}, err
	}
	d.SiteID = site
	return bounded(s, ctx, func(ctx context.Context) (booking.Department, error) { return s.store.CreateDepartment(ctx, d) })
}

// CreateDoctor adds a doctor, for a limited admin in a department of its
// sites.
func (s *Service) CreateDoctor(ctx context.Context, d booking.Doctor) (booking.Doctor, error) {
	if err := s.onSites(ctx, booking.SiteRef{DepartmentID: d.DepartmentID}); err != nil {
		return booking.Doctor{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Doctor, error) { return s.store.CreateDoctor(ctx, d) })
}

// CreatePatient adds a patient.
func (s *Service) CreatePatient(ctx context.Context, p booking.Patient) (booking.Patient, error) {
	// Stored in E.164, so that a look-up of the same number typed in any
	// format finds it.
	if p.Phone != "" {
		if p.Phone = s.NormalizePhone(p.Phone); p.Phone == "" {
			return booking.Patient{}, booking.Errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
		}
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.CreatePatient(ctx, p) })
}

// CreateSlot adds one slot; with a ScheduleID it joins that schedule of
// its doctor (another doctor's schedule is not found), so that an opening
// of the schedule covers it.
func (s *Service) CreateSlot(ctx context.Context, sl booking.Slot) (booking.Slot, error) {
	if err := s.onSites(ctx, booking.SiteRef{DoctorID: sl.DoctorID}); err != nil {
		return booking.Slot{}, err
	}
	sl, err := bounded(s, ctx, func(ctx context.Context) (booking.Slot, error) {
		if sl.ScheduleID != 0 {
			// A schedule never changes doctor, so this read cannot go stale.
			sc, err := s.store.GetSchedule(ctx, sl.ScheduleID)
			if err != nil {
				return booking.Slot{}, err
			}
			if sc.DoctorID != sl.DoctorID {
				return booking.Slot{}, booking.NotFound("schedule")
			}
		}
		return s.store.CreateSlot(ctx, sl)
	})
	if err == nil {
		s.changed(booking.Appointment{SlotID: sl.ID, DoctorID: sl.DoctorID})
	}
	return sl, err
}

// UpdateSlot changes a slot's capacity or status.
func (s *Service) UpdateSlot(ctx context.Context, id int64, u booking.SlotUpdate) (booking.Slot, error) {
	if err := s.onSites(ctx, booking.SiteRef{SlotID: id}); err != nil {
		return booking.Slot{}, err
	}
	sl, err := bounded(s, ctx, func(ctx context.Context) (booking.Slot, error) { return s.store.UpdateSlot(ctx, id, u) })
	if err == nil {
		s.slotChanged(sl.ID, sl.DoctorID)
	}
	return sl, err
}

// UpdateDepartment renames a department (or moves it to another site): a
// limited admin's of its sites, to one of them.
func (s *Service) UpdateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	if err := s.onSites(ctx, booking.SiteRef{DepartmentID: d.ID}); err != nil {
		return booking.Department{}, err
	}
	if d.SiteID != 0 {
		if _, err := s.departmentSite(ctx, d.SiteID); err != nil {
			return booking.Department{}, err
		}
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Department, error) { return s.store.UpdateDepartment(ctx, d) })
}

// UpdateDoctor changes a doctor. A deactivated doctor is hidden from
// listings and gets no new slots; existing appointments stay (staff cancel
// them explicitly, or suspend the period).
func (s *Service) UpdateDoctor(ctx context.Context, id int64, u booking.DoctorUpdate) (booking.Doctor, error) {
	if err := u.ProfileUpdate.Validate(); err != nil {
		return booking.Doctor{}, err
	}
	refs := []booking.SiteRef{{DoctorID: id}}
	if u.DepartmentID != nil {
		refs = append(refs, booking.SiteRef{DepartmentID: *u.DepartmentID})
	}
	if err := s.onSites(ctx, refs...); err != nil {
		return booking.Doctor{}, err
	}
	d, err := bounded(s, ctx, func(ctx context.Context) (booking.Doctor, error) { return s.store.UpdateDoctor(ctx, id, u) })
	if err == nil {
		s.changed(booking.Appointment{DoctorID: d.ID})
	}
	return d, err
}

// SetDoctorPhoto checks data as a doctor's photo of the type the
// uploader named (booking.CheckPhoto) and writes it in place of the last
// one; audited.
func (s *Service) SetDoctorPhoto(ctx context.Context, doctorID int64, contentType string, data []byte) (booking.Photo, error) {
	p, err := booking.CheckPhoto(doctorID, data)
	if err != nil {
		return booking.Photo{}, err
	}
	if p.ContentType != contentType {
		return booking.Photo{}, booking.Errorf(booking.CodeInvalidRequest, "the photo is %s, not %s", p.ContentType, contentType)
	}
	if err := s.onSites(ctx, booking.SiteRef{DoctorID: doctorID}); err != nil {
		return booking.Photo{}, err
	}
	if _, err = bounded(s, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, s.store.SetPhoto(ctx, p) }); err != nil {
		return booking.Photo{}, err
	}
	return p, nil
}

// UpdatePatient changes a patient's name, contact details or activity.
// A new phone is stored in E.164, as CreatePatient stores it. Deactivation
// closes the patient's revocation mark in the store's transaction (every
// token refused, on this instance at once), reactivation opens it from now.
func (s *Service) UpdatePatient(ctx context.Context, id int64, u booking.PatientUpdate) (booking.Patient, error) {
	if u.Phone != nil && *u.Phone != "" {
		p := s.NormalizePhone(*u.Phone)
		if p == "" {
			return booking.Patient{}, booking.Errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
		}
		u.Phone = &p
	}
	p, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.UpdatePatient(ctx, id, u) })
	if err == nil && u.Active != nil {
		// Best effort: failing, the copy is read again within MarkRefresh.
		_ = s.rereadMarks(ctx, booking.PatientSubject(id))
	}
	return p, err
}

// Holdings reads whether the database is the demo's and how many patients
// and active appointments it holds: what a tool asks before it writes test
// data into a running clinic (booking.Holdings.Real).
func (s *Service) Holdings(ctx context.Context) (booking.Holdings, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Holdings, error) { return s.store.Holdings(ctx) })
}

// SiteOfDepartment reads the site department id belongs to: where its
// doctors' patients go (the messages, the calendar event and the
// confirmation name it).
func (s *Service) SiteOfDepartment(ctx context.Context, id int64) (booking.Site, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Site, error) {
		site, err := s.store.SiteOf(ctx, booking.SiteRef{DepartmentID: id})
		if err != nil {
			return booking.Site{}, err
		}
		return s.store.GetSite(ctx, site) // a department on no site (0): not found
	})
}
