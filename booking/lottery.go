package booking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// A lottery round (docs/clinic.md, "Lottery rounds") replaces first come,
// first served at the opening by a draw: people register during a
// registration window, a committed random seed orders them at its close,
// and each registrant may apply from a selection time that follows their
// place in the draw.

// DrawVersion names the ordering algorithm of DrawOrder. A change to the
// algorithm takes a new version, so that old draws stay verifiable.
const DrawVersion = 1

// SeedSize is the length in bytes of a lottery seed.
const SeedSize = 32

// Lottery is a round's lottery settings and, once drawn, its draw.
type Lottery struct {
	// RegistrationOpensAt and RegistrationClosesAt bound the registration
	// window [opens, closes); it closes no later than the round opens.
	RegistrationOpensAt  time.Time `json:"registrationOpensAt"`
	RegistrationClosesAt time.Time `json:"registrationClosesAt"`
	// SelectionMinutes is the time between two groups' selection times
	// and SelectionGroup how many registrants share one (see SelectionAt).
	SelectionMinutes int `json:"selectionMinutes"`
	SelectionGroup   int `json:"selectionGroup"`
	// WindowMinutes is how long a registrant's turn lasts from their
	// selection time: missed, it passes for good. 0 keeps the turn open
	// until the round closes (see SelectionEndsAt).
	WindowMinutes int `json:"selectionWindowMinutes"`
	// Seed is the secret drawn when the round was created; it is never
	// served before the draw. Commitment is hex(SHA-256(Seed)), public.
	Seed       []byte `json:"-"`
	Commitment string `json:"seedCommitment"`
	// DrawnAt is when the draw ran (nil before).
	DrawnAt *time.Time `json:"drawnAt,omitempty"`
}

// Lottery bounds, checked by Validate.
const (
	MaxSelectionMinutes = 7 * 24 * 60
	MaxSelectionGroup   = 10000
)

// Validate refuses lottery settings that cannot be stored for round r.
func (l Lottery) Validate(r Round) error {
	switch {
	case l.RegistrationOpensAt.IsZero() || l.RegistrationClosesAt.IsZero() ||
		!l.RegistrationClosesAt.After(l.RegistrationOpensAt):
		return Errorf(CodeInvalidRequest, "a lottery's registration must close after it opens")
	case l.RegistrationClosesAt.After(r.OpensAt):
		return Errorf(CodeInvalidRequest, "a lottery's registration must close no later than the round opens")
	case l.SelectionMinutes < 0 || l.SelectionMinutes > MaxSelectionMinutes:
		return Errorf(CodeInvalidRequest, "selectionMinutes must be 0 to %d", MaxSelectionMinutes)
	case l.WindowMinutes < 0 || l.WindowMinutes > MaxSelectionMinutes:
		return Errorf(CodeInvalidRequest, "selectionWindowMinutes must be 0 to %d", MaxSelectionMinutes)
	case l.SelectionGroup < 1 || l.SelectionGroup > MaxSelectionGroup:
		return Errorf(CodeInvalidRequest, "selectionGroup must be 1 to %d", MaxSelectionGroup)
	case len(l.Seed) != SeedSize:
		return Errorf(CodeInvalidRequest, "a lottery needs a %d-byte seed", SeedSize)
	}
	return nil
}

// Commit is the public commitment to a seed: hex(SHA-256(seed)).
func Commit(seed []byte) string {
	sum := sha256.Sum256(seed)
	return hex.EncodeToString(sum[:])
}

// Registration is one person's entry in a round's lottery. Only its ID is
// ever public; Position (1-based), SelectionAt and SelectionEndsAt are set
// by the draw.
type Registration struct {
	ID          int64      `json:"id"`
	RoundID     int64      `json:"roundId"`
	PatientID   int64      `json:"patientId"`
	CreatedAt   time.Time  `json:"createdAt"`
	Position    int        `json:"position,omitempty"`
	SelectionAt *time.Time `json:"selectionAt,omitempty"`
	// SelectionEndsAt ends the turn (nil: it lasts until the round closes).
	SelectionEndsAt *time.Time `json:"selectionEndsAt,omitempty"`
}

// Turn returns the registration's turn, nil before the draw.
func (g Registration) Turn() *Turn {
	if g.SelectionAt == nil {
		return nil
	}
	return &Turn{From: *g.SelectionAt, Until: g.SelectionEndsAt}
}

// Turn is a registrant's selection window: they may choose a room from
// From, and before Until when it is set. It is the lottery's held offer:
// a room is not held for them (they choose which), their turn is.
type Turn struct {
	From  time.Time
	Until *time.Time
}

// Draw is a round's published draw: the seed, its commitment and the
// registration ids in draw order.
type Draw struct {
	// RoundID is the round drawn, or OpeningID the opening whose
	// pre-queue was (its Order then lists queue entry ids).
	RoundID    int64     `json:"roundId,omitempty"`
	OpeningID  int64     `json:"openingId,omitempty"`
	Version    int       `json:"algorithmVersion"`
	Seed       string    `json:"seed"`
	Commitment string    `json:"seedCommitment"`
	DrawnAt    time.Time `json:"drawnAt"`
	Order      []int64   `json:"registrationIds"`
}

// stream is the draw's random stream: block k is HMAC-SHA256(seed,
// uint64 big-endian k), k = 0, 1, …, of which the first 8 bytes are read as
// a big-endian uint64 (one number per block).
type stream struct {
	seed []byte
	k    uint64
}

func (s *stream) next() uint64 {
	m := hmac.New(sha256.New, s.seed)
	var ctr [8]byte
	binary.BigEndian.PutUint64(ctr[:], s.k)
	s.k++
	m.Write(ctr[:])
	return binary.BigEndian.Uint64(m.Sum(nil))
}

