package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// handleReschedulePage lists the doctor's slots of one day (the
// appointment's, or ?date=) with a "Move here" button each; each button
// carries its own Idempotency-Key, as the Book buttons do.
func (s *server) handleReschedulePage(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	a, ok := s.ownAppointment(w, r, sess.PatientID)
	if !ok {
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	doc, err := s.store.GetDoctor(ctx, a.DoctorID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	loc := zone(doc.TimeZone)
	day := schedule.DateOf(a.StartAt, loc)
	if v := r.URL.Query().Get("date"); v != "" {
		if day, err = schedule.ParseDate(v); err != nil {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "date"))
			return
		}
	}
	from, to := schedule.DayBounds(day, loc)
	slots, err := s.store.ListSlots(ctx, doc.ID, from, to)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Reschedule")
	now := s.now()
	rows := make([]slotRow, 0, len(slots))
	for _, sl := range slots {
		row := slotRowOf(p.pr, sl, loc, now)
		if sl.ID == a.SlotID {
			row.State, row.Key = "current", ""
		}
		rows = append(rows, row)
	}
	p.Data = struct {
		Appt       apptView
		Doctor     booking.Doctor
		Day, Date  string
		Prev, Next string
		Slots      []slotRow
	}{s.apptViewOf(ctx, p.pr, a), doc, dayTitle(p.pr, day), day.String(), day.AddDays(-1).String(), day.AddDays(1).String(), rows}
	s.render(w, r, http.StatusOK, "reschedule", p)
}

// handleReschedule moves the patient's appointment (Service.Reschedule);
// it spends a booking attempt, as a booking does.
func (s *server) handleReschedule(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	slotID, err := strconv.ParseInt(r.PostFormValue("slot"), 10, 64)
	key := r.PostFormValue("key")
	switch {
	case err != nil || slotID <= 0:
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "no slot chosen"))
		return
	case !validKey(key):
		s.renderError(w, r, booking.Errorf(booking.CodeMissingIdempotencyKey, "no idempotency key"))
		return
	}
	if err := s.svc.AttemptBooking(sess.PatientID).Err(); err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, err := s.svc.Reschedule(r.Context(), service.RescheduleRequest{AppointmentID: id, PatientID: sess.PatientID, SlotID: slotID, Key: key}); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/appointments/"+itoa(id)+"?moved=1")
}

// entryView is a waitlist entry as "My waitlist" shows it.
type entryView struct {
	ID          int64
	What        string
	Period      string
	PartOfDay   string
	State       string
	Position    int
	Live        bool
	Offered     bool
	Deadline    string // RFC 3339, for the countdown
	DeadlineLoc string
	OfferWhen   string
	// Party is a party's size (0 for one person).
	Party int
	// For names the person of the account the entry is for ("" for the
	// account), PersonID their id, which the entry's forms send back.
	For      string
	PersonID int64
}

