package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// TestBotsAndPeopleAtAnOpening: a few bots retrying as fast as they can
// beside many people clicking once, at an opening without and with a
// waiting room, through the Service on a real store and clock. Without the
// room the bots take a place each before most people have clicked; with
// it their place in line is drawn like everyone's and admission never
// exceeds the places left, so exactly the first positions of the draw get
// a place, whoever clicks faster: the bots win what the draw gave them,
// and the lanes shed nothing. The figures are
// logged (go test -run TestBotsAndPeopleAtAnOpening -v ./sqlite/; it is
// skipped under -race, whose slowdown the timings cannot absorb).
func TestBotsAndPeopleAtAnOpening(t *testing.T) {
	if testing.Short() || raceDetector {
		// Its figures are times: under -race (scripts/test) a busy machine
		// makes them say nothing; run it as the doc comment says.
		t.Skip("a timing measurement of a few seconds: run it without -race and -short")
	}
	const people, bots, places = 600, 30, 60
	off := botRush(t, false, people, bots, places)
	on := botRush(t, true, people, bots, places)
	for _, r := range []botRushResult{off, on} {
		t.Logf("waiting room %-3s: bots %d/%d booked (%.0f%%), people %d/%d (%.1f%%), bot attempts %d, overloaded %d, inversions %d (within the slot %d), p99 %.1f ms, sold out after %.2f s",
			map[bool]string{false: "off", true: "on"}[r.room], r.botsWon, bots, 100*r.botRate(bots), r.peopleWon, people, 100*r.peopleRate(people),
			r.botAttempts, r.overloaded, r.report.Inversions, r.report.LaneInversions, r.report.Requests.P99Ms, r.sellOut)
		if r.botsWon+r.peopleWon != places || r.report.Sold != places {
			t.Fatalf("room %v: %d + %d booked, %d sold, want %d", r.room, r.botsWon, r.peopleWon, r.report.Sold, places)
		}
	}
	switch {
	case off.botRate(bots) <= off.peopleRate(people):
		t.Fatalf("without a room the bots did no better than the people: the scenario measures nothing")
	case on.overloaded != 0:
		t.Fatalf("with the room the lanes shed %d requests", on.overloaded)
	case on.botRate(bots) > off.botRate(bots)/2:
		t.Fatalf("with the room the bots still won %d of %d", on.botsWon, bots)
	case on.report.Admitted != places:
		t.Fatalf("with the room %d were admitted for %d places", on.report.Admitted, places)
	case on.outOfTurn != 0:
		t.Fatalf("with the room %d people were served out of their turn (a place not in the first %d positions, or none in them)", on.outOfTurn, places)
	}
}

type botRushResult struct {
	room               bool
	botsWon, peopleWon int
	botAttempts        int64
	overloaded         int64
	// outOfTurn counts those whose success differs from their draw: a
	// place beyond the first places positions, or none within them.
	outOfTurn int
	sellOut   float64
	report    booking.OpeningReport
}

func (r botRushResult) botRate(bots int) float64      { return float64(r.botsWon) / float64(bots) }
func (r botRushResult) peopleRate(people int) float64 { return float64(r.peopleWon) / float64(people) }

