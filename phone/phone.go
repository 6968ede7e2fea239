// Package phone is slotd's one normalization of phone numbers: parsed with
// nyaruka/phonenumbers (the Go port of Google's libphonenumber) in the
// clinic's default region, so that a French patient may type
// "06 00 00 00 00" and a Vietnamese one "090 123 45 67", and stored and
// looked up in E.164 ("+33600000000"). service.Service.NormalizePhone is
// the entry point (it knows the clinic's region); sign-in, patient
// creation and look-up all go through it.
package phone

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// DefaultRegion is used when none is configured.
const DefaultRegion = "FR"

// ValidRegion reports whether region is a region libphonenumber knows
// ("FR", "CN", "VN"…).
func ValidRegion(region string) bool {
	return phonenumbers.GetCountryCodeForRegion(strings.ToUpper(region)) != 0
}

// Normalize returns raw in E.164 when it is a possible number, national
// numbers read in region; "" otherwise. "Possible" (the length fits the
// country) rather than "valid" (an assigned range), so that a new range
// does not lock its owners out before the library's next release.
func Normalize(raw, region string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > 64 {
		return ""
	}
	n, err := phonenumbers.Parse(raw, strings.ToUpper(region))
	if err != nil || !phonenumbers.IsPossibleNumber(n) {
		return ""
	}
	return phonenumbers.Format(n, phonenumbers.E164)
}
