package service

import (
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A refusal is remembered for its TTL only, per patient, slot and key, and
// forgotten as soon as the patient books.
func TestRecentKeys(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	k := newRecentKeys(time.Second)
	req := booking.BookRequest{PatientID: 1, SlotID: 9, IdempotencyKey: "a"}
	if k.refused(req, now) {
		t.Fatal("an unseen request is remembered as refused")
	}
	k.remember(req, now)
	if !k.refused(req, now.Add(999*time.Millisecond)) {
		t.Fatal("a refusal within its TTL is forgotten")
	}
	if k.refused(req, now.Add(time.Second)) {
		t.Fatal("a refusal is remembered past its TTL")
	}
	for _, other := range []booking.BookRequest{
		{PatientID: 2, SlotID: 9, IdempotencyKey: "a"},
		{PatientID: 1, SlotID: 8, IdempotencyKey: "a"},
		{PatientID: 1, SlotID: 9, IdempotencyKey: "b"},
	} {
		if k.refused(other, now) {
			t.Fatalf("%+v is answered by another request's refusal", other)
		}
	}
	k.booked(1)
	if k.refused(req, now) {
		t.Fatal("a refusal outlived the patient's booking")
	}
	for i := range maxRecentKeys + 5 {
		k.remember(booking.BookRequest{PatientID: int64(i), SlotID: 9, IdempotencyKey: "a"}, now)
	}
	if k.n > maxRecentKeys {
		t.Fatalf("%d refusals remembered, at most %d", k.n, maxRecentKeys)
	}
}
