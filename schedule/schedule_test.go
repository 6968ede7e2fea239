package schedule

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// sched is a valid schedule on every weekday; tests change what they test.
func sched(start, end string, slotMinutes int) booking.Schedule {
	return booking.Schedule{
		ID: 7, DoctorID: 42,
		Weekdays:  []time.Weekday{0, 1, 2, 3, 4, 5, 6},
		StartTime: start, EndTime: end, SlotMinutes: slotMinutes,
		Capacity: 3, FeeCents: 2500,
	}
}

func TestSlotsDST(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	ny := mustLoc(t, "America/New_York")
	cases := []struct {
		name        string
		loc         *time.Location
		day         string
		start, end  string
		slotMinutes int
		want        []string // UTC starts, "15:04" on the UTC day of the first, or full RFC 3339
		wantLocal   []string // optional: local wall clocks with offsets, to show the repeated hour
	}{
		{name: "paris ordinary day", loc: paris, day: "2026-03-10", start: "09:00", end: "12:00", slotMinutes: 30,
			want: []string{"2026-03-10T08:00:00Z", "2026-03-10T08:30:00Z", "2026-03-10T09:00:00Z", "2026-03-10T09:30:00Z", "2026-03-10T10:00:00Z", "2026-03-10T10:30:00Z"}},
		{name: "paris summer ordinary day, remainder dropped", loc: paris, day: "2026-07-01", start: "09:00", end: "10:40", slotMinutes: 45,
			want: []string{"2026-07-01T07:00:00Z", "2026-07-01T07:45:00Z"}},
		{name: "paris spring-forward 01:00-04:00", loc: paris, day: "2026-03-29", start: "01:00", end: "04:00", slotMinutes: 30,
			want:      []string{"2026-03-29T00:00:00Z", "2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z"},
			wantLocal: []string{"01:00+01:00", "01:30+01:00", "03:00+02:00", "03:30+02:00"}},
		{name: "paris spring-forward 45-min slots, no partial slot", loc: paris, day: "2026-03-29", start: "01:00", end: "04:00", slotMinutes: 45,
			want: []string{"2026-03-29T00:00:00Z", "2026-03-29T00:45:00Z"}},
		{name: "paris fall-back 01:00-04:00", loc: paris, day: "2026-10-25", start: "01:00", end: "04:00", slotMinutes: 30,
			want: []string{"2026-10-24T23:00:00Z", "2026-10-24T23:30:00Z", "2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z",
				"2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"},
			wantLocal: []string{"01:00+02:00", "01:30+02:00", "02:00+02:00", "02:30+02:00", "02:00+01:00", "02:30+01:00", "03:00+01:00", "03:30+01:00"}},
		{name: "paris start inside the gap", loc: paris, day: "2026-03-29", start: "02:30", end: "05:00", slotMinutes: 30,
			want: []string{"2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z", "2026-03-29T02:00:00Z", "2026-03-29T02:30:00Z"}},
		{name: "paris end inside the gap", loc: paris, day: "2026-03-29", start: "00:00", end: "02:30", slotMinutes: 30,
			want: []string{"2026-03-28T23:00:00Z", "2026-03-28T23:30:00Z", "2026-03-29T00:00:00Z", "2026-03-29T00:30:00Z"}},
		{name: "paris period entirely inside the gap", loc: paris, day: "2026-03-29", start: "02:00", end: "02:30", slotMinutes: 30,
			want: nil},
		{name: "paris start inside the overlap: first occurrence", loc: paris, day: "2026-10-25", start: "02:30", end: "04:00", slotMinutes: 30,
			want: []string{"2026-10-25T00:30:00Z", "2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"}},
		{name: "paris end inside the overlap: second occurrence", loc: paris, day: "2026-10-25", start: "00:00", end: "02:30", slotMinutes: 30,
			want: []string{"2026-10-24T22:00:00Z", "2026-10-24T22:30:00Z", "2026-10-24T23:00:00Z", "2026-10-24T23:30:00Z",
				"2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:00:00Z"}},
		{name: "paris period entirely inside the overlap", loc: paris, day: "2026-10-25", start: "02:00", end: "02:30", slotMinutes: 30,
			want: []string{"2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:00:00Z"}},
		{name: "new york ordinary day", loc: ny, day: "2026-03-10", start: "09:00", end: "10:00", slotMinutes: 20,
			want: []string{"2026-03-10T13:00:00Z", "2026-03-10T13:20:00Z", "2026-03-10T13:40:00Z"}},
		{name: "new york spring-forward", loc: ny, day: "2026-03-08", start: "01:00", end: "04:00", slotMinutes: 30,
			want: []string{"2026-03-08T06:00:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"}},
		{name: "new york fall-back", loc: ny, day: "2026-11-01", start: "00:00", end: "03:00", slotMinutes: 60,
			want:      []string{"2026-11-01T04:00:00Z", "2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"},
			wantLocal: []string{"00:00-04:00", "01:00-04:00", "01:00-05:00", "02:00-05:00"}},
		{name: "new york start inside the overlap", loc: ny, day: "2026-11-01", start: "01:30", end: "03:00", slotMinutes: 30,
			want: []string{"2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z", "2026-11-01T07:30:00Z"}},
		{name: "new york end inside the gap", loc: ny, day: "2026-03-08", start: "01:00", end: "02:15", slotMinutes: 15,
			want: []string{"2026-03-08T06:00:00Z", "2026-03-08T06:15:00Z", "2026-03-08T06:30:00Z", "2026-03-08T06:45:00Z"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sched(tc.start, tc.end, tc.slotMinutes)
			d := mustDate(t, tc.day)
			got := Slots(s, tc.loc, d, d)
			var starts []string
			for _, sl := range got {
				starts = append(starts, sl.StartAt.Format(time.RFC3339))
			}
			if !slices.Equal(starts, tc.want) {
				t.Fatalf("starts\n got %v\nwant %v", starts, tc.want)
			}
			for i, sl := range got {
				if sl.StartAt.Location() != time.UTC || sl.EndAt.Location() != time.UTC || sl.OpensAt.Location() != time.UTC {
					t.Errorf("slot %d not in UTC", i)
				}
				if l := sl.EndAt.Sub(sl.StartAt); l != time.Duration(tc.slotMinutes)*time.Minute {
					t.Errorf("slot %d lasts %v", i, l)
				}
				if tc.wantLocal != nil {
					if w := sl.StartAt.In(tc.loc).Format("15:04Z07:00"); w != tc.wantLocal[i] {
						t.Errorf("slot %d local start %s, want %s", i, w, tc.wantLocal[i])
					}
				}
			}
		})
	}
}

