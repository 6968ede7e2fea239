package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

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

// bodyError explains a decoding failure without echoing the input, naming
// the member at fault when the decoder knows it.
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
		if typeErr.Field == "" {
			return errorf(booking.CodeInvalidRequest, "the JSON body has the wrong type")
		}
		ptr := "/" + strings.ReplaceAll(typeErr.Field, ".", "/")
		if typeErr.Type == instantType {
			return fieldErrorf(ptr, "field %q must be an RFC 3339 date-time with its offset, such as 2026-03-02T09:30:00+01:00", typeErr.Field)
		}
		return fieldErrorf(ptr, "field %q has the wrong type", typeErr.Field)
	case errors.As(err, &syntaxErr):
		return errorf(booking.CodeInvalidRequest, "malformed JSON at byte %d", syntaxErr.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for unknown fields; the field
		// name it quotes came from the client and is bounded by the body limit.
		quoted := strings.TrimPrefix(err.Error(), "json: unknown field ")
		e := booking.Errorf(booking.CodeInvalidRequest, "unknown field %s", quoted)
		if name, err := strconv.Unquote(quoted); err == nil {
			e.Pointer = "/" + pointerToken(name)
		}
		return e
	}
	return errorf(booking.CodeInvalidRequest, "malformed JSON body")
}

// pointerToken escapes a member name as one JSON Pointer token (RFC 6901).
func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// instant is a date-time member of a request body: RFC 3339 with its
// offset. Anything else — a plain date among them, since an instant
// without an offset would have to guess a zone — is refused as a type
// error, which the decoder gives the member's name (bodyError).
type instant struct{ time.Time }

// instantType is the Type of instant's type errors.
var instantType = reflect.TypeFor[time.Time]()

func (t *instant) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var v time.Time
	if err := v.UnmarshalJSON(b); err != nil {
		return &json.UnmarshalTypeError{Value: "string", Type: instantType}
	}
	t.Time = v
	return nil
}

// parseInstant parses a date-time query parameter: RFC 3339, or a plain
// date YYYY-MM-DD meaning that day in the clinic's zone loc — its start,
// or for the end of a period (end) the start of the next day, so that
// from=2026-03-01&to=2026-03-31 is the whole of March.
func parseInstant(v, name string, end bool, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	d, err := schedule.ParseDate(v)
	if err != nil {
		return time.Time{}, paramErrorf(name, "%s must be an RFC 3339 time or a date YYYY-MM-DD", name)
	}
	t := time.Date(d.Year, time.Month(d.Month), d.Day, 0, 0, 0, 0, loc)
	if end {
		t = time.Date(d.Year, time.Month(d.Month), d.Day+1, 0, 0, 0, 0, loc)
	}
	return t, nil
}

// enumValue returns the member of allowed that v names, in either case
// ("booked" and "BOOKED" both name BOOKED): the one parsing of every enum a
// client sends, in a query or a body.
func enumValue[T ~string](v string, allowed ...T) (T, bool) {
	for _, a := range allowed {
		if strings.EqualFold(v, string(a)) {
			return a, true
		}
	}
	return "", false
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

// inParam names the query parameter an invalid-request err is about.
func inParam(err error, name string) error {
	var e *booking.Error
	if errors.As(err, &e) && e.Code == booking.CodeInvalidRequest {
		e.Parameter = name
	}
	return err
}

// inBody names the body member (a JSON Pointer) an invalid-request err is
// about.
func inBody(err error, pointer string) error {
	var e *booking.Error
	if errors.As(err, &e) && e.Code == booking.CodeInvalidRequest {
		e.Pointer = pointer
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
