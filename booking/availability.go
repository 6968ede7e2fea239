package booking

import (
	"cmp"
	"slices"
	"time"
)

// "First available": where a visit of a service can start soonest,
// across the doctors who offer it (GET /api/availability).

// Place is where a visit of a service can start: the doctor, the first
// slot and the visit's time.
type Place struct {
	DoctorID int64     `json:"doctorId"`
	SlotID   int64     `json:"slotId"`
	StartAt  time.Time `json:"startAt"`
	EndAt    time.Time `json:"endAt"`
	// SiteID and DistanceKm are the doctor's site and its distance from
	// the point of a search by distance (NearestPlaces); absent otherwise.
	SiteID     int64    `json:"siteId,omitempty"`
	DistanceKm *float64 `json:"distanceKm,omitempty"`
}

// Bounds of a search for places.
const (
	// AvailabilityWindow is how far ahead of its start one search looks.
	AvailabilityWindow = 7 * 24 * time.Hour
	// MaxAvailabilitySlots bounds the slots one search reads.
	MaxAvailabilitySlots = 10_000
)

// After orders places by start, then doctor: the order of an answer and
// of its pages' cursor.
func (p Place) After(start time.Time, doctorID int64) bool {
	if c := p.StartAt.Compare(start); c != 0 {
		return c > 0
	}
	return p.DoctorID > doctorID
}

// FreePlaces lists the places where a visit of svc can start at now among
// slots (open slots of several doctors, each doctor's in time order, as
// ListOpenSlots reads them), in After's order: each a run of the doctor's
// consecutive slots with a place left in every one, as DecideVisit would
// take them (the patient's own rules aside).
func FreePlaces(svc Service, slots []Slot, now time.Time) []Place {
	var out []Place
	for i, first := range slots {
		if !svc.Offers(first.DoctorID) || !free(first, now) {
			continue
		}
		end := first.StartAt.Add(time.Duration(svc.Minutes) * time.Minute)
		j := i
		for j < len(slots) && slots[j].DoctorID == first.DoctorID && slots[j].StartAt.Before(end) {
			j++
		}
		run, err := visitRun(slots[i:j], end)
		if err != nil || slices.ContainsFunc(run, func(s Slot) bool { return !free(s, now) }) {
			continue
		}
		out = append(out, Place{DoctorID: first.DoctorID, SlotID: first.ID, StartAt: first.StartAt, EndAt: end})
	}
	slices.SortFunc(out, func(a, b Place) int {
		return cmp.Or(a.StartAt.Compare(b.StartAt), cmp.Compare(a.DoctorID, b.DoctorID))
	})
	return out
}

// free says whether sl takes a booking at now and has a place left.
func free(sl Slot, now time.Time) bool {
	return sl.RoundID == 0 && sl.Bookable(now) == nil
}

// NearestPlaces orders places by the distance of their doctor's site,
// then After's order, keeping only the doctors of a site in sites (each
// doctor's site in siteOf): the soonest place at the nearest site first.
func NearestPlaces(places []Place, siteOf map[int64]int64, sites []SiteDistance) []Place {
	km := make(map[int64]float64, len(sites))
	for _, s := range sites {
		km[s.ID] = s.DistanceKm
	}
	out := make([]Place, 0, len(places))
	for _, p := range places {
		site := siteOf[p.DoctorID]
		if d, ok := km[site]; ok {
			p.SiteID, p.DistanceKm = site, &d
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b Place) int { return cmp.Compare(*a.DistanceKm, *b.DistanceKm) })
	return out
}

// NextFree is each doctor's earliest slot that takes a booking at now with
// a place left, among slots (as ListOpenSlots reads them): the "next free
// time" of a doctor's card.
func NextFree(slots []Slot, now time.Time) map[int64]time.Time {
	out := map[int64]time.Time{}
	for _, sl := range slots {
		if t, ok := out[sl.DoctorID]; free(sl, now) && (!ok || sl.StartAt.Before(t)) {
			out[sl.DoctorID] = sl.StartAt
		}
	}
	return out
}