func TestSlotFields(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	s := sched("09:00", "10:00", 30)
	s.HoldMinutes = 10
	d := mustDate(t, "2026-03-10")
	got := Slots(s, paris, d, d)
	if len(got) != 2 {
		t.Fatalf("got %d slots", len(got))
	}
	want := booking.Slot{
		DoctorID: 42, ScheduleID: 7,
		StartAt: mustTime(t, "2026-03-10T08:30:00Z"), EndAt: mustTime(t, "2026-03-10T09:00:00Z"),
		Capacity: 3, OpensAt: mustTime(t, "2026-02-24T06:00:00Z"), Status: booking.SlotOpen,
		FeeCents: 2500, HoldSeconds: 600,
	}
	if got[1] != want {
		t.Errorf("slot\n got %+v\nwant %+v", got[1], want)
	}
	// Defaults apply even to a schedule that was not normalized.
	s.HoldMinutes = 0
	if sl := Slots(s, paris, d, d); sl[0].HoldSeconds != 15*60 {
		t.Errorf("default hold = %d s, want 900", sl[0].HoldSeconds)
	}
	// An invalid schedule gives nothing instead of looping or panicking.
	for _, bad := range []booking.Schedule{sched("09:00", "10:00", 0), sched("10:00", "09:00", 30), sched("9:00", "10:00", 30), {}} {
		if sl := Slots(bad, paris, d, d); sl != nil {
			t.Errorf("invalid schedule %+v gave %d slots", bad, len(sl))
		}
	}
	// An empty range gives nothing; a nil zone is UTC.
	if sl := Slots(s, paris, d, d.AddDays(-1)); sl != nil {
		t.Error("to before from gave slots")
	}
	if sl := Slots(s, nil, d, d); len(sl) != 2 || !sl[0].StartAt.Equal(mustTime(t, "2026-03-10T09:00:00Z")) {
		t.Errorf("nil location: %v", sl)
	}
}

