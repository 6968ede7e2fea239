package booking

import (
	"fmt"
	"time"
)

// The next dose (docs/campaigns.md): a patient who booked only the first
// doses of a series (a SeriesRequest may name a prefix of them) books the
// next one later, once the dose before is booked or given, inside the
// window counted from that dose's actual slot. The store reads
// NextDoseReads with the series' slots locked and DecideNextDose decides;
// the dose itself is an ordinary booking decided by DecideBooking.

// CodeDoseOutsideWindow: a dose's slot is not within its window after
// the dose before.
const CodeDoseOutsideWindow Code = "dose-outside-window"

// CheckDoseWindow refuses dose n (2 or later) at start when it is not
// MinDays to MaxDays whole days after prev, the start of dose n-1.
func CheckDoseWindow(n int, prev, start time.Time, w DoseWindow) *Error {
	days := int(start.Sub(prev) / (24 * time.Hour))
	if start.Before(prev) || days < w.MinDays || days > w.MaxDays {
		return Errorf(CodeDoseOutsideWindow, "dose %d must be %d to %d days after dose %d", n, w.MinDays, w.MaxDays, n-1)
	}
	return nil
}

// NextDoseRequest asks to book the next dose of series booking BookingID
// for PatientID in SlotID.
type NextDoseRequest struct {
	PatientID      int64
	BookingID      int64
	SlotID         int64
	IdempotencyKey string
	// Fingerprint is NextDoseFingerprint of the request.
	Fingerprint string
	Actor       Actor
	// Staff books for the patient (BookRequest.Staff).
	Staff bool
}

// NextDoseFingerprint is the canonical form of a next-dose request. It
// names no dose number: a retry after the dose was booked asks the same.
func NextDoseFingerprint(bookingID, slotID int64) string {
	return fmt.Sprintf("series-booking=%d;slot=%d", bookingID, slotID)
}

// NextDoseReads is what a store reads, with the booking's slots locked,
// before the next dose is decided.
type NextDoseReads struct {
	// Replay is the appointment the request's (patient, key) made, if any.
	Replay *Appointment
	// Booking is the series booking asked for with its doses, nil when it
	// does not exist; Series is its series.
	Booking *SeriesBooking
	Series  *DoseSeries
	// Slot is the slot asked for, nil when it does not exist.
	Slot *Slot
}

// NextDosePlan is DecideNextDose's answer. With Err set the store writes
// nothing and answers it; with Replay set it answers the booking as it is
// now, Replayed. Otherwise it decides Request with DecideBooking and, when
// booked, links the appointment as dose Dose.
type NextDosePlan struct {
	Replay  bool
	Err     error
	Request BookRequest
	Dose    int
}

// DecideNextDose decides, in this order: a replay (or key-reused) of what
// the key made; the booking not found (or another patient's); every dose
// already booked; the dose before neither booked nor given (cancelled,
// missed, expired: the series cannot go on); the slot not found; a paid
// slot; the slot outside the next dose's window, counted from the start
// of the dose before.
func DecideNextDose(r NextDoseRequest, rd NextDoseReads) NextDosePlan {
	if rd.Replay != nil {
		if rd.Replay.Fingerprint != r.Fingerprint {
			return NextDosePlan{Err: KeyReused(rd.Replay.SlotID)}
		}
		return NextDosePlan{Replay: true}
	}
	b := rd.Booking
	if b == nil || rd.Series == nil || b.PatientID != r.PatientID || len(b.Appointments) == 0 {
		return NextDosePlan{Err: NotFound("series booking")}
	}
	n := len(b.Appointments)
	if n >= rd.Series.Doses() {
		return NextDosePlan{Err: Errorf(CodeConflict, "every dose of the series is booked")}
	}
	prev := b.Appointments[n-1]
	if !prev.Status.Active() && prev.Status != StatusCompleted {
		return NextDosePlan{Err: Errorf(CodeConflict, "dose %d is %s: the series cannot go on", n, prev.Status)}
	}
	if rd.Slot == nil {
		e := NotFound("slot")
		e.SlotID, e.Pointer = r.SlotID, "/slotId"
		return NextDosePlan{Err: e}
	}
	if rd.Slot.FeeCents > 0 {
		e := Errorf(CodeInvalidRequest, "a dose series books free slots only")
		e.SlotID, e.Pointer = r.SlotID, "/slotId"
		return NextDosePlan{Err: e}
	}
	if e := CheckDoseWindow(n+1, prev.StartAt, rd.Slot.StartAt, rd.Series.Windows[n-1]); e != nil {
		e.SlotID, e.Pointer = r.SlotID, "/slotId"
		return NextDosePlan{Err: e}
	}
	return NextDosePlan{Dose: n + 1, Request: BookRequest{PatientID: r.PatientID, IdempotencyKey: r.IdempotencyKey,
		Fingerprint: r.Fingerprint, SlotID: r.SlotID, Actor: r.Actor, Staff: r.Staff, LaterDose: true}}
}
