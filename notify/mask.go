package notify

import (
	"strings"
	"unicode/utf8"
)

// maskStars replaces the hidden part of a masked value. Its length is fixed
// so that a mask does not reveal how long the hidden part was.
const maskStars = "******"

// MaskPhone hides a phone number for logs, keeping the last 2 digits and,
// for an international number ("+33…"), the "+" and the first 2 digits:
// "+33 6 12 34 56 78" → "+33******78", "0612345678" → "******78". Numbers
// too short to keep anything safely are hidden whole. Spaces and
// punctuation are ignored.
func MaskPhone(phone string) string {
	phone = strings.TrimSpace(phone)
	if phone == "" {
		return ""
	}
	var digits []byte
	for i := 0; i < len(phone); i++ {
		if c := phone[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	n := len(digits)
	switch {
	case n < 6:
		// Keeping 2 of 5 digits or fewer would reveal too much of it.
		return maskStars
	case phone[0] == '+' && n >= 8:
		return "+" + string(digits[:2]) + maskStars + string(digits[n-2:])
	default:
		return maskStars + string(digits[n-2:])
	}
}

// MaskEmail hides an e-mail address for logs, keeping the first letter and
// the domain: "jane.doe@example.com" → "j***@example.com". The domain is
// kept because it helps to diagnose delivery problems and rarely identifies
// a person. Something that is not an address is hidden whole.
func MaskEmail(email string) string {
	email = strings.TrimSpace(email)
	if email == "" {
		return ""
	}
	// The last "@" separates the domain: a quoted local part may hold "@".
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return "***"
	}
	local, domain := email[:at], email[at+1:]
	first := ""
	if r, size := utf8.DecodeRuneInString(local); size > 0 && r != utf8.RuneError && r != '"' {
		first = string(r)
	}
	return first + "***@" + domain
}

// redactEmail replaces every occurrence of email in s, ignoring case, with
// its mask. Mail servers echo the recipient in their replies ("550 5.1.1
// <jane@example.com>: unknown user"), and such replies end up in error
// texts that the job system logs.
func redactEmail(s, email string) string {
	email = strings.TrimSpace(email)
	if email == "" {
		return s
	}
	// strings.ToLower may change byte lengths for some non-ASCII letters;
	// then the indexes below would not line up, so fall back to an exact match.
	ls, le := strings.ToLower(s), strings.ToLower(email)
	if len(ls) != len(s) || len(le) != len(email) {
		return strings.ReplaceAll(s, email, MaskEmail(email))
	}
	mask := MaskEmail(email)
	var b strings.Builder
	for {
		i := strings.Index(ls, le)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(mask)
		s, ls = s[i+len(email):], ls[i+len(email):]
	}
}
