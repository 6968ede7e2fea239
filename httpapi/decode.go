package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// decodeJSON reads r's body into v strictly: the Content-Type must be JSON,
// unknown fields and trailing data are refused, and a body beyond the limit
// is 413. A wrong Content-Type is answered 400 invalid-request rather than
// 415, so that every input error speaks one code of the problem table.
func decodeJSON(r *http.Request, v any) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return errorf(booking.CodeInvalidRequest, "Content-Type must be application/json")
	}
	if r.Body == nil {
		return errorf(booking.CodeInvalidRequest, "a JSON body is required")
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyError(err)
	}
	// Exactly one JSON value: "{}{}" or "{} x" is a malformed request.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return bodyError(err)
		}
		return errorf(booking.CodeInvalidRequest, "unexpected data after the JSON body")
	}
	return nil
}

// bodyError explains a decoding failure without echoing the input.
func bodyError(err error) error {
	var maxErr *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &maxErr):
		return errorf(booking.CodePayloadTooLarge, "the request body exceeds %d bytes", maxErr.Limit)
	case errors.Is(err, io.EOF):
		return errorf(booking.CodeInvalidRequest, "a JSON body is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(booking.CodeInvalidRequest, "the JSON body is truncated")
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			return errorf(booking.CodeInvalidRequest, "field %q has the wrong type", typeErr.Field)
		}
		return errorf(booking.CodeInvalidRequest, "the JSON body has the wrong type")
	case errors.As(err, &syntaxErr):
		return errorf(booking.CodeInvalidRequest, "malformed JSON at byte %d", syntaxErr.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for unknown fields; the field
		// name it quotes came from the client and is bounded by the body limit.
		return errorf(booking.CodeInvalidRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errorf(booking.CodeInvalidRequest, "malformed JSON body")
}

// pathID parses the {name} path value as a positive int64.
func pathID(r *http.Request, name string) (int64, error) {
	return parseID(r.PathValue(name), name)
}

// parseID parses an id (1 to booking.MaxID).
func parseID(s, name string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || !validID(id) {
		return 0, errorf(booking.CodeInvalidRequest, "%s must be an id 1 to %d", name, int64(booking.MaxID))
	}
	return id, nil
}

// validID reports whether id is in the range of ids, 1 to booking.MaxID.
func validID(id int64) bool { return id >= 1 && id <= booking.MaxID }

// query returns the single value of a query parameter, refusing repeats
// (an ambiguous request) and parameters the endpoint does not know.
func query(q url.Values, allowed ...string) (map[string]string, error) {
	out := make(map[string]string, len(q))
	for k, vs := range q {
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
		}
		if !known {
			return nil, errorf(booking.CodeInvalidRequest, "unknown query parameter %q", truncate(k, 40))
		}
		if len(vs) != 1 {
			return nil, errorf(booking.CodeInvalidRequest, "query parameter %q given more than once", k)
		}
		out[k] = vs[0]
	}
	return out, nil
}

// parseQuery parses r's query string, refusing malformed escapes.
func parseQuery(r *http.Request, allowed ...string) (map[string]string, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errorf(booking.CodeInvalidRequest, "malformed query string")
	}
	return query(q, allowed...)
}

// parseDate parses a YYYY-MM-DD query or body value.
func parseDate(s, name string) (schedule.Date, error) {
	d, err := schedule.ParseDate(s)
	if err != nil {
		return schedule.Date{}, errorf(booking.CodeInvalidRequest, "%s must be a date YYYY-MM-DD", name)
	}
	return d, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
