package pii

import (
	"bytes"
	"testing"
)

// Of two rows with one phone only the first (oldest) keeps the index; a
// row without a phone has none; every value opens again.
func TestSealerKeepsOnePhoneIndex(t *testing.T) {
	k := New()
	s := k.NewSealer()
	a := s.Seal(PlainRow{Name: "An", Phone: "+33612345601", Email: "an@example.org"})
	b := s.Seal(PlainRow{Name: "Bo", Phone: "+33 6 12 34 56 01"})
	c := s.Seal(PlainRow{Name: "Cy"})
	if a.PhoneIndex == nil || !bytes.Equal(a.PhoneIndex, k.PhoneIndex("+33612345601")) || b.PhoneIndex != nil || c.PhoneIndex != nil {
		t.Fatalf("phone indexes %x, %x, %x; want only the first", a.PhoneIndex, b.PhoneIndex, c.PhoneIndex)
	}
	if a.Key != k.Newest() || a.EmailIndex == nil {
		t.Fatalf("key %d (newest %d), email index %x", a.Key, k.Newest(), a.EmailIndex)
	}
	if name, err := k.Open(FieldName, b.Name); err != nil || name != "Bo" {
		t.Fatalf("open name: %q, %v", name, err)
	}
}
