package httpapi

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/slotd/slotd/booking"
)

// Paging (docs/api.md, Paging): every list answers one page,
// {"items": [...], "next": cursor or null}, and takes ?limit= (1 to
// booking.MaxPageLimit, booking.DefaultPageLimit without it) and
// ?cursor= (the "next" of the page before, opaque to clients). This file
// is the one place that parses those parameters and spells a cursor.

// pageParams are the query parameters of every paged list, for parseQuery.
var pageParams = []string{"limit", "cursor"}

// withPage is allowed plus the paging parameters.
func withPage(allowed ...string) []string { return append(allowed, pageParams...) }

// cursorPrefix marks a cursor this API spelled; maxCursorLen bounds one.
const (
	cursorPrefix = "k1."
	maxCursorLen = 64
)

// pageRequest is a parsed ?limit=&cursor=: Limit rows are answered, after
// the key After (0: the first page).
type pageRequest struct {
	After int64
	Limit int
}

// store is the page a store is asked for: one row more than the answer
// holds, which tells whether a next page exists without counting.
func (p pageRequest) store() booking.Page { return booking.Page{After: p.After, Limit: p.Limit + 1} }

// parsePage reads limit and cursor from a query parseQuery accepted.
func parsePage(q map[string]string) (pageRequest, error) {
	p := pageRequest{Limit: booking.DefaultPageLimit}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > booking.MaxPageLimit {
			return p, inParam(errorf(booking.CodeInvalidRequest, "limit must be 1 to %d", booking.MaxPageLimit), "limit")
		}
		p.Limit = n
	}
	if v, ok := q["cursor"]; ok {
		key, ok := decodeCursor(v)
		if !ok {
			return p, inParam(errorf(booking.CodeInvalidRequest, "cursor must be the next value of a page this API answered"), "cursor")
		}
		p.After = key
	}
	return p, nil
}

// encodeCursor spells the key a page resumes after.
func encodeCursor(key int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(key, 10)))
}

// decodeCursor reads a cursor encodeCursor spelled; anything else is not one.
func decodeCursor(s string) (int64, bool) {
	if s == "" || len(s) > maxCursorLen {
		return 0, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	digits, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if !ok {
		return 0, false
	}
	key, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || !validID(key) || strconv.FormatInt(key, 10) != digits {
		return 0, false
	}
	return key, true
}

// listPage is the body of every list answer.
type listPage[T any] struct {
	Items []T     `json:"items"`
	Next  *string `json:"next"`
}

// pageOf answers rows, read as p.store() asked (at most one row beyond
// the page), as a page: the extra row only says that a next page exists,
// whose cursor is the key of the page's last row.
func pageOf[T any](rows []T, p pageRequest, key func(T) int64) listPage[T] {
	out := listPage[T]{Items: orEmpty(rows)}
	if len(rows) > p.Limit {
		out.Items = rows[:p.Limit]
		next := encodeCursor(key(out.Items[p.Limit-1]))
		out.Next = &next
	}
	return out
}

// pageAfter pages a list already bounded by nature and read whole (a
// doctor's schedules, a patient's waiting-list entries): the rows after
// the cursor's key in the list's own order, then pageOf. ascending says
// whether keys grow along the list.
func pageAfter[T any](rows []T, p pageRequest, key func(T) int64, ascending bool) listPage[T] {
	if p.After != 0 {
		i := 0
		for i < len(rows) && (ascending && key(rows[i]) <= p.After || !ascending && key(rows[i]) >= p.After) {
			i++
		}
		rows = rows[i:]
	}
	if len(rows) > p.Limit+1 {
		rows = rows[:p.Limit+1]
	}
	return pageOf(rows, p, key)
}
