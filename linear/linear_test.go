package linear

import (
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

func op(client int, in Input, call int64, out Output, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

func check(capacity int, ops ...porcupine.Operation) bool {
	return porcupine.CheckOperations(Model(capacity), ops)
}

func TestModelAcceptsSequentialBookings(t *testing.T) {
	if !check(2,
		op(0, Input{Book, 0}, 0, Output{Result: OK, Queue: 1}, 1),
		op(1, Input{Book, 1}, 2, Output{Result: OK, Queue: 2}, 3),
		op(2, Input{Book, 2}, 4, Output{Result: Full}, 5),
		op(0, Input{Book, 0}, 4, Output{Result: AlreadyBooked}, 5),
		op(0, Input{Cancel, 0}, 6, Output{Result: OK}, 7),
		op(2, Input{Book, 2}, 8, Output{Result: OK, Queue: 1}, 9), // the lowest free number again
		op(3, Input{Read, 3}, 10, Output{Result: OK, Booked: 2}, 11),
	) {
		t.Fatal("a correct sequential history was refused")
	}
}

func TestModelRefusesWhatNoSlotDoes(t *testing.T) {
	cases := map[string][]porcupine.Operation{
		"over capacity": {
			op(0, Input{Book, 0}, 0, Output{Result: OK, Queue: 1}, 1),
			op(1, Input{Book, 1}, 2, Output{Result: OK, Queue: 2}, 3),
		},
		"full while a place is free": {
			op(0, Input{Book, 0}, 0, Output{Result: Full}, 1),
		},
		"a queue number given twice": {
			op(0, Input{Book, 0}, 0, Output{Result: OK, Queue: 1}, 1),
			op(1, Input{Book, 1}, 0, Output{Result: OK, Queue: 1}, 1),
		},
		"a read that saw a lost update": {
			op(0, Input{Book, 0}, 0, Output{Result: OK, Queue: 1}, 1),
			op(0, Input{Cancel, 0}, 2, Output{Result: OK}, 3),
			op(1, Input{Read, 1}, 4, Output{Result: OK, Booked: 1}, 5),
		},
	}
	for name, ops := range cases {
		capacity := 1
		if name == "a queue number given twice" {
			capacity = 2
		}
		if check(capacity, ops...) {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Concurrent operations may be ordered either way; an unknown booking may
// or may not have taken its place.
func TestModelConcurrencyAndUnknown(t *testing.T) {
	if !check(1,
		op(0, Input{Book, 0}, 0, Output{Result: Full}, 10),
		op(1, Input{Book, 1}, 1, Output{Result: OK, Queue: 1}, 2),
	) {
		t.Fatal("a full answer concurrent with the booking that filled the slot was refused")
	}
	h := NewHistory(1)
	h.Call(0, Input{Book, 0})(Output{Result: Unknown})
	h.Call(1, Input{Book, 1})(Output{Result: Full})
	h.Call(2, Input{Read, 2})(Output{Result: OK, Booked: 1})
	if err := h.Check(); err != nil {
		t.Fatalf("an unknown booking that took its place: %v", err)
	}
	h.Call(3, Input{Read, 3})(Output{Result: OK, Booked: 0})
	err := h.Check()
	if err == nil || !strings.Contains(err.Error(), "not linearizable") {
		t.Fatalf("a read of 0 after a read of 1 with no cancel: %v", err)
	}
	t.Log(err)
}

func TestDropFullDuringCancel(t *testing.T) {
	h := NewHistory(1)
	h.Call(0, Input{Book, 0})(Output{Result: OK, Queue: 1})
	cancel := h.Call(0, Input{Cancel, 0})
	h.Call(1, Input{Book, 1})(Output{Result: Full}) // while the cancel runs: may be stale
	cancel(Output{Result: OK})
	h.Call(2, Input{Book, 2})(Output{Result: Full}) // after it: must be true, and is not
	if n := h.DropFullDuringCancel(); n != 1 || h.Len() != 3 {
		t.Fatalf("dropped %d, kept %d operations; want 1 and 3", n, h.Len())
	}
	if h.Check() == nil {
		t.Fatal("a slot-full answer after the only place was freed passed")
	}
}
