package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const entryColumns = `w.id, w.patient_id, COALESCE(w.doctor_id, 0), COALESCE(w.department_id, 0), w.from_at, w.to_at,
	w.part_of_day, w.state, COALESCE(w.appointment_id, 0), COALESCE(w.slot_id, 0), w.offer_expires_at,
	w.created_at, w.updated_at, w.idempotency_key, w.fingerprint, w.party_ids, COALESCE(w.site_id, 0)`

func scanEntry(r pgx.Row, extra ...any) (booking.WaitlistEntry, error) {
	var e booking.WaitlistEntry
	err := r.Scan(append([]any{&e.ID, &e.PatientID, &e.DoctorID, &e.DepartmentID, &e.From, &e.To, &e.PartOfDay, &e.State,
		&e.AppointmentID, &e.SlotID, &e.OfferExpiresAt, &e.CreatedAt, &e.UpdatedAt, &e.IdempotencyKey, &e.Fingerprint, &e.PatientIDs, &e.SiteID}, extra...)...)
	if len(e.PatientIDs) == 0 {
		e.PatientIDs = nil
	}
	e.PartySize = e.Size()
	e.From, e.To, e.CreatedAt, e.UpdatedAt = e.From.UTC(), e.To.UTC(), e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	if e.OfferExpiresAt != nil {
		t := e.OfferExpiresAt.UTC()
		e.OfferExpiresAt = &t
	}
	return e, err
}

func collectEntries(rows pgx.Rows, err error) ([]booking.WaitlistEntry, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) { return scanEntry(r) })
}

// sqlEntryPosition is an entry's position: 1 + other patients' live
// entries for the same doctor or department whose period overlaps it, made
// before it (the ones that compete with it for a place). Its own state
// decides whether it has one (0 when it is not waiting).
const sqlEntryPosition = `SELECT CASE WHEN w.state = ` + booking.EntryWaitingSQL + ` THEN 1 + (SELECT count(*) FROM waitlist_entries o
		WHERE o.state IN ` + booking.LiveEntriesSQL + ` AND o.doctor_id IS NOT DISTINCT FROM w.doctor_id
		  AND o.department_id IS NOT DISTINCT FROM w.department_id AND o.site_id IS NOT DISTINCT FROM w.site_id
		  AND o.patient_id <> w.patient_id AND o.from_at < w.to_at AND o.to_at > w.from_at
		  AND (o.created_at, o.id) < (w.created_at, w.id))
	ELSE 0 END FROM waitlist_entries w WHERE w.id = $1`

// JoinWaitlist adds a WAITING entry; the same (patient, key) returns the
// existing one (existed), or key-reused for another request.
func (s *Store) JoinWaitlist(ctx context.Context, e booking.WaitlistEntry, now time.Time) (booking.WaitlistEntry, bool, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out booking.WaitlistEntry
	existed := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanEntry(tx.QueryRow(ctx, `INSERT INTO waitlist_entries (patient_id, doctor_id, department_id,
			from_at, to_at, part_of_day, state, idempotency_key, fingerprint, created_at, updated_at, party_ids, site_id)
			VALUES ($1, $2, $3, $4, $5, $6, `+booking.EntryWaitingSQL+`, $7, $8, $9, $9, $10, $11)
			ON CONFLICT (patient_id, idempotency_key) DO NOTHING RETURNING `+entryReturning,
			e.PatientID, nullID(e.DoctorID), nullID(e.DepartmentID), e.From, e.To, e.PartOfDay, e.IdempotencyKey, e.Fingerprint, now, partyIDs(e), nullID(e.SiteID)))
		if errors.Is(err, pgx.ErrNoRows) {
			existed = true
			out, err = scanEntry(tx.QueryRow(ctx, `SELECT `+entryColumns+` FROM waitlist_entries w
				WHERE patient_id = $1 AND idempotency_key = $2`, e.PatientID, e.IdempotencyKey))
			if err == nil {
				err = booking.JoinReplay(out, e.Fingerprint)
			}
		}
		if err != nil {
			return err
		}
		if !existed {
			if err := writeAudit(ctx, tx, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: "join", Entry: out})); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, sqlEntryPosition, out.ID).Scan(&out.Position)
	})
	if err != nil {
		return booking.WaitlistEntry{}, false, translateEntry(err)
	}
	return out, existed, nil
}

