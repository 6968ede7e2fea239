package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// The waitlist (booking/waitlist.go), as in postgres/waitlist.go; the
// single writer stands in for the slot locks.

const entryCols = `w.id, w.patient_id, coalesce(w.doctor_id, 0), coalesce(w.department_id, 0), w.from_at, w.to_at,
	w.part_of_day, w.state, coalesce(w.appointment_id, 0), coalesce(w.slot_id, 0), w.offer_expires_at,
	w.created_at, w.updated_at, w.idempotency_key, w.fingerprint, w.party_ids, coalesce(w.site_id, 0)`

func scanEntry(sc interface{ Scan(...any) error }) (booking.WaitlistEntry, error) {
	var e booking.WaitlistEntry
	var from, to, created, updated int64
	var exp sql.NullInt64
	var party string
	if err := sc.Scan(&e.ID, &e.PatientID, &e.DoctorID, &e.DepartmentID, &from, &to, &e.PartOfDay, &e.State,
		&e.AppointmentID, &e.SlotID, &exp, &created, &updated, &e.IdempotencyKey, &e.Fingerprint, &party, &e.SiteID); err != nil {
		return e, err
	}
	if err := json.Unmarshal([]byte(party), &e.PatientIDs); err != nil {
		return e, err
	}
	if len(e.PatientIDs) == 0 {
		e.PatientIDs = nil
	}
	e.PartySize = e.Size()
	e.From, e.To, e.CreatedAt, e.UpdatedAt = fromTS(from), fromTS(to), fromTS(created), fromTS(updated)
	if exp.Valid {
		t := fromTS(exp.Int64)
		e.OfferExpiresAt = &t
	}
	return e, nil
}

