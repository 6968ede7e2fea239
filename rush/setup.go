package rush

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/auth"
)

// slotMinutes is the length of every slot rush creates. Slots are laid end
// to end (no two overlap in time, even across doctors), so that a patient
// can never be refused for an overlapping appointment by rush's own design.
const slotMinutes = 15

// doctorZone is the doctors' time zone. UTC keeps rush free of tzdata and
// makes "the doctor's local day" of a listing trivial to compute.
const doctorZone = "UTC"

// tokenTTL outlives any run.
const tokenTTL = 24 * time.Hour

// Slot is one slot rush created, with the client-side view of its
// remaining places that patients use to choose where to click.
type Slot struct {
	ID       int64
	DoctorID int64
	Capacity int
	StartAt  time.Time

	body      []byte // {"slotId":N} (a series: both doses), built once
	listURL   string // its doctor's day
	twin      *Slot  // a series' dose 2 slot, booked with this one
	remaining atomic.Int32
}

// Patient is one patient rush created, with its token and what happened to
// its clicks.
type Patient struct {
	ID    int64
	Token string

	authz string // "Bearer " + Token, built once
	// admission is the opening's admission token (Slotd-Admission), once
	// the waiting room gave one.
	admission string
	busy      atomic.Bool
	done      atomic.Bool
	sessions  atomic.Int32
	clicks    atomic.Int64

	mu       sync.Mutex
	receipts []Receipt
	// unresolved: some click ended without a definitive answer (timeouts
	// until the retries ran out), so the server may hold a booking rush
	// never heard of. The verifier asks the server.
	unresolved bool
	clicked    bool
}

// Receipt is a booking the server confirmed (201, or 200 for a replay).
type Receipt struct {
	PatientID     int64 `json:"patientId"`
	SlotID        int64 `json:"slotId"`
	AppointmentID int64 `json:"appointmentId"`
	Status        int   `json:"status"`
}

// Fixture is what setup created through the API.
type Fixture struct {
	RunID        string
	AdminToken   string
	DepartmentID int64
	Doctors      []int64
	Slots        []*Slot
	// Picks is how many of Slots, from the first, patients click on: the
	// rest are the series' dose 2 twins, booked with their dose 1.
	Picks int
	// Patients are the people and, first, the Bots of the bots scenario.
	Patients []*Patient
	Bots     int
	// ScheduleID holds the bots scenario's slots (an opening is a
	// schedule's); OpeningID is their opening, with the waiting room on.
	ScheduleID, OpeningID int64
	// OpensAt is when every slot opens; the load starts then (minus Early).
	OpensAt   time.Time
	SetupTook time.Duration

	slotByID map[int64]*Slot
}

