// Package replicacheck proves, against running instances, that a
// deployment with a read replica (--db-read) serves slot lists and
// availability from the replica and bookings, and the reads after them,
// from the primary. cmd/slotd's TestReadReplica and scripts/cluster
// (clustercheck replica) both run it.
//
// The proof does not depend on timing: the replica's replay is paused,
// so it cannot show a booking made meanwhile. While it is paused a new
// booking must be absent from the lists and the availability (they come
// from the replica) and present in the appointment, the patient's list
// and the slot (they come from the primary); once replay resumes the
// lists catch up. The per-pool query counters (slotd_db_queries_total)
// must show the replica's pool at work on every instance given.
package replicacheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/testkit"
)

// Config says where to check.
type Config struct {
	// Base is the API's base URL: one instance, or the load balancer.
	Base string
	// Instances are the base URLs whose /metrics must count replica
	// queries (each instance, behind a load balancer); Base when empty.
	Instances []string
	// Signer mints the admin and patient tokens (the deployment's secret).
	Signer *auth.Signer
	// Replica is a DSN of the replica, as a superuser: replay is paused and
	// resumed through it.
	Replica string
	// Wait bounds each wait for the replica to catch up (default 60s).
	Wait time.Duration
}

// Run runs the check and describes what it saw.
func Run(ctx context.Context, c Config) (string, error) {
	if c.Wait <= 0 {
		c.Wait = 60 * time.Second
	}
	if len(c.Instances) == 0 {
		c.Instances = []string{c.Base}
	}
	k := &checker{Config: c, client: &http.Client{Timeout: 30 * time.Second}}
	admin, err := c.Signer.Mint(auth.RoleAdmin, "replica-check", time.Hour)
	if err != nil {
		return "", err
	}
	dept, err := k.create(admin, "/api/admin/departments", map[string]any{"name": "Replica check"})
	if err != nil {
		return "", err
	}
	doc, err := k.create(admin, "/api/admin/doctors", map[string]any{"name": "Dr Replica", "departmentId": dept, "timezone": "UTC"})
	if err != nil {
		return "", err
	}
	start := time.Now().UTC().Add(72 * time.Hour).Truncate(time.Hour)
	day := start.Format(time.DateOnly)
	slot, err := k.create(admin, "/api/admin/slots", map[string]any{
		"doctorId": doc, "startAt": start.Format(time.RFC3339), "durationMinutes": 30, "capacity": 2})
	if err != nil {
		return "", err
	}
	pid, err := k.create(admin, "/api/admin/patients", map[string]any{"name": "Replica Patient"})
	if err != nil {
		return "", err
	}
	patient, err := c.Signer.Mint(auth.RolePatient, strconv.FormatInt(pid, 10), time.Hour)
	if err != nil {
		return "", err
	}
	availability := fmt.Sprintf("/api/doctors/%d/availability?from=%s&to=%s", doc, day, day)

	// The replica has the new slot once the availability (never cached)
	// counts its places.
	if err := k.until(func() (bool, error) {
		total, _, err := k.availability(availability)
		return total == 2, err
	}); err != nil {
		return "", fmt.Errorf("the replica never showed the new slot: %w", err)
	}
	before, err := k.replicaQueries()
	if err != nil {
		return "", err
	}

	db, err := pgx.Connect(ctx, c.Replica)
	if err != nil {
		return "", fmt.Errorf("replica: %w", err)
	}
	defer db.Close(context.WithoutCancel(ctx))
	var inRecovery bool
	if err := db.QueryRow(ctx, `SELECT pg_is_in_recovery()`).Scan(&inRecovery); err != nil || !inRecovery {
		return "", fmt.Errorf("%s is not a standby (pg_is_in_recovery %v, %v)", "the replica", inRecovery, err)
	}
	if _, err := db.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		return "", fmt.Errorf("pause replay: %w", err)
	}
	resumed := false
	defer func() {
		if !resumed {
			_, _ = db.Exec(context.WithoutCancel(ctx), `SELECT pg_wal_replay_resume()`)
		}
	}()
	if err := k.until(func() (bool, error) {
		var state string
		err := db.QueryRow(ctx, `SELECT pg_get_wal_replay_pause_state()`).Scan(&state)
		return state == "paused", err
	}); err != nil {
		return "", fmt.Errorf("replay did not pause: %w", err)
	}

	// A booking: the primary decides it, and every read after it that is
	// not a list sees it at once, whichever instance answers.
	code, body, err := k.do("POST", "/api/appointments", patient, "replica-check", map[string]any{"slotId": slot})
	if err != nil || code != http.StatusCreated {
		return "", fmt.Errorf("booking: %d %s %v", code, body, err)
	}
	var appt struct {
		ID     int64
		Status string
	}
	if err := json.Unmarshal(body, &appt); err != nil || appt.ID == 0 {
		return "", fmt.Errorf("booking answer %s: %v", body, err)
	}
	for i := range 3 * len(c.Instances) { // round robin: each instance answers
		code, body, err := k.do("GET", fmt.Sprintf("/api/appointments/%d", appt.ID), patient, "", nil)
		if err != nil || code != http.StatusOK || !bytes.Contains(body, []byte(`"status":"BOOKED"`)) {
			return "", fmt.Errorf("read-your-write %d: GET the new appointment: %d %s %v", i, code, body, err)
		}
		code, body, err = k.do("GET", "/api/me/appointments", patient, "", nil)
		if err != nil || code != http.StatusOK || !regexp.MustCompile(fmt.Sprintf(`"id":%d[,}]`, appt.ID)).Match(body) {
			return "", fmt.Errorf("read-your-write %d: the patient's list lacks the new appointment: %d %s %v", i, code, body, err)
		}
		var sl struct{ Booked int }
		code, body, err = k.do("GET", fmt.Sprintf("/api/slots/%d", slot), "", "", nil)
		if err != nil || code != http.StatusOK || json.Unmarshal(body, &sl) != nil || sl.Booked != 1 {
			return "", fmt.Errorf("read-your-write %d: the slot does not count the booking: %d %s %v", i, code, body, err)
		}
		// The lists come from the paused replica: the booking is not there.
		if _, booked, err := k.availability(availability); err != nil || booked != 0 {
			return "", fmt.Errorf("availability %d answered booked=%d (%v) while the replica is paused: not served by the replica", i, booked, err)
		}
		if booked, err := k.listed(fmt.Sprintf("/api/doctors/%d/slots?date=%s", doc, day), slot); err != nil || booked != 0 {
			return "", fmt.Errorf("slot list %d answered booked=%d (%v) while the replica is paused: not served by the replica", i, booked, err)
		}
	}
	after, err := k.replicaQueries()
	if err != nil {
		return "", err
	}
	for i := range after {
		if after[i] <= before[i] {
			return "", fmt.Errorf("%s: slotd_db_queries_total{pool=\"replica\"} did not grow (%v → %v) while lists were read", c.Instances[i], before[i], after[i])
		}
	}

	if _, err := db.Exec(ctx, `SELECT pg_wal_replay_resume()`); err != nil {
		return "", fmt.Errorf("resume replay: %w", err)
	}
	resumed = true
	if err := k.until(func() (bool, error) {
		_, booked, err := k.availability(availability)
		return booked == 1, err
	}); err != nil {
		return "", fmt.Errorf("the replica never caught up with the booking: %w", err)
	}
	return fmt.Sprintf("replica: with replay paused, appointment %d was read back from the primary %d times "+
		"while the lists and availability (replica) did not show it; replica queries per instance %v → %v; after resuming, the lists caught up",
		appt.ID, 3*len(c.Instances), before, after), nil
}