// entryReturning is entryColumns for a RETURNING clause (no alias).
var entryReturning = `id, patient_id, COALESCE(doctor_id, 0), COALESCE(department_id, 0), from_at, to_at,
	part_of_day, state, COALESCE(appointment_id, 0), COALESCE(slot_id, 0), offer_expires_at,
	created_at, updated_at, idempotency_key, fingerprint, party_ids, COALESCE(site_id, 0)`

// partyIDs is an entry's party_ids: its people, none for one person.
func partyIDs(e booking.WaitlistEntry) []int64 {
	if e.Size() == 1 {
		return []int64{}
	}
	return e.PatientIDs
}

// offerAppointments locks and reads every appointment of e's offer (a
// party's: one per person, sharing the offer's key), in queue order.
func offerAppointments(ctx context.Context, tx pgx.Tx, e booking.WaitlistEntry) ([]booking.Appointment, error) {
	rows, err := tx.Query(ctx, `SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.slot_id = $1 AND a.patient_id = ANY($2) AND a.idempotency_key = $3 ORDER BY a.queue_no FOR UPDATE OF a`,
		e.SlotID, e.PatientIDs, booking.OfferKey(e.ID, e.SlotID))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
}

// offerMembers are the appointments an answer to e's offer moves: the
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

func translateEntry(err error) error {
	switch constraintOf(err) {
	case "waitlist_entries_doctor_id_fkey":
		return booking.NotFound("doctor")
	case "waitlist_entries_department_id_fkey":
		return booking.NotFound("department")
	case "waitlist_entries_site_id_fkey":
		return booking.NotFound("site")
	case "waitlist_entries_patient_id_fkey":
		return booking.NotFound("patient")
	}
	return translate(err, "waitlist entry")
}

// ListWaitlist lists a patient's entries, newest first, with positions.
func (s *Store) ListWaitlist(ctx context.Context, patientID int64) ([]booking.WaitlistEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+entryColumns+` FROM waitlist_entries w WHERE w.patient_id = $1 ORDER BY w.id DESC LIMIT 200`, patientID)
	es, err := collectEntries(rows, err)
	if err != nil {
		return nil, translate(err, "")
	}
	for i := range es {
		if err := s.pool.QueryRow(ctx, sqlEntryPosition, es[i].ID).Scan(&es[i].Position); err != nil {
			return nil, translate(err, "")
		}
	}
	return es, nil
}

// ListOffers lists the entries holding an offer in a doctor's slots
// starting in [from, to), for the staff's day view.
func (s *Store) ListOffers(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.WaitlistEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+entryColumns+` FROM waitlist_entries w JOIN slots s ON s.id = w.slot_id
		WHERE w.state = `+booking.EntryOfferedSQL+` AND s.resource_id = $1 AND s.start_at >= $2 AND s.start_at < $3 ORDER BY s.start_at, w.id`,
		doctorID, from, to)
	es, err := collectEntries(rows, err)
	return es, translate(err, "")
}

