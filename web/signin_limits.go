package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
)

// signinLimited spends one staff sign-in form post of the client's address
// and, when byKey is given, one of key (a staff user name); it reports
// whether the post may go on, or how long to wait. The patients' sign-in
// has its limits in service.Signin.
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

// rateLimited is the problem of a refused sign-in post, with Retry-After.
func (s *server) rateLimited(w http.ResponseWriter, wait time.Duration) *problemView {
	w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
	pr := problemOf(booking.CodeRateLimited)
	return &problemView{Code: string(booking.CodeRateLimited), Title: pr.Title, Message: pr.Message}
}
