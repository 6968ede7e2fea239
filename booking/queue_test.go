package booking

import (
	"testing"
	"time"
)

var queueT0 = time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC)

// arrived is an ARRIVED entry of the 08:00 slot with number no, arrived
// at minute m.
func arrived(id int64, no, m int) QueueEntry {
	return QueueEntry{AppointmentID: id, PatientID: 100 + id, Status: StatusArrived, QueueNumber: no, StartAt: queueT0,
		SlotMinutes: 10, ArrivedAt: queueT0.Add(time.Duration(m) * time.Minute), Step: QueueWaiting}
}

func ids(es []QueueEntry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.AppointmentID
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
}

// call makes DecideCall's call on d and returns the day after it.
func call(t *testing.T, d QueueDay, k int) (QueueDay, int64) {
	t.Helper()
	c, err := DecideCall(d, k, queueT0)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return d.After(c), c.Next.AppointmentID
}

func TestDecideCallOrder(t *testing.T) {
	// Numbers first, then arrival: 3 (No. 2, arrived last) after 1 and 2
	// (No. 1, arrived at 5 and 2); a later slot's No. 1 after them all.
	later := arrived(4, 1, 0)
	later.StartAt = queueT0.Add(30 * time.Minute)
	d := QueueDay{DoctorID: 7, Entries: []QueueEntry{arrived(1, 1, 5), arrived(3, 2, 9), arrived(2, 1, 2), later}}
	sameIDs(t, "order", ids(d.Order(3)), []int64{2, 1, 3, 4})
	var got []int64
	for range 4 {
		var id int64
		d, id = call(t, d, 3)
		got = append(got, id)
	}
	sameIDs(t, "calls", got, []int64{2, 1, 3, 4})
	if d.Calls != 4 {
		t.Fatalf("calls = %d, want 4", d.Calls)
	}
	// Each call passed the one before (never started) as skipped; with
	// nobody else waiting the earliest skipped comes back at once.
	if _, id := call(t, d, 3); id != 2 {
		t.Fatalf("with only skipped patients left, %d is called, want 2", id)
	}
}

func TestDecideCallSkipReentersAfterK(t *testing.T) {
	for _, k := range []int{0, 1, 3} {
		d := QueueDay{DoctorID: 7}
		for i := int64(1); i <= 8; i++ {
			d.Entries = append(d.Entries, arrived(i, int(i), 0))
		}
		d, first := call(t, d, k)
		e, ok := d.Current()
		if !ok || e.AppointmentID != first || first != 1 {
			t.Fatalf("k=%d: current %v %v, want 1", k, e.AppointmentID, ok)
		}
		skipped, err := DecideQueueStep(d, e, QueueStep{AppointmentID: 1, Action: QueueActionSkip}, queueT0)
		if err != nil {
			t.Fatal(err)
		}
		d = replace(d, skipped)
		var got []int64
		for range k + 2 {
			var id int64
			d, id = call(t, d, k)
			d = startCurrent(t, d)
			got = append(got, id)
		}
		// After k more calls, the skipped patient is the next one.
		want := []int64{}
		for i := int64(2); i < int64(2+k); i++ {
			want = append(want, i)
		}
		want = append(want, 1, int64(2+k))
		sameIDs(t, "k calls then the skipped one", got, want)
	}
}

func replace(d QueueDay, e QueueEntry) QueueDay {
	out := d
	out.Entries = append([]QueueEntry(nil), d.Entries...)
	for i := range out.Entries {
		if out.Entries[i].AppointmentID == e.AppointmentID {
			out.Entries[i] = e
		}
	}
	return out
}

func startCurrent(t *testing.T, d QueueDay) QueueDay {
	t.Helper()
	cur, ok := d.Current()
	if !ok {
		t.Fatal("no current call")
	}
	e, err := DecideQueueStep(d, cur, QueueStep{AppointmentID: cur.AppointmentID, Action: QueueActionStart}, queueT0)
	if err != nil || e.Step != QueueStarted || e.StartedAt == nil {
		t.Fatalf("start: %+v %v", e, err)
	}
	return replace(d, e)
}

func TestDecideCallPassesTheCurrentCall(t *testing.T) {
	d := QueueDay{DoctorID: 7, Entries: []QueueEntry{arrived(1, 1, 0), arrived(2, 2, 0)}}
	d, _ = call(t, d, 3)
	c, err := DecideCall(d, 3, queueT0)
	if err != nil || c.Passed == nil || c.Passed.AppointmentID != 1 || c.Passed.Step != QueueSkipped || c.Passed.SkipSeq != 1 {
		t.Fatalf("the current call is passed as skipped: %+v %v", c.Passed, err)
	}
	if c.Next.AppointmentID != 2 || c.Seq != 2 || c.Next.CallSeq != 2 || c.Next.Calls != 1 {
		t.Fatalf("next: %+v seq %d", c.Next, c.Seq)
	}
}