// lockEntry locks an entry's offered slot (the lock order: slot first),
// then the entry and its offer's appointment.
func lockEntry(ctx context.Context, tx pgx.Tx, id int64) (*booking.WaitlistEntry, *booking.Appointment, booking.Slot, error) {
	var sl booking.Slot
	if _, err := tx.Exec(ctx, `SELECT 1 FROM slots WHERE id = (SELECT slot_id FROM waitlist_entries WHERE id = $1) FOR UPDATE`, id); err != nil {
		return nil, nil, sl, err
	}
	e, err := scanEntry(tx.QueryRow(ctx, `SELECT `+entryColumns+` FROM waitlist_entries w WHERE w.id = $1 FOR UPDATE`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, sl, nil
	}
	if err != nil || e.AppointmentID == 0 {
		return &e, nil, sl, err
	}
	a, err := scanAppointment(tx.QueryRow(ctx, `SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id WHERE a.id = $1`, e.AppointmentID))
	if err != nil {
		return &e, nil, sl, err
	}
	sl, err = scanSlot(tx.QueryRow(ctx, sqlSlotByID, e.SlotID))
	return &e, &a, sl, err
}

// AnswerOffer accepts or declines an entry's running offer (DecideAnswer).
// A decline cancels the offer's appointment, which passes the place on.
func (s *Store) AnswerOffer(ctx context.Context, ans booking.OfferAnswer, now time.Time) (booking.WaitlistEntry, booking.Appointment, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var e booking.WaitlistEntry
	var a booking.Appointment
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		ep, ap, sl, err := lockEntry(ctx, tx, ans.EntryID)
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
				if err := transition(ctx, tx, m, d.To, now, action); err != nil {
					return err
				}
				if d.To == booking.StatusBooked {
					if _, err := tx.Exec(ctx, `UPDATE appointments SET hold_expires_at = NULL WHERE id = $1`, m.ID); err != nil {
						return err
					}
					m.HoldExpiresAt = nil
				}
				if d.To == booking.StatusCancelled {
					released++
				}
			case d.HoldExpiresAt != nil:
				if _, err := tx.Exec(ctx, `UPDATE appointments SET hold_expires_at = $2, updated_at = $3 WHERE id = $1`, m.ID, *d.HoldExpiresAt, now); err != nil {
					return err
				}
				m.HoldExpiresAt, m.UpdatedAt = d.HoldExpiresAt, now
			}
			if d.Notify != "" {
				ns = append(ns, booking.Notification{Kind: d.Notify, AppointmentID: m.ID})
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET state = $2, updated_at = $3 WHERE id = $1`, e.ID, d.Entry, now); err != nil {
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
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return booking.WaitlistEntry{}, booking.Appointment{}, translate(err, "")
	}
	return e, a, nil
}

// LeaveWaitlist ends a patient's entry as booking.DecideLeave says:
// CANCELLED, with its running offer cancelled (the place passes on), or
// answered as it is when it has ended.
func (s *Store) LeaveWaitlist(ctx context.Context, id, patientID int64, now time.Time) (booking.WaitlistEntry, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var e booking.WaitlistEntry
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		ep, ap, _, err := lockEntry(ctx, tx, id)
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
				if err := transition(ctx, tx, &held[i], booking.StatusCancelled, now, "leave-waitlist"); err != nil {
					return err
				}
			}
			if err := s.reserve(ctx, tx, map[int64]int{ap.SlotID: len(held)}, now); err != nil {
				return err
			}
		}
		e = d.Answer
		if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET state = $2, updated_at = $3 WHERE id = $1`, e.ID, e.State, e.UpdatedAt); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: "leave", From: ep.State, Entry: e}))
	})
	if err != nil {
		return booking.WaitlistEntry{}, translate(err, "")
	}
	return e, nil
}

