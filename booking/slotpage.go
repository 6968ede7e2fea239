package booking

import "time"

// SlotCursor is where a page of a doctor's slots resumes: the start and id
// of the last slot of the page before. Slots come by (start, id), so a
// slot inserted behind the cursor is not seen and one ahead of it is, and
// no slot is listed twice or skipped while paging. The zero cursor starts
// at the period's beginning.
type SlotCursor struct {
	StartAt time.Time
	ID      int64
}

// IsZero reports whether c is the first page's cursor.
func (c SlotCursor) IsZero() bool { return c.ID == 0 && c.StartAt.IsZero() }

// SlotPage asks a store for one page of a doctor's slots starting in
// [From, To), by (start, id), after After, at most Limit (1 to MaxSlotPage).
type SlotPage struct {
	DoctorID int64
	From, To time.Time
	After    SlotCursor
	Limit    int
}

// MaxSlotPage bounds one page of slots read from a store.
const MaxSlotPage = 1000

// Validate refuses a page a store must not run: an unbounded or empty
// limit, or a period without both ends.
func (p SlotPage) Validate() error {
	if p.Limit < 1 || p.Limit > MaxSlotPage {
		return Errorf(CodeInvalidRequest, "a page of slots holds 1 to %d slots", MaxSlotPage)
	}
	if p.From.IsZero() || p.To.IsZero() {
		return Errorf(CodeInvalidRequest, "a page of slots needs both ends of its period")
	}
	return nil
}

// CursorOf is the cursor after the last slot of page.
func CursorOf(page []Slot) SlotCursor {
	if len(page) == 0 {
		return SlotCursor{}
	}
	last := page[len(page)-1]
	return SlotCursor{StartAt: last.StartAt, ID: last.ID}
}
