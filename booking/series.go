package booking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Dose series (docs/campaigns.md): a vaccine given in several doses, each
// within a window of days after the one before. Store.BookSeries books
// every dose in one transaction, all or nothing: each dose is an ordinary
// booking decided by DecideBooking under its slot's lock, the slots locked
// in id order; DecideSeries decides what comes before the places and
// SeriesPlan.Finish what comes after.

// Limits of a dose series.
const (
	MaxDoses       = 6    // doses in one series
	MaxDoseGapDays = 3650 // the widest window, about ten years
)

// DoseWindow is when a dose may be given: MinDays to MaxDays whole days
// after the start of the dose before it.
type DoseWindow struct {
	MinDays int `json:"minDays"`
	MaxDays int `json:"maxDays"`
}

// DoseSeries is a vaccine's schedule of doses: dose 1 any time, and dose
// k+1 within Windows[k-1] of dose k.
type DoseSeries struct {
	ID        int64        `json:"id"`
	Name      string       `json:"name"`
	Windows   []DoseWindow `json:"windows"`
	CreatedAt time.Time    `json:"createdAt"`
}

// Doses is how many doses the series has.
func (s DoseSeries) Doses() int { return len(s.Windows) + 1 }

// CheckDoseSeries refuses a series staff may not create: a name of 1 to
// 100 characters, 2 to MaxDoses doses, each window 1 ≤ min ≤ max ≤
// MaxDoseGapDays (a later dose is never on the day of the one before).
func CheckDoseSeries(s DoseSeries) error {
	if n := len([]rune(strings.TrimSpace(s.Name))); n < 1 || n > 100 {
		return &Error{Code: CodeInvalidRequest, Message: "name must be 1 to 100 characters", Format: "name must be 1 to 100 characters", Pointer: "/name"}
	}
	if d := s.Doses(); d < 2 || d > MaxDoses {
		e := Errorf(CodeInvalidRequest, "a series has 2 to %d doses: give 1 to %d windows", MaxDoses, MaxDoses-1)
		e.Pointer = "/windows"
		return e
	}
	for k, w := range s.Windows {
		if w.MinDays < 1 || w.MaxDays < w.MinDays || w.MaxDays > MaxDoseGapDays {
			e := Errorf(CodeInvalidRequest, "a window must have 1 ≤ minDays ≤ maxDays ≤ %d", MaxDoseGapDays)
			e.Pointer = "/windows/" + strconv.Itoa(k)
			return e
		}
	}
	return nil
}

// SeriesRequest asks to book the first len(SlotIDs) doses of series
// SeriesID (every dose, or fewer: the rest are booked later, one at a
// time, NextDoseRequest) for PatientID, dose k in SlotIDs[k-1].
type SeriesRequest struct {
	PatientID      int64
	SeriesID       int64
	SlotIDs        []int64
	IdempotencyKey string
	// Fingerprint is SeriesFingerprint of the request.
	Fingerprint string
	Actor       Actor
	// Staff books for the patient (BookRequest.Staff).
	Staff bool
	// Invitation is presented with every dose: the first decided (in slot
	// id order) whose schedule asks for one uses it; a code books one
	// appointment.
	Invitation string
}

