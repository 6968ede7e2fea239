// Package linear checks histories of operations on slots for
// linearizability (with github.com/anishathalye/porcupine) against the
// sequential model of one slot with a capacity: the conformance suite
// records them against each store, scripts/chaos over HTTP while it kills
// the server and the database.
//
// A history is kept per slot so that each check stays small: operations on
// different slots are independent (one slot's decision never reads
// another's), so the whole is linearizable when every slot's history is.
package linear

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// MaxPatients is the most patients one slot's history may have: the
// model's state is one queue number per patient, a small comparable array.
const MaxPatients = 16

// Kind is what an operation does.
type Kind uint8

// The operations a history records.
const (
	// Book is one patient's booking with one Idempotency-Key, every retry
	// of that key included: its call is the first attempt, its return the
	// answer that settled it.
	Book Kind = iota + 1
	// Cancel cancels the patient's appointment in the slot (cancelling a
	// cancelled one changes nothing, as the stores promise).
	Cancel
	// Read reads the slot's number of places taken.
	Read
)

// Result is how an operation was answered.
type Result uint8

// Results.
const (
	OK            Result = iota + 1 // Book: a place (new or replayed), Cancel: cancelled, Read: the count
	Full                            // Book: slot-full
	AlreadyBooked                   // Book: the patient already holds a place in the slot
	// Failed is an answer no slot gives (an internal error, an unexpected
	// refusal): the model accepts none, so the history fails the check.
	Failed
	// Dropped leaves the operation out of the history: a refusal known to
	// have changed nothing.
	Dropped
	// Unknown is an operation whose answer never came (the server was
	// killed, the database timed out) and whose retries did not settle it:
	// it may or may not have taken effect. Its return is the end of the
	// history.
	Unknown
)

// Input is what was asked.
type Input struct {
	Kind    Kind
	Patient int // the patient's index in this slot's history, 0 ≤ Patient < MaxPatients
}

// Output is what was answered.
type Output struct {
	Result Result
	Queue  int // Book OK: the queue number given
	Booked int // Read: places taken
}

// state is the queue number each patient holds in the slot (0: none).
type state [MaxPatients]uint8

func (s state) count() int {
	n := 0
	for _, q := range s {
		if q != 0 {
			n++
		}
	}
	return n
}

// lowestFree is the queue number the next place gets (docs/contracts/store.md:
// the lowest free numbers), 0 when the slot is full.
func (s state) lowestFree(capacity int) int {
	taken := make([]bool, capacity+1)
	for _, q := range s {
		if int(q) <= capacity {
			taken[q] = true
		}
	}
	for q := 1; q <= capacity; q++ {
		if !taken[q] {
			return q
		}
	}
	return 0
}

// Model is the sequential specification of one slot of the given capacity.
func Model(capacity int) porcupine.Model {
	m := &porcupine.NondeterministicModel{
		Init: func() []interface{} { return []interface{}{state{}} },
		Step: func(st, in, out interface{}) []interface{} {
			return step(capacity, st.(state), in.(Input), out.(Output))
		},
		DescribeOperation: func(in, out interface{}) string { return describe(in.(Input), out.(Output)) },
		DescribeState:     func(st interface{}) string { return fmt.Sprint(st.(state)) },
	}
	return m.ToModel()
}

func step(capacity int, s state, in Input, out Output) []interface{} {
	p := in.Patient
	switch in.Kind {
	case Book:
		free := s.lowestFree(capacity)
		booked := s
		if s[p] == 0 && free != 0 {
			booked[p] = uint8(free)
		}
		switch out.Result {
		case OK:
			if s[p] == 0 && free != 0 && out.Queue == free {
				return []interface{}{booked}
			}
		case Full:
			if free == 0 {
				return []interface{}{s}
			}
		case AlreadyBooked:
			if s[p] != 0 {
				return []interface{}{s}
			}
		case Unknown:
			return []interface{}{s, booked}
		}
	case Cancel:
		cancelled := s
		cancelled[p] = 0
		switch out.Result {
		case OK:
			return []interface{}{cancelled}
		case Unknown:
			return []interface{}{s, cancelled}
		}
	case Read:
		if out.Result == Unknown || out.Result == OK && out.Booked == s.count() {
			return []interface{}{s}
		}
	}
	return nil
}

func describe(in Input, out Output) string {
	name := map[Kind]string{Book: "book", Cancel: "cancel", Read: "read"}[in.Kind]
	res := map[Result]string{OK: "ok", Full: "full", AlreadyBooked: "already-booked", Failed: "failed", Dropped: "dropped", Unknown: "unknown"}[out.Result]
	switch {
	case in.Kind == Book && out.Result == OK:
		res = fmt.Sprintf("ok #%d", out.Queue)
	case in.Kind == Read:
		res = fmt.Sprint(out.Booked)
	}
	return fmt.Sprintf("p%d %s → %s", in.Patient, name, res)
}