func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Setup creates a department, doctors, patients and slots through the admin
// API. Patients come first because they are the slow part; the slots are
// created last with an opening time OpenIn after setup ends, so that the
// load starts on slots that have never been open. It first refuses a
// target holding real data (checkTarget). On an error it returns what it
// created so far, for Cleanup.
func Setup(ctx context.Context, cfg *Config, a *api, logf func(string, ...any)) (*Fixture, error) {
	began := time.Now()
	f := &Fixture{RunID: newRunID(), slotByID: map[int64]*Slot{}}
	admin, err := cfg.Signer.Mint(auth.RoleAdmin, "rush-"+f.RunID, tokenTTL)
	if err != nil {
		return nil, err
	}
	f.AdminToken = admin
	if err := checkTarget(ctx, cfg, a, admin); err != nil {
		return nil, err
	}

	var dept struct {
		ID int64 `json:"id"`
	}
	if err := a.call(ctx, "POST", "/api/admin/departments", admin, map[string]string{"name": "rush-" + f.RunID}, &dept); err != nil {
		return f, fmt.Errorf("create department: %w", err)
	}
	f.DepartmentID = dept.ID

	f.Bots = cfg.Bots
	logf("setup: creating %d patients with %d workers", cfg.Patients+cfg.Bots, cfg.SetupWorkers)
	if err := createPatients(ctx, cfg, a, f); err != nil {
		return f, err
	}

	// Main slots, SlotsPerDoctor to a doctor, then the group slots on a
	// doctor of their own (clinic's vaccination station).
	type plan struct{ capacity, doctor int }
	var plans []plan
	doctors := 0
	for i := 0; i < cfg.Slots; i++ {
		if i%cfg.SlotsPerDoctor == 0 {
			doctors++
		}
		plans = append(plans, plan{cfg.Capacity, doctors - 1})
	}
	for i := 0; i < cfg.GroupSlots; i++ {
		if i%cfg.SlotsPerDoctor == 0 {
			doctors++
		}
		plans = append(plans, plan{cfg.GroupCapacity, doctors - 1})
	}
	for i := 0; i < doctors; i++ {
		var d struct {
			ID int64 `json:"id"`
		}
		body := map[string]any{"name": fmt.Sprintf("rush %s doctor %d", f.RunID, i+1), "departmentId": f.DepartmentID, "timezone": doctorZone}
		if err := a.call(ctx, "POST", "/api/admin/doctors", admin, body, &d); err != nil {
			return f, fmt.Errorf("create doctor: %w", err)
		}
		f.Doctors = append(f.Doctors, d.ID)
	}

	// Slots start tomorrow or later, whole hours, end to end.
	base := time.Now().UTC().Truncate(time.Hour).Add(26 * time.Hour)
	if cfg.Bots > 0 {
		if err := createSchedule(ctx, a, f, base); err != nil {
			return f, err
		}
	}
	// Budget a few milliseconds per slot so that opensAt is still ahead
	// when the last slot is created; checked below.
	budget := len(plans)
	if cfg.Series {
		budget += cfg.Slots
	}
	opens := time.Now().Add(cfg.OpenIn + time.Duration(budget)*5*time.Millisecond).Truncate(time.Millisecond)
	f.OpensAt = opens
	logf("setup: creating %d slots (%d places) on %d doctors, opening at %s", len(plans), cfg.places(), doctors, opens.Format("15:04:05.000"))
	for i, p := range plans {
		start := base.Add(time.Duration(i) * slotMinutes * time.Minute)
		var s struct {
			ID int64 `json:"id"`
		}
		body := map[string]any{
			"doctorId": f.Doctors[p.doctor], "startAt": start.Format(time.RFC3339),
			"durationMinutes": slotMinutes, "capacity": p.capacity,
			"opensAt": opens.UTC().Format(time.RFC3339Nano),
		}
		if f.ScheduleID != 0 {
			body["scheduleId"] = f.ScheduleID
		}
		if err := a.call(ctx, "POST", "/api/admin/slots", admin, body, &s); err != nil {
			return f, fmt.Errorf("create slot: %w", err)
		}
		sl := &Slot{ID: s.ID, DoctorID: f.Doctors[p.doctor], Capacity: p.capacity, StartAt: start}
		sl.body = []byte(`{"slotId":` + strconv.FormatInt(s.ID, 10) + `}`)
		sl.listURL = a.base + "/api/doctors/" + strconv.FormatInt(sl.DoctorID, 10) + "/slots?date=" + start.Format(time.DateOnly)
		sl.remaining.Store(int32(p.capacity))
		f.Slots = append(f.Slots, sl)
		f.slotByID[sl.ID] = sl
	}
	f.Picks = len(f.Slots)
	if cfg.Series {
		if err := createTwins(ctx, a, f, admin, base.Add(twinDays*24*time.Hour)); err != nil {
			return f, err
		}
	}
	if cfg.WaitingRoom {
		var o struct {
			ID int64 `json:"id"`
		}
		body := map[string]any{"scheduleId": f.ScheduleID, "opensAt": opens.UTC().Format(time.RFC3339Nano)}
		if err := a.call(ctx, "POST", "/api/admin/openings", admin, body, &o); err != nil {
			return f, fmt.Errorf("announce the opening: %w", err)
		}
		f.OpeningID = o.ID
		logf("setup: opening %d announced behind a waiting room", o.ID)
	}
	if !time.Now().Before(opens) {
		return f, fmt.Errorf("setup ended after the opening time %s: raise --open-in", opens.Format(time.RFC3339Nano))
	}
	f.SetupTook = time.Since(began)
	return f, nil
}

