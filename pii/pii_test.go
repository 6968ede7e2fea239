package pii

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/slotd/slotd/internal/testkit"
)

func TestSealOpen(t *testing.T) {
	k := New()
	c := k.Seal(FieldPhone, "+33612345678")
	if bytes.Contains(c, []byte("612345678")) {
		t.Fatal("the sealed value holds the plain one")
	}
	if id, err := KeyOf(c); err != nil || id != 1 {
		t.Fatalf("key id %d (%v), want 1", id, err)
	}
	if got, err := k.Open(FieldPhone, c); err != nil || got != "+33612345678" {
		t.Fatalf("opened %q (%v)", got, err)
	}
	if !bytes.Equal(k.Seal(FieldPhone, ""), nil) {
		t.Fatal("an empty value seals to something")
	}
	if got, err := k.Open(FieldPhone, nil); got != "" || err != nil {
		t.Fatalf("nil opens to %q (%v)", got, err)
	}
	// Two seals of one value differ (random nonce): equal values are not
	// linkable through their ciphertexts.
	if bytes.Equal(c, k.Seal(FieldPhone, "+33612345678")) {
		t.Fatal("sealing is deterministic")
	}
	// Moved to another column, it does not open.
	if _, err := k.Open(FieldName, c); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("opened as another field: %v", err)
	}
	// Tampered, it does not open.
	bad := bytes.Clone(c)
	bad[len(bad)-1] ^= 1
	if _, err := k.Open(FieldPhone, bad); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("tampered: %v", err)
	}
	// Under another key of the same id, it does not open: never garbage.
	if _, err := New().Open(FieldPhone, c); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("another key: %v", err)
	}
}

func TestRotation(t *testing.T) {
	text := Generate()
	old, _ := Parse(text)
	c1 := old.Seal(FieldName, "Anh")
	text2 := AddKey(text, old.Newest())
	k, err := Parse(text2)
	if err != nil || k.Newest() != 2 || len(k.IDs()) != 2 {
		t.Fatalf("rotated keys: newest %d, ids %v (%v)", k.Newest(), k.IDs(), err)
	}
	if got, err := k.Open(FieldName, c1); err != nil || got != "Anh" {
		t.Fatalf("an old key no longer opens: %q (%v)", got, err)
	}
	c2 := k.Seal(FieldName, "Anh")
	if id, _ := KeyOf(c2); id != 2 {
		t.Fatalf("sealed with key %d, want the newest (2)", id)
	}
	if _, err := old.Open(FieldName, c2); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("without key 2: %v, want ErrUnknownKey", err)
	}
	// The index key stays: look-ups made before the rotation still match.
	if !bytes.Equal(old.Index(FieldPhone, "+33612345678"), k.Index(FieldPhone, "+33612345678")) {
		t.Fatal("rotation changed the index")
	}
}

func TestIndex(t *testing.T) {
	k := New()
	a := k.Index(FieldEmail, NormalizeEmail(" Ana@Example.ORG "))
	if !bytes.Equal(a, k.Index(FieldEmail, "ana@example.org")) || len(a) != 32 {
		t.Fatal("equal e-mails give different indexes")
	}
	if bytes.Equal(a, k.Index(FieldPhone, "ana@example.org")) {
		t.Fatal("one value gives one index in two fields")
	}
	if bytes.Equal(a, New().Index(FieldEmail, "ana@example.org")) {
		t.Fatal("the index does not depend on its key")
	}
	if k.Index(FieldPhone, "") != nil {
		t.Fatal("an empty value has an index")
	}
	if !bytes.Equal(k.PhoneIndex("+33 (6) 12-34.56 78"), k.PhoneIndex("+33612345678")) {
		t.Fatal("PhoneIndex depends on separators")
	}
}

func TestParse(t *testing.T) {
	for _, bad := range []string{"", "1:" + newKey(), "index:" + newKey(), "index:" + newKey() + ",0:" + newKey(),
		"index:" + newKey() + ",1:short", "index:" + newKey() + ",1:" + newKey() + ",1:" + newKey(), "index:x,1:" + newKey(), "nonsense"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%.20q…) accepted", bad)
		}
	}
	if _, err := Parse("index:" + newKey() + "\n 3:" + newKey() + "\n"); err != nil {
		t.Fatalf("newline-separated keys: %v", err)
	}
}

func TestLoadOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "data-keys")
	var wg sync.WaitGroup
	keys := make([]*Keys, 4)
	errs := make([]error, len(keys))
	for i := range keys {
		wg.Add(1)
		go func() { defer wg.Done(); keys[i], errs[i] = LoadOrCreate(path) }()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	c := keys[0].Seal(FieldName, "x")
	for _, k := range keys {
		if got, err := k.Open(FieldName, c); err != nil || got != "x" {
			t.Fatal("concurrent creators disagree on the keys")
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	must(t, os.Chmod(path, 0o644))
	if _, err := LoadOrCreate(path); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a world-readable key file: %v", err)
	}
}

func TestCheckStored(t *testing.T) {
	k := New()
	add, err := k.CheckStored(nil, nil)
	if err != nil || len(add) != 2 {
		t.Fatalf("first start: add %d rows (%v), want the index's and key 1's", len(add), err)
	}
	if _, err := k.CheckStored(add, []uint16{1}); err != nil {
		t.Fatalf("same keys: %v", err)
	}
	if _, err := New().CheckStored(add, []uint16{1}); !errors.Is(err, ErrKeys) {
		t.Fatalf("other keys: %v, want ErrKeys", err)
	}
	// A wrong data key under a right index key.
	other, _ := Parse("index:" + base64Of(k.index) + ",1:" + newKey())
	if _, err := other.CheckStored(add, []uint16{1}); !errors.Is(err, ErrKeys) || !strings.Contains(err.Error(), "data key 1") {
		t.Fatalf("wrong data key: %v", err)
	}
	// Rows sealed with a key no longer given: lost.
	rotated, _ := Parse("index:" + base64Of(k.index) + ",2:" + newKey())
	if _, err := rotated.CheckStored(add, []uint16{1}); !errors.Is(err, ErrKeys) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("lost key: %v", err)
	}
	// Retired once nothing uses it.
	if add2, err := rotated.CheckStored(add, []uint16{2}); err != nil || len(add2) != 1 {
		t.Fatalf("retired key: %v, add %d", err, len(add2))
	}
}

// must fails the test at once on an error.
var must = testkit.NoError

// BenchmarkSealOpenIndex: what one patient's write (three seals, two
// indexes) and read (three opens) cost; the booking path pays neither.
func BenchmarkSealOpenIndex(b *testing.B) {
	k := New()
	for b.Loop() {
		n, p, e := k.Seal(FieldName, "Anh Nguyen"), k.Seal(FieldPhone, "+33612345678"), k.Seal(FieldEmail, "anh@example.org")
		k.PhoneIndex("+33612345678")
		k.EmailIndex("anh@example.org")
		for f, v := range map[string][]byte{FieldName: n, FieldPhone: p, FieldEmail: e} {
			if _, err := k.Open(f, v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestNameIndex: the index is of the normalized name with the birth date:
// case, spacing and Unicode forms do not matter, the date does, and no
// name has no index.
func TestNameIndex(t *testing.T) {
	k := New()
	a := k.NameIndex("Marie  Dupont", "1980-02-03")
	for _, same := range []string{"marie dupont", "  MARIE DUPONT ", "Ｍａｒｉｅ Dupont"} {
		if got := k.NameIndex(same, "1980-02-03"); !bytes.Equal(got, a) {
			t.Errorf("NameIndex(%q) differs from NameIndex(\"Marie  Dupont\")", same)
		}
	}
	if bytes.Equal(k.NameIndex("Marie Dupont", "1980-02-04"), a) {
		t.Error("another birth date gave the same index")
	}
	if bytes.Equal(k.NameIndex("Marie Dupond", "1980-02-03"), a) {
		t.Error("another name gave the same index")
	}
	if bytes.Equal(k.NameIndex("Marie Dupont", ""), a) {
		t.Error("no birth date gave the dated index")
	}
	if got := k.NameIndex("  ", "1980-02-03"); got != nil {
		t.Errorf("a blank name has index %x, want none", got)
	}
	if NormalizeName("e\u0301lise") != NormalizeName("\u00e9lise") {
		t.Error("combining and precomposed é normalize differently")
	}
}
