package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// decodeBookRequest reads POST /api/appointments' body. The body every
// client sends, {"slotId":N} or {"slotId":N,"patientId":M} (JSON's spaces
// allowed), is read by hand: on the hot path encoding/json's reflection was
// a seventh of the server's CPU. Anything else — another order, escapes,
// leading zeros, a number out of range, and every malformed body — goes to
// decodeJSON, so its answers and its strictness are unchanged.
func decodeBookRequest(r *http.Request, in *bookRequest) error {
	if r.Body == nil || !isJSON(r.Header.Get("Content-Type")) {
		return decodeJSON(r, in)
	}
	b, err := io.ReadAll(r.Body)
	if err == nil {
		if q, ok := parseBookBody(b); ok {
			*in = q
			return nil
		}
	}
	// Replay what was read, and the read's error (a body over the limit
	// is 413), to the strict decoder.
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{err}))
	return decodeJSON(r, in)
}

// isJSON reports whether ct is exactly the Content-Type clients send; any
// other form is left to decodeJSON's full check.
func isJSON(ct string) bool {
	return ct == "application/json" || ct == "application/json; charset=utf-8"
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

// parseBookBody reads the two shapes of a booking body; ok is false for
// anything else.
func parseBookBody(b []byte) (in bookRequest, ok bool) {
	p := bookParser{b: b}
	p.space()
	if !p.lit(`{`) || !p.field(`"slotId"`) {
		return in, false
	}
	if in.SlotID, ok = p.id(); !ok {
		return in, false
	}
	if p.lit(`,`) {
		if !p.field(`"patientId"`) {
			return in, false
		}
		id, ok := p.id()
		if !ok {
			return in, false
		}
		in.PatientID = &id
	}
	if !p.lit(`}`) {
		return in, false
	}
	p.space()
	return in, len(p.b) == 0
}

type bookParser struct{ b []byte }

func (p *bookParser) space() {
	for len(p.b) > 0 && (p.b[0] == ' ' || p.b[0] == '\t' || p.b[0] == '\n' || p.b[0] == '\r') {
		p.b = p.b[1:]
	}
}

// lit consumes s after optional spaces.
func (p *bookParser) lit(s string) bool {
	p.space()
	if !bytes.HasPrefix(p.b, []byte(s)) {
		return false
	}
	p.b = p.b[len(s):]
	return true
}

// field consumes a member name and its colon.
func (p *bookParser) field(name string) bool { return p.lit(name) && p.lit(`:`) }

// id consumes a JSON integer without sign or leading zero that fits int64.
func (p *bookParser) id() (int64, bool) {
	p.space()
	n := 0
	for n < len(p.b) && p.b[n] >= '0' && p.b[n] <= '9' {
		n++
	}
	if n == 0 || (p.b[0] == '0' && n > 1) || (n < len(p.b) && (p.b[n] == '.' || p.b[n] == 'e' || p.b[n] == 'E')) {
		return 0, false
	}
	v, err := strconv.ParseInt(string(p.b[:n]), 10, 64)
	if err != nil {
		return 0, false
	}
	p.b = p.b[n:]
	return v, true
}
