package storetest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// benchPlaces is the capacity of each benchmark slot and the number of
// patients: operation i books place i%benchPlaces of slot i/benchPlaces.
const benchPlaces = 1000

// Bench measures the booking path through service.Service on one hot slot
// at a time, with 64 concurrent clients, for both engines: "direct" (one
// transaction per request, the source articles' design) and "batched"
// (group commit per slot). It reports bookings/s and the mean batch size.
// Notifications are not enqueued here (no River): the rush measures the
// whole server.
func Bench(b *testing.B, newStore func(testing.TB) booking.Store) {
	for _, engine := range []string{service.EngineDirect, service.EngineBatched} {
		b.Run(engine, func(b *testing.B) {
			s := newStore(b)
			f := newFixture(b, s)
			ps := f.patients(benchPlaces)
			slots := make([]booking.Slot, b.N/benchPlaces+1)
			for i := range slots {
				slots[i] = f.slot(benchPlaces)
			}
			var batches atomic.Int64
			svc := service.NewService(s, service.Options{
				Now: func() time.Time { return now }, Engine: engine, Timeout: time.Minute,
				Observer: batchCounter{&batches},
			})
			ctx := context.Background()
			var next, failed atomic.Int64
			b.SetParallelism(32) // 64 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1) - 1
					sl, p := slots[i/benchPlaces], ps[i%benchPlaces]
					if r := svc.Book(ctx, p.ID, sl.ID, fmt.Sprint("b", i)); r.Err != nil || r.Replayed {
						failed.Add(1)
					}
				}
			})
			b.StopTimer()
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d of %d bookings failed", n, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
			b.ReportMetric(float64(b.N)/float64(max(batches.Load(), 1)), "requests/batch")
		})
	}
}

// batchCounter counts decision transactions.
type batchCounter struct{ n *atomic.Int64 }

func (c batchCounter) Booked(string, bool, time.Duration) {}
func (c batchCounter) Batch(int, time.Duration)           { c.n.Add(1) }

// BenchListDay measures listing one doctor's local day (the read that the
// rush makes most) on a database of SLOTD_BENCH_DOCTORS doctors (default
// 200; 2000 is the source scale, about 1.1 million slots) with 14 days of
// 40 slots each, and reports the p50 and p99 of a call.
func BenchListDay(b *testing.B, newStore func(testing.TB) booking.Store) {
	doctors := 200
	if n, err := strconv.Atoi(os.Getenv("SLOTD_BENCH_DOCTORS")); err == nil && n > 0 {
		doctors = n
	}
	s := newStore(b)
	sum, err := demo.Load(context.Background(), s, demo.Options{Doctors: doctors, Days: 14, Now: now})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := s.ListDoctors(context.Background(), 0, booking.Page{})
	if err != nil {
		b.Fatal(err)
	}
	loc, _ := time.LoadLocation("Europe/Paris")
	b.Logf("%d doctors, %d slots", sum.Doctors, sum.Slots)
	durations := make([]time.Duration, 0, b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := ds[i%len(ds)]
		day := schedule.DateOf(now, loc).AddDays(i % 14)
		from, to := schedule.DayBounds(day, loc)
		start := time.Now()
		slots, err := s.ListSlots(ctx, d.ID, from, to)
		durations = append(durations, time.Since(start))
		if err != nil || len(slots) != 40 {
			b.Fatalf("ListSlots: %d slots, %v", len(slots), err)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
}
