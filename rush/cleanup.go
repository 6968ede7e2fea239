package rush

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ErrRealData refuses a target that holds a clinic's real data.
var ErrRealData = errors.New("the target holds real data")

// holdings is the server's answer to GET /api/admin/holdings.
type holdings struct {
	Demo               bool  `json:"demo"`
	Patients           int64 `json:"patients"`
	ActiveAppointments int64 `json:"activeAppointments"`
	Real               bool  `json:"real"`
}

// checkTarget refuses, before anything is created, a server whose database
// holds patients or active appointments that the demo did not load: rush
// would add its department, doctors, slots and hundreds of patients to a
// real clinic's. AllowRealData overrides.
func checkTarget(ctx context.Context, cfg *Config, a *api, admin string) error {
	if cfg.AllowRealData {
		return nil
	}
	var h holdings
	err := a.call(ctx, "GET", "/api/admin/holdings", admin, nil, &h)
	if statusOf(err) == http.StatusNotFound {
		return fmt.Errorf("%w: %s does not say what it holds (GET /api/admin/holdings answered 404, an older server); give --allow-real-data if it holds no real patients", ErrRealData, cfg.Target)
	}
	if err != nil {
		return fmt.Errorf("ask what the target holds: %w", err)
	}
	if h.Real {
		return fmt.Errorf("%w: %s holds %d patients and %d active appointments and is not a demo database; rush would add a department, doctors, slots and patients to them. Run it against `slotd serve --demo` or an empty database, or give --allow-real-data",
			ErrRealData, cfg.Target, h.Patients, h.ActiveAppointments)
	}
	return nil
}

// cleanupTimeout bounds the clean-up, which runs after an interrupt too.
const cleanupTimeout = 10 * time.Minute

// Cleanup removes what Setup created, through the same admin API: each
// patient is erased (DELETE /api/admin/patients/{id}, which cancels their
// appointments that have not started and leaves every waiting list), each
// slot closed and each doctor deactivated, so that none of it is offered
// to patients or listed as a doctor again. The department stays (the API
// deletes none), without a doctor, and so is no longer listed to patients
// either (GET /api/departments lists those with an active doctor). It runs on a context of its own, since
// it also runs after the run's context was cancelled (Ctrl-C), and goes on
// past a failure, reporting the first.
func Cleanup(cfg *Config, a *api, f *Fixture, logf func(string, ...any)) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	began := time.Now()
	var (
		firstErr error
		errOnce  sync.Once
		failed   atomic.Int64
	)
	fail := func(err error) {
		failed.Add(1)
		errOnce.Do(func() { firstErr = err })
	}
	var ids []int64
	for _, p := range f.Patients {
		if p != nil {
			ids = append(ids, p.ID)
		}
	}
	logf("cleanup: erasing %d patients, closing %d slots, deactivating %d doctors (run %s)", len(ids), len(f.Slots), len(f.Doctors), f.RunID)
	reason := map[string]string{"reason": "slotd rush run " + f.RunID + ": its own test patients"}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(cfg.SetupWorkers, len(ids))) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ids) || ctx.Err() != nil {
					return
				}
				path := "/api/admin/patients/" + strconv.FormatInt(ids[i], 10)
				if err := a.call(ctx, "DELETE", path, f.AdminToken, reason, nil); err != nil {
					fail(fmt.Errorf("erase patient: %w", err))
				}
			}
		})
	}
	wg.Wait()
	for _, s := range f.Slots {
		path := "/api/admin/slots/" + strconv.FormatInt(s.ID, 10)
		if err := a.call(ctx, "PATCH", path, f.AdminToken, map[string]string{"status": "CLOSED"}, nil); err != nil {
			fail(fmt.Errorf("close slot: %w", err))
		}
	}
	for _, d := range f.Doctors {
		path := "/api/admin/doctors/" + strconv.FormatInt(d, 10)
		if err := a.call(ctx, "PATCH", path, f.AdminToken, map[string]bool{"active": false}, nil); err != nil {
			fail(fmt.Errorf("deactivate doctor: %w", err))
		}
	}
	if firstErr != nil {
		return fmt.Errorf("cleanup of run %s: %d of %d steps failed, first: %w (--keep keeps a run's data on purpose)",
			f.RunID, failed.Load(), len(ids)+len(f.Slots)+len(f.Doctors), firstErr)
	}
	logf("cleanup done in %.1fs", time.Since(began).Seconds())
	return nil
}