// botRush runs one opening: people each click once, at a human moment
// after the opening (or, with the room, after their admission); bots send
// a new request as soon as the last one is answered until they have a
// place or the rush ends.
func botRush(t *testing.T, room bool, people, bots, places int) botRushResult {
	t.Helper()
	ctx := context.Background()
	s := newStore(t)
	svc := service.NewService(s, service.Options{
		WaitingRoom: service.WaitingRoomOptions{Tokens: booking.NewAdmissionTokens([]byte("bot rush")), AdmitPerSecond: 50}})
	dept, err := s.CreateDepartment(ctx, booking.Department{Name: "Vaccination"})
	must(t, err)
	doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Centre", DepartmentID: dept.ID, TimeZone: "UTC"})
	must(t, err)
	sc, err := s.CreateSchedule(ctx, booking.Schedule{DoctorID: doc.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	// Set up opening in an hour; the opening moves to just after the
	// setup below, however long a busy machine takes over it.
	opens := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	start := opens.Add(48 * time.Hour).Truncate(time.Hour)
	sl, err := s.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, ScheduleID: sc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: places, OpensAt: opens, Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	ids := make([]int64, people+bots) // the first bots are the bots
	for i := range ids {
		p, err := s.CreatePatient(ctx, booking.Patient{Name: "P", Phone: fmt.Sprintf("+3370%07d", i)})
		must(t, err)
		ids[i] = p.ID
	}
	var o booking.Opening
	if room {
		// A fixed seed and joins in a fixed order (11 is prime to the
		// number of people: everyone joins once): the same draw every run.
		o, err = s.CreateOpening(ctx, booking.Opening{ScheduleID: sc.ID, OpensAt: opens, Seed: slices.Repeat([]byte{7}, booking.SeedSize)}, time.Now())
		must(t, err)
		for i := range ids {
			_, _, err := svc.JoinOpening(ctx, o.ID, ids[(i*11)%len(ids)])
			must(t, err)
		}
	}
	opens = time.Now().Add(time.Second).Truncate(time.Millisecond)
	_, err = s.DB().Exec(`UPDATE slots SET opens_at = ? WHERE id = ?`, ts(opens), sl.ID)
	must(t, err)
	if room {
		_, err = s.DB().Exec(`UPDATE openings SET opens_at = ? WHERE id = ?`, ts(opens), o.ID)
		must(t, err)
		o.OpensAt = opens
		rctx, stop := context.WithCancel(ctx)
		defer stop()
		go svc.RunWaitingRooms(rctx)
	}
	// The deadline is generous for a busy machine: the rush ends sooner,
	// when the places are gone.
	deadline := opens.Add(15 * time.Second)
	var won sync.Map
	var botAttempts, overloaded, sold atomic.Int64
	book := func(i int, key, admission string) booking.BookResult {
		r := svc.BookFor(ctx, booking.Acting{PatientID: ids[i], Admission: admission}, sl.ID, key)
		if booking.ErrorCode(r.Err) == booking.CodeOverloaded {
			overloaded.Add(1)
		}
		if r.Err == nil {
			won.Store(i, true)
			sold.Add(1)
		}
		return r
	}
	// admission waits for i's admission (polling as a page would, bots
	// faster) and returns its token; "" when there is no room.
	admission := func(i int, poll time.Duration) string {
		if !room {
			return ""
		}
		for time.Now().Before(deadline) && sold.Load() < int64(places) {
			p, err := svc.OpeningPlace(ctx, o.ID, ids[i])
			if err == nil && p.Admitted {
				return p.Token
			}
			time.Sleep(poll)
		}
		return ""
	}
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range ids {
		wg.Add(1)
		if i < bots {
			go func() {
				defer wg.Done()
				time.Sleep(time.Until(opens.Add(-50 * time.Millisecond)))
				tok := admission(i, 10*time.Millisecond)
				if room && tok == "" {
					return
				}
				for n := 0; time.Now().Before(deadline); n++ {
					botAttempts.Add(1)
					r := book(i, fmt.Sprintf("bot-%d-%d", i, n), tok)
					if r.Err == nil || booking.ErrorCode(r.Err) == booking.CodeSlotFull {
						return
					}
				}
			}()
			continue
		}
		react := time.Duration(200+rng.IntN(800)) * time.Millisecond // a person sees it and clicks
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(opens))
			tok := admission(i, 500*time.Millisecond)
			if room && tok == "" {
				return // sold out before their turn: they never click
			}
			time.Sleep(react)
			book(i, "click", tok)
		}()
	}
	wg.Wait()
	res := botRushResult{room: room, botAttempts: botAttempts.Load(), overloaded: overloaded.Load()}
	won.Range(func(k, _ any) bool {
		if k.(int) < bots {
			res.botsWon++
		} else {
			res.peopleWon++
		}
		return true
	})
	if room {
		for i := range ids {
			p, err := svc.OpeningPlace(ctx, o.ID, ids[i])
			must(t, err)
			if _, ok := won.Load(i); ok != (p.Position <= places) {
				res.outOfTurn++
			}
		}
	} else {
		// Announced after the fact, for the database's half of the report
		// (no queue, no requests measured).
		o, err = s.CreateOpening(ctx, booking.Opening{ScheduleID: sc.ID, OpensAt: opens, Seed: slices.Repeat([]byte{7}, booking.SeedSize)}, time.Now())
		must(t, err)
	}
	res.report, err = svc.OpeningReport(ctx, o.ID)
	must(t, err)
	if res.report.SellOutSeconds != nil {
		res.sellOut = *res.report.SellOutSeconds
	}
	return res
}
