package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// Standby for leftover doses (booking/standby.go), as in
// postgres/standby.go; the single writer stands in for the slot lock.

const standbyPolicySQL = `SELECT coalesce(p.enabled, 0), coalesce(p.hold_minutes, ?2), coalesce(p.at_once, 0)
	FROM sites s LEFT JOIN site_standby_policy p ON p.site_id = s.id WHERE s.id = ?1`

// StandbyPolicy reads a site's leftover policy (the default when none is
// written); a site that does not exist is not found.
func (s *Store) StandbyPolicy(ctx context.Context, siteID int64) (booking.StandbyPolicy, error) {
	p := booking.DefaultStandbyPolicy(siteID)
	err := s.reader.QueryRowContext(ctx, standbyPolicySQL, siteID, booking.DefaultLeftoverHoldMinutes).Scan(&p.Enabled, &p.HoldMinutes, &p.AtOnce)
	if err != nil {
		return booking.StandbyPolicy{}, mapErr(err, "site")
	}
	return p, nil
}

// SetStandbyPolicy writes a site's leftover policy, audited.
func (s *Store) SetStandbyPolicy(ctx context.Context, p booking.StandbyPolicy, now time.Time) (booking.StandbyPolicy, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		before := booking.DefaultStandbyPolicy(p.SiteID)
		if err := tx.QueryRowContext(ctx, standbyPolicySQL, p.SiteID, booking.DefaultLeftoverHoldMinutes).
			Scan(&before.Enabled, &before.HoldMinutes, &before.AtOnce); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO site_standby_policy (site_id, enabled, hold_minutes, at_once) VALUES (?1, ?2, ?3, ?4)
			ON CONFLICT (site_id) DO UPDATE SET enabled = ?2, hold_minutes = ?3, at_once = ?4`, p.SiteID, p.Enabled, p.HoldMinutes, p.AtOnce); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditStandbyPolicy(ctx, now, before, p))
	})
	if err != nil {
		return booking.StandbyPolicy{}, mapErr(err, "site")
	}
	return p, nil
}

// LeftoverSlots lists up to limit slots the leftover scan may offer at
// now; see postgres.Store.LeftoverSlots.
func (s *Store) LeftoverSlots(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := queryIDs(ctx, s.reader, `SELECT s.id FROM slots s
		JOIN resources r ON r.id = s.resource_id JOIN departments d ON d.id = r.department_id
		JOIN site_standby_policy p ON p.site_id = d.site_id AND p.enabled
		WHERE s.status = `+booking.SlotOpenSQL+` AND s.round_id IS NULL AND s.booked_count < s.capacity
		  AND s.start_at > ?1 - 48 * 3600 * 1000000
		  AND s.start_at < ?1 - (SELECT check_in_after_minutes FROM clinic_policy WHERE id = 1) * 60 * 1000000
		  AND EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.site_id = d.site_id AND w.state = `+booking.EntryWaitingSQL+`
		        AND w.from_at <= s.start_at AND w.to_at > s.start_at)
		ORDER BY s.start_at, s.id LIMIT ?2`, ts(now), limit)
	return ids, mapErr(err, "")
}

const standbysForSQL = `SELECT ` + entryCols + ` FROM waitlist_entries w
	WHERE w.state = ` + booking.EntryWaitingSQL + ` AND w.site_id = ?1 AND w.from_at <= ?2 AND w.to_at > ?2
	  AND EXISTS (SELECT 1 FROM patients p WHERE p.id = w.patient_id AND p.active)
	ORDER BY w.created_at, w.id LIMIT 1000`

// OfferLeftovers offers a slot's places left to the site's standbys
// (booking.DecideLeftovers); see postgres.Store.OfferLeftovers.
func (s *Store) OfferLeftovers(ctx context.Context, slotID int64, now time.Time) ([]booking.Appointment, error) {
	now = micro(now)
	var out []booking.Appointment
	err := s.write(ctx, func(tx *sql.Tx) error {
		var rd booking.LeftoverReads
		sl, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, slotID))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rd.Slot = sl
		var siteID int64
		var zone string
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(d.site_id, 0), r.timezone FROM resources r
			LEFT JOIN departments d ON d.id = r.department_id WHERE r.id = ?`, sl.DoctorID).Scan(&siteID, &zone); err != nil {
			return err
		}
		if siteID == 0 {
			return nil
		}
		rd.Zone, _ = time.LoadLocation(zone) // a zone that cannot be loaded counts as UTC
		rd.Standby = booking.DefaultStandbyPolicy(siteID)
		if err := tx.QueryRowContext(ctx, standbyPolicySQL, siteID, booking.DefaultLeftoverHoldMinutes).
			Scan(&rd.Standby.Enabled, &rd.Standby.HoldMinutes, &rd.Standby.AtOnce); err != nil {
			return err
		}
		if !rd.Standby.Enabled {
			return nil
		}
		if err := tx.QueryRowContext(ctx, `SELECT check_in_before_minutes, check_in_after_minutes FROM clinic_policy WHERE id = 1`).
			Scan(&rd.Policy.CheckInBeforeMinutes, &rd.Policy.CheckInAfterMinutes); err != nil {
			return err
		}
		if rd.Waiting, err = queryEntries(ctx, tx, standbysForSQL, siteID, ts(sl.StartAt)); err != nil || len(rd.Waiting) == 0 {
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
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM waitlist_entries w JOIN appointments a ON a.id = w.appointment_id
			WHERE w.slot_id = ? AND w.site_id IS NOT NULL AND w.state = `+booking.EntryOfferedSQL+` AND a.status = `+booking.StatusHeldSQL,
			slotID).Scan(&rd.Out); err != nil {
			return err
		}
		offers := booking.DecideLeftovers(rd, now)
		if len(offers) == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE slots SET booked_count = booked_count + ? WHERE id = ?`, len(offers), slotID); err != nil {
			return err
		}
		var ns []booking.Notification
		var audit []booking.AuditEntry
		for _, o := range offers {
			as, es, err := writeOffer(ctx, tx, offerWrite{slot: sl, offer: o, action: booking.AuditLeftoverOffer, site: siteID, now: now})
			if err != nil {
				return err
			}
			out, audit = append(out, as...), append(audit, es...)
			ns = append(ns, booking.Notification{Kind: booking.NotifyLeftoverOffer, AppointmentID: as[len(as)-1].ID})
		}
		if err := writeAudit(ctx, tx, audit...); err != nil {
			return err
		}
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

// StandbyDay counts a site's standbys for the local day [from, to).
func (s *Store) StandbyDay(ctx context.Context, siteID int64, from, to time.Time) (booking.StandbyDay, error) {
	d := booking.StandbyDay{SiteID: siteID}
	err := s.reader.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM waitlist_entries WHERE site_id = s.id AND state = `+booking.EntryWaitingSQL+` AND from_at < ?3 AND to_at > ?2),
		(SELECT count(*) FROM waitlist_entries w JOIN slots t ON t.id = w.slot_id WHERE w.site_id = s.id AND w.state = `+booking.EntryOfferedSQL+`
		    AND t.start_at >= ?2 AND t.start_at < ?3),
		(SELECT count(*) FROM waitlist_entries w JOIN slots t ON t.id = w.slot_id WHERE w.site_id = s.id AND w.state = `+booking.EntryAcceptedSQL+`
		    AND t.start_at >= ?2 AND t.start_at < ?3)
		FROM sites s WHERE s.id = ?1`, siteID, ts(from), ts(to)).Scan(&d.Waiting, &d.Offered, &d.Accepted)
	if err != nil {
		return booking.StandbyDay{}, mapErr(err, "site")
	}
	return d, nil
}