// History records the operations on one slot; safe for concurrent use.
type History struct {
	Capacity int

	mu    sync.Mutex
	epoch time.Time
	ops   []porcupine.Operation
}

// NewHistory starts the history of a slot of the given capacity.
func NewHistory(capacity int) *History {
	return &History{Capacity: capacity, epoch: time.Now()}
}

// Call notes that client (any small number: a patient's goroutine) asks in;
// the returned function records its answer. Call it before sending the
// request and the function after the answer came, so that the recorded
// interval contains the real one.
func (h *History) Call(client int, in Input) (done func(Output)) {
	if in.Patient < 0 || in.Patient >= MaxPatients {
		panic(fmt.Sprintf("linear: patient %d outside 0..%d", in.Patient, MaxPatients-1))
	}
	call := time.Since(h.epoch).Nanoseconds()
	return func(out Output) {
		if out.Result == Dropped {
			return
		}
		ret := time.Since(h.epoch).Nanoseconds()
		if out.Result == Unknown {
			// It may take effect at any time after its call.
			ret = 1<<62 - 1
		}
		h.mu.Lock()
		h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
		h.mu.Unlock()
	}
}

// DropFullDuringCancel leaves out the slot-full answers concurrent with a
// cancel of the slot, and returns how many. Over HTTP the service's
// in-memory full gate is cleared by a cancel only after the cancel has
// committed, so a slot-full answer given meanwhile may be stale by that
// much; any other slot-full answer must still be true.
func (h *History) DropFullDuringCancel() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var cancels []porcupine.Operation
	for _, op := range h.ops {
		if op.Input.(Input).Kind == Cancel {
			cancels = append(cancels, op)
		}
	}
	sort.Slice(cancels, func(i, j int) bool { return cancels[i].Call < cancels[j].Call })
	kept := h.ops[:0]
	dropped := 0
	for _, op := range h.ops {
		if op.Input.(Input).Kind == Book && op.Output.(Output).Result == Full && overlapsAny(op, cancels) {
			dropped++
			continue
		}
		kept = append(kept, op)
	}
	h.ops = kept
	return dropped
}

// overlapsAny says whether op's interval meets one of ops' (sorted by call).
func overlapsAny(op porcupine.Operation, ops []porcupine.Operation) bool {
	for _, o := range ops {
		if o.Call > op.Return {
			return false
		}
		if o.Return >= op.Call {
			return true
		}
	}
	return false
}

// Len is the number of operations recorded.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ops)
}

// Check tells whether the history is linearizable; when it is not, the
// error describes the longest prefix that was and the operations after it.
func (h *History) Check() error {
	h.mu.Lock()
	ops := append([]porcupine.Operation(nil), h.ops...)
	h.mu.Unlock()
	model := Model(h.Capacity)
	res, info := porcupine.CheckOperationsVerbose(model, ops, 0)
	if res == porcupine.Ok {
		return nil
	}
	return fmt.Errorf("%d operations, capacity %d, not linearizable: %s", len(ops), h.Capacity, explain(model, ops, info))
}

// explain describes the end of the longest linearizable prefix the checker
// found and the first operations (by call) that none could extend it with.
func explain(model porcupine.Model, ops []porcupine.Operation, info porcupine.LinearizationInfo) string {
	partial := info.PartialLinearizations()
	if len(partial) == 0 || len(partial[0]) == 0 {
		return "no operation can come first"
	}
	best := partial[0][0]
	for _, p := range partial[0] {
		if len(p) > len(best) {
			best = p
		}
	}
	in := map[int]bool{}
	for _, i := range best {
		in[i] = true
	}
	var sb strings.Builder
	tail := best
	if len(tail) > 8 {
		fmt.Fprintf(&sb, "%d operations, then ", len(tail)-8)
		tail = tail[len(tail)-8:]
	}
	for _, i := range tail {
		sb.WriteString(model.DescribeOperation(ops[i].Input, ops[i].Output) + "; ")
	}
	var rest []int
	for i := range ops {
		if !in[i] {
			rest = append(rest, i)
		}
	}
	sort.Slice(rest, func(a, b int) bool { return ops[rest[a]].Call < ops[rest[b]].Call })
	var next []string
	for _, i := range rest[:min(len(rest), 6)] {
		next = append(next, model.DescribeOperation(ops[i].Input, ops[i].Output))
	}
	return sb.String() + "and none of [" + strings.Join(next, "; ") + "] can follow"
}
