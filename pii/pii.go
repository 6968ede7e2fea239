// Package pii seals personal data (a patient's name, phone and e-mail) for
// storage: AES-256-GCM with a key id in every ciphertext, so that a newer
// key encrypts while older ones still decrypt, and a keyed hash (HMAC-SHA256
// with a key of its own) for the look-ups that need equality. Both stores
// seal and open at their boundary with it (docs/stores.md says why there).
package pii

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Fields sealed, named in the additional data so that a ciphertext moved to
// another column does not open.
const (
	FieldName  = "patient.name"
	FieldPhone = "patient.phone"
	FieldEmail = "patient.email"
	// FieldBirthDate and FieldSex are what a patient gives at sign-up.
	FieldBirthDate = "patient.birth_date"
	FieldSex       = "patient.sex"
	// FieldNationalID is the national ID number of real-name registration.
	FieldNationalID = "patient.national_id"
	// FieldStaffTOTP is a staff user's second-factor secret.
	FieldStaffTOTP = "staff.totp"
	// FieldInvitation is a campaign's invitation code, kept only as its
	// index (a keyed hash): the store never holds a usable code.
	FieldInvitation = "invitation.code"
)

// version is the first byte of a sealed value: the layout below.
const version = 1

// header is version (1 byte) + key id (2 bytes, big-endian); the GCM
// nonce (12 bytes) follows, then the ciphertext with its tag.
const header = 3

// KeyLen is the length of every key: AES-256 and a 256-bit HMAC key.
const KeyLen = 32

var (
	// ErrUnknownKey: the value was sealed with a key id not configured.
	ErrUnknownKey = errors.New("pii: sealed with a data key that is not configured")
	// ErrWrongKey: the value does not open with the key of its id (another
	// key under that id, or a damaged value).
	ErrWrongKey = errors.New("pii: sealed value does not open with its data key")
)

// Keys are the configured data keys and the index key.
type Keys struct {
	aeads  map[uint16]cipher.AEAD
	newest uint16
	index  []byte
}

// Parse reads keys written as entries separated by commas or white space,
// each ID:BASE64 of 32 bytes: "index:…" is the keyed-hash key (exactly one),
// and numeric ids 1–65535 are data keys, the highest of which encrypts.
func Parse(s string) (*Keys, error) {
	k := &Keys{aeads: map[uint16]cipher.AEAD{}}
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' }) {
		id, b64, ok := strings.Cut(e, ":")
		if !ok {
			return nil, errors.New("pii: a data key is ID:BASE64 (e.g. index:… or 1:…)")
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(raw) != KeyLen {
			return nil, fmt.Errorf("pii: data key %q: want %d bytes in standard base64", id, KeyLen)
		}
		if id == "index" {
			if k.index != nil {
				return nil, errors.New("pii: two index keys")
			}
			k.index = raw
			continue
		}
		n, err := strconv.ParseUint(id, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("pii: data key id %q: want index or 1–65535", id)
		}
		if _, dup := k.aeads[uint16(n)]; dup {
			return nil, fmt.Errorf("pii: data key %d given twice", n)
		}
		block, _ := aes.NewCipher(raw) // 32 bytes: cannot fail
		aead, _ := cipher.NewGCM(block)
		k.aeads[uint16(n)] = aead
		k.newest = max(k.newest, uint16(n))
	}
	if k.index == nil || len(k.aeads) == 0 {
		return nil, errors.New("pii: data keys need one index:… entry and at least one numbered key")
	}
	return k, nil
}

// Generate returns a new key set's text: an index key and data key 1.
func Generate() string {
	return "index:" + newKey() + ",1:" + newKey()
}

// AddKey returns keys' text with a new data key, numbered one above
// highest, appended: the rotation step.
func AddKey(text string, highest uint16) string {
	return strings.TrimSpace(text) + "," + strconv.Itoa(int(highest)+1) + ":" + newKey()
}

func newKey() string {
	raw := make([]byte, KeyLen)
	rand.Read(raw) // never fails (crypto/rand)
	return base64.StdEncoding.EncodeToString(raw)
}

// New returns a fresh key set (for tests and new databases).
func New() *Keys {
	k, err := Parse(Generate())
	if err != nil {
		panic(err)
	}
	return k
}

// LoadOrCreate reads the key file at path, or creates it (mode 0600, in a
// directory of mode 0700) with fresh keys. Two processes creating it at
// once agree: the file appears whole (written aside, then linked into
// place), and the loser reads the winner's.
func LoadOrCreate(path string) (*Keys, error) {
	k, err := load(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return k, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pii: create key directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".data-keys-*")
	if err != nil {
		return nil, fmt.Errorf("pii: create key file: %w", err)
	}
	defer os.Remove(f.Name())
	text := Generate()
	_, err = f.WriteString(text + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("pii: write key file: %w", err)
	}
	// CreateTemp made it 0600; Link fails if another process won.
	if err := os.Link(f.Name(), path); errors.Is(err, os.ErrExist) {
		return load(path)
	} else if err != nil {
		return nil, fmt.Errorf("pii: create key file: %w", err)
	}
	return Parse(text)
}

func load(path string) (*Keys, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("pii: key file %s is readable by others (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pii: read key file: %w", err)
	}
	k, err := Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

// Newest is the id of the key that seals.
func (k *Keys) Newest() uint16 { return k.newest }

