package httpapi

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// queueTicket is an appointment's place in its doctor's queue, as the
// console's endpoints answer it.
type queueTicket struct {
	AppointmentID int64      `json:"appointmentId"`
	QueueNumber   int        `json:"queueNumber"`
	StartAt       time.Time  `json:"startAt"`
	Step          string     `json:"step"`
	CallSeq       int        `json:"callSeq"`
	Calls         int        `json:"calls"`
	CalledAt      *time.Time `json:"calledAt,omitempty"`
	StartedAt     *time.Time `json:"startedAt,omitempty"`
}

func ticketOf(e booking.QueueEntry) queueTicket {
	return queueTicket{AppointmentID: e.AppointmentID, QueueNumber: e.QueueNumber, StartAt: e.StartAt, Step: e.Step,
		CallSeq: e.CallSeq, Calls: e.Calls, CalledAt: e.CalledAt, StartedAt: e.StartedAt}
}

// queueCall calls the next ARRIVED patient of the doctor's day
// (service.Service.CallNext): the doctor for their own queue, an admin for
// any; 409 queue-empty when nobody waits.
func (s *server) queueCall(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	e, err := s.svc.CallNext(r.Context(), actorOf(c), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ticketOf(e))
	return nil
}

// queueStep is recall, skip or start of the doctor's current call
// (service.Service.StepQueue).
func (s *server) queueStep(action string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		e, err := s.svc.StepQueue(r.Context(), actorOf(c), id, action)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, ticketOf(e))
		return nil
	}
}

// queuePosition is where an appointment stands in its doctor's queue
// today (service.Service.QueuePosition): its patient, its doctor or an
// admin.
func (s *server) queuePosition(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	st, err := s.svc.QueuePosition(r.Context(), actorOf(c), id)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, st)
	return nil
}
