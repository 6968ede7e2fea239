package fhir

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// A site of the clinic is a Location "site-<id>" (rooms, which are
// Locations too, keep their bare numeric ids). Location/clinic, the id of
// the one clinic before sites, keeps answering: it is the first site (the
// one the --clinic-* settings fill) under its old id, so that links and
// aggregators' cached Schedules still resolve.

// sitePrefix starts the id of a site's Location.
const sitePrefix = "site-"

func siteID(n int64) string { return sitePrefix + id(n) }

// siteOf reads a site Location's id; ok is false for any other id.
func siteOf(v string) (int64, bool) {
	s, ok := strings.CutPrefix(v, sitePrefix)
	n, err := strconv.ParseInt(s, 10, 64)
	return n, ok && err == nil && n > 0
}

// siteLocation is a site as a Location: address, phone, position and
// opening hours.
func siteLocation(s booking.Site, c Clinic) Location {
	l := Location{ResourceType: "Location", ID: siteID(s.ID), Status: "active", Name: s.Name,
		Description: "time zone " + s.TimeZone}
	if p := cmp.Or(s.Phone, c.Phone); p != "" {
		l.Telecom = []ContactPoint{{System: "phone", Value: p, Use: "work"}}
	}
	if s.Address != "" {
		l.Address = &Address{Text: s.Address}
	}
	if s.Lat != nil {
		l.Position = &Position{Latitude: *s.Lat, Longitude: *s.Lon}
	}
	for _, p := range s.OpeningHours {
		l.HoursOfOperation = append(l.HoursOfOperation, hoursOf(p))
	}
	return l
}

// hoursOf spells a period as FHIR does: times with seconds, and a day
// open from 00:00 to 24:00 as allDay (FHIR times stop at 23:59:59).
func hoursOf(p booking.OpeningPeriod) HoursOfOperation {
	h := HoursOfOperation{DaysOfWeek: []string{p.Day}}
	switch {
	case p.Opens == "00:00" && p.Closes == "24:00":
		h.AllDay = true
	case p.Closes == "24:00":
		h.OpeningTime, h.ClosingTime = p.Opens+":00", "23:59:59"
	default:
		h.OpeningTime, h.ClosingTime = p.Opens+":00", p.Closes+":00"
	}
	return h
}

// sites reads every site by id (sites are few: the places of one clinic).
func (h *Handler) sites(ctx context.Context) (map[int64]booking.Site, []booking.Site, error) {
	vs, err := h.store.ListSites(ctx, booking.Page{})
	if err != nil {
		return nil, nil, err
	}
	m := make(map[int64]booking.Site, len(vs))
	for _, v := range vs {
		m[v.ID] = v
	}
	return m, vs, nil
}

// firstSite is the site Location/clinic names.
func (h *Handler) firstSite(ctx context.Context) (booking.Site, error) {
	vs, err := h.store.ListSites(ctx, booking.Page{Limit: 1})
	if err == nil && len(vs) == 0 {
		err = booking.NotFound("location")
	}
	if err != nil {
		return booking.Site{}, err
	}
	return vs[0], nil
}

// readSiteLocation answers Location/site-<id> and Location/clinic.
func (h *Handler) readSiteLocation(w http.ResponseWriter, r *http.Request, n int64) error {
	ctx, cancel := h.ctx(r)
	defer cancel()
	var s booking.Site
	var err error
	if n == 0 {
		s, err = h.firstSite(ctx)
	} else {
		s, err = h.store.GetSite(ctx, n)
	}
	if err != nil {
		return service.Classify(ctx, err)
	}
	l := siteLocation(s, h.clinic)
	if n == 0 {
		l.ID = ClinicID
	}
	writeResource(w, http.StatusOK, l)
	return nil
}
