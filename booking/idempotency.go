package booking

import "fmt"

// MaxIdempotencyKeyLen is the longest Idempotency-Key accepted (docs/api.md).
const MaxIdempotencyKeyLen = 64

// IdempotencyKey checks the Idempotency-Key header values of a booking
// request (every adapter that books: the JSON API, FHIR $book) and returns
// the key: given once, 1 to 64 visible ASCII characters.
func IdempotencyKey(values []string) (string, error) {
	if len(values) == 0 || (len(values) == 1 && values[0] == "") {
		return "", Errorf(CodeMissingIdempotencyKey, "the Idempotency-Key header is required")
	}
	if len(values) > 1 {
		return "", Errorf(CodeInvalidRequest, "give the Idempotency-Key header once")
	}
	k := values[0]
	if len(k) > MaxIdempotencyKeyLen {
		return "", Errorf(CodeInvalidRequest, "the Idempotency-Key must be 1 to %d visible ASCII characters", MaxIdempotencyKeyLen)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return "", Errorf(CodeInvalidRequest, "the Idempotency-Key must be 1 to %d visible ASCII characters", MaxIdempotencyKeyLen)
		}
	}
	return k, nil
}

// Fingerprint is the canonical form of a booking request body, compared when
// an Idempotency-Key is reused.
func Fingerprint(slotID int64) string { return fmt.Sprintf("slot=%d", slotID) }
