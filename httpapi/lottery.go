package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Lottery rounds (docs/clinic.md, "Lottery rounds"): registration, the
// caller's place in the draw, the published draw, and the admin's draw and
// list of registrations. Registrants are public only by registration id.

// lotteryIn is the lottery member of POST /api/admin/rounds.
type lotteryIn struct {
	RegistrationOpensAt  instant `json:"registrationOpensAt"`
	RegistrationClosesAt instant `json:"registrationClosesAt"`
	SelectionMinutes     *int    `json:"selectionMinutes"`
	SelectionGroup       *int    `json:"selectionGroup"`
	WindowMinutes        int     `json:"selectionWindowMinutes"`
}

// lottery checks in against the round's opening and returns the settings
// (the Service draws the seed).
func (in *lotteryIn) lottery(opensAt time.Time) (*booking.Lottery, error) {
	if in == nil {
		return nil, nil
	}
	l := &booking.Lottery{RegistrationOpensAt: in.RegistrationOpensAt.UTC(), RegistrationClosesAt: in.RegistrationClosesAt.UTC(),
		SelectionMinutes: 60, SelectionGroup: 1, WindowMinutes: in.WindowMinutes}
	if in.SelectionMinutes != nil {
		l.SelectionMinutes = *in.SelectionMinutes
	}
	if in.SelectionGroup != nil {
		l.SelectionGroup = *in.SelectionGroup
	}
	switch {
	case in.RegistrationOpensAt.IsZero() || in.RegistrationClosesAt.IsZero():
		return nil, inBody(errorf(booking.CodeInvalidRequest, "lottery.registrationOpensAt and lottery.registrationClosesAt are required (RFC 3339)"), "/lottery")
	case !l.RegistrationClosesAt.After(l.RegistrationOpensAt):
		return nil, inBody(errorf(booking.CodeInvalidRequest, "lottery.registrationClosesAt must be after lottery.registrationOpensAt"), "/lottery/registrationClosesAt")
	case l.RegistrationClosesAt.After(opensAt):
		return nil, inBody(errorf(booking.CodeInvalidRequest, "lottery.registrationClosesAt must not be after opensAt"), "/lottery/registrationClosesAt")
	case l.SelectionMinutes < 0 || l.SelectionMinutes > booking.MaxSelectionMinutes:
		return nil, inBody(errorf(booking.CodeInvalidRequest, "lottery.selectionMinutes must be 0 to %d", booking.MaxSelectionMinutes), "/lottery/selectionMinutes")
	case l.SelectionGroup < 1 || l.SelectionGroup > booking.MaxSelectionGroup:
		return nil, inBody(errorf(booking.CodeInvalidRequest, "lottery.selectionGroup must be 1 to %d", booking.MaxSelectionGroup), "/lottery/selectionGroup")
	case l.WindowMinutes < 0 || l.WindowMinutes > booking.MaxSelectionMinutes:
		return nil, inBody(errorf(booking.CodeInvalidRequest, "lottery.selectionWindowMinutes must be 0 to %d", booking.MaxSelectionMinutes), "/lottery/selectionWindowMinutes")
	}
	return l, nil
}

// lotteryView is a lottery round's public settings: never the seed before
// the draw (GET /api/rounds/{id}/draw serves it after).
type lotteryView struct {
	RegistrationOpensAt  time.Time  `json:"registrationOpensAt"`
	RegistrationClosesAt time.Time  `json:"registrationClosesAt"`
	Registering          bool       `json:"registering"`
	SelectionMinutes     int        `json:"selectionMinutes"`
	SelectionGroup       int        `json:"selectionGroup"`
	WindowMinutes        int        `json:"selectionWindowMinutes"`
	DrawnAt              *time.Time `json:"drawnAt,omitempty"`
}

