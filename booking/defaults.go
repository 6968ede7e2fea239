package booking

import "time"

// What a caller may leave zero, and the stored form of weekdays: rules
// every store applies alike before it writes.

// WithDefaults fills what a caller may leave zero: status OPEN and the
// default hold time.
func (s Slot) WithDefaults() Slot {
	if s.Status == "" {
		s.Status = SlotOpen
	}
	if s.HoldSeconds == 0 {
		s.HoldSeconds = DefaultHoldMinutes * 60
	}
	return s
}

// WithDefaults fills the documented defaults of a zero horizon, opening
// time and hold time.
func (s Schedule) WithDefaults() Schedule {
	if s.HorizonDays == 0 {
		s.HorizonDays = DefaultHorizonDays
	}
	if s.OpensAtTime == "" {
		s.OpensAtTime = DefaultOpensAtTime
	}
	if s.HoldMinutes == 0 {
		s.HoldMinutes = DefaultHoldMinutes
	}
	return s
}

// WeekdayMask packs weekdays as the schemas store them: bit d for
// time.Weekday d.
func WeekdayMask(days []time.Weekday) (int16, error) {
	var m int16
	for _, d := range days {
		if d < time.Sunday || d > time.Saturday {
			return 0, Errorf(CodeInvalidRequest, "weekdays must be 0 (Sunday) to 6 (Saturday), not %d", int(d))
		}
		m |= 1 << d
	}
	return m, nil
}

// WeekdaysOf is the inverse of WeekdayMask, Sunday first.
func WeekdaysOf(mask int16) []time.Weekday {
	var days []time.Weekday
	for d := time.Sunday; d <= time.Saturday; d++ {
		if mask&(1<<d) != 0 {
			days = append(days, d)
		}
	}
	return days
}

// Validate refuses an update no slot may take: a capacity below 1, or a
// status other than OPEN and CLOSED.
func (u SlotUpdate) Validate() error {
	if u.Capacity != nil && *u.Capacity < 1 {
		return Errorf(CodeInvalidRequest, "capacity must be at least 1")
	}
	if u.Status != nil && *u.Status != SlotOpen && *u.Status != SlotClosed {
		return Errorf(CodeInvalidRequest, "status must be %s or %s", SlotOpen, SlotClosed)
	}
	return nil
}

// CapacityRefusal tells why slotID's capacity cannot become capacity, given
// the places taken and the highest queue number in use (read under the
// slot's lock), or nil: queue numbers stay within 1..capacity.
func CapacityRefusal(slotID int64, capacity, booked, topQueue int) error {
	switch {
	case capacity < booked:
		return &Error{Code: CodeConflict, SlotID: slotID, Message: "capacity cannot be below the places already taken"}
	case capacity < topQueue:
		return &Error{Code: CodeConflict, SlotID: slotID, Message: "capacity cannot be below the highest queue number in use"}
	}
	return nil
}

// WithDefaults fills a zero quota with DefaultRoundQuota.
func (r Round) WithDefaults() Round {
	if r.Quota == 0 {
		r.Quota = DefaultRoundQuota
	}
	return r
}

// RoomsTwice refuses a list of rooms that names one twice: each room is a
// round's slot once.
func RoomsTwice(roomIDs []int64) error {
	seen := map[int64]bool{}
	for _, id := range roomIDs {
		if seen[id] {
			return Errorf(CodeConflict, "room %d is listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

// RoundSlotsRefusal refuses adding slots to a round in state: only a DRAFT
// round takes them (an open round's offer is fixed).
func RoundSlotsRefusal(state string) error {
	if state != RoundDraft {
		return Errorf(CodeInvalidTransition, "slots can be added only while the round is DRAFT")
	}
	return nil
}
