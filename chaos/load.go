package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/linear"
)

// settle is how long an operation open when the rush stops may keep
// retrying before it is recorded as unknown.
const settle = 30 * time.Second

// attempt is one HTTP request and its answer, as recorded.
type attempt struct {
	Op          int64     `json:"op"` // the logical operation (a booking's retries share it)
	Kind        string    `json:"kind"`
	Slot        int64     `json:"slot"`
	Patient     int64     `json:"patient"`
	Key         string    `json:"key,omitempty"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Status      int       `json:"status"` // 0: no answer (Err)
	Code        string    `json:"code,omitempty"`
	RetryAfter  string    `json:"retryAfter,omitempty"`
	Err         string    `json:"err,omitempty"`
	Appointment int64     `json:"appointment,omitempty"`
	Queue       int       `json:"queue,omitempty"`
	Booked      int       `json:"booked,omitempty"`
}

// record is every attempt of a run.
type record struct {
	mu sync.Mutex
	as []attempt
}

func (r *record) add(a attempt) {
	r.mu.Lock()
	r.as = append(r.as, a)
	r.mu.Unlock()
}

func (r *record) all() []attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]attempt(nil), r.as...)
}

func (r *record) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, a := range r.all() {
		if err := enc.Encode(a); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// confirmed is a booking answered 2xx.
type confirmed struct {
	slot, patient, appointment int64
	key, token                 string
	cancelled                  bool // by its client, answered 200
	uncertain                  bool // a cancel of it was never answered
	// When the booking was first sent and its 2xx came back, and when a
	// cancel of it was first sent and its 200 came back (zero: none): the
	// backup drill's "before" and "after" the moment it restores to.
	sent, answered             time.Time
	cancelSent, cancelAnswered time.Time
}

type slotRun struct {
	id       int64
	capacity int
	history  *linear.History
	patients []patient
}

type patient struct {
	id    int64
	token string
}

// rush is the load: Patients clients per slot, each booking, cancelling its
// appointment and reading its slot at random.
type rush struct {
	cfg    Config
	url    string
	http   *http.Client
	admin  string
	slots  []*slotRun
	log    record
	nextOp atomic.Int64

	mu        sync.Mutex
	confirmed []*confirmed
	odd       []string // answers no correct server gives

	stopped  chan struct{}
	settleBy time.Time
	wg       sync.WaitGroup
}

func newRush(ctx context.Context, cfg Config, url, secret string) (*rush, error) {
	signer, err := auth.NewSigner([]byte(secret))
	if err != nil {
		return nil, err
	}
	admin, err := signer.Mint(auth.RoleAdmin, "chaos", 3*time.Hour)
	if err != nil {
		return nil, err
	}
	r := &rush{
		cfg: cfg, url: url, admin: admin, stopped: make(chan struct{}),
		// Longer than any answer the server may give, so that a late one is
		// seen as late rather than as no answer.
		http: &http.Client{Timeout: 4*cfg.DBTimeout + 10*time.Second},
	}
	create := func(path string, body any) (int64, error) {
		code, _, out, err := r.do(ctx, "POST", path, admin, "", body)
		if err != nil || code != http.StatusCreated {
			return 0, fmt.Errorf("POST %s: %d %v %s", path, code, err, out)
		}
		var v struct{ ID int64 }
		if err := json.Unmarshal(out, &v); err != nil || v.ID == 0 {
			return 0, fmt.Errorf("POST %s: %s", path, out)
		}
		return v.ID, nil
	}
	dept, err := create("/api/admin/departments", map[string]any{"name": "Chaos"})
	if err != nil {
		return nil, err
	}
	doc, err := create("/api/admin/doctors", map[string]any{"name": "Dr. Chaos", "departmentId": dept, "timezone": "Europe/Paris"})
	if err != nil {
		return nil, err
	}
	// Slots an hour apart, two days ahead: open now, none overlapping.
	base := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Hour)
	for i := 0; i < cfg.Slots; i++ {
		capacity := 1 + i%4
		id, err := create("/api/admin/slots", map[string]any{
			"doctorId": doc, "startAt": base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339),
			"durationMinutes": 30, "capacity": capacity,
		})
		if err != nil {
			return nil, err
		}
		sr := &slotRun{id: id, capacity: capacity, history: linear.NewHistory(capacity)}
		for j := 0; j < cfg.Patients; j++ {
			pid, err := create("/api/admin/patients", map[string]any{"name": fmt.Sprintf("P%d-%d", i, j), "phone": fmt.Sprintf("+336%04d%04d", i%10000, j%10000), "email": "p@example.org"})
			if err != nil {
				return nil, err
			}
			tok, err := signer.Mint(auth.RolePatient, strconv.FormatInt(pid, 10), 3*time.Hour)
			if err != nil {
				return nil, err
			}
			sr.patients = append(sr.patients, patient{pid, tok})
		}
		r.slots = append(r.slots, sr)
	}
	return r, nil
}

// do sends one request; it returns the status, the answer's headers and body.
func (r *rush) do(ctx context.Context, method, path, token, key string, body any) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.url+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, out, nil
}

// send sends one request of operation op and records it.
func (r *rush) send(op int64, kind string, sl *slotRun, p patient, method, path, key string, body any) attempt {
	a := attempt{Op: op, Kind: kind, Slot: sl.id, Patient: p.id, Key: key, Start: time.Now()}
	code, h, out, err := r.do(context.Background(), method, path, p.token, key, body)
	a.End = time.Now()
	a.Status = code
	if err != nil {
		a.Err = err.Error()
	}
	if h != nil {
		a.RetryAfter = h.Get("Retry-After")
	}
	var v struct {
		ID          int64
		QueueNumber int
		Booked      int
		Status      string
		Type        string
	}
	_ = json.Unmarshal(out, &v)
	switch {
	case code >= 400:
		a.Code = trimProblem(v.Type)
	case kind == "read":
		a.Booked = v.Booked
	case code >= 200 && code < 300:
		a.Appointment, a.Queue, a.Code = v.ID, v.QueueNumber, v.Status
	}
	r.log.add(a)
	return a
}

func trimProblem(t string) string {
	const p = "/problems/"
	if len(t) > len(p) && t[:len(p)] == p {
		return t[len(p):]
	}
	return t
}

// retryable says an attempt settled nothing: no answer, 503 or 429.
func retryable(a attempt) bool {
	return a.Status == 0 || a.Status == http.StatusServiceUnavailable || a.Status == http.StatusTooManyRequests
}

func (r *rush) start() {
	for _, sl := range r.slots {
		for i, p := range sl.patients {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.client(sl, i, p, rand.New(rand.NewPCG(r.cfg.Seed, uint64(sl.id)<<8|uint64(i))))
			}()
		}
	}
}

// stop ends the rush: open operations keep retrying until they settle or
// settle runs out.
func (r *rush) stop() {
	r.mu.Lock()
	r.settleBy = time.Now().Add(settle)
	r.mu.Unlock()
	close(r.stopped)
	r.wg.Wait()
}

func (r *rush) isStopped() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return false
	}
}

// giveUp says an unsettled operation must stop retrying.
func (r *rush) giveUp() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.isStopped() && time.Now().After(r.settleBy)
}

func (r *rush) oddAnswer(format string, args ...any) {
	r.mu.Lock()
	r.odd = append(r.odd, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// client is one patient of one slot until the rush stops.
func (r *rush) client(sl *slotRun, idx int, p patient, rng *rand.Rand) {
	var mine *confirmed
	for n := 0; !r.isStopped(); n++ {
		x := rng.IntN(10)
		switch {
		case x < 6 && (mine == nil || x < 1):
			if c := r.book(sl, idx, p, fmt.Sprintf("chaos-%d-%d-%d", sl.id, p.id, n)); c != nil {
				mine = c
			}
		case x < 8 && mine != nil:
			r.cancel(sl, idx, p, mine)
			mine = nil
		default:
			r.read(sl, idx, p)
		}
		time.Sleep(time.Duration(5+rng.IntN(20)) * time.Millisecond)
	}
}

// pause waits before a retry: Retry-After is seconds, far longer than the
// chaos wants to wait, so a short pause stands in for it.
func pause() { time.Sleep(time.Duration(50+rand.IntN(100)) * time.Millisecond) }

func (r *rush) book(sl *slotRun, idx int, p patient, key string) *confirmed {
	op := r.nextOp.Add(1)
	done := sl.history.Call(idx, linear.Input{Kind: linear.Book, Patient: idx})
	sent := time.Now()
	for {
		a := r.send(op, "book", sl, p, "POST", "/api/appointments", key, map[string]any{"slotId": sl.id})
		switch {
		case a.Status == http.StatusCreated || a.Status == http.StatusOK:
			done(linear.Output{Result: linear.OK, Queue: a.Queue})
			c := &confirmed{slot: sl.id, patient: p.id, appointment: a.Appointment, key: key, token: p.token, sent: sent, answered: a.End}
			r.mu.Lock()
			r.confirmed = append(r.confirmed, c)
			r.mu.Unlock()
			return c
		case a.Status == http.StatusConflict && a.Code == "slot-full":
			done(linear.Output{Result: linear.Full})
			return nil
		case a.Status == http.StatusConflict && a.Code == "already-booked":
			done(linear.Output{Result: linear.AlreadyBooked})
			return nil
		case retryable(a):
			if r.giveUp() {
				done(linear.Output{Result: linear.Unknown})
				return nil
			}
			pause()
		default:
			r.oddAnswer("booking %s answered %d %s", key, a.Status, a.Code)
			done(linear.Output{Result: linear.Failed})
			return nil
		}
	}
}

func (r *rush) cancel(sl *slotRun, idx int, p patient, c *confirmed) {
	op := r.nextOp.Add(1)
	done := sl.history.Call(idx, linear.Input{Kind: linear.Cancel, Patient: idx})
	r.mu.Lock()
	c.cancelSent = time.Now()
	r.mu.Unlock()
	for {
		a := r.send(op, "cancel", sl, p, "DELETE", fmt.Sprintf("/api/appointments/%d", c.appointment), "", nil)
		switch {
		case a.Status == http.StatusOK && a.Code == "CANCELLED":
			done(linear.Output{Result: linear.OK})
			r.mu.Lock()
			c.cancelled, c.cancelAnswered = true, a.End
			r.mu.Unlock()
			return
		case retryable(a):
			if r.giveUp() {
				done(linear.Output{Result: linear.Unknown})
				r.mu.Lock()
				c.uncertain = true
				r.mu.Unlock()
				return
			}
			pause()
		default:
			r.oddAnswer("cancel of %d answered %d %s", c.appointment, a.Status, a.Code)
			done(linear.Output{Result: linear.Failed})
			return
		}
	}
}

// read reads the slot once; a read without an answer changed nothing and
// is left out of the history.
func (r *rush) read(sl *slotRun, idx int, p patient) {
	op := r.nextOp.Add(1)
	done := sl.history.Call(idx, linear.Input{Kind: linear.Read, Patient: idx})
	a := r.send(op, "read", sl, patient{id: p.id}, "GET", fmt.Sprintf("/api/slots/%d", sl.id), "", nil)
	switch {
	case a.Status == http.StatusOK:
		done(linear.Output{Result: linear.OK, Booked: a.Booked})
	case retryable(a):
		done(linear.Output{Result: linear.Dropped})
	default:
		r.oddAnswer("read of slot %d answered %d %s", sl.id, a.Status, a.Code)
		done(linear.Output{Result: linear.Failed})
	}
}
