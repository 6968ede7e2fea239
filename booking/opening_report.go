package booking

import (
	"sort"
	"time"
)

// An opening's fairness report (docs/clinic.md, "Fairness report"): what
// the database knows (places, sales and their times, the queue and the
// order people were served in) and what the instance measured of the
// requests (answers by outcome and their times, in bounded memory).

// Served is one place taken in an opening's slots by someone from its
// queue: their Position there, the Slot and when the place was taken.
type Served struct {
	Position int
	SlotID   int64
	At       time.Time
}

// OpeningFacts is what a store reads for an opening's report.
type OpeningFacts struct {
	Opening Opening
	// Places is the capacity of the opening's slots, Sold their places
	// taken (active appointments).
	Places, Sold int
	// FirstSale and LastSale are the first and last places taken (nil
	// when none).
	FirstSale, LastSale *time.Time
	// Served are the places taken by people of the queue, by time.
	Served []Served
}

// OpeningReport is an opening's fairness report.
type OpeningReport struct {
	OpeningID int64     `json:"openingId"`
	OpensAt   time.Time `json:"opensAt"`
	Places    int       `json:"places"`
	Sold      int       `json:"sold"`
	// People is the queue's size, Admitted its admitted front and
	// ServedFromQueue the places its people took.
	People          int `json:"people"`
	Admitted        int `json:"admitted"`
	ServedFromQueue int `json:"servedFromQueue"`
	// FirstSaleSeconds and SellOutSeconds count from the opening; nil
	// when nothing is sold, or not everything.
	FirstSaleSeconds *float64 `json:"firstSaleSeconds,omitempty"`
	SellOutSeconds   *float64 `json:"sellOutSeconds,omitempty"`
	// Inversions are the pairs of people of the queue of whom the one with
	// the later position was served first; LaneInversions those within one
	// slot (a batching lane's order).
	Inversions     int64 `json:"inversions"`
	LaneInversions int64 `json:"laneInversions"`
	// Requests is what this instance answered for the opening's slots
	// since it started (RequestStats).
	Requests RequestStats `json:"requests"`
}

// RequestStats are the booking requests an instance answered for one
// opening: how many, by outcome ("created", "replayed" or a problem code),
// and their answer times' quantiles in milliseconds.
type RequestStats struct {
	Total    int64            `json:"total"`
	Outcomes map[string]int64 `json:"outcomes"`
	P50Ms    float64          `json:"p50Ms"`
	P99Ms    float64          `json:"p99Ms"`
}

// Report is the fairness report of f with the requests measured.
func (f OpeningFacts) Report(req RequestStats) OpeningReport {
	o := f.Opening
	r := OpeningReport{OpeningID: o.ID, OpensAt: o.OpensAt, Places: f.Places, Sold: f.Sold, People: o.Queued,
		Admitted: o.AdmittedThrough, ServedFromQueue: len(f.Served), Requests: req}
	if f.FirstSale != nil {
		v := f.FirstSale.Sub(o.OpensAt).Seconds()
		r.FirstSaleSeconds = &v
	}
	if f.LastSale != nil && f.Places > 0 && f.Sold >= f.Places {
		v := f.LastSale.Sub(o.OpensAt).Seconds()
		r.SellOutSeconds = &v
	}
	r.Inversions = Inversions(f.Served)
	bySlot := map[int64][]Served{}
	for _, s := range f.Served {
		bySlot[s.SlotID] = append(bySlot[s.SlotID], s)
	}
	for _, ss := range bySlot {
		r.LaneInversions += Inversions(ss)
	}
	return r
}

// Inversions counts the pairs of served of which the later position was
// served strictly earlier, in O(n log n) (a merge sort's count).
func Inversions(served []Served) int64 {
	s := make([]Served, len(served))
	copy(s, served)
	sort.SliceStable(s, func(i, j int) bool { return s[i].At.Before(s[j].At) })
	pos := make([]int, len(s))
	for i := range s {
		pos[i] = s[i].Position
	}
	// Ties in time are no inversion: equal times keep ascending positions.
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].At.Equal(s[j-1].At) && pos[j] < pos[j-1]; j-- {
			pos[j], pos[j-1] = pos[j-1], pos[j]
		}
	}
	return countInversions(pos, make([]int, len(pos)))
}

func countInversions(a, buf []int) int64 {
	if len(a) < 2 {
		return 0
	}
	m := len(a) / 2
	n := countInversions(a[:m], buf[:m]) + countInversions(a[m:], buf[m:])
	i, j, k := 0, m, 0
	for i < m && j < len(a) {
		if a[j] < a[i] {
			n += int64(m - i)
			buf[k] = a[j]
			j++
		} else {
			buf[k] = a[i]
			i++
		}
		k++
	}
	k += copy(buf[k:], a[i:m])
	copy(buf[k:], a[j:])
	copy(a, buf[:len(a)])
	return n
}

// OpeningSummary is the public part of an opening's fairness report, where
// the clinic publishes it (Policy.PublicOpeningSummary): counts and times,
// nothing about anyone.
type OpeningSummary struct {
	OpeningID        int64     `json:"openingId"`
	OpensAt          time.Time `json:"opensAt"`
	Places           int       `json:"places"`
	Sold             int       `json:"sold"`
	FirstSaleSeconds *float64  `json:"firstSaleSeconds,omitempty"`
	SellOutSeconds   *float64  `json:"sellOutSeconds,omitempty"`
	// Refusals are the booking requests refused, by problem code, and
	// P50Ms and P99Ms the answer times of all, as the answering instance
	// measured them (RequestStats).
	Refusals   map[string]int64 `json:"refusals"`
	P50Ms      float64          `json:"p50Ms"`
	P99Ms      float64          `json:"p99Ms"`
	Inversions int64            `json:"inversions"`
}

// Summary is the public summary of r.
func (r OpeningReport) Summary() OpeningSummary {
	s := OpeningSummary{OpeningID: r.OpeningID, OpensAt: r.OpensAt, Places: r.Places, Sold: r.Sold,
		FirstSaleSeconds: r.FirstSaleSeconds, SellOutSeconds: r.SellOutSeconds, Refusals: map[string]int64{},
		P50Ms: r.Requests.P50Ms, P99Ms: r.Requests.P99Ms, Inversions: r.Inversions}
	for outcome, n := range r.Requests.Outcomes {
		if outcome != "created" && outcome != "replayed" {
			s.Refusals[outcome] = n
		}
	}
	return s
}
