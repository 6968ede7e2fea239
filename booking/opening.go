package booking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A waiting room (docs/clinic.md, "Waiting rooms") stands in front of an
// announced opening: the moment a schedule's slots open for booking. People
// who come before it take a place in a pre-queue; at the opening the
// pre-queue is ordered by a draw (DrawOrder, the lottery's documented
// algorithm, on the opening's committed seed), later arrivals follow in
// arrival order, and the queue is admitted from the front at the rate the
// booking engine answers, never beyond the places left (Opening.Admit). Admission is a signed, short-lived token that the
// booking of the opening's slots requires; it is checked by its HMAC alone.

// AdmissionKeyPurpose is the auth.Signer.DeriveKey purpose of the
// admission tokens' key.
const AdmissionKeyPurpose = "opening-admission"

// AdmitTick is the least time between two admissions of one opening,
// whichever instance makes them; AdmitHorizon how long after its opening an
// opening's queue is still admitted from.
const (
	AdmitTick    = 200 * time.Millisecond
	AdmitHorizon = 24 * time.Hour
)

// DefaultAdmissionTTL is how long an admission token is valid after it is
// issued: long enough to choose a slot and book it, short enough that a
// token passed on is of little use.
const DefaultAdmissionTTL = 10 * time.Minute

// Opening is an announced opening: the slots of ScheduleID whose booking
// window opens at OpensAt, behind a waiting room.
type Opening struct {
	ID         int64     `json:"id"`
	ScheduleID int64     `json:"scheduleId"`
	OpensAt    time.Time `json:"opensAt"`
	// DoctorID is the schedule's doctor, whose page lists the slots.
	DoctorID int64 `json:"doctorId"`
	// Seed orders the pre-queue at the opening; it is served only once
	// drawn (Commitment, its SHA-256, is public from the announcement).
	Seed       []byte `json:"-"`
	Commitment string `json:"seedCommitment"`
	// DrawnAt is when the pre-queue was ordered (nil before the opening).
	DrawnAt *time.Time `json:"drawnAt,omitempty"`
	// AdmittedThrough is the last admitted position: positions 1 to it
	// may book. AdmittedAt is when it last moved.
	AdmittedThrough int        `json:"admittedThrough"`
	AdmittedAt      *time.Time `json:"admittedAt,omitempty"`
	// Queued is how many people are in the queue.
	Queued    int       `json:"queued"`
	CreatedAt time.Time `json:"createdAt"`
}

// Validate refuses an opening that cannot be announced at now.
func (o Opening) Validate(now time.Time) error {
	switch {
	case o.ScheduleID <= 0:
		return &Error{Code: CodeInvalidRequest, Message: "scheduleId is required", Pointer: "/scheduleId"}
	case o.OpensAt.IsZero() || !o.OpensAt.After(now):
		return &Error{Code: CodeInvalidRequest, Message: "opensAt must be in the future", Pointer: "/opensAt"}
	case len(o.Seed) != SeedSize:
		return Errorf(CodeInvalidRequest, "an opening needs a %d-byte seed", SeedSize)
	}
	return nil
}

// OpeningEntry is one person's place in an opening's queue: one per person,
// so that joining again (a retry, a second tab) returns the same entry.
// Position (1-based) is set when the pre-queue is drawn, or at once for
// those who join after it.
type OpeningEntry struct {
	ID        int64     `json:"id"`
	OpeningID int64     `json:"openingId"`
	PatientID int64     `json:"-"`
	JoinedAt  time.Time `json:"joinedAt"`
	Position  int       `json:"position,omitempty"`
	// AdmittedAt is when the admission reached Position (nil before).
	AdmittedAt *time.Time `json:"admittedAt,omitempty"`
}

// AdmissionExpires is when e's admission ends, ttl after it was given
// (the zero time when e is not admitted): its token expires then, and its
// place goes back to the queue unless e booked.
func (e OpeningEntry) AdmissionExpires(ttl time.Duration) time.Time {
	if e.AdmittedAt == nil {
		return time.Time{}
	}
	return e.AdmittedAt.Add(ttl).Truncate(time.Second)
}

// PreQueue reports whether e joined before opening o: its place is drawn.
func (e OpeningEntry) PreQueue(o Opening) bool { return e.JoinedAt.Before(o.OpensAt) }