type checker struct {
	Config
	client *http.Client
}

func (k *checker) do(method, path, token, key string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, k.Base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

func (k *checker) create(token, path string, body any) (int64, error) {
	code, out, err := k.do("POST", path, token, "", body)
	var v struct{ ID int64 }
	if err != nil || code != http.StatusCreated || json.Unmarshal(out, &v) != nil || v.ID == 0 {
		return 0, fmt.Errorf("POST %s: %d %s %v", path, code, out, err)
	}
	return v.ID, nil
}

func (k *checker) availability(path string) (total, booked int, err error) {
	code, out, err := k.do("GET", path, "", "", nil)
	var v struct{ Days []struct{ Total, Booked int } }
	if err != nil || code != http.StatusOK || json.Unmarshal(out, &v) != nil || len(v.Days) != 1 {
		return 0, 0, fmt.Errorf("GET %s: %d %s %v", path, code, out, err)
	}
	return v.Days[0].Total, v.Days[0].Booked, nil
}

func (k *checker) listed(path string, slot int64) (int, error) {
	code, out, err := k.do("GET", path, "", "", nil)
	var v struct {
		Slots []struct {
			ID     int64
			Booked int
		}
	}
	if err != nil || code != http.StatusOK || json.Unmarshal(out, &v) != nil {
		return 0, fmt.Errorf("GET %s: %d %s %v", path, code, out, err)
	}
	for _, s := range v.Slots {
		if s.ID == slot {
			return s.Booked, nil
		}
	}
	return 0, fmt.Errorf("GET %s: slot %d not listed: %s", path, slot, out)
}

// until polls ok (testkit.Poll) until it holds, for at most k.Wait: a
// liveness bound, not a measurement.
func (k *checker) until(ok func() (bool, error)) error {
	var err error
	if testkit.Poll(k.Wait, func() bool {
		var done bool
		done, err = ok()
		return done
	}) {
		return nil
	}
	return fmt.Errorf("not within %v (last error: %v)", k.Wait, err)
}

var replicaSeries = regexp.MustCompile(`(?m)^slotd_db_queries_total\{pool="replica"\} ([0-9.e+]+)$`)

// replicaQueries reads slotd_db_queries_total{pool="replica"} of each
// instance.
func (k *checker) replicaQueries() ([]float64, error) {
	out := make([]float64, len(k.Instances))
	for i, base := range k.Instances {
		resp, err := k.client.Get(base + "/metrics")
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		m := replicaSeries.FindSubmatch(b)
		if m == nil {
			return nil, fmt.Errorf("%s/metrics has no slotd_db_queries_total{pool=\"replica\"}: is --db-read set?", base)
		}
		if out[i], err = strconv.ParseFloat(string(m[1]), 64); err != nil {
			return nil, err
		}
	}
	return out, nil
}