// IDs lists the configured data key ids, ascending.
func (k *Keys) IDs() []uint16 {
	ids := make([]uint16, 0, len(k.aeads))
	for id := range k.aeads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Has reports whether data key id is configured.
func (k *Keys) Has(id uint16) bool { _, ok := k.aeads[id]; return ok }

// Seal encrypts plain for field with the newest key; "" seals to nil (the
// store's NULL), so that an absent value stays absent.
func (k *Keys) Seal(field, plain string) []byte {
	if plain == "" {
		return nil
	}
	return k.sealWith(k.newest, field, plain)
}

func (k *Keys) sealWith(id uint16, field, plain string) []byte {
	aead := k.aeads[id]
	out := make([]byte, header+aead.NonceSize(), header+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = version
	binary.BigEndian.PutUint16(out[1:header], id)
	rand.Read(out[header:]) // the nonce; never fails
	return aead.Seal(out, out[header:], []byte(plain), ad(out[:header], field))
}

// ad binds a ciphertext to its header and its field.
func ad(hdr []byte, field string) []byte { return append(slices.Clone(hdr), field...) }

// Open decrypts a value Seal made for field; nil opens to "".
func (k *Keys) Open(field string, sealed []byte) (string, error) {
	if sealed == nil {
		return "", nil
	}
	id, err := KeyOf(sealed)
	if err != nil {
		return "", err
	}
	aead, ok := k.aeads[id]
	if !ok {
		return "", fmt.Errorf("%w (key %d)", ErrUnknownKey, id)
	}
	if len(sealed) < header+aead.NonceSize()+aead.Overhead() {
		return "", ErrWrongKey
	}
	nonce := sealed[header : header+aead.NonceSize()]
	plain, err := aead.Open(nil, nonce, sealed[header+aead.NonceSize():], ad(sealed[:header], field))
	if err != nil {
		return "", fmt.Errorf("%w (key %d)", ErrWrongKey, id)
	}
	return string(plain), nil
}

// KeyOf returns the id of the key a sealed value was made with.
func KeyOf(sealed []byte) (uint16, error) {
	if len(sealed) < header || sealed[0] != version {
		return 0, errors.New("pii: not a sealed value")
	}
	return binary.BigEndian.Uint16(sealed[1:header]), nil
}

// Index is the keyed hash of an already normalized value (an E.164 phone, a
// lower-cased e-mail) for field: equal values give equal indexes, and
// without the index key nothing links an index to its value. "" gives nil.
func (k *Keys) Index(field, normalized string) []byte {
	if normalized == "" {
		return nil
	}
	m := hmac.New(sha256.New, k.index)
	m.Write([]byte(field))
	m.Write([]byte{0})
	m.Write([]byte(normalized))
	return m.Sum(nil)
}

// NormalizeEmail is the one form of an e-mail address that its index is
// made of: trimmed and lower-cased.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Check values: every store keeps, per data key, CheckPlain sealed with it
// and the index of CheckPlain, and opens them at start, so that a wrong
// key is a startup error rather than garbage or failed look-ups later.
const (
	CheckField = "pii.check"
	CheckPlain = "slotd data key check"
)

// CheckSeal seals the check value with data key id.
func (k *Keys) CheckSeal(id uint16) []byte { return k.sealWith(id, CheckField, CheckPlain) }

// Verify tells whether sealed (a CheckSeal of its key) opens with the
// configured key of its id.
func (k *Keys) Verify(sealed []byte) error {
	got, err := k.Open(CheckField, sealed)
	if err == nil && got != CheckPlain {
		err = ErrWrongKey
	}
	return err
}

// IndexCheckID is the check row of the index key (data keys are ≥ 1).
const IndexCheckID = 0

// ErrKeys is what a key mismatch at start wraps.
var ErrKeys = errors.New("pii: the data keys do not match this database")

// CheckStored compares the check rows a database holds (key id → value;
// IndexCheckID for the index key) and the key ids its sealed values use
// with k. It returns the check rows to add (for keys the database has not
// seen yet), or an error wrapping ErrKeys naming the key that is wrong or
// missing. A retired key (no value uses it any more) may be left out.
func (k *Keys) CheckStored(stored map[uint16][]byte, sealedWith []uint16) (map[uint16][]byte, error) {
	add := map[uint16][]byte{}
	wantIndex := k.Index(CheckField, CheckPlain)
	if got, ok := stored[IndexCheckID]; !ok {
		add[IndexCheckID] = wantIndex
	} else if !hmac.Equal(got, wantIndex) {
		return nil, fmt.Errorf("%w: the index key is not the one this database's look-ups were made with", ErrKeys)
	}
	for _, id := range sealedWith {
		if !k.Has(id) {
			return nil, fmt.Errorf("%w: data key %d is missing (personal data is sealed with it): restore it in SLOTD_DATA_KEYS", ErrKeys, id)
		}
	}
	for _, id := range k.IDs() {
		v, ok := stored[id]
		if !ok {
			add[id] = k.CheckSeal(id)
			continue
		}
		if err := k.Verify(v); err != nil {
			return nil, fmt.Errorf("%w: data key %d is not the one this database was sealed with", ErrKeys, id)
		}
	}
	return add, nil
}

// PhoneIndex is the index of a phone: of its E.164 form (as the Service
// normalizes it) with any spaces, dashes, dots and brackets removed, the
// form the plain look-up of migration 00003 compared, so that the phones
// stored before sealing are found as they were.
func (k *Keys) PhoneIndex(phone string) []byte {
	return k.Index(FieldPhone, strings.Map(func(r rune) rune {
		if strings.ContainsRune(" -.()", r) {
			return -1
		}
		return r
	}, phone))
}

// EmailIndex is the index of an e-mail address, in any case.
func (k *Keys) EmailIndex(email string) []byte { return k.Index(FieldEmail, NormalizeEmail(email)) }

// NationalIDIndex is the index of a national ID number as booking
// normalizes it (upper case, letters and digits).
func (k *Keys) NationalIDIndex(id string) []byte { return k.Index(FieldNationalID, id) }
