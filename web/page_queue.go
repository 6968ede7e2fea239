package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// The doctor's console (staff: the doctor for their own queue, admins for
// any) and the waiting room's board (docs/web.md "Calling patients in").

// displayKeyPurpose is the auth.Signer.DeriveKey purpose of the boards'
// links: a board's link names one doctor and opens only that board.
const displayKeyPurpose = "queue-display"

// MaxBoardStreams bounds the boards' open event streams per instance: a
// screen per room is a few dozen; more is refused with 503 and the
// browser's EventSource retries.
const MaxBoardStreams = 64

// boardPoll is how often a board's stream reads the queue when nothing
// rang: the changes another instance makes reach it this late at most.
const boardPoll = 2 * time.Second

// staffOrDoctor wraps the console's pages: a doctor's session as
// doctorPage does, any other as staff does (an admin's); the Service then
// keeps a doctor to their own queue.
func (s *server) staffOrDoctor(h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	staff, doctor := s.staff(h), s.doctorPage(h)
	return func(w http.ResponseWriter, r *http.Request) {
		if s.sessionOf(r).IsDoctor() {
			doctor(w, r)
			return
		}
		staff(w, r)
	}
}

// boardStreamFor is how long one event stream lasts: less than the
// server's write timeout (30s), and a stream never holds up a graceful
// shutdown for longer; the board's EventSource reconnects at once and is
// given the whole state.
const boardStreamFor = 25 * time.Second

