package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// Doctors' profiles and photos, and the catalog's search
// (booking/doctor_profile.go, booking/search.go).

// SetPhoto writes or replaces a doctor's checked photo; audited.
func (s *Store) SetPhoto(ctx context.Context, p booking.Photo) error {
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var before string
		if err := tx.QueryRow(ctx,
			`SELECT COALESCE((SELECT etag FROM doctor_photos WHERE doctor_id = r.id), '') FROM resources r
			 WHERE r.id = $1 AND r.kind = 'doctor' FOR UPDATE`, p.DoctorID).Scan(&before); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx,
			`INSERT INTO doctor_photos (doctor_id, content_type, data, etag, updated_at) VALUES ($1, $2, $3, $4, now())
			 ON CONFLICT (doctor_id) DO UPDATE SET content_type = EXCLUDED.content_type, data = EXCLUDED.data,
			        etag = EXCLUDED.etag, updated_at = EXCLUDED.updated_at`,
			p.DoctorID, p.ContentType, p.Data, p.ETag); err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditPhoto(ctx, time.Now(), p, before)}, nil
	})
	return translate(err, "doctor")
}

// GetPhoto reads a doctor's photo.
func (s *Store) GetPhoto(ctx context.Context, doctorID int64) (booking.Photo, error) {
	p := booking.Photo{DoctorID: doctorID}
	err := s.pool.QueryRow(ctx, `SELECT content_type, data, etag, updated_at FROM doctor_photos WHERE doctor_id = $1`,
		doctorID).Scan(&p.ContentType, &p.Data, &p.ETag, &p.UpdatedAt)
	p.UpdatedAt = p.UpdatedAt.UTC()
	return p, translate(err, "photo")
}

// sqlSearch is Search's read: $1 the prefix, ($2, $3) the cursor, $4 the
// bound; each branch a range read of its lower(name) text_pattern_ops
// index. The range is written out (~>=~ and ~<~, the index's operators)
// beside the LIKE: a LIKE of a parameter is no index condition, so the
// generic plan a pooled connection keeps after five executions scanned
// every doctor (TestCatalogReadsProbe). U+10FFFF sorts after any
// character the prefix can be followed by.
const sqlSearch = `SELECT kind, id, name FROM (
		   SELECT 0 AS rank, 'service' AS kind, id, name FROM services
		    WHERE active AND lower(name) LIKE lower($1) || '%'
		      AND lower(name) ~>=~ lower($1) AND lower(name) ~<~ (lower($1) || chr(1114111))
		   UNION ALL
		   SELECT 1, 'department', d.id, d.name FROM departments d
		    WHERE lower(d.name) LIKE lower($1) || '%'
		      AND lower(d.name) ~>=~ lower($1) AND lower(d.name) ~<~ (lower($1) || chr(1114111)) AND EXISTS (SELECT 1 FROM resources r
		          WHERE r.department_id = d.id AND r.kind = 'doctor' AND r.active)
		   UNION ALL
		   SELECT 2, 'doctor', id, name FROM resources
		    WHERE kind = 'doctor' AND active AND lower(name) LIKE lower($1) || '%'
		      AND lower(name) ~>=~ lower($1) AND lower(name) ~<~ (lower($1) || chr(1114111))
		 ) hits WHERE (rank, id) > ($2, $3)
		 ORDER BY rank, id LIMIT NULLIF($4, 0)`

// Search lists one page of the catalog's names starting with q.Prefix,
// each kind a range read of its lower(name) index (the text is lowered by
// the database's own lower, as the index is).
func (s *Store) Search(ctx context.Context, q booking.SearchQuery) ([]booking.SearchHit, error) {
	rank, after := booking.SearchAfter(q.Page.After)
	rows, _ := s.pool.Query(ctx,
		sqlSearch,
		q.Prefix, rank, after, q.Page.Limit)
	hits, err := pgx.CollectRows(rows, pgx.RowToStructByPos[booking.SearchHit])
	return hits, translate(err, "")
}