// QueueOrder is the order of an opening's queue at its draw: the entries
// that joined before the opening shuffled by DrawOrder on the seed, then
// the others (those who came between the opening and the draw) by id, that
// is in arrival order. Anyone with the published seed and the pre-queue's
// entry ids recomputes the first part (slotd verify-draw).
func QueueOrder(o Opening, entries []OpeningEntry) []int64 {
	var pre, late []int64
	for _, e := range entries {
		if e.PreQueue(o) {
			pre = append(pre, e.ID)
		} else {
			late = append(late, e.ID)
		}
	}
	out := DrawOrder(o.Seed, pre)
	slices.Sort(late)
	return append(out, late...)
}

// PublishedDraw is the opening's draw as slotd verify-draw checks it: the
// seed, its commitment and the pre-queue's entry ids in position order
// (preQueue, as drawn). Before the draw it is CodeNotOpenYet with the
// opening's time.
func (o Opening) PublishedDraw(preQueue []int64) (Draw, error) {
	if o.DrawnAt == nil {
		opens := o.OpensAt
		e := Errorf(CodeNotOpenYet, "the queue is drawn at the opening, at %s", opens)
		e.OpensAt = &opens
		return Draw{}, e
	}
	if preQueue == nil {
		preQueue = []int64{}
	}
	return Draw{OpeningID: o.ID, Version: DrawVersion, Seed: hex.EncodeToString(o.Seed), Commitment: o.Commitment,
		DrawnAt: o.DrawnAt.UTC(), Order: preQueue}, nil
}

// DrawDue reports whether opening o's pre-queue should be drawn at now.
func (o Opening) DrawDue(now time.Time) bool { return o.DrawnAt == nil && !now.Before(o.OpensAt) }

// Admitted reports whether the entry at position may book.
func (o Opening) Admitted(position int) bool { return position > 0 && position <= o.AdmittedThrough }

// AdmitRequest is one admission tick of an opening
// (OpeningStore.AdmitOpening).
type AdmitRequest struct {
	OpeningID int64
	// Budget is what the engine can take now (the opening's share of the
	// Service's AdmissionBudget).
	Budget int
	// TTL is an admission's life: the admitted who have not booked within
	// it no longer hold a place.
	TTL time.Duration
	Now time.Time
}

// OpeningRoom is what an opening's admission may still hand out, read in
// one statement: the free places of its slots, and the admitted who have
// neither booked one nor seen their admission expire (each holds one).
type OpeningRoom struct {
	Free, Holding int
}

// Admit is how many more positions of opening o to admit now: nothing
// before the draw, never beyond the queue or budget, and never more than
// the places nobody admitted holds, so that nobody is admitted who cannot
// get a place and the admitted are not raced for them by later ones.
func (o Opening) Admit(budget int, room OpeningRoom) int {
	if o.DrawnAt == nil || budget <= 0 {
		return 0
	}
	return max(0, min(budget, o.Queued-o.AdmittedThrough, room.Free-room.Holding))
}

// ExpectedWait is how long the entry at position should wait at rate
// admissions per second: until the opening, then its distance from the
// admitted front. Before the draw a pre-queue place is not known: the wait
// is the mean over the pre-queue's places.
func (o Opening) ExpectedWait(e OpeningEntry, rate float64, now time.Time) time.Duration {
	if rate <= 0 {
		rate = 1
	}
	ahead := float64(e.Position - o.AdmittedThrough - 1)
	var until time.Duration
	if e.Position == 0 {
		until = max(0, o.OpensAt.Sub(now))
		ahead = float64(o.Queued-1) / 2
	}
	if ahead < 0 {
		return 0
	}
	return until + time.Duration(ahead/rate*float64(time.Second))
}

// OpeningPlace is a person's place in an opening's queue as they see it.
type OpeningPlace struct {
	OpeningID  int64     `json:"openingId"`
	ScheduleID int64     `json:"scheduleId"`
	OpensAt    time.Time `json:"opensAt"`
	JoinedAt   time.Time `json:"joinedAt"`
	// PreQueue says the person came before the opening: their Position
	// is drawn at it (0 until then).
	PreQueue bool `json:"preQueue"`
	Drawn    bool `json:"drawn"`
	Position int  `json:"position,omitempty"`
	// Ahead is how many people are before them and not admitted yet
	// (before the draw, everyone else in the queue: the draw decides).
	Ahead               int `json:"ahead"`
	Queued              int `json:"queued"`
	AdmittedThrough     int `json:"admittedThrough"`
	ExpectedWaitSeconds int `json:"expectedWaitSeconds"`
	// Admitted says they may book; Token is then their admission, to be
	// sent with each booking of the opening's slots (Slotd-Admission),
	// valid until TokenExpiresAt. AdmissionExpired says they were
	// admitted but did not book in time: their place went to the next.
	Admitted         bool       `json:"admitted"`
	AdmissionExpired bool       `json:"admissionExpired,omitempty"`
	Token            string     `json:"admissionToken,omitempty"`
	TokenExpiresAt   *time.Time `json:"admissionExpiresAt,omitempty"`
}

