package rush

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/booking"
)

// Check results.
const (
	Pass = "PASS"
	Fail = "FAIL"
	Skip = "SKIP"
)

// Check is one verification with its verdict.
type Check struct {
	Name   string `json:"name"`
	Result string `json:"result"`
	Detail string `json:"detail"`
}

// Verification is the verdict on a run: Passed unless a check failed.
type Verification struct {
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks"`
}

// Expected is what the run believes happened.
type Expected struct {
	// Capacity of every slot rush created, by slot id.
	Capacity map[int64]int
	// Receipts are the bookings the server confirmed (201, or 200 for a
	// replay whose first answer was lost), one per appointment id.
	Receipts []Receipt
	// Unresolved patients had a click end without a definitive answer: the
	// server may hold a booking for them that rush never saw confirmed.
	Unresolved map[int64]bool
	// Refused patients clicked, got only definitive refusals, and were
	// looked up: they must hold nothing in rush's slots.
	Refused map[int64]bool
	// Doses is a series' doses (0: single bookings): each patient must
	// hold all of them or none.
	Doses int
}

// SlotState is a slot as the server reports it.
type SlotState struct {
	Capacity int
	Booked   int
}

// Appointment is the part of an appointment the verifier looks at.
type Appointment struct {
	ID        int64  `json:"id"`
	SlotID    int64  `json:"slotId"`
	PatientID int64  `json:"patientId"`
	Status    string `json:"status"`
}

func (a Appointment) active() bool { return booking.Status(a.Status).Active() }

// Reconciliation is the outcome of GET /api/admin/reconciliation.
type Reconciliation struct {
	// Available is false when the server has no such endpoint (404).
	Available bool
	// Known is false when the report's shape was not understood.
	Known  bool
	Clean  bool
	Detail string
}

// Observed is what the server says after the run.
type Observed struct {
	// Slots by id; a slot missing here could not be read.
	Slots map[int64]SlotState
	// Appointments of every patient looked up, by patient id.
	Appointments map[int64][]Appointment
	// ByID are appointments fetched one by one with their owner's token;
	// Missing lists ids that answered 404.
	ByID    map[int64]Appointment
	Missing []int64
	// Reconciliation is nil when it was not asked.
	Reconciliation *Reconciliation
}

