package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
)

// Doctors' profiles and photos, and the catalog's search
// (booking/doctor_profile.go, booking/search.go).

// SetPhoto writes or replaces a doctor's checked photo; audited.
func (s *Store) SetPhoto(ctx context.Context, p booking.Photo) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var before string
		if err := tx.QueryRowContext(ctx,
			`SELECT coalesce((SELECT etag FROM doctor_photos WHERE doctor_id = r.id), '') FROM resources r
			  WHERE r.id = ? AND r.kind = 'doctor'`, p.DoctorID).Scan(&before); err != nil {
			return notFoundAs(err, "doctor")
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO doctor_photos (doctor_id, content_type, data, etag, updated_at) VALUES (?, ?, ?, ?, ?)
			 ON CONFLICT (doctor_id) DO UPDATE SET content_type = excluded.content_type, data = excluded.data,
			        etag = excluded.etag, updated_at = excluded.updated_at`,
			p.DoctorID, p.ContentType, p.Data, p.ETag, ts(time.Now())); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditPhoto(ctx, time.Now(), p, before))
	})
	return mapErr(err, "doctor")
}

// GetPhoto reads a doctor's photo.
func (s *Store) GetPhoto(ctx context.Context, doctorID int64) (booking.Photo, error) {
	p := booking.Photo{DoctorID: doctorID}
	var updated int64
	err := s.reader.QueryRowContext(ctx, `SELECT content_type, data, etag, updated_at FROM doctor_photos WHERE doctor_id = ?`,
		doctorID).Scan(&p.ContentType, &p.Data, &p.ETag, &updated)
	if err != nil {
		return booking.Photo{}, mapErr(err, "photo")
	}
	p.UpdatedAt = fromTS(updated)
	return p, nil
}

// Search lists one page of the catalog's names starting with q.Prefix,
// each kind a range read of its NOCASE name index (LIKE is ASCII
// case-insensitive, as the index is).
func (s *Store) Search(ctx context.Context, q booking.SearchQuery) ([]booking.SearchHit, error) {
	rank, after := booking.SearchAfter(q.Page.After)
	rows, err := s.reader.QueryContext(ctx,
		`SELECT kind, id, name FROM (
		   SELECT 0 AS rank, 'service' AS kind, id, name FROM services
		    WHERE active AND name LIKE ?1
		   UNION ALL
		   SELECT 1, 'department', d.id, d.name FROM departments d
		    WHERE d.name LIKE ?1 AND EXISTS (SELECT 1 FROM resources r
		          WHERE r.department_id = d.id AND r.kind = 'doctor' AND r.active)
		   UNION ALL
		   SELECT 2, 'doctor', id, name FROM resources
		    WHERE kind = 'doctor' AND active AND name LIKE ?1
		 ) WHERE (rank, id) > (?2, ?3)
		 ORDER BY rank, id LIMIT ?4`,
		q.Prefix+"%", rank, after, rowLimit(q.Page))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.SearchHit{}
	for rows.Next() {
		var h booking.SearchHit
		if err := rows.Scan(&h.Kind, &h.ID, &h.Name); err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, h)
	}
	return out, mapErr(rows.Err(), "")
}
