package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// Standby for leftover doses (booking/standby.go): the site's policy, the
// leftover scan's candidate slots and its offers, the staff's day count.

// StandbyPolicy reads a site's leftover policy (the default when none is
// written); a site that does not exist is not found.
func (s *Store) StandbyPolicy(ctx context.Context, siteID int64) (booking.StandbyPolicy, error) {
	p := booking.DefaultStandbyPolicy(siteID)
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(p.enabled, false), COALESCE(p.hold_minutes, $2), COALESCE(p.at_once, 0)
		FROM sites s LEFT JOIN site_standby_policy p ON p.site_id = s.id WHERE s.id = $1`, siteID, booking.DefaultLeftoverHoldMinutes).
		Scan(&p.Enabled, &p.HoldMinutes, &p.AtOnce)
	if err != nil {
		return booking.StandbyPolicy{}, translate(err, "site")
	}
	return p, nil
}

// SetStandbyPolicy writes a site's leftover policy, audited.
func (s *Store) SetStandbyPolicy(ctx context.Context, p booking.StandbyPolicy, now time.Time) (booking.StandbyPolicy, error) {
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		before := booking.DefaultStandbyPolicy(p.SiteID)
		err := tx.QueryRow(ctx, `SELECT COALESCE(p.enabled, false), COALESCE(p.hold_minutes, $2), COALESCE(p.at_once, 0)
			FROM sites s LEFT JOIN site_standby_policy p ON p.site_id = s.id WHERE s.id = $1 FOR UPDATE OF s`, p.SiteID,
			booking.DefaultLeftoverHoldMinutes).Scan(&before.Enabled, &before.HoldMinutes, &before.AtOnce)
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO site_standby_policy (site_id, enabled, hold_minutes, at_once) VALUES ($1, $2, $3, $4)
			ON CONFLICT (site_id) DO UPDATE SET enabled = $2, hold_minutes = $3, at_once = $4`, p.SiteID, p.Enabled, p.HoldMinutes, p.AtOnce); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditStandbyPolicy(ctx, now, before, p)}, nil
	})
	if err != nil {
		return booking.StandbyPolicy{}, translate(err, "site")
	}
	return p, nil
}

