package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// ratePolicyName names the booking policy in the RateLimit headers.
const ratePolicyName = "booking"

// setRateHeaders writes the RateLimit-Policy and RateLimit fields of
// draft-ietf-httpapi-ratelimit-headers (-10) for a decision of the
// Service's one per-patient limiter: the policy's quota q per window w
// seconds, and the remaining quota r with t seconds until it is fully
// restored.
//
// The keys are written in their canonical form (what Set would make of
// them), which spares the canonicalization's allocation on every booking.
func setRateHeaders(h http.Header, d booking.RateDecision) {
	h["Ratelimit-Policy"] = []string{`"` + ratePolicyName + `";q=` + strconv.Itoa(d.Quota) + `;w=` + strconv.FormatInt(ceilSeconds(d.Window), 10)}
	h["Ratelimit"] = []string{`"` + ratePolicyName + `";r=` + strconv.Itoa(d.Remaining) + `;t=` + strconv.FormatInt(ceilSeconds(d.Reset), 10)}
}

// ceilSeconds rounds d up to whole seconds, never inviting an early retry.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
