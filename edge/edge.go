// Package edge is what every request meets before a handler: the client's
// address and scheme as a trusted proxy tells them, the request id, HSTS,
// CORS for a browser app on another origin, per-address limits, and the log
// handler that stamps each line with its request and trace ids. The API,
// the web UI and cmd/slotd all read the same answers from here.
package edge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

type ctxKey int

const infoKey ctxKey = 0

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
		info := &requestInfo{}
		if len(p.nets) > 0 {
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
				info.secure = strings.EqualFold(strings.TrimSpace(lastValue(r.Header.Get("X-Forwarded-Proto"))), "https")
			}
		}
		r = info.attach(w, r)
		if info.secure || r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// requestInfo is what the edge learnt of a request, in one context value
// (one allocation for the id, the scheme and the answer's header value).
type requestInfo struct {
	id     [1]string // the X-Request-Id header's value, shared with the answer
	secure bool
}

// attach gives info its id (see WithRequestID) and r its context.
func (info *requestInfo) attach(w http.ResponseWriter, r *http.Request) *http.Request {
	id := r.Header.Get("X-Request-Id")
	if !validRequestID(id) {
		id = newRequestID()
	}
	info.id[0] = id
	w.Header()["X-Request-Id"] = info.id[:]
	return r.WithContext(context.WithValue(r.Context(), infoKey, info))
}

// Secure reports whether the client reached us over https: directly, or
// through a trusted proxy that said so.
func Secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	info, _ := r.Context().Value(infoKey).(*requestInfo)
	return info != nil && info.secure
}

// ClientAddr is the client as every per-address limit keys it (see
// Handler): an IPv4 address, or an IPv6 client's /64 network
// ("2001:db8:1:2::/64"), since one host or home is given a whole /64 and
// would otherwise get a fresh bucket per address; "" when unknown. Logs
// name the client the same way.
func ClientAddr(r *http.Request) string {
	if a, ok := addrOf(r.RemoteAddr); ok {
		return addrKey(a)
	}
	return ""
}

// IPv6Prefix is the length of the network an IPv6 client is keyed by.
const IPv6Prefix = 64

func addrKey(a netip.Addr) string {
	if a.Is6() && !a.Is4In6() {
		return netip.PrefixFrom(a, IPv6Prefix).Masked().String()
	}
	return a.String()
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
	return (&requestInfo{}).attach(w, r)
}

// RequestID is the request's id, "" outside a request.
func RequestID(ctx context.Context) string {
	if info, _ := ctx.Value(infoKey).(*requestInfo); info != nil {
		return info.id[0]
	}
	return ""
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

// newRequestID is 16 random hex digits. They need to be unique, not
// secret: math/rand/v2's generator (ChaCha8, seeded by the runtime) costs
// no system call, where crypto/rand's did one per request.
func newRequestID() string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i, v := 0, rand.Uint64(); i < len(b); i, v = i+1, v>>4 {
		b[i] = digits[v&15]
	}
	return string(b[:])
}