// endOffers ends the OFFERED entries whose offer appointments just left
// HELD (declined by a cancel, timed out), in the states booking.Released
// gave them. Cheap when none is an offer: one indexed update that matches
// nothing.
func endOffers(ctx context.Context, tx pgx.Tx, byState map[string][]int64, now time.Time) error {
	for st, ids := range byState {
		if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET state = $2, updated_at = $3
			WHERE appointment_id = ANY($1) AND state = `+booking.EntryOfferedSQL, ids, st, now); err != nil {
			return err
		}
	}
	return nil
}

// sqlWaitingFor reads the waiting entries that may match a slot (doctor
// or department, period), in request order; the part of day is left to
// booking.EntryMatches. A patient who has left (deactivated, erased)
// keeps no entry live: theirs are passed over, and the place goes on; so
// is a party one of whose people has left.
const sqlWaitingFor = `SELECT ` + entryColumns + ` FROM waitlist_entries w
	WHERE w.state = ` + booking.EntryWaitingSQL + ` AND (w.doctor_id = $1 OR w.department_id = $2) AND w.from_at <= $3 AND w.to_at > $3
	  AND EXISTS (SELECT 1 FROM patients p WHERE p.id = w.patient_id AND p.active)
	  AND NOT EXISTS (SELECT 1 FROM patients p WHERE p.id = ANY(w.party_ids) AND NOT p.active)
	ORDER BY w.created_at, w.id LIMIT 1000`

// reserve keeps, of the places just released in each (locked) slot, as
// many as waiting entries match it (booking.ToReserve): they stay counted
// in booked_count as offer_pending, and one offer job per slot is written
// in this same transaction (NotifyOfferDue), so the places are offered
// before they return to open booking.
func (s *Store) reserve(ctx context.Context, tx pgx.Tx, released map[int64]int, now time.Time) error {
	for slotID, n := range released {
		sl, err := scanSlot(tx.QueryRow(ctx, sqlSlotByID, slotID))
		if err != nil {
			return err
		}
		if sl.RoundID != 0 {
			continue // a round's places are allocated by its round, not waited for
		}
		if err := tx.QueryRow(ctx, `SELECT offer_pending FROM slots WHERE id = $1`, slotID).Scan(&sl.OfferPending); err != nil {
			return err
		}
		d, err := scanDoctor(tx.QueryRow(ctx, `SELECT `+doctorColumns+` FROM resources WHERE id = $1`, sl.DoctorID))
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sqlWaitingFor, sl.DoctorID, d.DepartmentID, sl.StartAt)
		waiting, err := collectEntries(rows, err)
		if err != nil {
			return err
		}
		k := booking.ToReserve(booking.ReserveReads{Slot: sl, Doctor: d, Released: n, Waiting: waiting}, now)
		if k == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE slots SET booked_count = booked_count + $2, offer_pending = offer_pending + $2 WHERE id = $1`, slotID, k); err != nil {
			return err
		}
		if err := s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyOfferDue, SlotID: slotID}}); err != nil {
			return err
		}
	}
	return nil
}

// release applies what a transaction that released places owes the
// waiting list before it commits (booking.Release): end the entries of
// the offers among them, keep the places for the entries waiting.
func (s *Store) release(ctx context.Context, tx pgx.Tx, r booking.Release, now time.Time) error {
	if len(r.Places) == 0 {
		return nil
	}
	if err := endOffers(ctx, tx, r.EndOffers, now); err != nil {
		return err
	}
	return s.reserve(ctx, tx, r.Places, now)
}