func queryEntries(ctx context.Context, q querier, query string, args ...any) ([]booking.WaitlistEntry, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// positionSQL: 1 + other patients' live entries for the same doctor or
// department whose period overlaps it, made before it (the ones that
// compete with it for a place); 0 when the entry is not waiting.
const positionSQL = `SELECT CASE WHEN w.state = ` + booking.EntryWaitingSQL + ` THEN 1 + (SELECT count(*) FROM waitlist_entries o
		WHERE o.state IN ` + booking.LiveEntriesSQL + ` AND o.doctor_id IS w.doctor_id AND o.department_id IS w.department_id
		  AND o.site_id IS w.site_id
		  AND o.patient_id <> w.patient_id AND o.from_at < w.to_at AND o.to_at > w.from_at
		  AND (o.created_at < w.created_at OR (o.created_at = w.created_at AND o.id < w.id)))
	ELSE 0 END FROM waitlist_entries w WHERE w.id = ?`

// partyJSON is an entry's party_ids: its people, none for one person.
func partyJSON(e booking.WaitlistEntry) string {
	if e.Size() == 1 {
		return "[]"
	}
	j, _ := json.Marshal(e.PatientIDs)
	return string(j)
}

// offerAppointments reads every appointment of e's offer (a party's: one
// per person, sharing the offer's key), in queue order.
func offerAppointments(ctx context.Context, tx *sql.Tx, e booking.WaitlistEntry) ([]booking.Appointment, error) {
	ids, err := queryIDs(ctx, tx, `SELECT a.id FROM appointments a WHERE a.slot_id = ? AND a.idempotency_key = ?
		AND a.patient_id IN (SELECT value FROM json_each(?)) ORDER BY a.queue_no`, e.SlotID, booking.OfferKey(e.ID, e.SlotID), partyJSON(e))
	if err != nil {
		return nil, err
	}
	out := make([]booking.Appointment, len(ids))
	for i, id := range ids {
		if out[i], err = getAppt(ctx, tx, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// offerMembers are the appointments an answer to an offer moves: the
// lead's a, then the party's others.
func offerMembers(a *booking.Appointment, party []booking.Appointment) []*booking.Appointment {
	out := []*booking.Appointment{a}
	for i := range party {
		if party[i].ID != a.ID {
			out = append(out, &party[i])
		}
	}
	return out
}

func entryErr(err error) error {
	if constraintName(err) == conForeignKey {
		return booking.NotFound("doctor, department, site or patient")
	}
	return mapErr(err, "waitlist entry")
}

// JoinWaitlist adds a WAITING entry; the same (patient, key) returns the
// existing one (existed), or key-reused for another request.
func (s *Store) JoinWaitlist(ctx context.Context, e booking.WaitlistEntry, now time.Time) (booking.WaitlistEntry, bool, error) {
	now = micro(now)
	var out booking.WaitlistEntry
	existed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scanEntry(tx.QueryRowContext(ctx, `SELECT `+entryCols+` FROM waitlist_entries w
			WHERE patient_id = ? AND idempotency_key = ?`, e.PatientID, e.IdempotencyKey))
		switch {
		case err == nil:
			existed = true
			if err := booking.JoinReplay(out, e.Fingerprint); err != nil {
				return err
			}
		case errors.Is(err, sql.ErrNoRows):
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO waitlist_entries (patient_id, doctor_id, department_id,
				from_at, to_at, part_of_day, state, idempotency_key, fingerprint, created_at, updated_at, party_ids, site_id)
				VALUES (?, ?, ?, ?, ?, ?, `+booking.EntryWaitingSQL+`, ?, ?, ?, ?, ?, ?) RETURNING id`,
				e.PatientID, nullID(e.DoctorID), nullID(e.DepartmentID), ts(e.From), ts(e.To), e.PartOfDay,
				e.IdempotencyKey, e.Fingerprint, ts(now), ts(now), partyJSON(e), nullID(e.SiteID)).Scan(&id); err != nil {
				return err
			}
			if out, err = scanEntry(tx.QueryRowContext(ctx, `SELECT `+entryCols+` FROM waitlist_entries w WHERE id = ?`, id)); err != nil {
				return err
			}
			if err := writeAudit(ctx, tx, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: "join", Entry: out})); err != nil {
				return err
			}
		default:
			return err
		}
		return tx.QueryRowContext(ctx, positionSQL, out.ID).Scan(&out.Position)
	})
	if err != nil {
		return booking.WaitlistEntry{}, false, entryErr(err)
	}
	return out, existed, nil
}

// ListWaitlist lists a patient's entries, newest first, with positions.
func (s *Store) ListWaitlist(ctx context.Context, patientID int64) ([]booking.WaitlistEntry, error) {
	es, err := queryEntries(ctx, s.reader, `SELECT `+entryCols+` FROM waitlist_entries w WHERE w.patient_id = ? ORDER BY w.id DESC LIMIT 200`, patientID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	for i := range es {
		if err := s.reader.QueryRowContext(ctx, positionSQL, es[i].ID).Scan(&es[i].Position); err != nil {
			return nil, mapErr(err, "")
		}
	}
	return es, nil
}

// ListOffers lists the entries holding an offer in a doctor's slots
// starting in [from, to).
func (s *Store) ListOffers(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.WaitlistEntry, error) {
	es, err := queryEntries(ctx, s.reader, `SELECT `+entryCols+` FROM waitlist_entries w JOIN slots s ON s.id = w.slot_id
		WHERE w.state = `+booking.EntryOfferedSQL+` AND s.resource_id = ? AND s.start_at >= ? AND s.start_at < ? ORDER BY s.start_at, w.id`,
		doctorID, ts(from), ts(to))
	return es, mapErr(err, "")
}

// readEntry reads an entry, its offer's appointment and slot.
func readEntry(ctx context.Context, tx *sql.Tx, id int64) (*booking.WaitlistEntry, *booking.Appointment, booking.Slot, error) {
	var sl booking.Slot
	e, err := scanEntry(tx.QueryRowContext(ctx, `SELECT `+entryCols+` FROM waitlist_entries w WHERE w.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, sl, nil
	}
	if err != nil || e.AppointmentID == 0 {
		return &e, nil, sl, err
	}
	a, err := getAppt(ctx, tx, e.AppointmentID)
	if err != nil {
		return &e, nil, sl, err
	}
	sl, err = scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, e.SlotID))
	return &e, &a, sl, err
}

// AnswerOffer accepts or declines an entry's running offer (DecideAnswer).
func (s *Store) AnswerOffer(ctx context.Context, ans booking.OfferAnswer, now time.Time) (booking.WaitlistEntry, booking.Appointment, error) {
	now = micro(now)
	var e booking.WaitlistEntry
	var a booking.Appointment
	err := s.write(ctx, func(tx *sql.Tx) error {
		ep, ap, sl, err := readEntry(ctx, tx, ans.EntryID)
		if err != nil {
			return err
		}
		var party []booking.Appointment
		if ep != nil && ap != nil && ep.Size() > 1 {
			if party, err = offerAppointments(ctx, tx, *ep); err != nil {
				return err
			}
		}
		d, err := booking.DecideAnswer(ans, booking.AnswerReads{Entry: ep, Appointment: ap, Slot: sl, Party: party}, now)
		if err != nil {
			return err
		}
		e, a = *ep, *ap
		action := "decline-offer"
		if ans.Accept {
			action = "accept-offer"
		}
		var ns []booking.Notification
		released := 0
		for _, m := range offerMembers(&a, party) {
			if m.Status != booking.StatusHeld {
				continue // a party member's place already gone: a decline releases the rest
			}
			switch {
			case d.To != "":
				if err := moveTo(ctx, tx, m, d.To, now, action); err != nil {
					return err
				}
				if d.To == booking.StatusBooked {
					if _, err := tx.ExecContext(ctx, `UPDATE appointments SET hold_expires_at = NULL WHERE id = ?`, m.ID); err != nil {
						return err
					}
					m.HoldExpiresAt = nil
				}
				if d.To == booking.StatusCancelled {
					released++
				}
			case d.HoldExpiresAt != nil:
				if _, err := tx.ExecContext(ctx, `UPDATE appointments SET hold_expires_at = ?, updated_at = ? WHERE id = ?`,
					ts(*d.HoldExpiresAt), ts(now), m.ID); err != nil {
					return err
				}
				m.HoldExpiresAt, m.UpdatedAt = d.HoldExpiresAt, now
			}
			if d.Notify != "" {
				ns = append(ns, booking.Notification{Kind: d.Notify, AppointmentID: m.ID})
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE waitlist_entries SET state = ?, updated_at = ? WHERE id = ?`, d.Entry, ts(now), e.ID); err != nil {
			return err
		}
		from := e.State
		e.State, e.UpdatedAt = d.Entry, now
		if err := writeAudit(ctx, tx, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: action, From: from, Entry: e})); err != nil {
			return err
		}
		if released > 0 {
			if err := s.reserve(ctx, tx, map[int64]int{a.SlotID: released}, now); err != nil {
				return err
			}
		}
		if len(ns) > 0 {
			return s.notify(ctx, tx, ns)
		}
		return nil
	})
	if err != nil {
		return booking.WaitlistEntry{}, booking.Appointment{}, mapErr(err, "")
	}
	return e, a, nil
}

// LeaveWaitlist ends a patient's entry as booking.DecideLeave says.
func (s *Store) LeaveWaitlist(ctx context.Context, id, patientID int64, now time.Time) (booking.WaitlistEntry, error) {
	now = micro(now)
	var e booking.WaitlistEntry
	err := s.write(ctx, func(tx *sql.Tx) error {
		ep, ap, _, err := readEntry(ctx, tx, id)
		if err != nil {
			return err
		}
		d, err := booking.DecideLeave(ep, ap, patientID, now)
		if err != nil || !d.Changed {
			e = d.Answer
			return err
		}
		if d.CancelOffer {
			var party []booking.Appointment
			if ep.Size() > 1 {
				if party, err = offerAppointments(ctx, tx, *ep); err != nil {
					return err
				}
			}
			held := booking.HeldOf(booking.OfferPlaces(*ap, party))
			for i := range held {
				if err := moveTo(ctx, tx, &held[i], booking.StatusCancelled, now, "leave-waitlist"); err != nil {
					return err
				}
			}
			if err := s.reserve(ctx, tx, map[int64]int{ap.SlotID: len(held)}, now); err != nil {
				return err
			}
		}
		e = d.Answer
		if _, err := tx.ExecContext(ctx, `UPDATE waitlist_entries SET state = ?, updated_at = ? WHERE id = ?`, e.State, ts(e.UpdatedAt), e.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: "leave", From: ep.State, Entry: e}))
	})
	if err != nil {
		return booking.WaitlistEntry{}, mapErr(err, "")
	}
	return e, nil
}

// waitingForSQL reads the waiting entries that may match a slot, in request
// order; a departed patient's are passed over, and the place goes on (a
// party's too when one of its people has left).
const waitingForSQL = `SELECT ` + entryCols + ` FROM waitlist_entries w
	WHERE w.state = ` + booking.EntryWaitingSQL + ` AND (w.doctor_id = ?1 OR w.department_id = ?2) AND w.from_at <= ?3 AND w.to_at > ?3
	  AND EXISTS (SELECT 1 FROM patients p WHERE p.id = w.patient_id AND p.active)
	  AND NOT EXISTS (SELECT 1 FROM patients p WHERE p.id IN (SELECT value FROM json_each(w.party_ids)) AND NOT p.active)
	ORDER BY w.created_at, w.id LIMIT 1000`

// reserve keeps released places for matching waiting entries
// (booking.ToReserve) and writes the slot's offer job.
func (s *Store) reserve(ctx context.Context, tx *sql.Tx, released map[int64]int, now time.Time) error {
	for slotID, n := range released {
		sl, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, slotID))
		if err != nil {
			return err
		}
		if sl.RoundID != 0 {
			continue // a round's places are allocated by its round, not waited for
		}
		if err := tx.QueryRowContext(ctx, `SELECT offer_pending FROM slots WHERE id = ?`, slotID).Scan(&sl.OfferPending); err != nil {
			return err
		}
		d, err := scanDoctor(tx.QueryRowContext(ctx, `SELECT `+doctorCols+` FROM resources WHERE id = ?`, sl.DoctorID))
		if err != nil {
			return err
		}
		waiting, err := queryEntries(ctx, tx, waitingForSQL, sl.DoctorID, d.DepartmentID, ts(sl.StartAt))
		if err != nil {
			return err
		}
		k := booking.ToReserve(booking.ReserveReads{Slot: sl, Doctor: d, Released: n, Waiting: waiting}, now)
		if k == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE slots SET booked_count = booked_count + ?2, offer_pending = offer_pending + ?2 WHERE id = ?1`, slotID, k); err != nil {
			return err
		}
		if err := s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyOfferDue, SlotID: slotID}}); err != nil {
			return err
		}
	}
	return nil
}

// release applies what a transaction that released places owes the
// waiting list (booking.Release): end the entries of the offers among
// them, keep the places for the entries waiting.
func (s *Store) release(ctx context.Context, tx *sql.Tx, r booking.Release, now time.Time) error {
	if len(r.Places) == 0 {
		return nil
	}
	for st, ids := range r.EndOffers {
		j, _ := json.Marshal(ids)
		if _, err := tx.ExecContext(ctx, `UPDATE waitlist_entries SET state = ?, updated_at = ?
			WHERE appointment_id IN (SELECT value FROM json_each(?)) AND state = `+booking.EntryOfferedSQL,
			st, ts(now), string(j)); err != nil {
			return err
		}
	}
	return s.reserve(ctx, tx, r.Places, now)
}

// MakeOffers gives a slot's pending places to the earliest matching
// waiting entries (booking.DecideOffers); see postgres.Store.MakeOffers.
func (s *Store) MakeOffers(ctx context.Context, slotID int64, now time.Time) ([]booking.Appointment, error) {
	now = micro(now)
	var out []booking.Appointment
	err := s.write(ctx, func(tx *sql.Tx) error {
		var rd booking.OfferReads
		var offerMin sql.NullInt64
		sl, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, slotID))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rd.Slot = sl
		if err := tx.QueryRowContext(ctx, `SELECT s.offer_pending, sc.offer_minutes FROM slots s
			LEFT JOIN schedules sc ON sc.id = s.schedule_id WHERE s.id = ?`, slotID).Scan(&rd.Slot.OfferPending, &offerMin); err != nil {
			return err
		}
		if rd.Slot.OfferPending == 0 {
			return nil
		}
		rd.OfferMinutes = int(offerMin.Int64)
		if rd.Doctor, err = scanDoctor(tx.QueryRowContext(ctx, `SELECT `+doctorCols+` FROM resources WHERE id = ?`, sl.DoctorID)); err != nil {
			return err
		}
		if rd.Waiting, err = queryEntries(ctx, tx, waitingForSQL, sl.DoctorID, rd.Doctor.DepartmentID, ts(sl.StartAt)); err != nil {
			return err
		}
		if rd.Busy, err = busyWaiting(ctx, tx, rd.Waiting, sl); err != nil {
			return err
		}
		for q := range takenNumbers(ctx, tx, slotID, &err) {
			rd.Taken = append(rd.Taken, q)
		}
		if err != nil {
			return err
		}
		d := booking.DecideOffers(rd, now)
		var ns []booking.Notification
		var audit []booking.AuditEntry
		for _, o := range d.Offers {
			as, es, err := writeOffer(ctx, tx, offerWrite{slot: sl, offer: o, action: booking.AuditOffer, now: now})
			if err != nil {
				return err
			}
			out, audit = append(out, as...), append(audit, es...)
			ns = append(ns, booking.Notification{Kind: booking.NotifyOffer, AppointmentID: as[len(as)-1].ID})
		}
		audit = append(audit, booking.AuditEndedEntries(ctx, now, rd.Waiting, d.Ended)...)
		if err := writeAudit(ctx, tx, audit...); err != nil {
			return err
		}
		for _, id := range d.Ended {
			if _, err := tx.ExecContext(ctx, `UPDATE waitlist_entries SET state = `+booking.EntryFulfilledSQL+`, updated_at = ? WHERE id = ? AND state = `+booking.EntryWaitingSQL, ts(now), id); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE slots SET offer_pending = offer_pending - ?2 - ?3, booked_count = booked_count - ?3 WHERE id = ?1`,
			slotID, d.Offered(), d.Return); err != nil {
			return err
		}
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

// WaitlistCounts counts the live entries by state.
func (s *Store) WaitlistCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT state, count(*) FROM waitlist_entries WHERE state IN `+booking.LiveEntriesSQL+` GROUP BY state`)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := map[string]int{booking.EntryWaiting: 0, booking.EntryOffered: 0}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, mapErr(err, "")
		}
		out[st] = n
	}
	return out, mapErr(rows.Err(), "")
}