// handleWaitlist is "My waitlist": each entry with its position, and a
// running offer with its countdown and the accept and decline buttons.
func (s *server) handleWaitlist(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	// The account's entries, then each of its people's, named.
	people := s.peopleOf(r, sess.PatientID)
	if len(people) == 0 {
		people = []booking.Patient{{ID: sess.PatientID}}
	}
	var es []booking.WaitlistEntry
	names := map[int64]string{}
	for i, person := range people {
		mine, err := s.svc.Waitlist(r.Context(), person.ID)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		if i > 0 {
			names[person.ID] = person.Name
		}
		es = append(es, mine...)
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p := s.newPage(w, r, "My waitlist")
	views := make([]entryView, 0, len(es))
	for _, e := range es {
		v := entryView{ID: e.ID, PartOfDay: e.PartOfDay, State: e.State, Position: e.Position, Live: e.Live(),
			Offered: e.State == booking.EntryOffered, For: names[e.PatientID]}
		if e.Size() > 1 {
			v.Party = e.Size()
		}
		if v.For != "" {
			v.PersonID = e.PatientID
		}
		loc := time.UTC
		if e.IsStandby() {
			v.What = p.T("Leftover doses at site %d", e.SiteID)
			if st, ok := s.site(r.Context(), e.SiteID); ok {
				v.What, loc = p.T("Leftover doses at %s", st.Name), zone(st.TimeZone)
			}
		} else if e.DoctorID != 0 {
			v.What = p.T("Doctor %d", e.DoctorID)
			if d, err := s.store.GetDoctor(ctx, e.DoctorID); err == nil {
				v.What, loc = d.Name, zone(d.TimeZone)
			}
		} else {
			v.What = s.departmentName(ctx, e.DepartmentID, p.T("Department %d", e.DepartmentID))
		}
		v.Period = fmtDateTime(p.pr, e.From, loc) + " – " + fmtDateTime(p.pr, e.To, loc)
		if v.Offered && e.OfferExpiresAt != nil {
			v.Deadline, v.DeadlineLoc = e.OfferExpiresAt.UTC().Format(time.RFC3339), fmtClock(p.pr, *e.OfferExpiresAt, loc)
			if sl, err := s.store.GetSlot(ctx, e.SlotID); err == nil {
				v.OfferWhen = fmtDateTime(p.pr, sl.StartAt, loc)
			}
		}
		views = append(views, v)
	}
	switch q := r.URL.Query(); {
	case q.Has("joined"):
		p.Notice = p.T("You are on the waitlist.")
	case q.Has("declined"):
		p.Notice = p.T("Offer declined: it goes to the next person waiting.")
	case q.Has("left"):
		p.Notice = p.T("You left the waitlist.")
	case q.Has("standby"):
		p.Notice = p.T("You are on standby: if a dose is left at the end of a day, it may be held for you for a few minutes.")
	}
	// The standby form: the sites, the day (today in the first site's
	// zone) and, for an account with people, whom it is for.
	sites := s.sites(r.Context())
	today := s.now().UTC()
	if len(sites) > 0 {
		today = today.In(zone(sites[0].TimeZone))
	}
	var who []booking.Patient
	if len(people) > 1 {
		who = people
	}
	p.Data = struct {
		Entries []entryView
		Sites   []booking.Site
		People  []booking.Patient
		Today   string
		Key     string
	}{views, sites, who, today.Format(time.DateOnly), newIdempotencyKey()}
	s.render(w, r, http.StatusOK, "waitlist", p)
}

// handleStandbyJoin opts the patient (or a person of the account) in for
// leftover doses at a site for one local day (Service.JoinStandby).
func (s *server) handleStandbyJoin(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	siteID, err := strconv.ParseInt(r.PostFormValue("site"), 10, 64)
	key := r.PostFormValue("key")
	st, found := s.site(r.Context(), siteID)
	if err != nil || !found || !validKey(key) {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "site, day and key"))
		return
	}
	day, err := schedule.ParseDate(r.PostFormValue("date"))
	if err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "date"))
		return
	}
	from, to := schedule.DayBounds(day, zone(st.TimeZone))
	acting, err := s.actingFor(r, sess)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, _, err := s.svc.JoinStandby(r.Context(), booking.WaitlistEntry{PatientID: acting, SiteID: siteID,
		From: from, To: to, IdempotencyKey: key}); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/waitlist?standby=1")
}

// handleWaitlistJoin puts the patient on a doctor's waitlist for one day
// (from the day page's "Join the waitlist" on a full day).
func (s *server) handleWaitlistJoin(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	doctorID, err := strconv.ParseInt(r.PostFormValue("doctor"), 10, 64)
	key := r.PostFormValue("key")
	if err != nil || doctorID <= 0 || !validKey(key) {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "doctor, day and key"))
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	doc, err := s.store.GetDoctor(ctx, doctorID)
	cancel()
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	day, err := schedule.ParseDate(r.PostFormValue("date"))
	if err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "date"))
		return
	}
	from, to := schedule.DayBounds(day, zone(doc.TimeZone))
	if now := s.now(); from.Before(now) {
		from = now
	}
	acting, err := s.actingFor(r, sess)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	party := 1
	if v := r.PostFormValue("party"); v != "" {
		if party, err = strconv.Atoi(v); err != nil || party < 1 || party > booking.MaxGroup {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "party size 1 to %d", booking.MaxGroup))
			return
		}
	}
	if _, _, err := s.svc.JoinWaitlist(r.Context(), booking.WaitlistEntry{PatientID: acting, DoctorID: doctorID,
		From: from, To: to, PartOfDay: r.PostFormValue("part"), IdempotencyKey: key, PartySize: party}); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/waitlist?joined=1")
}

// handleWaitlistAction accepts or declines an entry's offer, or leaves.
func (s *server) handleWaitlistAction(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	patient, err := s.actingFor(r, sess)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	switch r.PathValue("action") {
	case "accept":
		_, a, err := s.svc.AnswerOffer(r.Context(), id, patient, true)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		redirect(w, r, "/appointments/"+itoa(a.ID)+"?booked=1")
	case "decline":
		if _, _, err := s.svc.AnswerOffer(r.Context(), id, patient, false); err != nil {
			s.renderError(w, r, err)
			return
		}
		redirect(w, r, "/waitlist?declined=1")
	case "leave":
		if _, err := s.svc.LeaveWaitlist(r.Context(), id, patient); err != nil {
			s.renderError(w, r, err)
			return
		}
		redirect(w, r, "/waitlist?left=1")
	default:
		s.renderError(w, r, booking.NotFound("page"))
	}
}

// actingFor is whom a waitlist form acts for: the account itself (no
// "for", or its own id) or a person it manages (Service.ActFor; any other
// id is not found).
func (s *server) actingFor(r *http.Request, sess session) (int64, error) {
	var named int64
	if v := r.PostFormValue("for"); v != "" {
		var err error
		if named, err = strconv.ParseInt(v, 10, 64); err != nil || named <= 0 {
			return 0, booking.NotFound("patient")
		}
	}
	acting, err := s.svc.ActFor(r.Context(), sess.actor(), named)
	return acting.PatientID, err
}