func TestDecideCallEmptyAndFinished(t *testing.T) {
	if _, err := DecideCall(QueueDay{DoctorID: 7}, 3, queueT0); ErrorCode(err) != CodeQueueEmpty {
		t.Fatalf("empty day: %v, want queue-empty", err)
	}
	booked := arrived(1, 1, 0)
	booked.Status = StatusBooked // not checked in: not in the queue
	done := arrived(2, 2, 0)
	done.Status, done.Step = StatusCompleted, QueueStarted
	called := arrived(3, 3, 0)
	called.Status, called.Step = StatusNoShow, QueueCalled
	d := QueueDay{DoctorID: 7, Calls: 2, Entries: []QueueEntry{booked, done, called}}
	if _, ok := d.Current(); ok {
		t.Fatal("a call whose patient left ARRIVED is not current")
	}
	_, err := DecideCall(d, 3, queueT0)
	if ErrorCode(err) != CodeQueueEmpty {
		t.Fatalf("nobody ARRIVED and waiting: %v, want queue-empty", err)
	}
	d.Entries = append(d.Entries, arrived(4, 4, 0))
	c, err := DecideCall(d, 3, queueT0)
	if err != nil || c.Next.AppointmentID != 4 || c.Passed != nil {
		t.Fatalf("call: %+v %v", c, err)
	}
	sameIDs(t, "finished", c.Finished, []int64{2, 3})
}

func TestDecideQueueStep(t *testing.T) {
	d := QueueDay{DoctorID: 7, Entries: []QueueEntry{arrived(1, 1, 0), arrived(2, 2, 0)}}
	d, _ = call(t, d, 3)
	cur, _ := d.Current()
	later := queueT0.Add(time.Minute)
	e, err := DecideQueueStep(d, cur, QueueStep{AppointmentID: 1, DoctorID: 7, Action: QueueActionRecall}, later)
	if err != nil || e.Step != QueueCalled || e.Calls != 2 || !e.CalledAt.Equal(later) || e.CallSeq != 1 {
		t.Fatalf("recall: %+v %v", e, err)
	}
	if _, err := DecideQueueStep(d, cur, QueueStep{AppointmentID: 1, DoctorID: 8, Action: QueueActionRecall}, later); ErrorCode(err) != CodeNotFound {
		t.Fatalf("another doctor's: %v, want not-found", err)
	}
	waiting := d.Entries[1]
	for _, a := range QueueActions[1:] {
		if _, err := DecideQueueStep(d, waiting, QueueStep{AppointmentID: 2, Action: a}, later); ErrorCode(err) != CodeNotCalled {
			t.Fatalf("%s of a patient not called: %v, want not-called", a, err)
		}
	}
	gone := cur
	gone.Status = StatusCompleted
	if _, err := DecideQueueStep(d, gone, QueueStep{AppointmentID: 1, Action: QueueActionStart}, later); ErrorCode(err) != CodeNotCalled {
		t.Fatalf("start of a completed call: %v, want not-called", err)
	}
	if _, err := DecideQueueStep(d, cur, QueueStep{AppointmentID: 1, Action: "dance"}, later); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("unknown action: %v", err)
	}
}

func TestQueuePosition(t *testing.T) {
	d := QueueDay{DoctorID: 7, Entries: []QueueEntry{arrived(1, 1, 0), arrived(2, 2, 0), arrived(3, 3, 0)}}
	if p := d.Position(3, 3); p.Step != QueueWaiting || p.Ahead != 2 || p.Minutes != 20 {
		t.Fatalf("before any call: %+v", p)
	}
	d, _ = call(t, d, 3)
	if p := d.Position(1, 3); p.Step != QueueCalled {
		t.Fatalf("the called one: %+v", p)
	}
	// One called (10 minutes), one ahead (10).
	if p := d.Position(3, 3); p.Ahead != 1 || p.Minutes != 20 {
		t.Fatalf("after a call: %+v", p)
	}
	if p := d.Position(99, 3); p.Step != "" {
		t.Fatalf("not in the queue: %+v", p)
	}
}

func TestMaskName(t *testing.T) {
	for name, want := range map[string]string{
		"张三":              "张*",
		"欧阳娜娜":            "欧***",
		"Nguyễn Văn An":   "N. A***",
		"Đặng Thị Ánh":    "Đ. Á***",
		"Marie Dupont":    "M. D***",
		"élodie Bérard":   "É. B***",
		"Jean-Luc Picard": "J. P***",
		"Madonna":         "M***",
		"  ":              "***",
		"王":               "王*",
	} {
		if got := MaskName(name); got != want {
			t.Errorf("MaskName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestPolicyQueueSkipCalls(t *testing.T) {
	p := DefaultPolicy
	if p.QueueSkipCalls != DefaultQueueSkipCalls {
		t.Fatalf("default %d", p.QueueSkipCalls)
	}
	for _, v := range []int{-1, MaxQueueSkipCalls + 1} {
		p.QueueSkipCalls = v
		if ErrorCode(p.Validate()) != CodeInvalidRequest {
			t.Errorf("queueSkipCalls %d accepted", v)
		}
	}
	p.QueueSkipCalls = 0
	if err := p.Validate(); err != nil {
		t.Errorf("0: %v", err)
	}
}
