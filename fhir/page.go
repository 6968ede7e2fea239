package fhir

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// Paging: every search answers at most _count entries (DefaultCount when
// absent; a larger _count is clamped to MaxCount, as FHIR servers do, and
// the Bundle holds what it holds) and, when more match, a link "next"
// whose _cursor resumes after the page's last entry. The cursor is a key,
// not an offset: entries come by that key, so a resource created while a
// client pages never shifts the pages and none is listed twice or
// skipped. Total is given only when the whole match is in one page.
const (
	DefaultCount = 50
	MaxCount     = 200
)

// cursor is the key of an entry: the resource (a doctor, a room, an
// appointment's patient or 0) and, within it, the start and id of a slot
// or an appointment. Entries come in (K, T, I) order.
type cursor struct {
	K int64 // schedule, practitioner or location id
	T int64 // start, unix microseconds
	I int64 // slot or appointment id
}

func (c cursor) compare(o cursor) int {
	if x := cmp.Compare(c.K, o.K); x != 0 {
		return x
	}
	if x := cmp.Compare(c.T, o.T); x != 0 {
		return x
	}
	return cmp.Compare(c.I, o.I)
}

// String is the cursor's opaque form, safe in a URL.
func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d.%d", c.K, c.T, c.I))
}

func parseCursor(v string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err == nil && len(b) <= 64 {
		if n, _ := fmt.Sscanf(string(b), "%d.%d.%d", &c.K, &c.T, &c.I); n == 3 && c.K >= 0 && c.I >= 0 {
			return c, nil
		}
	}
	return cursor{}, booking.Errorf(booking.CodeInvalidRequest, "_cursor is not a cursor of this server (take the Bundle's next link as it is)")
}

// pager is what a search's parameters say of its page.
type pager struct {
	count int
	after *cursor // nil on the first page
}

// pagerOf reads _count and _cursor.
func pagerOf(q url.Values) (pager, error) {
	pg := pager{count: DefaultCount}
	if v := q.Get("_count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return pg, booking.Errorf(booking.CodeInvalidRequest, "_count must be a whole number from 1 (at most %d are answered)", MaxCount)
		}
		pg.count = min(n, MaxCount)
	}
	if v := q.Get("_cursor"); v != "" {
		c, err := parseCursor(v)
		if err != nil {
			return pg, err
		}
		pg.after = &c
	}
	return pg, nil
}

// skips reports whether the entry at c is on an earlier page.
func (pg pager) skips(c cursor) bool { return pg.after != nil && c.compare(*pg.after) <= 0 }

// page gathers one page of entries in key order; it never holds more
// than count of them.
type page struct {
	pg   pager
	kind string
	ids  []string
	res  []any
	last cursor
	next *cursor // set once an entry beyond the page was seen
}

func newPage(pg pager, kind string) *page {
	return &page{pg: pg, kind: kind, ids: make([]string, 0, pg.count), res: make([]any, 0, pg.count)}
}

// add offers the entry at c, reporting whether the page wants more.
// Entries must come in key order.
func (p *page) add(c cursor, rid string, res any) bool {
	if p.pg.skips(c) {
		return true
	}
	if len(p.ids) == p.pg.count {
		n := p.last
		p.next = &n
		return false
	}
	p.ids, p.res, p.last = append(p.ids, rid), append(p.res, res), c
	return true
}

// full reports whether the page needs nothing more.
func (p *page) full() bool { return p.next != nil }

// bundle is the page as a searchset with its self and next links; q are
// the search's parameters, which the next link repeats with its cursor.
func (h *Handler) bundle(r *http.Request, q url.Values, p *page) Bundle {
	b := h.searchset(r, p.kind, p.ids, p.res)
	if p.next != nil || p.pg.after != nil {
		b.Total = nil
	}
	if p.next != nil {
		nq := url.Values{}
		for k, v := range q {
			if k != "_cursor" && k != "_count" {
				nq[k] = v
			}
		}
		nq.Set("_count", strconv.Itoa(p.pg.count))
		nq.Set("_cursor", p.next.String())
		b.Link = append(b.Link, BundleLink{Relation: "next", URL: h.web + r.URL.Path + "?" + nq.Encode()})
	}
	return b
}

// slotSource is one resource's slots in a period, for a slot search.
type slotSource struct {
	resource int64
	sched    schedOf
	period   period
}

// pageSlots fills p with the slots of sources (in ascending resource
// order) that keep accepts, reading the store one bounded page at a time
// from the cursor on: memory holds one store page and one answer page,
// whatever the number of slots.
func (h *Handler) pageSlots(ctx context.Context, p *page, sources []slotSource, keep func(Slot) bool) error {
	now := h.svc.Now()
	for _, src := range sources {
		if p.pg.after != nil && src.resource < p.pg.after.K {
			continue
		}
		var after booking.SlotCursor
		if p.pg.after != nil && src.resource == p.pg.after.K {
			after = booking.SlotCursor{StartAt: timeOfMicros(p.pg.after.T), ID: p.pg.after.I}
		}
		for {
			limit := min(p.pg.count-len(p.ids)+1, booking.MaxSlotPage)
			slots, err := h.store.ListSlotsPage(ctx, booking.SlotPage{DoctorID: src.resource, From: src.period.From, To: src.period.To, After: after, Limit: limit})
			if err != nil {
				return err
			}
			for _, s := range slots {
				out := slot(s, now, h.links(s, src.sched))
				if keep(out) && !p.add(cursor{K: src.resource, T: s.StartAt.UnixMicro(), I: s.ID}, out.ID, out) {
					return nil
				}
			}
			if len(slots) < limit {
				break
			}
			after = booking.CursorOf(slots)
		}
	}
	return nil
}

func timeOfMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
