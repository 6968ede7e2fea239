package service

import (
	"context"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
)

// keyLookups confirms the gates' refusals many at a time. In a rush most
// attempts are refused from memory (slot full), and each refusal must check
// that its Idempotency-Key did not already book (a retry must replay): one
// read per refusal would flood the database's connections and delay the
// bookings themselves, so the reads are coalesced like the bookings are —
// one lookup in flight, taking everything that queued meanwhile.
type keyLookups struct {
	find    func(ctx context.Context, reqs []booking.BookRequest) ([]booking.Appointment, error)
	timeout time.Duration

	mu      sync.Mutex
	queue   []*keyWaiter
	running bool
}

type keyWaiter struct {
	req  booking.BookRequest
	done chan keyAnswer
}

// keyAnswer is what a lookup found for one request: the appointment its
// key made, and the patient's active appointment in the slot it asks for.
type keyAnswer struct {
	a       booking.Appointment
	found   bool
	held    booking.Appointment
	holding bool
	err     error
}

// Bounds of the key lookups: the most requests one read asks about, and
// the most waiting before new ones are refused as overloaded.
const (
	maxKeyBatch   = 512
	maxKeyPending = 20000
)

func newKeyLookups(find func(context.Context, []booking.BookRequest) ([]booking.Appointment, error), timeout time.Duration) *keyLookups {
	return &keyLookups{find: find, timeout: timeout}
}

// lookup returns the appointment req's key made, if any, and the patient's
// active appointment in req.SlotID, if any.
func (k *keyLookups) lookup(ctx context.Context, req booking.BookRequest) keyAnswer {
	w := &keyWaiter{req: req, done: make(chan keyAnswer, 1)}
	k.mu.Lock()
	if len(k.queue) >= maxKeyPending {
		k.mu.Unlock()
		return keyAnswer{err: overloaded()}
	}
	k.queue = append(k.queue, w)
	if !k.running {
		k.running = true
		go k.run()
	}
	k.mu.Unlock()
	select {
	case ans := <-w.done:
		return ans
	case <-ctx.Done():
		return keyAnswer{err: ctx.Err()}
	}
}

// run reads for what has queued, answers it, and repeats until the queue
// is empty.
func (k *keyLookups) run() {
	for {
		k.mu.Lock()
		if len(k.queue) == 0 {
			k.running = false
			k.mu.Unlock()
			return
		}
		n := min(len(k.queue), maxKeyBatch)
		batch := k.queue[:n:n]
		k.queue = append([]*keyWaiter(nil), k.queue[n:]...)
		k.mu.Unlock()

		reqs := make([]booking.BookRequest, len(batch))
		for i, w := range batch {
			reqs[i] = w.req
		}
		ctx, cancel := context.WithTimeout(context.Background(), k.timeout)
		as, err := k.find(ctx, reqs)
		cancel()
		for i, ans := range keyAnswers(reqs, as, err) {
			batch[i].done <- ans
		}
	}
}

// keyAnswers sorts what a read of reqs' keys found (as, or err) into one
// answer per request.
func keyAnswers(reqs []booking.BookRequest, as []booking.Appointment, err error) []keyAnswer {
	byKey := make(map[inflightKey]booking.Appointment, len(as))
	active := make(map[[2]int64]booking.Appointment, len(as))
	for _, a := range as {
		byKey[inflightKey{a.PatientID, a.IdempotencyKey}] = a
		if a.Status.Active() {
			active[[2]int64{a.PatientID, a.SlotID}] = a
		}
	}
	out := make([]keyAnswer, len(reqs))
	for i, r := range reqs {
		ans := keyAnswer{err: err}
		ans.a, ans.found = byKey[inflightKey{r.PatientID, r.IdempotencyKey}]
		ans.held, ans.holding = active[[2]int64{r.PatientID, r.SlotID}]
		out[i] = ans
	}
	return out
}
