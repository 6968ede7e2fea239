package booking

import (
	"strings"
	"unicode/utf8"
)

// Page asks a store for one page of a list kept in key order (the row's
// id): the rows after After (0: from the start), at most Limit of them
// (0: every row, for the server-rendered pages' own short lists; the API
// always sends a limit). "After" follows the list's order: ascending ids
// for most lists, descending for the newest-first ones (a patient's
// appointments), so a row written behind the cursor is not seen and no row
// is listed twice or skipped while paging (keyset paging, never OFFSET).
type Page struct {
	After int64
	Limit int
}

// The limits of one page a client asks for (?limit=).
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 200
)

// AppointmentQuery asks for a patient's appointments, newest first: only
// those in Status unless it is empty, and, for a staff caller limited to
// sites (staffsites.go), only those on Sites (none: every site), narrowed
// in the store's query so that each Page is whole.
type AppointmentQuery struct {
	PatientID int64
	Status    Status
	Sites     []int64
	Page      Page
}

// PatientQuery is a staff search of patients: Q is an e-mail address
// (exact, any case), a telephone number (exact once normalized, in the
// clinic's region), or the start of a name (any case); empty lists every
// patient. Page pages by id.
type PatientQuery struct {
	Q string
	// BirthDate (YYYY-MM-DD) makes Q a whole name: the person is found by
	// the keyed hash of the pair (pii.Keys.NameIndex).
	BirthDate string
	// Role is the caller's: only those BrowsesPatients lets may list
	// everyone or search names by their start.
	Role string
	Page Page
}

// MaxPatientQuery bounds the characters of a search.
const MaxPatientQuery = 100

// MaxPatientScan bounds how many patients one name search opens: names are
// sealed at rest (package pii), so a prefix is matched after opening them,
// a bounded batch per page; a page may then come back short with a cursor
// to go on from.
const MaxPatientScan = 2000

// NameHasPrefix reports whether name starts with prefix, ignoring case
// and surrounding spaces: the staff's name search.
func NameHasPrefix(name, prefix string) bool {
	n, p := strings.ToLower(strings.TrimSpace(name)), strings.ToLower(strings.TrimSpace(prefix))
	return p != "" && strings.HasPrefix(n, p)
}

// PatientPage is one page of a patient search; Next is the id to resume
// after, 0 on the last page.
type PatientPage struct {
	Patients []Patient
	Next     int64
}

// ValidPatientQuery refuses a search too long to be a name, phone or e-mail.
func ValidPatientQuery(q string) bool {
	return utf8.RuneCountInString(q) <= MaxPatientQuery && utf8.ValidString(q)
}
