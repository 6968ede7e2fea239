package sqlite

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// benchSetup makes n slots of capacity c (one an hour, so none overlap) and
// n*c patients, outside the timed part.
func benchSetup(b *testing.B, n, c int, cache bool) (*Store, []booking.Slot, []int64) {
	b.Helper()
	s := newStore(b)
	s.SetStmtCache(cache)
	ctx := context.Background()
	d, err := s.CreateDepartment(ctx, booking.Department{Name: "D"})
	if err != nil {
		b.Fatal(err)
	}
	doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "A", DepartmentID: d.ID, TimeZone: "UTC"})
	if err != nil {
		b.Fatal(err)
	}
	slots := make([]booking.Slot, n)
	for i := range slots {
		start := testNow.Add(time.Duration(24+i) * time.Hour)
		slots[i] = booking.Slot{DoctorID: doc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
			Capacity: c, OpensAt: testNow.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900}
	}
	if _, err := s.InsertSlots(ctx, slots); err != nil {
		b.Fatal(err)
	}
	got, err := s.ListSlots(ctx, doc.ID, testNow, testNow.Add(time.Duration(n+48)*time.Hour))
	if err != nil || len(got) != n {
		b.Fatalf("%d slots: %v", len(got), err)
	}
	tx, err := s.writer.Begin()
	if err != nil {
		b.Fatal(err)
	}
	ps := make([]int64, n*c)
	for i := range ps {
		if err := tx.QueryRow(`INSERT INTO patients (created_at) VALUES (0) RETURNING id`).Scan(&ps[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return s, got, ps
}

// BenchmarkBookOne measures the store alone deciding one request per call
// (a new BOOKED appointment in its own small slot): the per-request cost of
// a transaction, without the Service or batching, with Book's statements
// prepared once (cache=on, the default) or per transaction (cache=off).
// `go test -run '^$' -bench BookOne -benchtime 3000x -count 5 ./sqlite/`
func BenchmarkBookOne(b *testing.B) {
	for _, cache := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", onOff(cache)), func(b *testing.B) {
			s, slots, ps := benchSetup(b, b.N, 1, cache)
			ctx := context.Background()
			b.ResetTimer()
			cpu := cpuNow()
			for i := 0; i < b.N; i++ {
				sl := slots[i]
				res, err := s.Book(ctx, sl.ID, []booking.BookRequest{rq(ps[i], sl.ID, "k")}, testNow)
				if err != nil || res[0].Err != nil {
					b.Fatal(err, res)
				}
			}
			reportCPU(b, cpu, 1)
		})
	}
}

// cpuNow is this process's user+system CPU time: on a loaded machine it
// says more about a change's cost than wall time does.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op spent since start.
func reportCPU(b *testing.B, start time.Duration, perOp int) {
	b.ReportMetric(float64((cpuNow()-start).Nanoseconds())/float64(b.N*perOp), "cpu-ns/req")
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// BenchmarkBookBatch16 measures batches of 16 requests for a slot of 16
// places (group commit), reported per request.
func BenchmarkBookBatch16(b *testing.B) {
	const k = 16
	for _, cache := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", onOff(cache)), func(b *testing.B) {
			s, slots, ps := benchSetup(b, b.N, k, cache)
			ctx := context.Background()
			reqs := make([]booking.BookRequest, k)
			b.ResetTimer()
			cpu := cpuNow()
			for i := 0; i < b.N; i++ {
				sl := slots[i]
				for j := range reqs {
					reqs[j] = rq(ps[i*k+j], sl.ID, fmt.Sprint("k", j))
				}
				res, err := s.Book(ctx, sl.ID, reqs, testNow)
				if err != nil || res[k-1].Err != nil {
					b.Fatal(err, res)
				}
			}
			reportCPU(b, cpu, k)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/req")
		})
	}
}

// BenchmarkBookLargeSlot measures batches of 16 requests filling one slot
// of 10,000 places (or more, for large b.N): the per-batch cost must not
// grow with the places already taken, which reading every active row of the
// slot made it do.
func BenchmarkBookLargeSlot(b *testing.B) {
	const k = 16
	c := max(10000, b.N*k)
	s, slots, ps := benchSetup(b, 1, c, true)
	sl := slots[0]
	ctx := context.Background()
	reqs := make([]booking.BookRequest, k)
	b.ResetTimer()
	cpu := cpuNow()
	for i := 0; i < b.N; i++ {
		for j := range reqs {
			reqs[j] = rq(ps[i*k+j], sl.ID, fmt.Sprint("k", i*k+j))
		}
		res, err := s.Book(ctx, sl.ID, reqs, testNow)
		if err != nil || res[k-1].Err != nil {
			b.Fatal(err, res)
		}
	}
	reportCPU(b, cpu, k)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/req")
}