// below returns a uniform number in [0, n) by rejection sampling: a number
// x of the stream is kept only when x < 2^64 - (2^64 mod n), so that every
// residue is equally likely (no modulo bias).
func (s *stream) below(n uint64) uint64 {
	skew := (math.MaxUint64%n + 1) % n // 2^64 mod n
	for {
		x := s.next()
		if skew == 0 || x < -skew { // -skew is 2^64 - skew
			return x % n
		}
	}
}

// DrawOrder orders the registration ids by the draw of version
// DrawVersion: the ids sorted ascending, then shuffled by Fisher–Yates from
// the last index down (for i = n-1 … 1, swap i with j = below(i+1)) on the
// seed's stream. It is a function of the seed and the set of ids alone, so
// anyone with the published seed and ids recomputes it (slotd verify-draw).
func DrawOrder(seed []byte, ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	s := &stream{seed: seed}
	for i := len(out) - 1; i > 0; i-- {
		j := s.below(uint64(i + 1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// SelectionAt is when the registrant at position (1-based) of round r's
// draw may start to apply: the round's opening, plus SelectionMinutes for
// each full group of SelectionGroup registrants before them.
func (l Lottery) SelectionAt(r Round, position int) time.Time {
	group := (position - 1) / max(l.SelectionGroup, 1)
	return r.OpensAt.Add(time.Duration(group) * time.Duration(l.SelectionMinutes) * time.Minute)
}

// SelectionEndsAt is when the turn of the registrant at position ends:
// WindowMinutes after their selection time, nil when the lottery has no
// window (the turn lasts until the round closes).
func (l Lottery) SelectionEndsAt(r Round, position int) *time.Time {
	if l.WindowMinutes == 0 {
		return nil
	}
	end := l.SelectionAt(r, position).Add(time.Duration(l.WindowMinutes) * time.Minute)
	return &end
}

// RegistrationRefusal tells why a registration in round r's lottery l is
// refused at now, or nil: the round must be published and the clock inside
// the registration window.
func RegistrationRefusal(r Round, l *Lottery, now time.Time) *Error {
	switch {
	case l == nil:
		return Errorf(CodeConflict, "this round has no lottery")
	case r.State == RoundClosed || !now.Before(l.RegistrationClosesAt) || l.DrawnAt != nil:
		return Errorf(CodeSlotClosed, "the lottery's registration is closed")
	case r.State != RoundOpen || now.Before(l.RegistrationOpensAt):
		opens := l.RegistrationOpensAt
		e := Errorf(CodeNotOpenYet, "the lottery's registration opens at %s", opens)
		e.OpensAt = &opens
		return e
	}
	return nil
}

// TurnRefusal tells why a lottery round refuses patient's application to
// slotID at now, or nil when it is their turn. turn is the patient's, nil
// when they have none (not registered, or not drawn yet). Before the turn
// the refusal is CodeNotYourTurn, its OpensAt the selection time; after a
// turn's end CodeTurnPassed, its OpensAt the end. Both stores' booking
// decision call it.
func TurnRefusal(turn *Turn, slotID int64, now time.Time) *Error {
	switch {
	case turn == nil:
		return &Error{Code: CodeNotYourTurn, SlotID: slotID,
			Message: "this round is a lottery: only its registrants may apply, from their selection time",
			Format:  "this round is a lottery: only its registrants may apply, from their selection time"}
	case now.Before(turn.From):
		at := turn.From
		e := Errorf(CodeNotYourTurn, "it is not your turn yet: your selection time is %s", at)
		e.SlotID, e.OpensAt = slotID, &at
		return e
	case turn.Until != nil && !now.Before(*turn.Until):
		end := *turn.Until
		e := Errorf(CodeTurnPassed, "your turn to choose a room ended at %s", end)
		e.SlotID, e.OpensAt = slotID, &end
		return e
	}
	return nil
}

// DrawReady reports whether round r's lottery l may be drawn at now: after
// its registration closed, not yet drawn.
func DrawReady(l *Lottery, now time.Time) *Error {
	switch {
	case l == nil:
		return Errorf(CodeConflict, "this round has no lottery")
	case now.Before(l.RegistrationClosesAt):
		closes := l.RegistrationClosesAt
		e := Errorf(CodeNotOpenYet, "the draw runs when the registration closes, at %s", closes)
		e.OpensAt = &closes
		return e
	}
	return nil
}

// VerifyDraw checks a published draw: its seed hashes to its commitment
// (and to want, the commitment recorded before the draw, when given) and its
// order is DrawOrder of the seed and its ids. It returns what does not
// match, nil when everything does.
func VerifyDraw(d Draw, want string) error {
	if d.Version != DrawVersion {
		return fmt.Errorf("algorithm version %d is not known to this slotd (it knows %d)", d.Version, DrawVersion)
	}
	seed, err := hex.DecodeString(d.Seed)
	if err != nil || len(seed) != SeedSize {
		return fmt.Errorf("the seed must be %d bytes in hex", SeedSize)
	}
	got := Commit(seed)
	switch {
	case got != strings.ToLower(d.Commitment):
		return fmt.Errorf("the seed's SHA-256 is %s, not the published commitment %s", got, d.Commitment)
	case want != "" && got != strings.ToLower(want):
		return fmt.Errorf("the seed's SHA-256 is %s, not the commitment %s you recorded", got, want)
	}
	if order := DrawOrder(seed, d.Order); !slices.Equal(order, d.Order) {
		for i := range order {
			if order[i] != d.Order[i] {
				return fmt.Errorf("the order differs from position %d: recomputed %d, published %d", i+1, order[i], d.Order[i])
			}
		}
	}
	return nil
}
