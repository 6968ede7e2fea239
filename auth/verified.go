package auth

import (
	"sync"
	"time"
)

// maxVerified bounds the tokens remembered: beyond it the expired ones are
// dropped, and if none had expired, all (the next requests verify again).
const maxVerified = 10000

// verified remembers the tokens Verify accepted, until they expire (with
// the leeway Verify allows), so that a client's every request does not
// parse and check its token again: on the hot booking path verification
// was a ninth of the server's CPU. Only tokens whose signature checked are
// kept, so an attacker cannot fill it; a token's claims never change, so a
// remembered answer is the one Verify would give until the token expires.
// Whether the token was revoked since (a sign-out, a deactivation) is not
// Verify's question: the front ends ask the Service on every request,
// cache hit or not (service.Service.Admit).
type verified struct {
	mu sync.Mutex
	m  map[string]verifiedToken
}

type verifiedToken struct {
	claims      Claims
	aud         Audience
	from, until time.Time // the window in which Verify accepts it
}

// get returns token's claims if it was verified for aud and has not
// expired at now.
func (v *verified) get(aud Audience, token string, now time.Time) (Claims, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[token]
	if !ok || e.aud != aud || now.Before(e.from) || !now.Before(e.until) {
		return Claims{}, false
	}
	return e.claims, true
}

// put remembers token's claims, verified for aud, for the window [from, until).
func (v *verified) put(aud Audience, token string, c Claims, from, until, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]verifiedToken{}
	}
	if len(v.m) >= maxVerified {
		for t, e := range v.m {
			if !now.Before(e.until) {
				delete(v.m, t)
			}
		}
		if len(v.m) >= maxVerified {
			clear(v.m)
		}
	}
	v.m[token] = verifiedToken{claims: c, aud: aud, from: from, until: until}
}
