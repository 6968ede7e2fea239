package booking

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Search finds what a patient types in the home page's box: services,
// departments and doctors whose name starts with the text (GET
// /api/search). A start-of-name match is a plain indexed range read in
// both stores; doctors' names are the clinic's staff, not patients'
// personal data, and nothing sealed is read.

// The kinds of a search hit, in the order an answer lists them.
const (
	HitService    = "service"
	HitDepartment = "department"
	HitDoctor     = "doctor"
)

// hitKinds orders the kinds; a hit's Rank is its kind's index.
var hitKinds = []string{HitService, HitDepartment, HitDoctor}

// MaxSearchText bounds the text searched, in characters.
const MaxSearchText = 100

// SearchHit is one thing found.
type SearchHit struct {
	Kind string `json:"kind"`
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Position is the hit's place in an answer's order (kind, then id): the
// cursor of the next page. Ids stay below 2^48.
func (h SearchHit) Position() int64 {
	for i, k := range hitKinds {
		if k == h.Kind {
			return int64(i)<<48 | h.ID
		}
	}
	return 0
}

// SearchQuery asks Search for one page of hits.
type SearchQuery struct {
	// Prefix is the text as NormalizeSearch made it.
	Prefix string
	Page   Page
}

// SearchAfter splits a cursor (a hit's Position) into its kind rank and
// id, for the stores' keyset condition.
func SearchAfter(after int64) (rank int, id int64) { return int(after >> 48), after & (1<<48 - 1) }

// NormalizeSearch trims the text a patient typed and refuses one empty or
// too long; LIKE's wildcards and escape are dropped (no name needs them),
// so that the text is a plain prefix.
func NormalizeSearch(q string) (string, error) {
	q = strings.Join(strings.Fields(strings.NewReplacer("%", "", "_", "", `\`, "").Replace(q)), " ")
	if q == "" || utf8.RuneCountInString(q) > MaxSearchText {
		return "", Errorf(CodeInvalidRequest, "q must be 1 to %d characters", MaxSearchText)
	}
	return q, nil
}

// SearchStore searches the catalog.
type SearchStore interface {
	// Search lists the active services, the departments listed to
	// patients and the active doctors whose name starts with q.Prefix
	// (case-insensitive for ASCII letters), by kind then id, after the
	// cursor, at most the page's limit.
	Search(ctx context.Context, q SearchQuery) ([]SearchHit, error)
}