func newLotteryView(r booking.Round, now time.Time) (*lotteryView, string) {
	l := r.Lottery
	if l == nil {
		return nil, ""
	}
	return &lotteryView{RegistrationOpensAt: l.RegistrationOpensAt.UTC(), RegistrationClosesAt: l.RegistrationClosesAt.UTC(),
		Registering:      booking.RegistrationRefusal(r, l, now) == nil,
		SelectionMinutes: l.SelectionMinutes, SelectionGroup: l.SelectionGroup, WindowMinutes: l.WindowMinutes, DrawnAt: l.DrawnAt}, l.Commitment
}

// registrationView is a registration as its registrant (or an admin) sees
// it: the public id, and once drawn the position and selection time.
type registrationView struct {
	ID          int64      `json:"id"`
	RoundID     int64      `json:"roundId"`
	PatientID   int64      `json:"patientId"`
	CreatedAt   time.Time  `json:"createdAt"`
	Drawn       bool       `json:"drawn"`
	Position    int        `json:"position,omitempty"`
	SelectionAt *time.Time `json:"selectionAt,omitempty"`
	// SelectionEndsAt ends the turn when the lottery has a window.
	SelectionEndsAt *time.Time `json:"selectionEndsAt,omitempty"`
}

func newRegistrationView(g booking.Registration) registrationView {
	v := registrationView{ID: g.ID, RoundID: g.RoundID, PatientID: g.PatientID, CreatedAt: g.CreatedAt.UTC(),
		Drawn: g.SelectionAt != nil, Position: g.Position}
	if g.SelectionAt != nil {
		t := g.SelectionAt.UTC()
		v.SelectionAt = &t
	}
	if g.SelectionEndsAt != nil {
		t := g.SelectionEndsAt.UTC()
		v.SelectionEndsAt = &t
	}
	return v
}

// registrant is the caller's patient id: registering is a patient's own act.
func registrant(c auth.Claims) (int64, error) {
	return ownPatient(c, "only patients register in a round's lottery")
}

// register is POST /api/rounds/{id}/registration: 201 with the new
// registration, 200 with the same one on a retry.
func (s *server) register(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	patient, err := registrant(c)
	if err != nil {
		return err
	}
	g, existed, err := s.svc.Register(r.Context(), roundID, patient)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/rounds/"+strconv.FormatInt(roundID, 10)+"/registration")
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	writeJSON(w, status, newRegistrationView(g))
	return nil
}

// myRegistration is GET /api/rounds/{id}/registration: the caller's own.
func (s *server) myRegistration(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	patient, err := registrant(c)
	if err != nil {
		return err
	}
	g, err := s.svc.Registration(r.Context(), roundID, patient)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, newRegistrationView(g))
	return nil
}

// getDraw is GET /api/rounds/{id}/draw: the published draw, for anyone to
// check with slotd verify-draw.
func (s *server) getDraw(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	d, err := s.svc.PublishedDraw(r.Context(), roundID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, drawView(d))
	return nil
}

// drawView keeps DrawnAt in UTC and an empty draw's list a list.
func drawView(d booking.Draw) booking.Draw {
	d.DrawnAt = d.DrawnAt.UTC()
	if d.Order == nil {
		d.Order = []int64{}
	}
	return d
}

// drawRound is POST /api/admin/rounds/{id}/draw: runs the draw if the
// registration has closed and it has not run; either way 200 with the draw.
func (s *server) drawRound(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	d, _, err := s.svc.Draw(r.Context(), roundID, "admin")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, drawView(d))
	return nil
}

// roundRegistrations is GET /api/admin/rounds/{id}/registrations, paged by id.
func (s *server) roundRegistrations(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	roundID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	q, err := parseQuery(r, withPage()...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	if _, err := s.store.GetRound(ctx, roundID); err != nil {
		return storeErr(ctx, err)
	}
	sp := p.store()
	gs, err := s.svc.Registrations(r.Context(), roundID, sp.After, sp.Limit)
	if err != nil {
		return err
	}
	out := make([]registrationView, len(gs))
	for i, g := range gs {
		out[i] = newRegistrationView(g)
	}
	writeJSON(w, http.StatusOK, pageOf(out, p, func(v registrationView) int64 { return v.ID }))
	return nil
}