// displayToken is doctor id's board key.
func (s *server) displayToken(id int64) string {
	m := hmac.New(sha256.New, s.displayKey)
	m.Write([]byte("board\x00" + strconv.FormatInt(id, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// boardAllowed says whether r may see doctor id's board: a staff session
// (an admin, or that doctor), or the board's key in ?key=.
func (s *server) boardAllowed(r *http.Request, id int64) bool {
	if sess := s.sessionOf(r); sess.IsStaff() || sess.DoctorID == id {
		return true
	}
	return hmac.Equal([]byte(r.URL.Query().Get("key")), []byte(s.displayToken(id)))
}

// boardWake rings the streams of a doctor's boards when this instance
// changes the doctor's queue.
type boardWake struct {
	mu   sync.Mutex
	subs map[int64]map[chan struct{}]struct{}
}

func newBoardWake() *boardWake { return &boardWake{subs: map[int64]map[chan struct{}]struct{}{}} }

// subscribe gives one channel rung when any of ids' queues changes.
func (b *boardWake) subscribe(ids ...int64) (chan struct{}, func()) {
	c := make(chan struct{}, 1)
	b.mu.Lock()
	for _, id := range ids {
		if b.subs[id] == nil {
			b.subs[id] = map[chan struct{}]struct{}{}
		}
		b.subs[id][c] = struct{}{}
	}
	b.mu.Unlock()
	return c, func() {
		b.mu.Lock()
		for _, id := range ids {
			delete(b.subs[id], c)
			if len(b.subs[id]) == 0 {
				delete(b.subs, id)
			}
		}
		b.mu.Unlock()
	}
}

func (b *boardWake) ring(id int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.subs[id] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// ticketView is one patient on a board or the console: the number, the
// slot's time and the masked name.
type ticketView struct {
	AppointmentID int64  `json:"-"`
	Number        int    `json:"number"`
	Time          string `json:"time"`
	Name          string `json:"name"`
	Calls         int    `json:"calls,omitempty"`
}

// boardView is a board's state, rendered on the page and sent whole on
// each event, so that a reconnecting screen needs nothing it missed.
type boardView struct {
	DoctorID int64  `json:"doctorId"`
	Doctor   string `json:"doctor"`
	// Room is the doctor's consulting room, shown beside the called
	// number; "" leaves the doctor's name alone to say where.
	Room       string       `json:"room,omitempty"`
	Called     *ticketView  `json:"called"`
	Consulting []ticketView `json:"consulting"`
	Next       []ticketView `json:"next"`
}

func (s *server) boardViewOf(p *page, b service.Board, loc *time.Location) boardView {
	t := func(x service.BoardTicket) ticketView {
		return ticketView{Number: x.QueueNumber, Time: fmtClock(p.pr, x.StartAt, loc), Name: x.Name, Calls: x.Calls}
	}
	v := boardView{DoctorID: b.DoctorID, Doctor: b.Doctor, Room: b.Room, Consulting: []ticketView{}, Next: []ticketView{}}
	if b.Called != nil {
		c := t(*b.Called)
		v.Called = &c
	}
	for _, x := range b.Consulting {
		v.Consulting = append(v.Consulting, t(x))
	}
	for _, x := range b.Next {
		v.Next = append(v.Next, t(x))
	}
	return v
}

// doctorZone is doctor id's time zone (the clinic's when unknown).
func (s *server) doctorZone(r *http.Request, id int64) *time.Location {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	if d, err := s.store.GetDoctor(ctx, id); err == nil {
		return zone(d.TimeZone)
	}
	return s.clinicZone
}

// displayView is the board page.
type displayView struct {
	Board    boardView
	Events   string
	Language string
}

// handleDisplay is a waiting room's board of one doctor: full screen,
// large type, live over server-sent events.
func (s *server) handleDisplay(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil || !s.boardAllowed(r, id) {
		s.handleNotFound(w, r)
		return
	}
	b, err := s.svc.QueueBoard(r.Context(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Waiting room")
	ev := fmt.Sprintf("/display/doctors/%d/events", id)
	if key := r.URL.Query().Get("key"); key != "" {
		ev += "?key=" + key
	}
	p.Data = displayView{Board: s.boardViewOf(p, b, s.doctorZone(r, id)), Events: ev}
	s.render(w, r, http.StatusOK, "queue_display", p)
}

// handleDisplayEvents streams doctor id's board (streamBoard).
func (s *server) handleDisplayEvents(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil || !s.boardAllowed(r, id) {
		s.handleNotFound(w, r)
		return
	}
	loc := s.doctorZone(r, id)
	s.streamBoard(w, r, []int64{id}, func(p *page) (any, error) {
		b, err := s.svc.QueueBoard(r.Context(), id)
		return s.boardViewOf(p, b, loc), err
	})
}

// streamBoard streams a board read by read: its whole state at once on
// each connection (a reconnect needs nothing it missed: no Last-Event-ID
// replay), then again on every change, read when this instance changes
// one of doctors' queues and every boardPoll otherwise, for
// boardStreamFor.
func (s *server) streamBoard(w http.ResponseWriter, r *http.Request, doctors []int64, read func(*page) (any, error)) {
	fl, ok := w.(http.Flusher)
	if !ok {
		s.renderError(w, r, booking.Errorf(booking.CodeInternal, "streaming unsupported"))
		return
	}
	select {
	case s.boards <- struct{}{}:
		defer func() { <-s.boards }()
	default:
		w.Header().Set("Retry-After", "5")
		s.renderError(w, r, booking.Errorf(booking.CodeOverloaded, "too many boards open"))
		return
	}
	wake, done := s.wake.subscribe(doctors...)
	defer done()
	p := s.newPage(w, r, "")
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	tick := time.NewTicker(boardPoll)
	defer tick.Stop()
	end := time.NewTimer(boardStreamFor)
	defer end.Stop()
	var last []byte
	for seq := 1; ; {
		if v, err := read(p); err == nil {
			data, _ := json.Marshal(v)
			if string(data) != string(last) {
				fmt.Fprintf(w, "id: %d\nevent: board\ndata: %s\n\n", seq, data)
				seq, last = seq+1, data
			} else {
				fmt.Fprint(w, ": alive\n\n")
			}
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case <-wake:
		case <-tick.C:
		}
	}
}

// consoleView is the doctor's console page.
type consoleView struct {
	DoctorID   int64
	Doctor     string
	Called     *ticketView
	Consulting []ticketView
	Waiting    []ticketView
	Board      string // the board's link, with its key
	Done       string
}

// MaxConsoleWaiting bounds the console's waiting list.
const MaxConsoleWaiting = 50

// handleQueueConsole is the doctor's console: the call now, those in
// consultation, the queue in calling order, and the actions.
func (s *server) handleQueueConsole(w http.ResponseWriter, r *http.Request, sess session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	d, pol, err := s.svc.QueueDay(r.Context(), sess.actor(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	b, err := s.svc.QueueBoardListing(r.Context(), id, MaxConsoleWaiting)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Queue")
	loc := s.doctorZone(r, id)
	t := func(e booking.QueueEntry, name string) ticketView {
		return ticketView{AppointmentID: e.AppointmentID, Number: e.QueueNumber, Time: fmtClock(p.pr, e.StartAt, loc), Name: name, Calls: e.Calls}
	}
	v := consoleView{DoctorID: id, Doctor: b.Doctor, Done: r.URL.Query().Get("done"),
		Board: fmt.Sprintf("/display/doctors/%d?key=%s", id, s.displayToken(id))}
	if cur, ok := d.Current(); ok && b.Called != nil {
		c := t(cur, b.Called.Name)
		v.Called = &c
	}
	for i, e := range d.InConsultation() {
		name := ""
		if i < len(b.Consulting) {
			name = b.Consulting[i].Name
		}
		v.Consulting = append(v.Consulting, t(e, name))
	}
	for i, e := range d.Order(pol.QueueSkipCalls) {
		if i == MaxConsoleWaiting {
			break
		}
		name := ""
		if i < len(b.Next) {
			name = b.Next[i].Name
		}
		tv := t(e, name)
		tv.Calls = 0
		if e.Step == booking.QueueSkipped {
			tv.Calls = e.Calls // shown as skipped
		}
		v.Waiting = append(v.Waiting, tv)
	}
	p.Data = v
	s.render(w, r, http.StatusOK, "queue_console", p)
}

// handleQueueCall is the console's Call next.
func (s *server) handleQueueCall(w http.ResponseWriter, r *http.Request, sess session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, err := s.svc.CallNext(r.Context(), sess.actor(), id); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, fmt.Sprintf("/queue/doctors/%d?done=call", id))
}

// handleQueueStep is the console's Recall, Skip, Start and Complete of
// one appointment.
func (s *server) handleQueueStep(w http.ResponseWriter, r *http.Request, sess session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	action := r.PathValue("action")
	a, err := s.svc.Appointment(r.Context(), id, 0)
	if err == nil && sess.IsDoctor() && a.DoctorID != sess.DoctorID {
		err = booking.NotFound("appointment")
	}
	if err == nil {
		switch action {
		case booking.QueueActionRecall, booking.QueueActionSkip, booking.QueueActionStart:
			_, err = s.svc.StepQueue(r.Context(), sess.actor(), id, action)
		case "complete":
			_, err = s.svc.Transition(r.Context(), id, booking.StatusCompleted)
		default:
			err = booking.NotFound("page")
		}
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, fmt.Sprintf("/queue/doctors/%d?done=%s", a.DoctorID, action))
}

// handleAppointmentQueue answers the patient's own appointment's place in
// the queue, the text of its page's live line (data-live).
func (s *server) handleAppointmentQueue(w http.ResponseWriter, r *http.Request) {
	sess := s.sessionOf(r)
	id, err := pathID(r, "id")
	if err != nil || sess.PatientID == 0 {
		s.handleNotFound(w, r)
		return
	}
	st, err := s.svc.QueuePosition(r.Context(), sess.actor(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, html.EscapeString(queueLine(p, st)))
}

// queueLine is what the appointment page says of st.
func queueLine(p *page, st service.QueueStatus) string {
	switch st.Step {
	case booking.QueueCalled:
		if st.Room != "" {
			return p.T("You are called: please go to %s.", st.Room)
		}
		return p.T("You are called: please go to the doctor's room.")
	case booking.QueueStarted:
		return p.T("You are in consultation.")
	case booking.QueueWaiting, booking.QueueSkipped:
		if st.Ahead == 0 {
			return p.T("You are next (about %d minutes).", st.EstimatedMinutes)
		}
		return p.T("%d ahead of you, about %d minutes.", st.Ahead, st.EstimatedMinutes)
	}
	return ""
}
