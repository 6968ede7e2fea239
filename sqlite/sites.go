package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/slotd/slotd/booking"
)

// The clinic's sites (booking/sites.go).

const siteCols = `id, name, address, lat, lon, timezone, phone, opening_hours, created_at`

func scanSite(sc interface{ Scan(...any) error }) (booking.Site, error) {
	var v booking.Site
	var created int64
	var hours []byte
	if err := sc.Scan(&v.ID, &v.Name, &v.Address, &v.Lat, &v.Lon, &v.TimeZone, &v.Phone, &hours, &created); err != nil {
		return v, err
	}
	v.CreatedAt = fromTS(created)
	return v, json.Unmarshal(hours, &v.OpeningHours)
}

// hoursJSON is the opening_hours column of a validated site.
func hoursJSON(v booking.Site) (string, error) {
	b, err := json.Marshal(v.OpeningHours)
	return string(b), err
}

// CreateSite adds a site; a taken name is a conflict.
func (s *Store) CreateSite(ctx context.Context, v booking.Site) (booking.Site, error) {
	if err := v.Validate(); err != nil {
		return booking.Site{}, err
	}
	v.CreatedAt = micro(orNow(v.CreatedAt))
	hours, err := hoursJSON(v)
	if err != nil {
		return booking.Site{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO sites (name, address, lat, lon, timezone, phone, opening_hours, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, v.Name, v.Address, v.Lat, v.Lon, v.TimeZone, v.Phone,
			hours, ts(v.CreatedAt)).Scan(&v.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditSite(ctx, v.CreatedAt, nil, v))
	})
	if err != nil {
		return booking.Site{}, mapErr(err, "site")
	}
	return v, nil
}

// UpdateSite changes a site in one write transaction; the site is the
// staff's from then on (from_settings cleared).
func (s *Store) UpdateSite(ctx context.Context, id int64, u booking.SiteUpdate) (booking.Site, error) {
	var v booking.Site
	err := s.write(ctx, func(tx *sql.Tx) error {
		before, err := scanSite(tx.QueryRowContext(ctx, `SELECT `+siteCols+` FROM sites WHERE id = ?`, id))
		if err != nil {
			return notFoundAs(err, "site")
		}
		v = u.Apply(before)
		if err := v.Validate(); err != nil {
			return err
		}
		hours, err := hoursJSON(v)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sites SET name = ?, address = ?, lat = ?, lon = ?, timezone = ?, phone = ?,
			opening_hours = ?, from_settings = 0 WHERE id = ?`, v.Name, v.Address, v.Lat, v.Lon, v.TimeZone, v.Phone, hours, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditSite(ctx, time.Now(), &before, v))
	})
	if err != nil {
		return booking.Site{}, mapErr(err, "site")
	}
	return v, nil
}

// GetSite reads one site.
func (s *Store) GetSite(ctx context.Context, id int64) (booking.Site, error) {
	v, err := scanSite(s.reader.QueryRowContext(ctx, `SELECT `+siteCols+` FROM sites WHERE id = ?`, id))
	if err != nil {
		return booking.Site{}, mapErr(err, "site")
	}
	return v, nil
}

// ListSites lists the sites by id, one page at a time.
func (s *Store) ListSites(ctx context.Context, p booking.Page) ([]booking.Site, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+siteCols+` FROM sites WHERE id > ? ORDER BY id LIMIT ?`,
		p.After, rowLimit(p))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Site{}
	for rows.Next() {
		v, err := scanSite(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err(), "")
}

// FillFirstSite writes the clinic's settings over the placeholder site,
// if it is still one; not audited: it is configuration, not a change by
// anyone.
func (s *Store) FillFirstSite(ctx context.Context, v booking.Site) (bool, error) {
	if err := v.Validate(); err != nil {
		return false, err
	}
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sites SET name = ?, address = ?, lat = ?, lon = ?, timezone = ?, phone = ?,
			from_settings = 0 WHERE from_settings`, v.Name, v.Address, v.Lat, v.Lon, v.TimeZone, v.Phone)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, mapErr(err, "")
	}
	return n > 0, nil
}

// ListSitesNear lists the sites with a position by great-circle distance
// (haversine, booking.EarthRadiusKm) from the point, ties by id.
func (s *Store) ListSitesNear(ctx context.Context, q booking.SitesNear) ([]booking.SiteDistance, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+siteCols+`, 2 * ?3 * asin(sqrt(min(1,
			pow(sin(radians(lat - ?1) / 2), 2) + cos(radians(?1)) * cos(radians(lat)) * pow(sin(radians(lon - ?2) / 2), 2)))) AS km
		FROM sites WHERE lat IS NOT NULL ORDER BY km, id LIMIT ?4 OFFSET ?5`,
		// min and pow are SQLite's names for PostgreSQL's least and power.
		q.Lat, q.Lon, booking.EarthRadiusKm, rowLimit(booking.Page{Limit: q.Limit}), q.Skip)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.SiteDistance{}
	for rows.Next() {
		var v booking.SiteDistance
		var created int64
		var hours []byte
		if err := rows.Scan(&v.ID, &v.Name, &v.Address, &v.Lat, &v.Lon, &v.TimeZone, &v.Phone, &hours, &created, &v.DistanceKm); err != nil {
			return nil, mapErr(err, "")
		}
		v.CreatedAt = fromTS(created)
		if err := json.Unmarshal(hours, &v.OpeningHours); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err(), "")
}
