package httpapi

import (
	"sync"
	"time"
)

// listCache keeps rendered slot lists (a doctor's day) for a few seconds:
// the rush reads them far more than anything else, and the spec lets them
// lag. Entries are dropped when this instance changes one of the doctor's
// slots; changes by other instances show within the TTL.
type listCache struct {
	ttl time.Duration
	mu  sync.Mutex
	// byDoctor holds each doctor's entries by the raw date parameter ("" is
	// today), so that a change drops all of one doctor's days at once.
	byDoctor map[int64]map[string]listEntry
}

type listEntry struct {
	body    []byte
	etag    string
	expires time.Time
}

// maxListCacheDoctors and maxListCacheDays bound the memory: beyond them the
// cache (or the doctor's part of it) starts afresh.
const (
	maxListCacheDoctors = 20_000
	maxListCacheDays    = 64
)

func newListCache(ttl time.Duration) *listCache {
	return &listCache{ttl: ttl, byDoctor: map[int64]map[string]listEntry{}}
}

func (c *listCache) get(doctorID int64, date string, now time.Time) (listEntry, bool) {
	if c.ttl < 0 {
		return listEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byDoctor[doctorID][date]
	if !ok || !now.Before(e.expires) {
		return listEntry{}, false
	}
	return e, true
}

func (c *listCache) put(doctorID int64, date string, e listEntry, now time.Time) {
	if c.ttl < 0 {
		return
	}
	e.expires = now.Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	days := c.byDoctor[doctorID]
	if days == nil {
		if len(c.byDoctor) >= maxListCacheDoctors {
			clear(c.byDoctor)
		}
		days = map[string]listEntry{}
		c.byDoctor[doctorID] = days
	}
	if len(days) >= maxListCacheDays {
		// Many dates of one doctor: keep the live ones only, and start the
		// doctor afresh if they are all live, so a crawler of dates cannot
		// grow the cache.
		for d, x := range days {
			if !now.Before(x.expires) {
				delete(days, d)
			}
		}
		if len(days) >= maxListCacheDays {
			clear(days)
		}
	}
	days[date] = e
}

// drop forgets every cached day of a doctor.
func (c *listCache) drop(doctorID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byDoctor, doctorID)
}
