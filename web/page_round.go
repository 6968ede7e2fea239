package web

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// A round's page (docs/clinic.md, rounds): its rooms to choose from
// (page_round_rooms.go) and, for a lottery round, the commitment to its
// seed, the registration button, and after the draw the seed, the caller's
// position and turn; the staff page (page_staff_round.go) opens and closes
// it, lists the registrations, runs the draw and shows the results.

// lotteryPage is what round.html and staff_round.html show of a round.
type lotteryPage struct {
	Round        booking.Round
	Lottery      bool
	Status       string
	Opens        string
	Closes       string
	RegOpens     string
	RegCloses    string
	Registering  bool
	Commitment   string
	Drawn        bool
	DrawnAt      string
	Seed         string
	Registrants  int
	Registration *booking.Registration
	Selection    string
	SelectionEnd string
	Registered   bool
	// Rooms is the student's list of the round's rooms (public page only).
	Rooms roomsView
	// Staff: a page of registrations and the cursor of the next, the
	// rooms and the results.
	Rows  []registrationRow
	After int64
	Staff staffRoundView
}

// registrationRow is one registration on the staff page.
type registrationRow struct {
	ID        int64
	PatientID int64
	Created   string
	Position  int
	Selection string
}

// staffRegistrationsPage is how many registrations the staff page lists at once.
const staffRegistrationsPage = 100

func (s *server) lotteryPageOf(r *http.Request, p *page, id int64) (lotteryPage, error) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	round, err := s.store.GetRound(ctx, id)
	if err != nil {
		return lotteryPage{}, err
	}
	now := s.now()
	v := lotteryPage{Round: round, Status: round.Status(now), Lottery: round.Lottery != nil,
		Opens: p.pr.DateTime(round.OpensAt.In(s.clinicZone)), Closes: p.pr.DateTime(round.ClosesAt.In(s.clinicZone))}
	l := round.Lottery
	if l == nil {
		return v, nil
	}
	v.RegOpens, v.RegCloses = p.pr.DateTime(l.RegistrationOpensAt.In(s.clinicZone)), p.pr.DateTime(l.RegistrationClosesAt.In(s.clinicZone))
	v.Registering = booking.RegistrationRefusal(round, l, now) == nil
	v.Commitment = l.Commitment
	if l.DrawnAt != nil {
		d, err := s.svc.PublishedDraw(r.Context(), id)
		if err != nil {
			return v, err
		}
		v.Drawn, v.DrawnAt, v.Seed, v.Registrants = true, p.pr.DateTime(d.DrawnAt.In(s.clinicZone)), d.Seed, len(d.Order)
	}
	if p.Session.Patient() {
		g, err := s.svc.Registration(r.Context(), id, p.Session.PatientID)
		switch {
		case err == nil:
			v.Registration = &g
			if g.SelectionAt != nil {
				v.Selection = p.pr.DateTime(g.SelectionAt.In(s.clinicZone))
			}
			if g.SelectionEndsAt != nil {
				v.SelectionEnd = p.pr.DateTime(g.SelectionEndsAt.In(s.clinicZone))
			}
		case booking.ErrorCode(err) != booking.CodeNotFound:
			return v, err
		}
	}
	return v, nil
}

// handleRound is a round's public page.
func (s *server) handleRound(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Room selection round")
	v, err := s.lotteryPageOf(r, p, id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	v.Registered = r.URL.Query().Get("registered") == "1"
	if v.Rooms, err = s.roomsOf(r, v.Round, p.Session.Patient()); err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Data = v
	s.render(w, r, http.StatusOK, "round", p)
}

// handleRoundRegister registers the signed-in patient in the round's
// lottery; registering again changes nothing.
func (s *server) handleRoundRegister(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in"))
		return
	}
	if _, _, err := s.svc.Register(r.Context(), id, sess.PatientID); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/rounds/"+itoa(id)+"?registered=1")
}

// handleStaffRound is the staff's page of a round: the lottery, its draw
// and a page of its registrations (?after= the last id shown).
func (s *server) handleStaffRound(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	var after int64
	if a := r.URL.Query().Get("after"); a != "" {
		if after, err = strconv.ParseInt(a, 10, 64); err != nil || after < 0 {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "after must be a registration id"))
			return
		}
	}
	p := s.newPage(w, r, "Room selection round")
	v, err := s.lotteryPageOf(r, p, id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if v.Lottery {
		gs, err := s.svc.Registrations(r.Context(), id, after, staffRegistrationsPage+1)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		if len(gs) > staffRegistrationsPage {
			gs = gs[:staffRegistrationsPage]
			v.After = gs[len(gs)-1].ID
		}
		for _, g := range gs {
			row := registrationRow{ID: g.ID, PatientID: g.PatientID, Created: p.pr.DateTime(g.CreatedAt.In(s.clinicZone)), Position: g.Position}
			if g.SelectionAt != nil {
				row.Selection = p.pr.DateTime(g.SelectionAt.In(s.clinicZone))
			}
			v.Rows = append(v.Rows, row)
		}
	}
	if v.Staff, err = s.staffRoundOf(r, p, v.Round); err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Data = v
	s.render(w, r, http.StatusOK, "staff_round", p)
}

// handleStaffDraw runs the round's draw (once; again changes nothing).
func (s *server) handleStaffDraw(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, _, err := s.svc.Draw(r.Context(), id, "admin"); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/rounds/"+itoa(id))
}