// Verify checks the invariants of a run against what the server reports.
// It is a pure function so that it can be tested on fabricated results.
func Verify(exp Expected, obs Observed) Verification {
	v := Verification{Passed: true}
	add := func(name string, problems []string, okDetail string) {
		c := Check{Name: name, Result: Pass, Detail: okDetail}
		if len(problems) > 0 {
			c.Result = Fail
			c.Detail = summarize(problems)
			v.Passed = false
		}
		v.Checks = append(v.Checks, c)
	}
	ids := make([]int64, 0, len(exp.Capacity))
	for id := range exp.Capacity {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })

	// 1. Capacity.
	var probs []string
	totalBooked, totalCap := 0, 0
	for _, id := range ids {
		st, ok := obs.Slots[id]
		if !ok {
			probs = append(probs, fmt.Sprintf("slot %d could not be read", id))
			continue
		}
		totalBooked += st.Booked
		totalCap += exp.Capacity[id]
		if st.Booked > exp.Capacity[id] || st.Booked > st.Capacity || st.Booked < 0 {
			probs = append(probs, fmt.Sprintf("slot %d: %d booked of capacity %d", id, st.Booked, exp.Capacity[id]))
		}
	}
	add("no slot over capacity", probs, fmt.Sprintf("%d slots, %d of %d places booked", len(ids), totalBooked, totalCap))

	// 2. Places sold = confirmed bookings (+ bookings of unresolved clicks
	// found afterwards: the server may have decided a request whose answer
	// rush never received).
	received := map[int64]bool{}
	perSlot := map[int64]int{}
	for _, rc := range exp.Receipts {
		if !received[rc.AppointmentID] {
			received[rc.AppointmentID] = true
			perSlot[rc.SlotID]++
		}
	}
	late := map[int64]int{}
	lateTotal := 0
	for pid := range exp.Unresolved {
		for _, a := range obs.Appointments[pid] {
			if a.active() && !received[a.ID] && exp.Capacity[a.SlotID] > 0 {
				late[a.SlotID]++
				lateTotal++
			}
		}
	}
	probs = nil
	for _, id := range ids {
		st, ok := obs.Slots[id]
		if !ok {
			continue
		}
		if want := perSlot[id] + late[id]; st.Booked != want {
			probs = append(probs, fmt.Sprintf("slot %d: server says %d booked, rush was confirmed %d (+%d found for unanswered clicks)", id, st.Booked, perSlot[id], late[id]))
		}
	}
	add("places sold = confirmed bookings", probs, fmt.Sprintf("%d sold = %d confirmed + %d found for unanswered clicks", totalBooked, len(received), lateTotal))

	// 3. Nobody twice in a slot: neither in what rush was told nor in what
	// the server holds.
	probs = nil
	type ps struct{ p, s int64 }
	seen := map[ps]int64{}
	for _, rc := range exp.Receipts {
		k := ps{rc.PatientID, rc.SlotID}
		if prev, ok := seen[k]; ok && prev != rc.AppointmentID {
			probs = append(probs, fmt.Sprintf("patient %d was confirmed appointments %d and %d in slot %d", rc.PatientID, prev, rc.AppointmentID, rc.SlotID))
		}
		seen[k] = rc.AppointmentID
	}
	pids := sortedKeys(obs.Appointments)
	for _, pid := range pids {
		active := map[int64]int{}
		for _, a := range obs.Appointments[pid] {
			if a.active() {
				active[a.SlotID]++
				if active[a.SlotID] == 2 {
					probs = append(probs, fmt.Sprintf("patient %d holds %d active appointments in slot %d", pid, active[a.SlotID], a.SlotID))
				}
			}
		}
	}
	add("nobody twice in a slot", probs, fmt.Sprintf("%d patients' appointments checked", len(pids)))

	// 4. Every confirmed booking is still there.
	probs = nil
	checked := 0
	for _, rc := range exp.Receipts {
		list, looked := obs.Appointments[rc.PatientID]
		if !looked {
			probs = append(probs, fmt.Sprintf("patient %d (appointment %d) could not be looked up", rc.PatientID, rc.AppointmentID))
			continue
		}
		found := false
		for _, a := range list {
			if a.ID == rc.AppointmentID {
				found = true
				if !a.active() {
					probs = append(probs, fmt.Sprintf("appointment %d (confirmed with %d) is now %s", a.ID, rc.Status, a.Status))
				} else if a.SlotID != rc.SlotID {
					probs = append(probs, fmt.Sprintf("appointment %d is in slot %d, confirmed for slot %d", a.ID, a.SlotID, rc.SlotID))
				}
			}
		}
		if !found {
			probs = append(probs, fmt.Sprintf("appointment %d (confirmed with %d) is missing from patient %d's appointments", rc.AppointmentID, rc.Status, rc.PatientID))
		}
		checked++
	}
	for id, a := range obs.ByID {
		if !a.active() {
			probs = append(probs, fmt.Sprintf("GET /api/appointments/%d: status %s", id, a.Status))
		}
	}
	for _, id := range obs.Missing {
		probs = append(probs, fmt.Sprintf("GET /api/appointments/%d: not found", id))
	}
	add("every confirmed booking is still there", probs, fmt.Sprintf("%d confirmed bookings in their owners' lists, %d fetched one by one, all BOOKED/HELD", checked, len(obs.ByID)))

	// 5. No booking without a confirmation for patients that were refused.
	probs = nil
	for pid := range exp.Refused {
		for _, a := range obs.Appointments[pid] {
			if a.active() && exp.Capacity[a.SlotID] > 0 && !received[a.ID] {
				probs = append(probs, fmt.Sprintf("patient %d holds appointment %d in slot %d but was only ever refused", pid, a.ID, a.SlotID))
			}
		}
	}
	add("refused patients hold nothing", probs, fmt.Sprintf("%d refused patients checked", len(exp.Refused)))

	// 6. A series is whole or absent: each patient holds every dose or
	// none in the run's slots.
	if exp.Doses > 0 {
		probs = nil
		for _, pid := range pids {
			n := 0
			for _, a := range obs.Appointments[pid] {
				if a.active() && exp.Capacity[a.SlotID] > 0 {
					n++
				}
			}
			if n != 0 && n != exp.Doses {
				probs = append(probs, fmt.Sprintf("patient %d holds %d of the %d doses", pid, n, exp.Doses))
			}
		}
		add("every series whole or absent", probs, fmt.Sprintf("%d patients' doses checked", len(pids)))
	}

	// 7. The server's own reconciliation.
	switch r := obs.Reconciliation; {
	case r == nil:
		v.Checks = append(v.Checks, Check{Name: "reconciliation report", Result: Skip, Detail: "not asked"})
	case !r.Available:
		v.Checks = append(v.Checks, Check{Name: "reconciliation report", Result: Skip, Detail: "GET /api/admin/reconciliation is not available (404); relying on the checks above"})
	case !r.Known:
		v.Checks = append(v.Checks, Check{Name: "reconciliation report", Result: Skip, Detail: "report not understood: " + r.Detail})
	case r.Clean:
		v.Checks = append(v.Checks, Check{Name: "reconciliation report", Result: Pass, Detail: r.Detail})
	default:
		v.Passed = false
		v.Checks = append(v.Checks, Check{Name: "reconciliation report", Result: Fail, Detail: r.Detail})
	}
	return v
}