// busyWaiting are the people of the waiting entries (a party's each) who
// already hold an active place in slot sl or overlapping it: an offer
// passes them by.
func busyWaiting(ctx context.Context, tx *sql.Tx, waiting []booking.WaitlistEntry, sl booking.Slot) (map[int64]bool, error) {
	patients := []int64{}
	for _, e := range waiting {
		patients = append(patients, e.PatientID)
		patients = append(patients, e.PatientIDs...)
	}
	j, _ := json.Marshal(patients)
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT patient_id FROM appointments
		WHERE patient_id IN (SELECT value FROM json_each(?1)) AND status IN `+booking.ActiveSQL+` AND round_id IS NULL
		  AND (slot_id = ?2 OR (start_at < ?4 AND end_at > ?3))`, string(j), sl.ID, ts(sl.StartAt), ts(sl.EndAt))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	busy := map[int64]bool{}
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		busy[p] = true
	}
	return busy, rows.Err()
}

// offerWrite is one offer to write: offer of slot's places, audited as
// action, its entry on site (a standby's; 0 for a waiting list's).
type offerWrite struct {
	slot   booking.Slot
	offer  booking.Offer
	action string
	site   int64
	now    time.Time
}

// writeOffer writes w's offer, as the waiting list's and the leftovers'
// offers both are: a HELD appointment for each of its people on its
// numbers (key OfferKey), the entry OFFERED holding its first, and their
// audit entries. It returns the appointments, the entry's last.
func writeOffer(ctx context.Context, tx *sql.Tx, w offerWrite) ([]booking.Appointment, []booking.AuditEntry, error) {
	o, sl, now := w.offer, w.slot, w.now
	var as []booking.Appointment
	var es []booking.AuditEntry
	for i, p := range o.PatientIDs {
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at) VALUES (?, ?, `+booking.StatusHeldSQL+`, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			sl.ID, p, o.Queues[i], ts(sl.StartAt), ts(sl.EndAt), booking.OfferKey(o.EntryID, sl.ID),
			booking.Fingerprint(sl.ID), ts(o.ExpiresAt), ts(now), ts(now)).Scan(&id); err != nil {
			return nil, nil, err
		}
		a, err := getAppt(ctx, tx, id)
		if err != nil {
			return nil, nil, err
		}
		as = append(as, a)
		es = append(es, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: w.action, Appointment: a}))
	}
	// The entry's own place last, as the answer lists it.
	as = append(as[1:], as[0])
	es = append(es[1:], es[0])
	a := as[len(as)-1]
	if _, err := tx.ExecContext(ctx, `UPDATE waitlist_entries SET state = `+booking.EntryOfferedSQL+`, appointment_id = ?, slot_id = ?,
		offer_expires_at = ?, updated_at = ? WHERE id = ? AND state = `+booking.EntryWaitingSQL, a.ID, sl.ID, ts(o.ExpiresAt), ts(now), o.EntryID); err != nil {
		return nil, nil, err
	}
	es = append(es, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: w.action, From: booking.EntryWaiting, Entry: booking.WaitlistEntry{ID: o.EntryID,
		PatientID: o.PatientID, SiteID: w.site, State: booking.EntryOffered, AppointmentID: a.ID}}))
	return as, es, nil
}