// SeriesFingerprint is the canonical form of a series request.
func SeriesFingerprint(seriesID int64, slotIDs []int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "series=%d;slots=", seriesID)
	for k, id := range slotIDs {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// DoseKey is the Idempotency-Key of dose n's appointment of a series
// booked with key. It holds spaces, which a client's key (visible ASCII)
// never does, so that it never collides with one, and is 64 characters at
// most whatever key's length.
func DoseKey(key string, n int) string {
	h := sha256.Sum256([]byte(key))
	return "series " + hex.EncodeToString(h[:20]) + " " + strconv.Itoa(n)
}

// SeriesBooking is a series booked: its appointments in dose order.
type SeriesBooking struct {
	ID             int64         `json:"id"`
	SeriesID       int64         `json:"seriesId"`
	PatientID      int64         `json:"patientId"`
	CreatedAt      time.Time     `json:"createdAt"`
	Appointments   []Appointment `json:"appointments"`
	IdempotencyKey string        `json:"-"`
	Fingerprint    string        `json:"-"`
}

// SeriesResult answers a SeriesRequest: the booking, Replayed for a retry
// of one made earlier with the same key.
type SeriesResult struct {
	Booking  SeriesBooking
	Replayed bool
}

// SeriesAnswer answers one series of a batch (BookSeriesBatch): its
// result, or the error that refused it.
type SeriesAnswer struct {
	Result SeriesResult
	Err    error
}

// MaxSeriesBatch is the most series decided in one transaction.
const MaxSeriesBatch = 64

// SeriesLockOrder is the order a batch of series locks its slots in: every
// slot of every series once, by id, the order a single series takes its
// own in, so that no two batches (nor a batch and a series) deadlock.
func SeriesLockOrder(rs []SeriesRequest) []int64 {
	var ids []int64
	for _, r := range rs {
		ids = append(ids, r.SlotIDs...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// SeriesReads is what a store reads, with the doses' slots locked, before
// the doses are decided.
type SeriesReads struct {
	// Replay is the booking already made with the request's (patient,
	// key), if any.
	Replay *SeriesBooking
	// Series is the series asked for, nil when it does not exist.
	Series *DoseSeries
	// Slots are the request's slots that exist, by id.
	Slots map[int64]Slot
}

// SeriesPlan is DecideSeries's answer. When Err is set or Replay is, the
// store writes nothing and answers it. Otherwise it decides Requests[k]
// (dose Doses[k]) with DecideBooking in slot id order, writing each one's
// decision, and calls Finish with their results: when Finish refuses, the
// store rolls the whole transaction back.
type SeriesPlan struct {
	Replay   *SeriesResult
	Err      error
	Requests []BookRequest
	Doses    []int
}

// DecideSeries decides what comes before the places, in this order: a
// replay (or key-reused) of the booking the key made; the series not
// found; a slot for each of the first doses, one or more; each slot found; free slots only (a paid hold
// could expire and break the series); each dose within its window of
// the one before. It orders the doses' requests by slot id: the order
// every series takes its locks in, so that two never deadlock.
func DecideSeries(r SeriesRequest, rd SeriesReads) SeriesPlan {
	if rd.Replay != nil {
		if rd.Replay.Fingerprint != r.Fingerprint {
			return SeriesPlan{Err: KeyReused(0)}
		}
		return SeriesPlan{Replay: &SeriesResult{Booking: *rd.Replay, Replayed: true}}
	}
	if rd.Series == nil {
		return SeriesPlan{Err: NotFound("dose series")}
	}
	if n := rd.Series.Doses(); len(r.SlotIDs) < 1 || len(r.SlotIDs) > n {
		e := Errorf(CodeInvalidRequest, "the series has %d doses: give a slot for each of the first doses you book, from dose 1", n)
		e.Pointer = "/slotIds"
		return SeriesPlan{Err: e}
	}
	for k, id := range r.SlotIDs {
		s, ok := rd.Slots[id]
		if !ok {
			e := NotFound("slot")
			e.SlotID, e.Pointer = id, "/slotIds/"+strconv.Itoa(k)
			return SeriesPlan{Err: e}
		}
		if s.FeeCents > 0 {
			e := Errorf(CodeInvalidRequest, "a dose series books free slots only")
			e.SlotID, e.Pointer = id, "/slotIds/"+strconv.Itoa(k)
			return SeriesPlan{Err: e}
		}
		if k == 0 {
			continue
		}
		if e := CheckDoseWindow(k+1, rd.Slots[r.SlotIDs[k-1]].StartAt, s.StartAt, rd.Series.Windows[k-1]); e != nil {
			e.SlotID, e.Pointer = id, "/slotIds/"+strconv.Itoa(k)
			return SeriesPlan{Err: e}
		}
	}
	p := SeriesPlan{}
	for k := range r.SlotIDs {
		p.Doses = append(p.Doses, k+1)
	}
	slices.SortFunc(p.Doses, func(a, b int) int { return compareID(r.SlotIDs[a-1], r.SlotIDs[b-1]) })
	for _, n := range p.Doses {
		p.Requests = append(p.Requests, BookRequest{PatientID: r.PatientID, IdempotencyKey: DoseKey(r.IdempotencyKey, n),
			Fingerprint: r.Fingerprint, SlotID: r.SlotIDs[n-1], Actor: r.Actor, Staff: r.Staff, Invitation: r.Invitation, LaterDose: n > 1})
	}
	return p
}

func compareID(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Finish decides the series from its doses' results (results[k] answers
// Requests[k]): the first refusal in dose order refuses the whole series,
// else it is booked. A dose answered as a replay means its key was taken
// outside this series (a booking of the same derived key cannot exist
// without its series): refused as key-reused.
func (p SeriesPlan) Finish(r SeriesRequest, results []BookResult) (SeriesBooking, error) {
	appts := make([]Appointment, len(p.Doses))
	var first error
	firstDose := 0
	for k, res := range results {
		n := p.Doses[k]
		err := res.Err
		if err == nil && res.Replayed {
			err = KeyReused(res.Appointment.SlotID)
		}
		if err != nil {
			if first == nil || n < firstDose {
				first, firstDose = err, n
			}
			continue
		}
		appts[n-1] = res.Appointment
	}
	if first != nil {
		return SeriesBooking{}, first
	}
	return SeriesBooking{SeriesID: r.SeriesID, PatientID: r.PatientID, Appointments: appts,
		IdempotencyKey: r.IdempotencyKey, Fingerprint: r.Fingerprint}, nil
}

// LaterDoses are the appointments to cancel with dose n of a series: the
// active ones of its later doses (byDose: the series' appointments by
// dose number; n 0: the appointment is no dose). Cancelling a dose gives up the rest of the series, whose
// windows count from it.
func LaterDoses(n int, byDose map[int]Appointment) []Appointment {
	var out []Appointment
	if n < 1 {
		return nil // not a dose
	}
	for d := n + 1; d <= MaxDoses; d++ {
		if a, ok := byDose[d]; ok && a.Status.Active() {
			out = append(out, a)
		}
	}
	return out
}

// AuditDoseSeries is the entry of series s created.
func AuditDoseSeries(ctx context.Context, now time.Time, s DoseSeries) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityDoseSeries, ID: s.ID, Action: "create", After: s})
}

// SeriesStore books and keeps dose series.
type SeriesStore interface {
	// CreateDoseSeries adds a series (CheckDoseSeries is the caller's);
	// audited.
	CreateDoseSeries(ctx context.Context, s DoseSeries, now time.Time) (DoseSeries, error)
	// ListDoseSeries lists the series by id, one Page at a time.
	ListDoseSeries(ctx context.Context, p Page) ([]DoseSeries, error)
	// BookSeries books every dose of r in one transaction, as DecideSeries
	// and DecideBooking decide with the doses' slots locked in id order,
	// all or nothing. The same (patient, key) answers the booking as it is
	// now, with Replayed set (another request: key-reused). Cancelling a
	// dose (Cancel) cancels the series' later doses in its transaction.
	BookSeries(ctx context.Context, r SeriesRequest, now time.Time) (SeriesResult, error)
	// BookSeriesBatch decides rs, series waiting at the same moment, in
	// one transaction and one commit: the slots of all of them locked in
	// SeriesLockOrder, then each series decided as BookSeries decides it,
	// in rs's order, under a savepoint of its own, so that a series
	// refused (or one a constraint stopped: it is then decided alone,
	// after the commit) leaves the others of the batch as they are.
	// Answers[k] answers rs[k]; an error means none was decided.
	BookSeriesBatch(ctx context.Context, rs []SeriesRequest, now time.Time) ([]SeriesAnswer, error)
	// BookNextDose books the next dose of r's series booking in one
	// transaction, as DecideNextDose and DecideBooking decide with the
	// booking's slots and r's locked in id order, and answers the booking
	// with it. The same (patient, key) answers the booking as it is now,
	// with Replayed set (another request: key-reused).
	BookNextDose(ctx context.Context, r NextDoseRequest, now time.Time) (SeriesResult, error)
	// ListAccountSeriesBookings lists the series bookings of an account
	// and the people it manages, each with its doses, newest first, one
	// Page at a time (Page.After: below that id).
	ListAccountSeriesBookings(ctx context.Context, account int64, p Page) ([]SeriesBooking, error)
}

// BrokenSeriesSQL finds the series bookings that are not whole (at most
// ?1 of them, by id): dose links that are not doses 1 to k of the
// patient's for some k from 1 to the series' doses (a next dose is booked
// later, NextDoseRequest), or an active dose after a cancelled one. doses
// is the dialect's expression of the series' dose count from s.windows.
func BrokenSeriesSQL(doses, limit string) string {
	return `SELECT b.id FROM series_bookings b JOIN dose_series s ON s.id = b.series_id
	WHERE (SELECT count(*) FROM series_doses d JOIN appointments a ON a.id = d.appointment_id
	        WHERE d.booking_id = b.id AND a.patient_id = b.patient_id)
	      <> (SELECT coalesce(max(dose_no), 0) FROM series_doses d WHERE d.booking_id = b.id)
	   OR (SELECT coalesce(max(dose_no), 0) FROM series_doses d WHERE d.booking_id = b.id) NOT BETWEEN 1 AND ` + doses + `
	   OR EXISTS (SELECT 1 FROM series_doses e JOIN appointments ea ON ea.id = e.appointment_id
	        JOIN series_doses l ON l.booking_id = e.booking_id AND l.dose_no > e.dose_no
	        JOIN appointments la ON la.id = l.appointment_id
	        WHERE e.booking_id = b.id AND ea.status = ` + StatusCancelledSQL + ` AND la.status IN ` + ActiveSQL + `)
	ORDER BY b.id LIMIT ` + limit
}
