package pii

// PlainRow is one patient's personal data as stored before sealing.
type PlainRow struct{ Name, Phone, Email string }

// SealedRow is a PlainRow sealed with the newest key, with its look-up
// indexes (PhoneIndex nil when the phone is empty or kept by another row).
type SealedRow struct {
	Name, Phone, Email     []byte
	PhoneIndex, EmailIndex []byte
	Key                    uint16
}

// Sealer seals the plain rows of a store that predates sealing (migration
// 00016), visited in id order.
type Sealer struct {
	keys *Keys
	seen map[string]bool
}

// NewSealer returns a Sealer for keys.
func (k *Keys) NewSealer() *Sealer { return &Sealer{keys: k, seen: map[string]bool{}} }

// Seal seals r. Two patients with one phone: only the oldest was ever
// found by it (sign-in took the oldest), so only it keeps the index the
// unique index then requires.
func (s *Sealer) Seal(r PlainRow) SealedRow {
	out := SealedRow{
		Name: s.keys.Seal(FieldName, r.Name), Phone: s.keys.Seal(FieldPhone, r.Phone), Email: s.keys.Seal(FieldEmail, r.Email),
		PhoneIndex: s.keys.PhoneIndex(r.Phone), EmailIndex: s.keys.EmailIndex(r.Email), Key: s.keys.Newest(),
	}
	if s.seen[string(out.PhoneIndex)] {
		out.PhoneIndex = nil
	} else if out.PhoneIndex != nil {
		s.seen[string(out.PhoneIndex)] = true
	}
	return out
}