func summarize(probs []string) string {
	const show = 5
	if len(probs) <= show {
		return strings.Join(probs, "; ")
	}
	return strings.Join(probs[:show], "; ") + fmt.Sprintf("; … and %d more", len(probs)-show)
}

func sortedKeys[V any](m map[int64]V) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// expected gathers what the run believes from the patients' records.
// Refused patients are sampled (up to sample; 0: all) since each costs a
// request and they should all be alike.
func expected(f *Fixture, sample int) Expected {
	exp := Expected{Capacity: map[int64]int{}, Unresolved: map[int64]bool{}, Refused: map[int64]bool{}}
	if f.Picks < len(f.Slots) {
		exp.Doses = 2
	}
	for _, s := range f.Slots {
		exp.Capacity[s.ID] = s.Capacity
	}
	for _, p := range f.Patients {
		p.mu.Lock()
		exp.Receipts = append(exp.Receipts, p.receipts...)
		switch {
		case p.unresolved:
			exp.Unresolved[p.ID] = true
		case len(p.receipts) == 0 && p.clicked && (sample == 0 || len(exp.Refused) < sample):
			exp.Refused[p.ID] = true
		}
		p.mu.Unlock()
	}
	return exp
}

// observe asks the server about everything Verify needs, with workers
// concurrent requests.
func observe(ctx context.Context, a *api, f *Fixture, exp Expected, workers, sample int) (Observed, error) {
	obs := Observed{Slots: map[int64]SlotState{}, Appointments: map[int64][]Appointment{}, ByID: map[int64]Appointment{}}
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}

	// Slots, read directly so that no listing cache can hide a count.
	parallel(workers, len(f.Slots), func(i int) {
		s := f.Slots[i]
		var v struct {
			Capacity int `json:"capacity"`
			Booked   int `json:"booked"`
		}
		if err := a.call(ctx, "GET", "/api/slots/"+strconv.FormatInt(s.ID, 10), "", nil, &v); err != nil {
			fail(err)
			return
		}
		mu.Lock()
		obs.Slots[s.ID] = SlotState{Capacity: v.Capacity, Booked: v.Booked}
		mu.Unlock()
	})

	// Every patient with a receipt, an unresolved click, or in the refused
	// sample: their own list of appointments.
	tokens := map[int64]string{}
	for _, p := range f.Patients {
		tokens[p.ID] = p.Token
	}
	want := map[int64]bool{}
	for _, rc := range exp.Receipts {
		want[rc.PatientID] = true
	}
	for pid := range exp.Unresolved {
		want[pid] = true
	}
	for pid := range exp.Refused {
		want[pid] = true
	}
	pids := sortedKeys(want)
	parallel(workers, len(pids), func(i int) {
		pid := pids[i]
		list, err := myAppointments(ctx, a, tokens[pid])
		if err != nil {
			fail(fmt.Errorf("patient %d: %w", pid, err))
			return
		}
		mu.Lock()
		obs.Appointments[pid] = list
		mu.Unlock()
	})

	// Confirmed appointments one by one, with the owner's token.
	rcs := exp.Receipts
	if sample > 0 && len(rcs) > sample {
		step := float64(len(rcs)) / float64(sample)
		picked := make([]Receipt, 0, sample)
		for i := 0; i < sample; i++ {
			picked = append(picked, rcs[int(float64(i)*step)])
		}
		rcs = picked
	}
	parallel(workers, len(rcs), func(i int) {
		rc := rcs[i]
		var ap Appointment
		err := a.call(ctx, "GET", "/api/appointments/"+strconv.FormatInt(rc.AppointmentID, 10), tokens[rc.PatientID], nil, &ap)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case statusOf(err) == 404:
			obs.Missing = append(obs.Missing, rc.AppointmentID)
		case err != nil:
			if firstErr == nil {
				firstErr = err
			}
		default:
			obs.ByID[rc.AppointmentID] = ap
		}
	})

	rec, err := reconciliation(ctx, a, f.AdminToken)
	if err != nil {
		fail(err)
	}
	obs.Reconciliation = rec
	return obs, firstErr
}

