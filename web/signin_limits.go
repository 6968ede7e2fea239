package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
)

// signinLimited spends one sign-in form post of the client's address and,
// when byKey is given, one of key (a staff user name); it reports whether
// the post may go on, or how long to wait.
func (s *server) signinLimited(r *http.Request, byKey *edge.KeyLimiter, key string) (bool, time.Duration) {
	now := s.now()
	if ok, wait := s.signinAddr.Allow(edge.ClientAddr(r), now); !ok {
		return false, wait
	}
	if byKey != nil {
		return byKey.Allow(key, now)
	}
	return true, 0
}

// codeLimited spends one sign-in code request of the client's address and
// of the clinic's budget. It runs before the phone is looked up, so that
// a refusal says nothing about whether the phone is a patient's.
func (s *server) codeLimited(r *http.Request) (bool, time.Duration) {
	ok, wait := s.signinLimited(r, s.codeAddr, edge.ClientAddr(r))
	if !ok {
		return false, wait
	}
	return s.codeBudget.Allow(s.now())
}

// rateLimited is the problem of a refused sign-in post, with Retry-After.
func (s *server) rateLimited(w http.ResponseWriter, wait time.Duration) *problemView {
	w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
	pr := problemOf(booking.CodeRateLimited)
	return &problemView{Code: string(booking.CodeRateLimited), Title: pr.Title, Message: pr.Message}
}