func TestOpensAt(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	ny := mustLoc(t, "America/New_York")
	cases := []struct {
		name    string
		loc     *time.Location
		horizon int
		opensAt string
		day     string
		want    string
	}{
		{"winter to winter", paris, 14, "", "2026-03-10", "2026-02-24T06:00:00Z"},
		{"opens in winter (CET), slot in summer (CEST)", paris, 14, "", "2026-04-07", "2026-03-24T06:00:00Z"},
		{"opens on the spring-forward day itself", paris, 14, "", "2026-04-12", "2026-03-29T05:00:00Z"},
		{"opens in summer, slot in winter", paris, 14, "", "2026-11-05", "2026-10-22T05:00:00Z"},
		{"opens on the fall-back day itself", paris, 14, "", "2026-11-08", "2026-10-25T06:00:00Z"},
		{"opening time in the gap resolves after it", paris, 14, "02:30", "2026-04-12", "2026-03-29T01:00:00Z"},
		{"opening time in the overlap: first occurrence", paris, 14, "02:30", "2026-11-08", "2026-10-25T00:30:00Z"},
		{"horizon 1", paris, 1, "", "2026-03-30", "2026-03-29T05:00:00Z"},
		{"horizon 366 across a leap day", time.UTC, 366, "00:00", "2029-03-01", "2028-02-29T00:00:00Z"},
		{"new york across spring-forward", ny, 14, "07:00", "2026-03-15", "2026-03-01T12:00:00Z"},
		{"new york opens after spring-forward", ny, 14, "07:00", "2026-03-22", "2026-03-08T11:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sched("09:00", "10:00", 60)
			s.HorizonDays, s.OpensAtTime = tc.horizon, tc.opensAt
			d := mustDate(t, tc.day)
			got := Slots(s, tc.loc, d, d)
			if len(got) != 1 {
				t.Fatalf("got %d slots", len(got))
			}
			if !got[0].OpensAt.Equal(mustTime(t, tc.want)) {
				t.Errorf("opensAt = %s, want %s", got[0].OpensAt.Format(time.RFC3339), tc.want)
			}
		})
	}
}