// myAppointments reads every page of GET /api/me/appointments (a page
// {"items", "next"}; a JSON array or an object with an "appointments"
// array from other servers).
func myAppointments(ctx context.Context, a *api, token string) ([]Appointment, error) {
	var all []Appointment
	path := "/api/me/appointments?limit=200"
	for range 1000 {
		var page struct {
			Items []Appointment `json:"items"`
			Next  *string       `json:"next"`
		}
		var raw json.RawMessage
		if err := a.call(ctx, "GET", path, token, nil, &raw); err != nil {
			return nil, err
		}
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) || json.Unmarshal(raw, &page) != nil || page.Items == nil {
			return oldAppointments(raw)
		}
		all = append(all, page.Items...)
		if page.Next == nil {
			break
		}
		path = "/api/me/appointments?limit=200&cursor=" + url.QueryEscape(*page.Next)
	}
	return all, nil
}

// oldAppointments reads an unpaged list of appointments.
func oldAppointments(raw json.RawMessage) ([]Appointment, error) {
	raw = bytes.TrimSpace(raw)
	var list []Appointment
	if len(raw) > 0 && raw[0] == '[' {
		err := json.Unmarshal(raw, &list)
		return list, err
	}
	var obj struct {
		Appointments []Appointment `json:"appointments"`
	}
	err := json.Unmarshal(raw, &obj)
	return obj.Appointments, err
}

// reconciliation asks for the server's invariant report. Its shape is read
// loosely: a boolean "ok"/"clean"/"consistent", or else empty problem
// lists, mean clean.
func reconciliation(ctx context.Context, a *api, admin string) (*Reconciliation, error) {
	var raw json.RawMessage
	err := a.call(ctx, "GET", "/api/admin/reconciliation", admin, nil, &raw)
	if st := statusOf(err); st == 404 || st == 405 {
		return &Reconciliation{Available: false}, nil
	}
	if err != nil {
		return nil, err
	}
	r := &Reconciliation{Available: true}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		r.Detail = truncate(string(raw), 200)
		return r, nil
	}
	for _, k := range []string{"ok", "clean", "consistent", "healthy"} {
		if b, ok := m[k].(bool); ok {
			r.Known, r.Clean = true, b
		}
	}
	var issues []string
	for _, k := range []string{"problems", "issues", "discrepancies", "findings", "mismatches", "orphanPayments", "staleHolds", "duplicates", "duplicateActives"} {
		if arr, ok := m[k].([]any); ok {
			if !r.Known {
				r.Known = true
				r.Clean = true
			}
			if len(arr) > 0 {
				issues = append(issues, fmt.Sprintf("%s: %d", k, len(arr)))
				r.Clean = false
			}
		}
	}
	switch {
	case !r.Known:
		r.Detail = truncate(string(raw), 200)
	case r.Clean:
		r.Detail = "clean"
	case len(issues) > 0:
		r.Detail = strings.Join(issues, ", ") + ": " + truncate(string(raw), 300)
	default:
		r.Detail = truncate(string(raw), 300)
	}
	return r, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// parallel runs fn(0..n-1) on up to workers goroutines.
func parallel(workers, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// verifyRun gathers and checks; the caller prints the verdict.
func verifyRun(ctx context.Context, a *api, f *Fixture, cfg *Config) (Verification, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	exp := expected(f, 500)
	obs, err := observe(ctx, a, f, exp, cfg.SetupWorkers, cfg.VerifySample)
	if err != nil {
		return Verification{}, fmt.Errorf("verification could not read the server: %w", err)
	}
	return Verify(exp, obs), nil
}
