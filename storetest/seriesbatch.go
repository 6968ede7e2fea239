package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// A batch of series in one transaction: each is answered as BookSeries
// would answer it alone, in the batch's order. A series refused (its slot
// taken by one before it in the batch, a key reused, a series not found)
// leaves the others as they are and nothing of its own; a replay answers
// the booking made earlier.
func testSeriesBatch(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	a1 := f.slot(1, startsAt(day1))
	a2 := f.slot(2, startsAt(day1.Add(22*24*time.Hour)))
	b1 := f.slot(2, startsAt(day1.Add(2*time.Hour)), onDoctor(f.doctor2.ID))
	b2 := f.slot(2, startsAt(day1.Add(23*24*time.Hour)), onDoctor(f.doctor2.ID))
	ps := f.patients(5)
	earlier, err := f.bookSeries(ds, ps[3], "r", b1.ID, b2.ID)
	must(t, err)
	req := func(p booking.Patient, seriesID int64, key string, slots ...int64) booking.SeriesRequest {
		return booking.SeriesRequest{PatientID: p.ID, SeriesID: seriesID, SlotIDs: slots, IdempotencyKey: key,
			Fingerprint: booking.SeriesFingerprint(seriesID, slots)}
	}
	rs := []booking.SeriesRequest{
		req(ps[0], ds.ID, "k", a1.ID, a2.ID),  // booked
		req(ps[1], ds.ID, "k", a1.ID, a2.ID),  // a1 taken by the one before: slot-full, a2 kept for others
		req(ps[2], ds.ID, "k", b1.ID, a2.ID),  // booked: a2's second place
		req(ps[3], ds.ID, "r", b1.ID, b2.ID),  // a replay of the earlier one
		req(ps[3], ds.ID, "r", a1.ID, a2.ID),  // the same key for another series: key-reused
		req(ps[4], 1<<40, "n", b1.ID, b2.ID),  // no such series
		req(ps[1], ds.ID, "k2", b1.ID, b2.ID), // b1 is full by now: slot-full
	}
	out, err := s.BookSeriesBatch(f.ctx, rs, now)
	must(t, err)
	if len(out) != len(rs) {
		t.Fatalf("%d answers for %d series", len(out), len(rs))
	}
	for _, k := range []int{0, 2} {
		if as := out[k].Result.Booking.Appointments; out[k].Err != nil || out[k].Result.Replayed || len(as) != 2 ||
			as[0].SlotID != rs[k].SlotIDs[0] || as[1].SlotID != rs[k].SlotIDs[1] || out[k].Result.Booking.ID == 0 {
			t.Fatalf("series %d answered %+v, %v", k, out[k].Result, out[k].Err)
		}
	}
	wantCode(t, out[1].Err, booking.CodeSlotFull)
	if e := errorsAs(out[1].Err); e.SlotID != a1.ID {
		t.Fatalf("series 1 refused on slot %d, want %d", e.SlotID, a1.ID)
	}
	if !out[3].Result.Replayed || out[3].Result.Booking.ID != earlier.Booking.ID || out[3].Err != nil {
		t.Fatalf("replay answered %+v, %v", out[3].Result, out[3].Err)
	}
	wantCode(t, out[4].Err, booking.CodeKeyReused)
	wantCode(t, out[5].Err, booking.CodeNotFound)
	wantCode(t, out[6].Err, booking.CodeSlotFull)
	if n := activeOf(t, h, s, ps[1].ID); n != 0 {
		t.Fatalf("refused series left %d appointments", n)
	}
	for _, c := range []struct {
		sl   booking.Slot
		want int
	}{{a1, 1}, {a2, 2}, {b1, 2}, {b2, 1}} {
		if got := f.getSlot(c.sl.ID).BookedCount; got != c.want {
			t.Fatalf("slot %d: counter %d, want %d", c.sl.ID, got, c.want)
		}
	}
	// The batch's answers are kept: a retry of each alone replays it.
	again, err := s.BookSeries(f.ctx, rs[2], now)
	must(t, err)
	if !again.Replayed || again.Booking.ID != out[2].Result.Booking.ID {
		t.Fatalf("retry answered %+v, want a replay of %+v", again, out[2].Result)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}

// seriesBatches is a service.Observer that records the series' batches.
type seriesBatches struct {
	mu    sync.Mutex
	sizes []int
}

func (b *seriesBatches) Booked(string, bool, time.Duration) {}
func (b *seriesBatches) Batch(int, time.Duration)           {}
func (b *seriesBatches) SeriesBatch(size int, _ time.Duration) {
	b.mu.Lock()
	b.sizes = append(b.sizes, size)
	b.mu.Unlock()
}

// Many series released at once through the Service, across overlapping
// slots whose ids run against their doses' order, with single bookings
// racing them: the series are decided in batches (some of more than one
// series), no slot is oversold, every series is whole or absent and is
// answered as it was decided, and a retry replays it.
func testRaceSeriesBatch(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	var obs seriesBatches
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Engine: service.EngineBatched,
		Timeout: time.Minute, Observer: &obs})
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	a1 := f.slot(5, startsAt(day1))
	a2 := f.slot(5, startsAt(day1.Add(22*24*time.Hour)))
	b2 := f.slot(5, startsAt(day1.Add(23*24*time.Hour)), onDoctor(f.doctor2.ID))
	b1 := f.slot(5, startsAt(day1.Add(2*time.Hour)), onDoctor(f.doctor2.ID))
	pairs := [][2]int64{{a1.ID, a2.ID}, {b1.ID, b2.ID}, {a1.ID, b2.ID}, {b1.ID, a2.ID}}
	const seriesN, singles = 48, 8
	ps := f.patients(seriesN + singles)
	ctx := context.Background()
	var mu sync.Mutex
	booked := map[int64]booking.SeriesBooking{}
	var o outcomes
	release(seriesN+singles, func(i int) {
		if i < seriesN {
			pair := pairs[i%len(pairs)]
			res, err := svc.BookSeries(ctx, booking.Acting{PatientID: ps[i].ID},
				service.SeriesBookingRequest{SeriesID: ds.ID, SlotIDs: pair[:], Key: fmt.Sprint("series", i)})
			switch code := booking.ErrorCode(err); {
			case err == nil:
				mu.Lock()
				booked[ps[i].ID] = res.Booking
				mu.Unlock()
			case code != booking.CodeSlotFull:
				t.Errorf("series of patient %d: %v", ps[i].ID, err)
			}
			return
		}
		sl := []int64{a1.ID, a2.ID, b1.ID, b2.ID}[i%4]
		o.add(svc.Book(ctx, ps[i].ID, sl, "single"))
	})
	if t.Failed() {
		t.FailNow()
	}
	taken := map[int64]int{}
	for _, a := range o.as {
		taken[a.SlotID]++
	}
	for i, p := range ps[:seriesN] {
		sb, ok := booked[p.ID]
		n := activeOf(t, h, s, p.ID)
		switch {
		case ok && (len(sb.Appointments) != 2 || n != 2 || sb.Appointments[0].SlotID != pairs[i%len(pairs)][0]):
			t.Fatalf("patient %d: series %+v, %d active", p.ID, sb, n)
		case !ok && n != 0:
			t.Fatalf("patient %d: refused series left %d appointments", p.ID, n)
		}
		for _, a := range sb.Appointments {
			taken[a.SlotID]++
		}
	}
	for _, sl := range []booking.Slot{a1, a2, b1, b2} {
		if got := f.getSlot(sl.ID).BookedCount; got != taken[sl.ID] || got > sl.Capacity {
			t.Fatalf("slot %d: counter %d, answered %d, capacity %d", sl.ID, got, taken[sl.ID], sl.Capacity)
		}
	}
	if len(booked) == 0 {
		t.Fatal("no series won: the race proves nothing")
	}
	obs.mu.Lock()
	sizes, biggest, total := obs.sizes, 0, 0
	obs.mu.Unlock()
	for _, n := range sizes {
		biggest, total = max(biggest, n), total+n
	}
	if biggest < 2 || total != seriesN {
		t.Fatalf("series batches %v: want one of more than one series, %d series in all", sizes, seriesN)
	}
	for i, p := range ps[:seriesN] {
		sb, ok := booked[p.ID]
		if !ok {
			continue
		}
		again, err := svc.BookSeries(ctx, booking.Acting{PatientID: p.ID},
			service.SeriesBookingRequest{SeriesID: ds.ID, SlotIDs: pairs[i%len(pairs)][:], Key: fmt.Sprint("series", i)})
		if err != nil || !again.Replayed || again.Booking.ID != sb.ID {
			t.Fatalf("retry of patient %d's series: %+v, %v", p.ID, again, err)
		}
		break
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}
