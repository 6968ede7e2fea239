package service

import (
	"context"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// QueueObserver is what an Options.Observer may also implement to count
// the queue's console actions (cmd/slotd's metrics do).
type QueueObserver interface {
	// QueueAction counts one console action done (booking.QueueActions).
	QueueAction(action string)
	// QueueWait observes how long a patient waited from arrival to their
	// first call.
	QueueWait(d time.Duration)
}

// BoardNext is how many waiting patients a board lists after the call.
const BoardNext = 5

// queueDoctor is the doctor whose queue caller may work: an admin any
// doctor, a doctor their own (another's is not found to them); anyone
// else is forbidden.
func queueDoctor(caller booking.Actor, doctorID int64) error {
	switch caller.Role {
	case booking.RoleAdmin:
		return nil
	case booking.RoleDoctor:
		if id, err := strconv.ParseInt(caller.ID, 10, 64); err == nil && id == doctorID {
			return nil
		}
		return booking.NotFound("doctor")
	}
	return booking.Errorf(booking.CodeForbidden, "only the doctor or an admin works a doctor's queue")
}

// queueRange is doctor's local day at now.
func (s *Service) queueRange(ctx context.Context, doctorID int64, at time.Time) (booking.QueueRange, booking.Doctor, error) {
	d, err := bounded(s, ctx, func(ctx context.Context) (booking.Doctor, error) { return s.store.GetDoctor(ctx, doctorID) })
	if err != nil {
		return booking.QueueRange{}, d, err
	}
	loc, err := d.Location()
	if err != nil {
		loc = time.UTC
	}
	y, m, day := at.In(loc).Date()
	from := time.Date(y, m, day, 0, 0, 0, 0, loc)
	return booking.QueueRange{DoctorID: doctorID, Day: booking.QueueDayOf(from, loc), From: from, To: from.AddDate(0, 0, 1)}, d, nil
}

// CallNext calls the next ARRIVED patient of the doctor's day for caller
// (the doctor, or an admin): see booking.DecideCall. Nobody waiting is
// queue-empty.
func (s *Service) CallNext(ctx context.Context, caller booking.Actor, doctorID int64) (booking.QueueEntry, error) {
	if err := queueDoctor(caller, doctorID); err != nil {
		return booking.QueueEntry{}, err
	}
	if err := s.onSite(ctx, caller, booking.SiteRef{DoctorID: doctorID}); err != nil {
		return booking.QueueEntry{}, err
	}
	now := s.now()
	r, _, err := s.queueRange(ctx, doctorID, now)
	if err != nil {
		return booking.QueueEntry{}, err
	}
	c, err := bounded(s, booking.WithActor(ctx, caller), func(ctx context.Context) (booking.QueueCall, error) {
		c, _, err := s.store.CallNext(ctx, r, now)
		return c, err
	})
	if err != nil {
		return booking.QueueEntry{}, err
	}
	s.tellWatchers(Change{DoctorID: doctorID})
	if o, ok := s.observer.(QueueObserver); ok {
		if c.Passed != nil {
			o.QueueAction(booking.QueueActionSkip)
		}
		o.QueueAction(booking.QueueActionCall)
		if c.Next.Calls == 1 && c.Next.SkipSeq == 0 {
			o.QueueWait(now.Sub(c.Next.ArrivedAt))
		}
	}
	return c.Next, nil
}

// StepQueue recalls, skips or starts (booking.QueueActions) appointment
// id, the doctor's current call, for caller (the appointment's doctor or
// an admin): see booking.DecideQueueStep.
func (s *Service) StepQueue(ctx context.Context, caller booking.Actor, id int64, action string) (booking.QueueEntry, error) {
	st := booking.QueueStep{AppointmentID: id, Action: action}
	switch caller.Role {
	case booking.RoleAdmin:
		if err := s.onSite(ctx, caller, booking.SiteRef{AppointmentID: id}); err != nil {
			return booking.QueueEntry{}, err
		}
	case booking.RoleDoctor:
		st.DoctorID, _ = strconv.ParseInt(caller.ID, 10, 64)
		if st.DoctorID <= 0 {
			return booking.QueueEntry{}, booking.NotFound("appointment")
		}
	default:
		return booking.QueueEntry{}, booking.Errorf(booking.CodeForbidden, "only the doctor or an admin works a doctor's queue")
	}
	e, err := bounded(s, booking.WithActor(ctx, caller), func(ctx context.Context) (booking.QueueEntry, error) {
		return s.store.StepQueue(ctx, st, s.now())
	})
	if err != nil {
		return booking.QueueEntry{}, err
	}
	if a, err := bounded(s, ctx, func(ctx context.Context) (booking.Appointment, error) { return s.store.GetAppointment(ctx, id) }); err == nil {
		s.tellWatchers(Change{SlotID: a.SlotID, DoctorID: a.DoctorID})
	}
	if o, ok := s.observer.(QueueObserver); ok {
		o.QueueAction(action)
	}
	return e, nil
}

// QueueDay reads the doctor's queue on their day at now for caller (the
// doctor or an admin): the console's view.
func (s *Service) QueueDay(ctx context.Context, caller booking.Actor, doctorID int64) (booking.QueueDay, booking.Policy, error) {
	if err := queueDoctor(caller, doctorID); err != nil {
		return booking.QueueDay{}, booking.Policy{}, err
	}
	if err := s.onSite(ctx, caller, booking.SiteRef{DoctorID: doctorID}); err != nil {
		return booking.QueueDay{}, booking.Policy{}, err
	}
	return s.queueDay(ctx, doctorID)
}

// DayQueue reads the doctor's queue on their day at now for a day list
// (booking.DayState): the doctor's own, the front desk's any
// (booking.Desk); it changes nothing.
func (s *Service) DayQueue(ctx context.Context, caller booking.Actor, doctorID int64) (booking.QueueDay, error) {
	if !booking.Desk(caller.Role) {
		if err := queueDoctor(caller, doctorID); err != nil {
			return booking.QueueDay{}, err
		}
	} else if err := s.onSite(ctx, caller, booking.SiteRef{DoctorID: doctorID}); err != nil {
		return booking.QueueDay{}, err
	}
	d, _, err := s.queueDay(ctx, doctorID)
	return d, err
}

func (s *Service) queueDay(ctx context.Context, doctorID int64) (booking.QueueDay, booking.Policy, error) {
	r, _, err := s.queueRange(ctx, doctorID, s.now())
	if err != nil {
		return booking.QueueDay{}, booking.Policy{}, err
	}
	type read struct {
		d booking.QueueDay
		p booking.Policy
	}
	v, err := bounded(s, ctx, func(ctx context.Context) (read, error) {
		p, err := s.store.ClinicPolicy(ctx)
		if err != nil {
			return read{}, err
		}
		d, err := s.store.QueueDay(ctx, r)
		return read{d, p}, err
	})
	return v.d, v.p, err
}

// Board is what a waiting room's screen shows of a doctor's queue: masked
// names only (booking.MaskName).
type Board struct {
	DoctorID int64  `json:"doctorId"`
	Doctor   string `json:"doctor"`
	// Room is the doctor's consulting room, "" when not set.
	Room       string        `json:"room,omitempty"`
	Day        string        `json:"day"`
	Called     *BoardTicket  `json:"called,omitempty"`
	Consulting []BoardTicket `json:"consulting"`
	Next       []BoardTicket `json:"next"`
}

// BoardTicket is one patient on a board.
type BoardTicket struct {
	QueueNumber int       `json:"queueNumber"`
	StartAt     time.Time `json:"startAt"`
	Name        string    `json:"name,omitempty"`
	// Calls counts the calls of the one called (a recall rings again).
	Calls    int        `json:"calls,omitempty"`
	CalledAt *time.Time `json:"calledAt,omitempty"`
}

// QueueBoard is the waiting room's board of a doctor's queue now. It
// shows no personal data beyond masked names; the front end decides who
// may open it.
func (s *Service) QueueBoard(ctx context.Context, doctorID int64) (Board, error) {
	return s.queueBoard(ctx, doctorID, BoardNext)
}

// MaxBoardNext bounds QueueBoardListing's waiting patients.
const MaxBoardNext = 50

// QueueBoardListing is QueueBoard listing up to next (at most
// MaxBoardNext) waiting patients: the console's whole list, masked alike.
func (s *Service) QueueBoardListing(ctx context.Context, doctorID int64, next int) (Board, error) {
	return s.queueBoard(ctx, doctorID, min(max(next, 0), MaxBoardNext))
}

// queueBoard is doctor's board with next waiting patients listed.
func (s *Service) queueBoard(ctx context.Context, doctorID int64, next int) (Board, error) {
	r, doc, err := s.queueRange(ctx, doctorID, s.now())
	if err != nil {
		return Board{}, err
	}
	d, p, err := s.queueDay(ctx, doctorID)
	if err != nil {
		return Board{}, err
	}
	b := Board{DoctorID: doctorID, Doctor: doc.Name, Room: doc.ConsultingRoom, Day: r.Day, Consulting: []BoardTicket{}, Next: []BoardTicket{}}
	ticket := func(e booking.QueueEntry) BoardTicket {
		t := BoardTicket{QueueNumber: e.QueueNumber, StartAt: e.StartAt, Calls: e.Calls, CalledAt: e.CalledAt, Name: booking.MaskName("")}
		if pt, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.GetPatient(ctx, e.PatientID) }); err == nil {
			t.Name = booking.MaskName(pt.Name)
		}
		return t
	}
	if cur, ok := d.Current(); ok {
		t := ticket(cur)
		b.Called = &t
	}
	for _, e := range d.InConsultation() {
		b.Consulting = append(b.Consulting, ticket(e))
	}
	for i, e := range d.Order(p.QueueSkipCalls) {
		if i == next {
			break
		}
		e.Calls, e.CalledAt = 0, nil
		b.Next = append(b.Next, ticket(e))
	}
	return b, nil
}