// PlaceOf is entry e's place in opening o at now, at rate admissions a
// second (the Service adds the token, and the expiry: Expire).
func PlaceOf(o Opening, e OpeningEntry, rate float64, now time.Time) OpeningPlace {
	p := OpeningPlace{OpeningID: o.ID, ScheduleID: o.ScheduleID, OpensAt: o.OpensAt, JoinedAt: e.JoinedAt,
		PreQueue: e.PreQueue(o), Drawn: o.DrawnAt != nil, Position: e.Position, Queued: o.Queued,
		AdmittedThrough: o.AdmittedThrough, Admitted: o.Admitted(e.Position)}
	switch {
	case e.Position == 0:
		p.Ahead = max(0, o.Queued-1)
	default:
		p.Ahead = max(0, e.Position-o.AdmittedThrough-1)
	}
	if !p.Admitted {
		p.ExpectedWaitSeconds = int(math.Ceil(o.ExpectedWait(e, rate, now).Seconds()))
	}
	return p
}

// Expire ends p's admission when e's, lasting ttl, is over at now.
func (p OpeningPlace) Expire(e OpeningEntry, ttl time.Duration, now time.Time) OpeningPlace {
	if p.Admitted && !now.Before(e.AdmissionExpires(ttl)) {
		p.Admitted, p.AdmissionExpired = false, true
	}
	return p
}

// NotAdmittedRefusal is the booking decision's refusal of a request for a
// slot of an opening with a waiting room without that opening's admission.
func NotAdmittedRefusal(openingID, slotID int64) *Error {
	const f = "this opening has a waiting room: take a place in its queue, and book once admitted"
	return &Error{Code: CodeNotAdmitted, Message: f, Format: f, SlotID: slotID}
}

// admissionRefusal is the booking decision's rule: a slot of an opening
// (openingID > 0) takes a patient's own booking only with that opening's
// admission; staff booking for a caller are not in the queue.
func admissionRefusal(openingID int64, r BookRequest, slotID int64) *Error {
	if openingID == 0 || r.Staff || r.Admission == openingID {
		return nil
	}
	return NotAdmittedRefusal(openingID, slotID)
}

// AdmissionTokens make and verify admission tokens with one key
// (auth.Signer.DeriveKey(AdmissionKeyPurpose)). A token reads
// "<opening>.<expires, unix seconds>.<mac>": the MAC is the first 16 bytes
// of HMAC-SHA256 over the opening, the patient and the expiry, in
// unpadded base64url, so the patient it was issued to is bound without
// being written in it.
type AdmissionTokens struct{ key []byte }

// NewAdmissionTokens returns the tokens of key.
func NewAdmissionTokens(key []byte) AdmissionTokens { return AdmissionTokens{key: key} }

// Valid says whether the tokens have a key (without one no token is
// issued, and no opening can be announced).
func (a AdmissionTokens) Valid() bool { return len(a.key) > 0 }

// MaxAdmissionTokenLen bounds a presented token before any work on it.
const MaxAdmissionTokenLen = 80

func (a AdmissionTokens) mac(openingID, patientID, exp int64) []byte {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte("admission\x00" + strconv.FormatInt(openingID, 10) + "\x00" +
		strconv.FormatInt(patientID, 10) + "\x00" + strconv.FormatInt(exp, 10)))
	return m.Sum(nil)[:16]
}

// Token is patientID's admission to openingID, valid until expires.
func (a AdmissionTokens) Token(openingID, patientID int64, expires time.Time) string {
	exp := expires.Unix()
	return strconv.FormatInt(openingID, 10) + "." + strconv.FormatInt(exp, 10) + "." +
		base64.RawURLEncoding.EncodeToString(a.mac(openingID, patientID, exp))
}

// Verify returns the opening token admits patientID to at now, or 0 when it
// is malformed, expired, someone else's or signed by another key.
func (a AdmissionTokens) Verify(token string, patientID int64, now time.Time) int64 {
	if !a.Valid() || token == "" || len(token) > MaxAdmissionTokenLen {
		return 0
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return 0
	}
	opening, err1 := strconv.ParseInt(parts[0], 10, 64)
	exp, err2 := strconv.ParseInt(parts[1], 10, 64)
	mac, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || opening <= 0 || now.Unix() >= exp {
		return 0
	}
	if !hmac.Equal(mac, a.mac(opening, patientID, exp)) {
		return 0
	}
	return opening
}