// LeftoverSlots lists up to limit slots the leftover scan may offer at
// now: open ordinary slots with places left, at a site whose policy is on,
// past their check-in window (the clinic's), started within the last two
// days (booking.LeftoverOpen decides the day), with a standby waiting.
func (s *Store) LeftoverSlots(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.id FROM slots s
		JOIN resources r ON r.id = s.resource_id JOIN departments d ON d.id = r.department_id
		JOIN site_standby_policy p ON p.site_id = d.site_id AND p.enabled
		WHERE s.status = `+booking.SlotOpenSQL+` AND s.round_id IS NULL AND s.booked_count < s.capacity
		  AND s.start_at > $1::timestamptz - interval '48 hours'
		  AND s.start_at < $1::timestamptz - make_interval(mins => (SELECT check_in_after_minutes FROM clinic_policy WHERE id = 1))
		  AND EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.site_id = d.site_id AND w.state = `+booking.EntryWaitingSQL+`
		        AND w.from_at <= s.start_at AND w.to_at > s.start_at)
		ORDER BY s.start_at, s.id LIMIT $2`, now, limit)
	if err != nil {
		return nil, translate(err, "")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, translate(err, "")
}

// sqlStandbysFor reads a site's waiting standbys whose period holds a
// start, in opt-in order; a departed patient's are passed over.
const sqlStandbysFor = `SELECT ` + entryColumns + ` FROM waitlist_entries w
	WHERE w.state = ` + booking.EntryWaitingSQL + ` AND w.site_id = $1 AND w.from_at <= $2 AND w.to_at > $2
	  AND EXISTS (SELECT 1 FROM patients p WHERE p.id = w.patient_id AND p.active)
	ORDER BY w.created_at, w.id LIMIT 1000`

// OfferLeftovers offers a slot's places left to the site's standbys
// (booking.DecideLeftovers) under the slot's lock: one HELD appointment
// each, counted in booked_count, its entry OFFERED. Running it again finds
// the places taken and offers nothing more.
func (s *Store) OfferLeftovers(ctx context.Context, slotID int64, now time.Time) ([]booking.Appointment, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out []booking.Appointment
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var rd booking.LeftoverReads
		var siteID int64
		var zone string
		err := tx.QueryRow(ctx, `SELECT `+slotColumnsOf("s")+`, COALESCE(d.site_id, 0), r.timezone FROM slots s
			JOIN resources r ON r.id = s.resource_id LEFT JOIN departments d ON d.id = r.department_id
			WHERE s.id = $1 FOR UPDATE OF s`, slotID).Scan(append(slotScanTargets(&rd.Slot), &siteID, &zone)...)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && siteID == 0 {
			return nil
		}
		if err != nil {
			return err
		}
		rd.Slot.StartAt, rd.Slot.EndAt, rd.Slot.OpensAt = rd.Slot.StartAt.UTC(), rd.Slot.EndAt.UTC(), rd.Slot.OpensAt.UTC()
		rd.Zone, _ = time.LoadLocation(zone) // a zone that cannot be loaded counts as UTC
		rd.Standby = booking.DefaultStandbyPolicy(siteID)
		if err := tx.QueryRow(ctx, `SELECT COALESCE((SELECT enabled FROM site_standby_policy WHERE site_id = $1), false),
			COALESCE((SELECT hold_minutes FROM site_standby_policy WHERE site_id = $1), $2),
			COALESCE((SELECT at_once FROM site_standby_policy WHERE site_id = $1), 0),
			check_in_before_minutes, check_in_after_minutes FROM clinic_policy WHERE id = 1`, siteID, booking.DefaultLeftoverHoldMinutes).
			Scan(&rd.Standby.Enabled, &rd.Standby.HoldMinutes, &rd.Standby.AtOnce, &rd.Policy.CheckInBeforeMinutes, &rd.Policy.CheckInAfterMinutes); err != nil {
			return err
		}
		if !rd.Standby.Enabled {
			return nil
		}
		rows, err := tx.Query(ctx, sqlStandbysFor, siteID, rd.Slot.StartAt)
		if rd.Waiting, err = collectEntries(rows, err); err != nil {
			return err
		}
		if len(rd.Waiting) == 0 {
			return nil
		}
		if rd.Busy, err = busyWaiting(ctx, tx, rd.Waiting, slotID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, sqlTakenNumbers, slotID).Scan(&rd.Taken); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM waitlist_entries w JOIN appointments a ON a.id = w.appointment_id
			WHERE w.slot_id = $1 AND w.site_id IS NOT NULL AND w.state = `+booking.EntryOfferedSQL+` AND a.status = `+booking.StatusHeldSQL,
			slotID).Scan(&rd.Out); err != nil {
			return err
		}
		offers := booking.DecideLeftovers(rd, now)
		if len(offers) == 0 {
			return nil
		}
		// The places first: the CHECK on booked_count refuses an oversell
		// even if a decision were wrong.
		if _, err := tx.Exec(ctx, `UPDATE slots SET booked_count = booked_count + $2 WHERE id = $1`, slotID, len(offers)); err != nil {
			return err
		}
		var ns []booking.Notification
		var audit []booking.AuditEntry
		for _, o := range offers {
			as, es, err := writeOffer(ctx, tx, offerWrite{slot: rd.Slot, offer: o, action: booking.AuditLeftoverOffer, site: siteID, now: now})
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
		return nil, translate(err, "")
	}
	return out, nil
}

// StandbyDay counts a site's standbys for the local day [from, to): live
// ones whose period meets it, and the leftover offers accepted in it.
func (s *Store) StandbyDay(ctx context.Context, siteID int64, from, to time.Time) (booking.StandbyDay, error) {
	d := booking.StandbyDay{SiteID: siteID}
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM waitlist_entries WHERE site_id = s.id AND state = `+booking.EntryWaitingSQL+` AND from_at < $3 AND to_at > $2),
		(SELECT count(*) FROM waitlist_entries w JOIN slots t ON t.id = w.slot_id WHERE w.site_id = s.id AND w.state = `+booking.EntryOfferedSQL+`
		    AND t.start_at >= $2 AND t.start_at < $3),
		(SELECT count(*) FROM waitlist_entries w JOIN slots t ON t.id = w.slot_id WHERE w.site_id = s.id AND w.state = `+booking.EntryAcceptedSQL+`
		    AND t.start_at >= $2 AND t.start_at < $3)
		FROM sites s WHERE s.id = $1`, siteID, from, to).Scan(&d.Waiting, &d.Offered, &d.Accepted)
	if err != nil {
		return booking.StandbyDay{}, translate(err, "site")
	}
	return d, nil
}
