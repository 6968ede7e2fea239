package booking

import (
	"slices"
	"time"
)

// The estimate of a wait follows the doctor's pace today: once a few of
// the day's consultations are completed, each patient ahead counts the
// median of their lengths (a median, so that one long case does not move
// everyone's estimate); before that, their own slot's share.

// PaceMinSamples is how many completed consultations the pace needs:
// fewer say too little, and the slots' lengths stand.
const PaceMinSamples = 3

// MaxPaceSamples bounds the consultations the pace reads: the day's
// latest, so that the estimate follows the doctor now rather than at nine.
const MaxPaceSamples = 20

// Pace is a doctor's minutes per patient from the lengths of their
// latest completed consultations today: the median, rounded to the
// nearest minute and at least one, once there are PaceMinSamples; 0
// before (the slots' shares stand). Negative lengths (a clock stepped
// back) are left out.
func Pace(done []time.Duration) int {
	ds := make([]time.Duration, 0, len(done))
	for _, d := range done {
		if d >= 0 {
			ds = append(ds, d)
		}
	}
	if len(ds) < PaceMinSamples {
		return 0
	}
	slices.Sort(ds)
	m := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		m = (ds[len(ds)/2-1] + m) / 2
	}
	return max(int(m.Round(time.Minute)/time.Minute), 1)
}

// minutesOf is what entry e adds to a wait at pace minutes per patient
// (0: e's slot share).
func minutesOf(e QueueEntry, pace int) int {
	if pace > 0 {
		return pace
	}
	return e.SlotMinutes
}
