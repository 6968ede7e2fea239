package booking

// The states of a doctor's day list (the printable list per doctor): where
// each person stands, from their appointment's state and, on the day, their
// queue entry's step.
const (
	DayHeld           = "held"
	DayBooked         = "booked"
	DayArrived        = "arrived"
	DayCalled         = "called"
	DayInConsultation = "in consultation"
	DayDone           = "done"
	DayNoShow         = "no-show"
	DayCancelled      = "cancelled"
	DayExpired        = "expired"
)

// DayState is where appointment a stands on its day: e is its queue entry
// (QueueDay.Entry; a bare one before any call, or on another day). An
// arrived person is called, in consultation or done as the console moved
// them, and arrived while waiting or skipped; a completed appointment is
// done whether or not the console was used.
func DayState(a Appointment, e QueueEntry) string {
	switch a.Status {
	case StatusHeld:
		return DayHeld
	case StatusBooked:
		return DayBooked
	case StatusArrived:
		switch e.Step {
		case QueueCalled:
			return DayCalled
		case QueueStarted:
			return DayInConsultation
		case QueueFinished:
			return DayDone
		}
		return DayArrived
	case StatusCompleted:
		return DayDone
	case StatusNoShow:
		return DayNoShow
	case StatusCancelled:
		return DayCancelled
	}
	return DayExpired
}
