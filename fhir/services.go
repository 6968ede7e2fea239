package fhir

import (
	"context"
	"net/http"
	"slices"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// A service (a visit type) is a HealthcareService; Slots carry the
// services their doctor offers in serviceType, an Appointment of a visit
// its service, each coded ServiceSystem|<service id>.

// HealthcareService is the subset of R4's slotd fills in.
type HealthcareService struct {
	ResourceType   string            `json:"resourceType"`
	ID             string            `json:"id"`
	Extension      []Extension       `json:"extension,omitempty"`
	Active         bool              `json:"active"`
	Type           []CodeableConcept `json:"type"`
	Location       []Reference       `json:"location,omitempty"`
	Name           string            `json:"name"`
	Comment        string            `json:"comment,omitempty"`
	Characteristic []CodeableConcept `json:"characteristic,omitempty"`
}

// serviceType is a service as a code.
func serviceType(s booking.Service) CodeableConcept {
	return CodeableConcept{Coding: []Coding{{System: ServiceSystem, Code: id(s.ID), Display: s.Name}}, Text: s.Name}
}

// healthcareService is a service at the sites of its doctors
// (siteOfDoctor maps a doctor to the site of their department).
func healthcareService(s booking.Service, siteOfDoctor map[int64]booking.Site) HealthcareService {
	out := HealthcareService{ResourceType: "HealthcareService", ID: id(s.ID), Active: s.Active,
		Type: []CodeableConcept{serviceType(s)}, Name: s.Name, Comment: s.Notes,
		Extension:      []Extension{intExt(ExtDuration, s.Minutes)},
		Characteristic: []CodeableConcept{{Coding: []Coding{{System: LevelSystem, Code: string(s.Level)}}, Text: string(s.Level)}}}
	var sites []booking.Site
	for _, d := range s.DoctorIDs {
		if site, ok := siteOfDoctor[d]; ok && !slices.ContainsFunc(sites, func(v booking.Site) bool { return v.ID == site.ID }) {
			sites = append(sites, site)
		}
	}
	for _, site := range sortedBy(sites, func(v booking.Site) int64 { return v.ID }) {
		out.Location = append(out.Location, Reference{Reference: "Location/" + siteID(site.ID), Display: site.Name})
	}
	return out
}

// serviceTypes maps each doctor to the active services they offer.
func (h *Handler) serviceTypes(ctx context.Context) (map[int64][]CodeableConcept, error) {
	vs, err := h.store.ListServices(ctx, booking.ServiceFilter{}, booking.Page{})
	if err != nil {
		return nil, err
	}
	m := map[int64][]CodeableConcept{}
	for _, v := range vs {
		for _, d := range v.DoctorIDs {
			m[d] = append(m[d], serviceType(v))
		}
	}
	return m, nil
}

// doctorSites maps every doctor to the site of their department.
func (h *Handler) doctorSites(ctx context.Context) (map[int64]booking.Site, error) {
	ds, err := h.store.ListAllDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return nil, err
	}
	deps, err := h.departments(ctx)
	if err != nil {
		return nil, err
	}
	sites, _, err := h.sites(ctx)
	if err != nil {
		return nil, err
	}
	m := make(map[int64]booking.Site, len(ds))
	for _, d := range ds {
		if s, ok := sites[deps[d.DepartmentID].SiteID]; ok {
			m[d.ID] = s
		}
	}
	return m, nil
}

func (h *Handler) readHealthcareService(w http.ResponseWriter, r *http.Request) error {
	n, err := pathID(r.PathValue("id"), "HealthcareService")
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	s, err := h.store.GetService(ctx, n)
	if err != nil {
		return service.Classify(ctx, err)
	}
	sites, err := h.doctorSites(ctx)
	if err != nil {
		return service.Classify(ctx, err)
	}
	writeResource(w, http.StatusOK, healthcareService(s, sites))
	return nil
}

// searchHealthcareServices lists the active services by id, or those
// offered at a site (location=Location/site-<id>).
func (h *Handler) searchHealthcareServices(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := checkParams(q, "location"); err != nil {
		return err
	}
	locs, err := tokens(q, "location")
	if err != nil {
		return err
	}
	pg, err := pagerOf(q)
	if err != nil {
		return err
	}
	ctx, cancel := h.ctx(r)
	defer cancel()
	vs, err := h.store.ListServices(ctx, booking.ServiceFilter{}, booking.Page{})
	if err != nil {
		return service.Classify(ctx, err)
	}
	sites, err := h.doctorSites(ctx)
	if err != nil {
		return service.Classify(ctx, err)
	}
	p := newPage(pg, "HealthcareService")
	for _, v := range sortedBy(vs, func(v booking.Service) int64 { return v.ID }) {
		hs := healthcareService(v, sites)
		if len(locs) == 0 || slices.ContainsFunc(hs.Location, func(l Reference) bool { return slices.Contains(locs, l.Reference) }) {
			if !p.add(cursor{K: v.ID}, hs.ID, hs) {
				break
			}
		}
	}
	writeResource(w, http.StatusOK, h.bundle(r, q, p))
	return nil
}