// QueueStatus is where an appointment stands in its doctor's queue today.
type QueueStatus struct {
	AppointmentID int64 `json:"appointmentId"`
	// Step is WAITING, SKIPPED, CALLED, IN_CONSULTATION, or NOT_IN_QUEUE
	// (not checked in, finished, or another day's).
	Step string `json:"step"`
	// Ahead is how many will be called before it; EstimatedMinutes the
	// wait at the doctor's pace today (booking.Pace), or from the slots'
	// lengths before enough consultations are completed to know it.
	Ahead            int `json:"ahead"`
	EstimatedMinutes int `json:"estimatedMinutes"`
	// PaceMinutes is the doctor's minutes per patient today that the
	// estimate used; absent when it used the slots' lengths.
	PaceMinutes int          `json:"paceMinutes,omitempty"`
	Called      *BoardTicket `json:"called,omitempty"`
	// Room is where to go once called (Step CALLED): the doctor's
	// consulting room, absent when not set.
	Room string `json:"room,omitempty"`
}

// QueueNotInQueue is QueueStatus.Step of an appointment not in today's queue.
const QueueNotInQueue = "NOT_IN_QUEUE"

// QueuePosition is where appointment id stands for caller: its patient,
// its doctor or an admin (anyone else is not found).
func (s *Service) QueuePosition(ctx context.Context, caller booking.Actor, id int64) (QueueStatus, error) {
	a, err := bounded(s, ctx, func(ctx context.Context) (booking.Appointment, error) { return s.store.GetAppointment(ctx, id) })
	if err != nil {
		return QueueStatus{}, err
	}
	who, _ := strconv.ParseInt(caller.ID, 10, 64)
	switch {
	case booking.Desk(caller.Role):
		if err := s.onSite(ctx, caller, booking.SiteRef{AppointmentID: id}); err != nil {
			return QueueStatus{}, err
		}
	case caller.Role == booking.RolePatient && who == a.PatientID, caller.Role == booking.RoleDoctor && who == a.DoctorID:
	case caller.Role == booking.RolePatient || caller.Role == booking.RoleDoctor:
		return QueueStatus{}, booking.NotFound("appointment")
	default:
		return QueueStatus{}, booking.Errorf(booking.CodeForbidden, "only the patient, the doctor or an admin")
	}
	st := QueueStatus{AppointmentID: id, Step: QueueNotInQueue}
	d, p, err := s.queueDay(ctx, a.DoctorID)
	if err != nil {
		return QueueStatus{}, err
	}
	if pos := d.Position(id, p.QueueSkipCalls); pos.Step != "" {
		st.Step, st.Ahead, st.EstimatedMinutes, st.PaceMinutes = pos.Step, pos.Ahead, pos.Minutes, pos.Pace
	}
	if st.Step == booking.QueueCalled {
		doc, err := bounded(s, ctx, func(ctx context.Context) (booking.Doctor, error) { return s.store.GetDoctor(ctx, a.DoctorID) })
		if err != nil {
			return QueueStatus{}, err
		}
		st.Room = doc.ConsultingRoom
	}
	if cur, ok := d.Current(); ok {
		st.Called = &BoardTicket{QueueNumber: cur.QueueNumber, StartAt: cur.StartAt, Calls: cur.Calls, CalledAt: cur.CalledAt}
	}
	return st, nil
}