// MakeOffers is the offer job's work for one slot: under the slot's lock,
// give its pending places to the earliest matching waiting entries as
// HELD appointments (booking.DecideOffers), return the rest to open
// booking, and end the entries whose patient is already served. Running it
// again after it committed finds nothing pending and changes nothing.
func (s *Store) MakeOffers(ctx context.Context, slotID int64, now time.Time) ([]booking.Appointment, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out []booking.Appointment
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var rd booking.OfferReads
		var offerMin *int
		err := tx.QueryRow(ctx, `SELECT `+slotColumnsOf("s")+`, s.offer_pending, sc.offer_minutes FROM slots s
			LEFT JOIN schedules sc ON sc.id = s.schedule_id WHERE s.id = $1 FOR UPDATE OF s`, slotID).Scan(
			append(slotScanTargets(&rd.Slot), &rd.Slot.OfferPending, &offerMin)...)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rd.Slot.StartAt, rd.Slot.EndAt, rd.Slot.OpensAt = rd.Slot.StartAt.UTC(), rd.Slot.EndAt.UTC(), rd.Slot.OpensAt.UTC()
		if rd.Slot.OfferPending == 0 {
			return nil
		}
		if offerMin != nil {
			rd.OfferMinutes = *offerMin
		}
		if rd.Doctor, err = scanDoctor(tx.QueryRow(ctx, `SELECT `+doctorColumns+` FROM resources WHERE id = $1`, rd.Slot.DoctorID)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sqlWaitingFor, rd.Slot.DoctorID, rd.Doctor.DepartmentID, rd.Slot.StartAt)
		if rd.Waiting, err = collectEntries(rows, err); err != nil {
			return err
		}
		if rd.Busy, err = busyWaiting(ctx, tx, rd.Waiting, slotID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, sqlTakenNumbers, slotID).Scan(&rd.Taken); err != nil {
			return err
		}
		d := booking.DecideOffers(rd, now)
		var ns []booking.Notification
		var audit []booking.AuditEntry
		for _, o := range d.Offers {
			as, es, err := writeOffer(ctx, tx, offerWrite{slot: rd.Slot, offer: o, action: booking.AuditOffer, now: now})
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
		if len(d.Ended) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET state = `+booking.EntryFulfilledSQL+`, updated_at = $2 WHERE id = ANY($1) AND state = `+booking.EntryWaitingSQL, d.Ended, now); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE slots SET offer_pending = offer_pending - $2 - $3, booked_count = booked_count - $3 WHERE id = $1`,
			slotID, d.Offered(), d.Return); err != nil {
			return err
		}
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// slotScanTargets are scanSlot's destinations.
func slotScanTargets(sl *booking.Slot) []any {
	return []any{&sl.ID, &sl.DoctorID, &sl.ScheduleID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount,
		&sl.OpensAt, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &sl.RoundID}
}

// WaitlistCounts counts the live entries by state, through the partial
// indexes of live entries.
func (s *Store) WaitlistCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT state, count(*) FROM waitlist_entries WHERE state IN `+booking.LiveEntriesSQL+` GROUP BY state`)
	if err != nil {
		return nil, translate(err, "")
	}
	out := map[string]int{booking.EntryWaiting: 0, booking.EntryOffered: 0}
	var st string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&st, &n}, func() error { out[st] = n; return nil })
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// busyWaiting are the people of the waiting entries (a party's each) who
// already hold an active place in slotID or overlapping it: an offer
// passes them by.
func busyWaiting(ctx context.Context, tx pgx.Tx, waiting []booking.WaitlistEntry, slotID int64) (map[int64]bool, error) {
	var patients []int64
	for _, e := range waiting {
		patients = append(patients, e.PatientID)
		patients = append(patients, e.PatientIDs...)
	}
	rows, err := tx.Query(ctx, `SELECT DISTINCT a.patient_id FROM appointments a JOIN slots t ON t.id = $1
		WHERE a.patient_id = ANY($2) AND a.status IN `+booking.ActiveSQL+` AND a.round_id IS NULL
		  AND (a.slot_id = t.id OR (a.start_at < t.end_at AND a.end_at > t.start_at))`, slotID, patients)
	busy, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(busy))
	for _, p := range busy {
		out[p] = true
	}
	return out, nil
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
func writeOffer(ctx context.Context, tx pgx.Tx, w offerWrite) ([]booking.Appointment, []booking.AuditEntry, error) {
	o, sl, now := w.offer, w.slot, w.now
	var as []booking.Appointment
	var es []booking.AuditEntry
	for i, p := range o.PatientIDs {
		a, err := scanAppointment(tx.QueryRow(ctx, `WITH a AS (INSERT INTO appointments (slot_id, patient_id, status, queue_no,
			start_at, end_at, idempotency_key, fingerprint, hold_expires_at, created_at, updated_at)
			VALUES ($1, $2, `+booking.StatusHeldSQL+`, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *)
			SELECT `+apptColumns+` FROM a JOIN slots s ON s.id = a.slot_id`,
			sl.ID, p, o.Queues[i], sl.StartAt, sl.EndAt, booking.OfferKey(o.EntryID, sl.ID),
			booking.Fingerprint(sl.ID), o.ExpiresAt, now))
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
	if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET state = `+booking.EntryOfferedSQL+`, appointment_id = $2, slot_id = $3,
		offer_expires_at = $4, updated_at = $5 WHERE id = $1 AND state = `+booking.EntryWaitingSQL, o.EntryID, a.ID, sl.ID, o.ExpiresAt, now); err != nil {
		return nil, nil, err
	}
	es = append(es, booking.AuditWaitlist(ctx, now, booking.WaitlistChange{Action: w.action, From: booking.EntryWaiting, Entry: booking.WaitlistEntry{ID: o.EntryID,
		PatientID: o.PatientID, SiteID: w.site, State: booking.EntryOffered, AppointmentID: a.ID}}))
	return as, es, nil
}
