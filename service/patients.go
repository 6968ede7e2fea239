package service

import (
	"context"
	"strings"

	"github.com/slotd/slotd/booking"
)

// patientScanBatch is how many patients one read of a name search opens.
const patientScanBatch = 500

// FindPatients is the staff's patient search (booking.PatientQuery), one
// page by id: an e-mail address or a telephone number is found exactly by
// its keyed hash (the number normalized in the clinic's region, as at
// sign-in); a whole name with q.BirthDate by the keyed hash of the pair;
// other text is the start of a name (an admin's search:
// booking.BrowsesPatients), matched on the opened
// names, at most booking.MaxPatientScan patients per page (a page may then
// be short, with a Next to go on from); empty lists every patient. What it
// finds is personal data: callers must not log it.
func (s *Service) FindPatients(ctx context.Context, q booking.PatientQuery) (booking.PatientPage, error) {
	if s.accounts == nil {
		return booking.PatientPage{}, errNoAccounts
	}
	limit := q.Page.Limit
	if limit < 1 || limit > booking.MaxPageLimit {
		return booking.PatientPage{}, booking.Errorf(booking.CodeInvalidRequest, "a page holds 1 to %d patients", booking.MaxPageLimit)
	}
	text := strings.TrimSpace(q.Q)
	if !booking.ValidPatientQuery(text) {
		return booking.PatientPage{}, booking.Errorf(booking.CodeInvalidRequest, "a search is at most %d characters", booking.MaxPatientQuery)
	}
	if q.BirthDate != "" {
		if _, err := booking.CheckSignupProfile(booking.SignupProfile{Name: text, BirthDate: q.BirthDate}, s.now()); err != nil {
			return booking.PatientPage{}, err
		}
	}
	keyed := q.BirthDate != "" || strings.Contains(text, "@") || strings.ContainsAny(text, "0123456789")
	if !keyed && !booking.BrowsesPatients(q.Role) {
		return booking.PatientPage{}, booking.Errorf(booking.CodeForbidden,
			"the front desk finds a person by phone, e-mail, or name with birth date")
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.PatientPage, error) {
		after := q.Page.After
		switch {
		case q.BirthDate != "":
			ps, err := s.accounts.PatientsByName(ctx, text, q.BirthDate)
			return patientPage(idsAfter(ps, after), limit), err
		case text == "":
			ps, err := s.accounts.ListPatients(ctx, after, limit+1)
			return patientPage(ps, limit), err
		case strings.Contains(text, "@"):
			ps, err := s.accounts.PatientsByEmail(ctx, text)
			return patientPage(idsAfter(ps, after), limit), err
		case strings.ContainsAny(text, "0123456789"):
			ph := s.NormalizePhone(text)
			if ph == "" {
				return booking.PatientPage{Patients: []booking.Patient{}}, nil
			}
			p, err := s.accounts.PatientByPhone(ctx, ph)
			if booking.ErrorCode(err) == booking.CodeNotFound {
				return booking.PatientPage{Patients: []booking.Patient{}}, nil
			}
			if err != nil {
				return booking.PatientPage{}, err
			}
			return patientPage(idsAfter([]booking.Patient{p}, after), limit), nil
		}
		return s.patientsNamed(ctx, text, after, limit)
	})
}

// patientsNamed scans patients by id after after, keeping those whose
// name starts with prefix, until a page and one more are found, the store
// has no more, or booking.MaxPatientScan were opened.
func (s *Service) patientsNamed(ctx context.Context, prefix string, after int64, limit int) (booking.PatientPage, error) {
	found := []booking.Patient{}
	for scanned := 0; scanned < booking.MaxPatientScan; {
		batch := min(patientScanBatch, booking.MaxPatientScan-scanned)
		ps, err := s.accounts.ListPatients(ctx, after, batch)
		if err != nil {
			return booking.PatientPage{}, err
		}
		for _, p := range ps {
			if !booking.NameHasPrefix(p.Name, prefix) {
				continue
			}
			if len(found) == limit {
				// One more match: the page is full and the next starts after its last.
				return booking.PatientPage{Patients: found, Next: found[limit-1].ID}, nil
			}
			found = append(found, p)
		}
		if len(ps) < batch {
			return booking.PatientPage{Patients: found}, nil // the end of the patients
		}
		scanned += len(ps)
		after = ps[len(ps)-1].ID
	}
	// The scan's bound: the next page goes on from the last patient opened.
	return booking.PatientPage{Patients: found, Next: after}, nil
}

// idsAfter keeps the patients (by id) above after.
func idsAfter(ps []booking.Patient, after int64) []booking.Patient {
	out := make([]booking.Patient, 0, len(ps))
	for _, p := range ps {
		if p.ID > after {
			out = append(out, p)
		}
	}
	return out
}

// patientPage cuts ps (by id, up to one beyond the page) to a page.
func patientPage(ps []booking.Patient, limit int) booking.PatientPage {
	if len(ps) > limit {
		return booking.PatientPage{Patients: ps[:limit], Next: ps[limit-1].ID}
	}
	if ps == nil {
		ps = []booking.Patient{}
	}
	return booking.PatientPage{Patients: ps}
}