func TestWeekdays(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	cases := []struct {
		name     string
		weekdays []time.Weekday
		from, to string
		want     []string // local days with slots
	}{
		{"mon and wed over two weeks", []time.Weekday{time.Wednesday, time.Monday}, "2026-03-09", "2026-03-22",
			[]string{"2026-03-09", "2026-03-11", "2026-03-16", "2026-03-18"}},
		{"sunday includes the DST day", []time.Weekday{time.Sunday}, "2026-03-23", "2026-04-05",
			[]string{"2026-03-29", "2026-04-05"}},
		{"saturday not in range", []time.Weekday{time.Saturday}, "2026-03-09", "2026-03-13", nil},
		{"single day range, listed", []time.Weekday{time.Tuesday}, "2026-03-10", "2026-03-10", []string{"2026-03-10"}},
		{"every day", []time.Weekday{0, 1, 2, 3, 4, 5, 6}, "2026-12-30", "2027-01-02",
			[]string{"2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sched("08:00", "09:00", 30)
			s.Weekdays = tc.weekdays
			got := Slots(s, paris, mustDate(t, tc.from), mustDate(t, tc.to))
			var days []string
			for i, sl := range got {
				day := DateOf(sl.StartAt, paris).String()
				if len(days) == 0 || days[len(days)-1] != day {
					days = append(days, day)
				}
				if i > 0 && !got[i-1].StartAt.Before(sl.StartAt) {
					t.Errorf("slots out of order at %d", i)
				}
			}
			if !slices.Equal(days, tc.want) {
				t.Errorf("days %v, want %v", days, tc.want)
			}
			if len(got) != 2*len(tc.want) {
				t.Errorf("%d slots, want %d", len(got), 2*len(tc.want))
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		wd := []time.Weekday{time.Friday, time.Monday}
		s := sched("09:00", "12:00", 30)
		s.Weekdays = wd
		if err := Normalize(&s); err != nil {
			t.Fatal(err)
		}
		if s.HorizonDays != 14 || s.OpensAtTime != "07:00" || s.HoldMinutes != 15 {
			t.Errorf("defaults not filled: %+v", s)
		}
		if !slices.Equal(s.Weekdays, []time.Weekday{time.Monday, time.Friday}) {
			t.Errorf("weekdays not sorted: %v", s.Weekdays)
		}
		if wd[0] != time.Friday {
			t.Error("Normalize reordered the caller's slice")
		}
		again := s
		if err := Normalize(&again); err != nil || !slices.Equal(again.Weekdays, s.Weekdays) || again.HorizonDays != s.HorizonDays {
			t.Error("Normalize is not idempotent")
		}
	})
	t.Run("explicit values kept", func(t *testing.T) {
		s := sched("00:00", "23:59", 1439)
		s.HorizonDays, s.OpensAtTime, s.HoldMinutes, s.FeeCents = 366, "23:59", 1, 0
		if err := Normalize(&s); err != nil {
			t.Fatal(err)
		}
		if s.HorizonDays != 366 || s.OpensAtTime != "23:59" || s.HoldMinutes != 1 {
			t.Errorf("explicit values changed: %+v", s)
		}
	})
	cases := []struct {
		name  string
		edit  func(*booking.Schedule)
		field string
	}{
		{"no weekdays", func(s *booking.Schedule) { s.Weekdays = nil }, "weekdays"},
		{"weekday 7", func(s *booking.Schedule) { s.Weekdays = []time.Weekday{1, 7} }, "weekdays"},
		{"weekday -1", func(s *booking.Schedule) { s.Weekdays = []time.Weekday{-1} }, "weekdays"},
		{"duplicate weekday", func(s *booking.Schedule) { s.Weekdays = []time.Weekday{1, 2, 1} }, "weekdays"},
		{"startTime empty", func(s *booking.Schedule) { s.StartTime = "" }, "startTime"},
		{"startTime one-digit hour", func(s *booking.Schedule) { s.StartTime = "9:00" }, "startTime"},
		{"startTime seconds", func(s *booking.Schedule) { s.StartTime = "09:00:00" }, "startTime"},
		{"startTime 24:00", func(s *booking.Schedule) { s.StartTime = "24:00" }, "startTime"},
		{"startTime minute 60", func(s *booking.Schedule) { s.StartTime = "09:60" }, "startTime"},
		{"startTime dot", func(s *booking.Schedule) { s.StartTime = "09.00" }, "startTime"},
		{"startTime sign", func(s *booking.Schedule) { s.StartTime = "+9:00" }, "startTime"},
		{"endTime bad", func(s *booking.Schedule) { s.EndTime = "12:0a" }, "endTime"},
		{"endTime 24:00", func(s *booking.Schedule) { s.EndTime = "24:00" }, "endTime"},
		{"endTime equals startTime", func(s *booking.Schedule) { s.EndTime = s.StartTime }, "endTime"},
		{"endTime before startTime", func(s *booking.Schedule) { s.StartTime, s.EndTime = "12:00", "09:00" }, "endTime"},
		{"slotMinutes 0", func(s *booking.Schedule) { s.SlotMinutes = 0 }, "slotMinutes"},
		{"slotMinutes negative", func(s *booking.Schedule) { s.SlotMinutes = -30 }, "slotMinutes"},
		{"slotMinutes 1441", func(s *booking.Schedule) { s.SlotMinutes = 1441 }, "slotMinutes"},
		{"slotMinutes longer than the period", func(s *booking.Schedule) { s.SlotMinutes = 181 }, "slotMinutes"},
		{"capacity 0", func(s *booking.Schedule) { s.Capacity = 0 }, "capacity"},
		{"capacity negative", func(s *booking.Schedule) { s.Capacity = -1 }, "capacity"},
		{"fee negative", func(s *booking.Schedule) { s.FeeCents = -1 }, "fee"},
		{"horizonDays negative", func(s *booking.Schedule) { s.HorizonDays = -1 }, "horizonDays"},
		{"horizonDays 367", func(s *booking.Schedule) { s.HorizonDays = 367 }, "horizonDays"},
		{"opensAtTime bad", func(s *booking.Schedule) { s.OpensAtTime = "7:00" }, "opensAtTime"},
		{"opensAtTime 25:00", func(s *booking.Schedule) { s.OpensAtTime = "25:00" }, "opensAtTime"},
		{"holdMinutes negative", func(s *booking.Schedule) { s.HoldMinutes = -5 }, "holdMinutes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sched("09:00", "12:00", 30)
			tc.edit(&s)
			before := s
			err := Normalize(&s)
			var be *booking.Error
			if !errors.As(err, &be) || be.Code != booking.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid-request", err)
			}
			if !strings.HasPrefix(be.Message, tc.field+":") {
				t.Errorf("message %q does not name %s", be.Message, tc.field)
			}
			if s.HorizonDays != before.HorizonDays || s.OpensAtTime != before.OpensAtTime || s.HoldMinutes != before.HoldMinutes {
				t.Error("a failed Normalize changed the schedule")
			}
		})
	}
}