// createPatients creates cfg.Patients patients with SetupWorkers concurrent
// requests and mints their tokens.
func createPatients(ctx context.Context, cfg *Config, a *api, f *Fixture) error {
	n := cfg.Patients + cfg.Bots
	f.Patients = make([]*Patient, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	for w := 0; w < cfg.SetupWorkers; w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				var p struct {
					ID int64 `json:"id"`
				}
				body := map[string]string{"name": fmt.Sprintf("rush %s patient %d", f.RunID, i+1)}
				err := a.call(ctx, "POST", "/api/admin/patients", f.AdminToken, body, &p)
				var tok string
				if err == nil {
					tok, err = cfg.Signer.Mint(auth.RolePatient, strconv.FormatInt(p.ID, 10), tokenTTL)
				}
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("create patient: %w", err); cancel() })
					return
				}
				f.Patients[i] = &Patient{ID: p.ID, Token: tok, authz: "Bearer " + tok}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// createSchedule creates the schedule that holds the bots scenario's
// slots (an opening is announced for a schedule's slots) on the first
// doctor. It ended yesterday, so it generates no slot of its own: its
// slots are the ones rush adds to it.
func createSchedule(ctx context.Context, a *api, f *Fixture, base time.Time) error {
	var sc struct {
		ID int64 `json:"id"`
	}
	body := map[string]any{
		"weekdays": []int{int(base.Weekday())}, "startTime": "00:00", "endTime": "00:15",
		"slotMinutes": slotMinutes, "capacity": 1, "horizonDays": 1,
		"endDate": time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly),
	}
	if err := a.call(ctx, "POST", "/api/admin/doctors/"+strconv.FormatInt(f.Doctors[0], 10)+"/schedules", f.AdminToken, body, &sc); err != nil {
		return fmt.Errorf("create schedule: %w", err)
	}
	f.ScheduleID = sc.ID
	return nil
}

// twinDays is how long after its dose 1 slot a series' dose 2 twin starts:
// inside the series' window of 21 to 28 days.
const twinDays = 22

// createTwins creates a two-dose series and, for each main slot, its dose
// 2 twin from base on (same doctor, capacity and opening), and makes the
// main slot's booking body name both.
func createTwins(ctx context.Context, a *api, f *Fixture, admin string, base time.Time) error {
	var ds struct {
		ID int64 `json:"id"`
	}
	body := map[string]any{"name": "rush " + f.RunID, "windows": []map[string]int{{"minDays": 21, "maxDays": 28}}}
	if err := a.call(ctx, "POST", "/api/admin/dose-series", admin, body, &ds); err != nil {
		return fmt.Errorf("create dose series: %w", err)
	}
	for i, main := range f.Slots[:f.Picks] {
		start := base.Add(time.Duration(i) * slotMinutes * time.Minute)
		var s struct {
			ID int64 `json:"id"`
		}
		body := map[string]any{
			"doctorId": main.DoctorID, "startAt": start.Format(time.RFC3339),
			"durationMinutes": slotMinutes, "capacity": main.Capacity,
			"opensAt": f.OpensAt.UTC().Format(time.RFC3339Nano),
		}
		if err := a.call(ctx, "POST", "/api/admin/slots", admin, body, &s); err != nil {
			return fmt.Errorf("create dose 2 slot: %w", err)
		}
		twin := &Slot{ID: s.ID, DoctorID: main.DoctorID, Capacity: main.Capacity, StartAt: start}
		twin.listURL = a.base + "/api/doctors/" + strconv.FormatInt(twin.DoctorID, 10) + "/slots?date=" + start.Format(time.DateOnly)
		twin.remaining.Store(int32(main.Capacity))
		main.twin = twin
		main.body = []byte(`{"seriesId":` + strconv.FormatInt(ds.ID, 10) + `,"slotIds":[` +
			strconv.FormatInt(main.ID, 10) + `,` + strconv.FormatInt(twin.ID, 10) + `]}`)
		f.Slots = append(f.Slots, twin)
		f.slotByID[twin.ID] = twin
	}
	return nil
}
