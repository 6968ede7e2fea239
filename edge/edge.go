// Package edge is what every request meets before a handler: the client's
// address and scheme as a trusted proxy tells them, the request id, HSTS,
// CORS for a browser app on another origin, per-address limits, and the log
// handler that stamps each line with its request and trace ids. The API,
// the web UI and cmd/slotd all read the same answers from here.
package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	secureKey
)

// Proxies are the peers whose X-Forwarded-For and X-Forwarded-Proto are
// believed; from anyone else those headers are ignored, so that a client
// cannot pick its own address (limits) or fake https (cookies).
type Proxies struct{ nets []netip.Prefix }

// ParseProxies reads a comma-separated list of CIDRs or addresses.
func ParseProxies(list string) (Proxies, error) {
	var p Proxies
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return Proxies{}, fmt.Errorf("trusted proxy %q: %w", f, err)
			}
			p.nets = append(p.nets, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		n, err := netip.ParsePrefix(f)
		if err != nil {
			return Proxies{}, fmt.Errorf("trusted proxy %q: %w", f, err)
		}
		p.nets = append(p.nets, n.Masked())
	}
	return p, nil
}

func (p Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// Handler puts the client's real address in r.RemoteAddr and its scheme in
// the context (Secure), gives the request its id (X-Request-Id), and sets
// HSTS on answers to https requests.
//
// X-Forwarded-For is read from the right: the first address that is not a
// trusted proxy is the client (everything left of it was written by the
// client itself).
func (p Proxies) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if peer, ok := addrOf(r.RemoteAddr); ok && p.trusted(peer) {
			client := peer
			for _, v := range reverse(forwardedFor(r.Header)) {
				a, err := netip.ParseAddr(v)
				if err != nil {
					break
				}
				client = a.Unmap()
				if !p.trusted(client) {
					break
				}
			}
			r.RemoteAddr = net.JoinHostPort(client.String(), "0")
			if strings.EqualFold(strings.TrimSpace(lastValue(r.Header.Get("X-Forwarded-Proto"))), "https") {
				ctx = context.WithValue(ctx, secureKey, true)
			}
		}
		r = r.WithContext(ctx)
		r = WithRequestID(w, r)
		if Secure(r) {
			w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// Secure reports whether the client reached us over https: directly, or
// through a trusted proxy that said so.
func Secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	s, _ := r.Context().Value(secureKey).(bool)
	return s
}

// ClientAddr is the client's IP address (see Handler), "" when unknown.
func ClientAddr(r *http.Request) string {
	if a, ok := addrOf(r.RemoteAddr); ok {
		return a.String()
	}
	return ""
}

func addrOf(remote string) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(remote)
	if err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(remote)
	return a.Unmap(), err == nil
}

func forwardedFor(h http.Header) []string {
	var out []string
	for _, line := range h.Values("X-Forwarded-For") {
		for _, v := range strings.Split(line, ",") {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func lastValue(v string) string {
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		return v[i+1:]
	}
	return v
}

// WithRequestID gives r its id once: a client's X-Request-Id when it is
// short visible ASCII (it cannot forge log lines), else a random one; the
// answer carries it. A request that already has one keeps it.
func WithRequestID(w http.ResponseWriter, r *http.Request) *http.Request {
	if RequestID(r.Context()) != "" {
		return r
	}
	id := r.Header.Get("X-Request-Id")
	if !validRequestID(id) {
		id = newRequestID()
	}
	w.Header().Set("X-Request-Id", id)
	return r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
}

// RequestID is the request's id, "" outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