// fakeStore implements only InsertSlots, with the (doctor, start) uniqueness
// the real stores get from their unique index; any other method panics
// through the nil embedded interface.
type fakeStore struct {
	booking.Store
	mu     sync.Mutex
	slots  map[[2]int64]booking.Slot
	chunks []int
	fail   error
}

func (f *fakeStore) InsertSlots(ctx context.Context, slots []booking.Slot) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return 0, f.fail
	}
	if f.slots == nil {
		f.slots = map[[2]int64]booking.Slot{}
	}
	f.chunks = append(f.chunks, len(slots))
	n := 0
	for _, s := range slots {
		k := [2]int64{s.DoctorID, s.StartAt.UnixNano()}
		if _, ok := f.slots[k]; !ok {
			f.slots[k] = s
			n++
		}
	}
	return n, nil
}

func TestApply(t *testing.T) {
	ctx := context.Background()
	paris := mustLoc(t, "Europe/Paris")
	// One-minute slots, 08:00-20:00 = 720 a day, a week across the
	// spring-forward day: enough to need several chunks.
	s := sched("08:00", "20:00", 1)
	from, to := mustDate(t, "2026-03-26"), mustDate(t, "2026-04-01")
	total := len(Slots(s, paris, from, to))
	if total != 7*720 {
		t.Fatalf("generated %d, want %d", total, 7*720)
	}
	f := &fakeStore{}
	created, existing, err := Apply(ctx, f, Generation{Schedule: s, Location: paris, From: from, To: to})
	if err != nil || created != total || existing != 0 {
		t.Fatalf("first Apply = %d, %d, %v; want %d, 0", created, existing, err, total)
	}
	if len(f.chunks) < 2 {
		t.Errorf("chunks %v: expected several", f.chunks)
	}
	for _, n := range f.chunks {
		if n > insertChunk || n == 0 {
			t.Errorf("chunk of %d", n)
		}
	}
	created, existing, err = Apply(ctx, f, Generation{Schedule: s, Location: paris, From: from, To: to})
	if err != nil || created != 0 || existing != total {
		t.Fatalf("second Apply = %d, %d, %v; want 0, %d", created, existing, err, total)
	}
	// Extending the range creates only the new days.
	created, existing, err = Apply(ctx, f, Generation{Schedule: s, Location: paris, From: from, To: to.AddDays(2)})
	if err != nil || created != 2*720 || existing != total {
		t.Fatalf("extended Apply = %d, %d, %v; want %d, %d", created, existing, err, 2*720, total)
	}
	if len(f.slots) != total+2*720 {
		t.Errorf("store holds %d slots", len(f.slots))
	}

	t.Run("invalid schedule", func(t *testing.T) {
		f := &fakeStore{}
		_, _, err := Apply(ctx, f, Generation{Schedule: sched("12:00", "09:00", 30), Location: paris, From: from, To: to})
		if booking.ErrorCode(err) != booking.CodeInvalidRequest || len(f.chunks) != 0 {
			t.Errorf("err = %v, chunks %v", err, f.chunks)
		}
	})
	t.Run("to before from", func(t *testing.T) {
		f := &fakeStore{}
		_, _, err := Apply(ctx, f, Generation{Schedule: s, Location: paris, From: to, To: from})
		if booking.ErrorCode(err) != booking.CodeInvalidRequest || len(f.chunks) != 0 {
			t.Errorf("err = %v, chunks %v", err, f.chunks)
		}
	})
	t.Run("no listed weekday in range", func(t *testing.T) {
		f := &fakeStore{}
		s := s
		s.Weekdays = []time.Weekday{time.Saturday}
		created, existing, err := Apply(ctx, f, Generation{Schedule: s, Location: paris, From: mustDate(t, "2026-03-09"), To: mustDate(t, "2026-03-13")})
		if err != nil || created != 0 || existing != 0 || len(f.chunks) != 0 {
			t.Errorf("= %d, %d, %v, chunks %v", created, existing, err, f.chunks)
		}
	})
	t.Run("store error", func(t *testing.T) {
		f := &fakeStore{fail: booking.ErrUnavailable}
		_, _, err := Apply(ctx, f, Generation{Schedule: s, Location: paris, From: from, To: to})
		if !errors.Is(err, booking.ErrUnavailable) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		f := &fakeStore{}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, _, err := Apply(cctx, f, Generation{Schedule: s, Location: paris, From: from, To: to})
		if !errors.Is(err, context.Canceled) || len(f.chunks) != 0 {
			t.Errorf("err = %v, chunks %v", err, f.chunks)
		}
	})
}

