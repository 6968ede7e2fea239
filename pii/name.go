package pii

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FieldNameBirth is the index of a person's name with their birth date.
const FieldNameBirth = "patient.name_birth"

// NormalizeName is the one form of a name that its index is made of:
// compatibility-composed (NFKC, so "Ｌｅ" and "Le", or a precomposed and a
// combining "é", are one), case-folded, its runs of spaces made one and
// trimmed. "  marie   DUPONT" and "Marie Dupont" are the same name.
func NormalizeName(name string) string {
	return strings.Join(strings.Fields(cases.Fold().String(norm.NFKC.String(name))), " ")
}

// NameIndex is the index of a name with a birth date (YYYY-MM-DD): what the
// front desk finds a person by when they have no phone or e-mail at hand.
// A name alone is too common to look up, so the pair is hashed; a person
// without a birth date gets an index no search (which always gives a
// date) can meet. nil for no name (an erased person).
func (k *Keys) NameIndex(name, birthDate string) []byte {
	n := NormalizeName(name)
	if n == "" {
		return nil
	}
	return k.Index(FieldNameBirth, n+"\x00"+strings.TrimSpace(birthDate))
}
