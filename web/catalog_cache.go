package web

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
)

// catalogCache keeps, for a few seconds, what many pages read and few
// change: the sites (the header names the clinic), the doctors' next free
// times of a department's cards and the first-available places. A rush on
// the home page costs one read per TTL, not one per visitor.
type catalogCache struct {
	mu      sync.Mutex
	sites   []booking.Site
	sitesAt time.Time
	entries map[string]cacheEntry
}

type cacheEntry struct {
	v  any
	at time.Time
}

const (
	// sitesTTL: a site renamed shows within it.
	sitesTTL = 30 * time.Second
	// listingTTL: free times may lag the slots by it, as the API's
	// listing cache does; a booking re-checks everything.
	listingTTL = 5 * time.Second
	// maxCacheEntries bounds the departments and searches kept; past it
	// the cache starts again empty.
	maxCacheEntries = 1000
	// maxSites bounds the sites read for the pages.
	maxSites = booking.MaxPageLimit
)

// sites reads the sites (the first is the clinic's), cached.
func (s *server) sites(ctx context.Context) []booking.Site {
	c := &s.catalog
	now := time.Now()
	c.mu.Lock()
	if c.sitesAt.Add(sitesTTL).After(now) {
		defer c.mu.Unlock()
		return c.sites
	}
	c.mu.Unlock()
	ctx, cancel := s.storeCtx(ctx)
	defer cancel()
	sites, err := s.store.ListSites(ctx, booking.Page{Limit: maxSites})
	if err != nil {
		return nil // the header falls back to the product's name
	}
	c.mu.Lock()
	c.sites, c.sitesAt = sites, now
	c.mu.Unlock()
	return sites
}

// site is site id among the sites, and whether it was found.
func (s *server) site(ctx context.Context, id int64) (booking.Site, bool) {
	for _, st := range s.sites(ctx) {
		if st.ID == id {
			return st, true
		}
	}
	return booking.Site{}, false
}

// cached answers key's value younger than ttl, or load's, kept.
func (s *server) cached(key string, ttl time.Duration, load func() (any, error)) (any, error) {
	c := &s.catalog
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && e.at.Add(ttl).After(now) {
		return e.v, nil
	}
	v, err := load()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCacheEntries {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[key] = cacheEntry{v: v, at: now}
	c.mu.Unlock()
	return v, nil
}

// nextFree is each of doctors' earliest free time within
// booking.AvailabilityWindow: one bounded read of their open slots on the
// listings' reader, cached by key for listingTTL.
func (s *server) nextFree(ctx context.Context, key string, doctors []booking.Doctor) map[int64]time.Time {
	ids := make([]int64, len(doctors))
	for i, d := range doctors {
		ids[i] = d.ID
	}
	v, err := s.cached("next|"+key, listingTTL, func() (any, error) {
		now := s.now()
		slots, err := s.listings.ListOpenSlots(ctx, booking.OpenSlots{DoctorIDs: ids, From: now,
			To: now.Add(booking.AvailabilityWindow), Limit: booking.MaxAvailabilitySlots})
		if err != nil {
			return nil, err
		}
		return booking.NextFree(slots, now), nil
	})
	if err != nil {
		return nil // the cards show no time rather than fail
	}
	return v.(map[int64]time.Time)
}

// places is the first free places of a visit of svc (of a site's
// doctors when site is not 0), cached for listingTTL.
func (s *server) places(ctx context.Context, svc booking.Service, site int64) ([]booking.Place, error) {
	v, err := s.cached("places|"+strconv.FormatInt(svc.ID, 10)+"|"+strconv.FormatInt(site, 10), listingTTL, func() (any, error) {
		now := s.now()
		slots, err := s.listings.ListOpenSlots(ctx, booking.OpenSlots{DoctorIDs: svc.DoctorIDs, SiteID: site, From: now,
			To: now.Add(booking.AvailabilityWindow), Limit: booking.MaxAvailabilitySlots})
		if err != nil {
			return nil, err
		}
		ps := booking.FreePlaces(svc, slots, now)
		return ps[:min(len(ps), maxPlaces)], nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]booking.Place), nil
}

// maxPlaces bounds the places the first-available page lists.
const maxPlaces = 12
