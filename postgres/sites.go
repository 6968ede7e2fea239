package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// The clinic's sites (booking/sites.go).

const siteColumns = `id, name, address, lat, lon, timezone, phone, opening_hours, created_at`

func scanSite(r pgx.Row) (booking.Site, error) {
	var v booking.Site
	err := r.Scan(&v.ID, &v.Name, &v.Address, &v.Lat, &v.Lon, &v.TimeZone, &v.Phone, &v.OpeningHours, &v.CreatedAt)
	v.CreatedAt = v.CreatedAt.UTC()
	return v, err
}

// CreateSite adds a site; a taken name is a conflict.
func (s *Store) CreateSite(ctx context.Context, v booking.Site) (booking.Site, error) {
	if err := v.Validate(); err != nil {
		return booking.Site{}, err
	}
	if v.CreatedAt.IsZero() {
		v.CreatedAt = time.Now()
	}
	v.CreatedAt = micro(v.CreatedAt)
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		if err := tx.QueryRow(ctx, `INSERT INTO sites (name, address, lat, lon, timezone, phone, opening_hours, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`, v.Name, v.Address, v.Lat, v.Lon, v.TimeZone, v.Phone,
			v.OpeningHours, v.CreatedAt).Scan(&v.ID); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditSite(ctx, v.CreatedAt, nil, v)}, nil
	})
	if err != nil {
		return booking.Site{}, translate(err, "")
	}
	return v, nil
}

// UpdateSite changes a site in one transaction, its row locked; the site
// is the staff's from then on (from_settings cleared).
func (s *Store) UpdateSite(ctx context.Context, id int64, u booking.SiteUpdate) (booking.Site, error) {
	var v booking.Site
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		before, err := scanSite(tx.QueryRow(ctx, `SELECT `+siteColumns+` FROM sites WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return nil, err
		}
		v = u.Apply(before)
		if err := v.Validate(); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `UPDATE sites SET name = $2, address = $3, lat = $4, lon = $5, timezone = $6, phone = $7,
			opening_hours = $8, from_settings = false WHERE id = $1`, id, v.Name, v.Address, v.Lat, v.Lon, v.TimeZone, v.Phone,
			v.OpeningHours); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditSite(ctx, time.Now(), &before, v)}, nil
	})
	if err != nil {
		return booking.Site{}, translate(err, "site")
	}
	return v, nil
}

// GetSite reads one site.
func (s *Store) GetSite(ctx context.Context, id int64) (booking.Site, error) {
	v, err := scanSite(s.pool.QueryRow(ctx, `SELECT `+siteColumns+` FROM sites WHERE id = $1`, id))
	if err != nil {
		return booking.Site{}, translate(err, "site")
	}
	return v, nil
}

// ListSites lists the sites by id, one page at a time.
func (s *Store) ListSites(ctx context.Context, p booking.Page) ([]booking.Site, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+siteColumns+` FROM sites WHERE id > $1 ORDER BY id LIMIT NULLIF($2, 0)`,
		p.After, p.Limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Site, error) { return scanSite(r) })
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// FillFirstSite writes the clinic's settings over the placeholder site,
// if it is still one; not audited: it is configuration, not a change by
// anyone.
func (s *Store) FillFirstSite(ctx context.Context, v booking.Site) (bool, error) {
	if err := v.Validate(); err != nil {
		return false, err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE sites SET name = $1, address = $2, lat = $3, lon = $4, timezone = $5, phone = $6,
		from_settings = false WHERE from_settings`, v.Name, v.Address, v.Lat, v.Lon, v.TimeZone, v.Phone)
	if err != nil {
		return false, translate(err, "")
	}
	return tag.RowsAffected() > 0, nil
}

// ListSitesNear lists the sites with a position by great-circle distance
// (haversine, booking.EarthRadiusKm) from the point, ties by id.
func (s *Store) ListSitesNear(ctx context.Context, q booking.SitesNear) ([]booking.SiteDistance, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+siteColumns+`, 2 * $3::float8 * asin(sqrt(least(1,
			power(sin(radians(lat - $1) / 2), 2) + cos(radians($1)) * cos(radians(lat)) * power(sin(radians(lon - $2) / 2), 2)))) AS km
		FROM sites WHERE lat IS NOT NULL ORDER BY km, id LIMIT NULLIF($4, 0) OFFSET $5`,
		q.Lat, q.Lon, booking.EarthRadiusKm, q.Limit, q.Skip)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.SiteDistance, error) {
		var v booking.SiteDistance
		err := r.Scan(&v.ID, &v.Name, &v.Address, &v.Lat, &v.Lon, &v.TimeZone, &v.Phone, &v.OpeningHours, &v.CreatedAt, &v.DistanceKm)
		v.CreatedAt = v.CreatedAt.UTC()
		return v, err
	})
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}
