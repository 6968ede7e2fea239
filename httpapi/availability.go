package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// firstAvailable answers GET /api/availability?service=&site=&near=&from=:
// the earliest places where a visit of the service can start, across the
// doctors who offer it (those of the site, with ?site=), within booking.AvailabilityWindow of from (now by
// default), paged; with ?near=lat,lon those of the nearest sites first
// (booking.NearestPlaces). The answer is one read of the doctors' open slots (on
// the listings' reader) and is kept, rendered, in the listing cache for
// its TTL, keyed by the query: a rush of the same question costs one
// read per TTL, not one per request. The cursor is the number of places
// of the same search already answered.
func (s *server) firstAvailable(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, withPage("service", "site", "near", "from", "patientId")...)
	if err != nil {
		return err
	}
	pq, personal, err := s.personalAsk(r, q)
	if err != nil {
		return err
	}
	raw, ok := q["service"]
	if !ok {
		return inParam(errorf(booking.CodeInvalidRequest, "%s is required", "service"), "service")
	}
	serviceID, err := parseID(raw, "service")
	if err != nil {
		return inParam(err, "service")
	}
	site, err := siteParam(q)
	if err != nil {
		return err
	}
	var near *booking.SitesNear
	if v, ok := q["near"]; ok {
		n, err := parseNear(v)
		if err != nil {
			return inParam(err, "near")
		}
		near = &n
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	now := s.now()
	from := now
	if v, ok := q["from"]; ok {
		if from, err = time.Parse(time.RFC3339, v); err != nil {
			return inParam(errorf(booking.CodeInvalidRequest, "%s must be an RFC 3339 time", "from"), "from")
		}
		if from.Before(now) {
			from = now // the past has no free place
		}
	}
	key := q["site"] + "|" + q["near"] + "|" + q["from"] + "|" + q["limit"] + "|" + q["cursor"]
	e, ok := s.avail.get(serviceID, key, now)
	if !ok {
		if e, err = s.renderPlaces(r, booking.OpenSlots{SiteID: site, From: from, To: from.Add(booking.AvailabilityWindow),
			Limit: booking.MaxAvailabilitySlots}, serviceID, near, p); err != nil {
			return err
		}
		s.avail.put(serviceID, key, e, now)
	}
	if personal {
		return s.writePlacesFor(w, r, pq, e)
	}
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(listSlotsMaxAge))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.body)
	return nil
}

// personalPlace is a place in a listing for one person: how many places
// of its slot that person can take, and why none when the campaign's rule
// makes it 0 (slotView's fields).
type personalPlace struct {
	booking.Place
	AvailableToYou int          `json:"availableToYou"`
	Reason         booking.Code `json:"reason,omitempty"`
	ReservedUntil  *time.Time   `json:"reservedUntil,omitempty"`
}

// writePlacesFor answers the page of places e for the person pq asks for.
// A place is a slot with a free place: one without a rule has at least
// one for everyone.
func (s *server) writePlacesFor(w http.ResponseWriter, r *http.Request, pq service.PersonalQuery, e listEntry) error {
	var page listPage[booking.Place]
	if err := json.Unmarshal(e.body, &page); err != nil {
		return err
	}
	ids := make([]int64, len(page.Items))
	for k, p := range page.Items {
		ids[k] = p.SlotID
	}
	places, err := s.placesFor(r, pq, ids)
	if err != nil {
		return err
	}
	out := listPage[personalPlace]{Items: make([]personalPlace, len(page.Items)), Next: page.Next}
	for k, p := range page.Items {
		out.Items[k] = personalPlace{Place: p, AvailableToYou: 1}
		if pp, ok := places[p.SlotID]; ok {
			out.Items[k].AvailableToYou, out.Items[k].Reason, out.Items[k].ReservedUntil = pp.Places, pp.Reason, pp.OpensAt
		}
	}
	return writePersonal(w, out)
}

// renderPlaces searches the places of one page among the slots q asks
// for, of the service's doctors, by distance from near when given.
func (s *server) renderPlaces(r *http.Request, q booking.OpenSlots, serviceID int64, near *booking.SitesNear, p pageRequest) (listEntry, error) {
	v, err := s.svc.GetService(r.Context(), serviceID)
	if err == nil && !v.Active {
		err = booking.NotFound("service")
	}
	if err != nil {
		return listEntry{}, err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	q.DoctorIDs = v.DoctorIDs
	slots, err := s.listings.ListOpenSlots(ctx, q)
	if err != nil {
		return listEntry{}, storeErr(ctx, err)
	}
	places := booking.FreePlaces(v, slots, s.now())
	if near != nil {
		if places, err = s.nearestPlaces(ctx, places, *near); err != nil {
			return listEntry{}, storeErr(ctx, err)
		}
	}
	skip := min(int(p.After), len(places))
	page := listPage[booking.Place]{Items: orEmpty(places[skip:])}
	if len(page.Items) > p.Limit {
		page.Items = page.Items[:p.Limit]
		next := encodeCursor(int64(skip + p.Limit))
		page.Next = &next
	}
	body, err := json.Marshal(page)
	if err != nil {
		return listEntry{}, err
	}
	return listEntry{body: append(body, '\n')}, nil
}

// nearestPlaces orders places by their site's distance from near, among
// the booking.MaxPageLimit sites with a position nearest it.
func (s *server) nearestPlaces(ctx context.Context, places []booking.Place, near booking.SitesNear) ([]booking.Place, error) {
	near.Limit = booking.MaxPageLimit
	sites, err := s.listings.ListSitesNear(ctx, near)
	if err != nil {
		return nil, err
	}
	deps, err := s.listings.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return nil, err
	}
	docs, err := s.listings.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return nil, err
	}
	siteOfDept := make(map[int64]int64, len(deps))
	for _, d := range deps {
		siteOfDept[d.ID] = d.SiteID
	}
	siteOf := make(map[int64]int64, len(docs))
	for _, d := range docs {
		siteOf[d.ID] = siteOfDept[d.DepartmentID]
	}
	return booking.NearestPlaces(places, siteOf, sites), nil
}