func TestWindow(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	cases := []struct {
		name     string
		horizon  int
		now      string
		from, to string
	}{
		{"default horizon", 0, "2026-03-10T12:00:00Z", "2026-03-10", "2026-03-24"},
		// 23:30 UTC is already the next day in Paris.
		{"local day, not UTC day", 14, "2026-03-10T23:30:00Z", "2026-03-11", "2026-03-25"},
		{"across spring-forward", 14, "2026-03-20T08:00:00Z", "2026-03-20", "2026-04-03"},
		{"horizon 1", 1, "2026-12-31T10:00:00Z", "2026-12-31", "2027-01-01"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sched("09:00", "10:00", 30)
			s.HorizonDays = tc.horizon
			from, to := Window(s, paris, mustTime(t, tc.now))
			if from.String() != tc.from || to.String() != tc.to {
				t.Errorf("Window = [%s, %s], want [%s, %s]", from, to, tc.from, tc.to)
			}
		})
	}
	// The far end of the window is the day that opens today: its slots
	// exist before booking for it opens at 07:00.
	s := sched("09:00", "10:00", 30)
	now := mustTime(t, "2026-03-10T05:00:00Z") // 06:00 in Paris
	_, to := Window(s, paris, now)
	sl := Slots(s, paris, to, to)
	if len(sl) == 0 || !now.Before(sl[0].OpensAt) || DateOf(sl[0].OpensAt, paris) != DateOf(now, paris) {
		t.Errorf("far end of window does not open today: %+v", sl)
	}
}
