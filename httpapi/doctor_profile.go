package httpapi

import (
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Doctors' photos (PATCH /api/admin/doctors/{id} writes the rest of a
// profile) and the catalog's search.

// photoMaxAge is how long a browser keeps a photo before it asks again
// (with If-None-Match, answered 304 when unchanged); the pages link the
// photo with its tag, so a new photo is a new address at once.
const photoMaxAge = 300

// isPhotoUpload says whether r is a photo's upload, whose body may be up
// to booking.MaxPhotoBytes rather than the JSON bodies' bound.
func isPhotoUpload(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/api/admin/doctors/") &&
		strings.HasSuffix(r.URL.Path, "/photo")
}

// putDoctorPhoto answers PUT /api/admin/doctors/{id}/photo: the body is a
// JPEG or PNG (its Content-Type saying which), checked and decoded by
// booking.CheckPhoto; audited.
func (s *server) putDoctorPhoto(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "image/jpeg" && mt != "image/png") {
		return errorf(booking.CodeInvalidRequest, "Content-Type must be image/jpeg or image/png")
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyOrErr(err)
	}
	p, err := s.svc.SetDoctorPhoto(r.Context(), id, mt, data)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, photoAnswer{Photo: p.ETag, ContentType: p.ContentType, Bytes: len(p.Data)})
	return nil
}

// photoAnswer is PUT .../photo's answer: the new tag, type and size.
type photoAnswer struct {
	Photo       string `json:"photo"`
	ContentType string `json:"contentType"`
	Bytes       int    `json:"bytes"`
}

// getDoctorPhoto answers GET /api/doctors/{id}/photo with the photo,
// cacheable, and 304 when the client's copy (If-None-Match) is current.
func (s *server) getDoctorPhoto(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p, err := s.store.GetPhoto(ctx, id)
	if err != nil {
		return storeErr(ctx, err)
	}
	tag := `"` + p.ETag + `"`
	h := w.Header()
	h.Set("ETag", tag)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(photoMaxAge))
	if etagMatch(r.Header.Values("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", p.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(p.Data)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(p.Data)
	return nil
}

// search answers GET /api/search?q=: one page of the services,
// departments and doctors whose name starts with q (booking/search.go).
func (s *server) search(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, withPage("q")...)
	if err != nil {
		return err
	}
	text, err := booking.NormalizeSearch(q["q"])
	if err != nil {
		return inParam(err, "q")
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	hits, err := s.store.Search(ctx, booking.SearchQuery{Prefix: text, Page: p.store()})
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, pageOf(hits, p, booking.SearchHit.Position))
	return nil
}
