package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/internal/replicacheck"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/pii"
)

// TestMain lets a test start this binary as `slotd` itself, in a process of
// its own: with SLOTD_TEST_RUN_MAIN=1 it runs main instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("SLOTD_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// instance is a `slotd serve` process started by a test.
type instance struct {
	cmd  *exec.Cmd
	url  string
	logs *syncBuffer
}

var listening = regexp.MustCompile(`slotd listening"? url=(http://[0-9.:]+)`)

func startInstance(t *testing.T, env []string, args ...string) *instance {
	t.Helper()
	in := &instance{logs: &syncBuffer{}}
	in.cmd = exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--quiet-access-log", "--drain=0", "--public-rate=0", "--allow-undelivered"}, args...)...)
	in.cmd.Env = append(append(os.Environ(), "SLOTD_TEST_RUN_MAIN=1"), env...)
	in.cmd.Stdout = io.Discard
	in.cmd.Stderr = in.logs
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if in.cmd.ProcessState == nil {
			_ = in.cmd.Process.Kill()
			_ = in.cmd.Wait()
		}
	})
	if !testkit.Poll(60*time.Second, func() bool {
		m := listening.FindStringSubmatch(in.logs.String())
		if m != nil {
			in.url = m[1]
		}
		return m != nil
	}) {
		t.Fatalf("instance did not start:\n%s", in.logs.String())
	}
	return in
}

// stop sends SIGTERM and expects a clean exit.
func (in *instance) stop(t *testing.T) {
	t.Helper()
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- in.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("instance exited with %v:\n%s", err, in.logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("instance did not stop within 30s of SIGTERM")
	}
}

func call(t *testing.T, method, url, token, key string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// TestTwoInstancesNeverOversell runs two `slotd serve` processes, each with
// its own lanes and gates, on one PostgreSQL database, and books through
// both at once: the database alone decides between them.
func TestTwoInstancesNeverOversell(t *testing.T) {
	dsn := pgtest.DSN(t)
	const secret = "two-instances-test-secret-0123456789abcdef"
	keys := pii.Generate() // one set for both instances, as the secret
	env := []string{"SLOTD_DB=" + dsn, "SLOTD_AUTH_SECRET=" + secret, "SLOTD_BOOKING_RATE=1000", "SLOTD_DATA_KEYS=" + keys}
	var out, errb syncBuffer
	if err := run(context.Background(), []string{"migrate", "--db", dsn, "--data-keys", keys}, &out, &errb); err != nil {
		t.Fatalf("migrate: %v %s", err, errb.String())
	}
	a := startInstance(t, env)
	b := startInstance(t, env)
	signer, err := auth.NewSigner([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := signer.Mint(auth.RoleAdmin, "ops", time.Hour)
	id := func(code int, body []byte) int64 {
		t.Helper()
		var v struct{ ID int64 }
		if code != 201 || json.Unmarshal(body, &v) != nil || v.ID == 0 {
			t.Fatalf("create: %d %s", code, body)
		}
		return v.ID
	}
	dept := id(call(t, "POST", a.url+"/api/admin/departments", admin, "", map[string]any{"name": "Vaccination"}))
	doc := id(call(t, "POST", a.url+"/api/admin/doctors", admin, "", map[string]any{"name": "Station 1", "departmentId": dept, "timezone": "Europe/Paris"}))
	start := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Minute)
	slot := id(call(t, "POST", b.url+"/api/admin/slots", admin, "", map[string]any{
		"doctorId": doc, "startAt": start.Format(time.RFC3339), "durationMinutes": 30, "capacity": 10}))
	const patients = 80
	tokens := make([]string, patients)
	for i := range tokens {
		pid := id(call(t, "POST", a.url+"/api/admin/patients", admin, "", map[string]any{"name": fmt.Sprint("P", i), "phone": fmt.Sprintf("+336000%05d", i), "email": "p@example.org"}))
		tokens[i], _ = signer.Mint(auth.RolePatient, fmt.Sprint(pid), time.Hour)
	}

	// Every patient books once through one instance and retries the same
	// key through the other, all at the same moment.
	var mu sync.Mutex
	codes := map[int]int{}
	created := map[string]bool{}
	var wg sync.WaitGroup
	startGun := make(chan struct{})
	for i := 0; i < patients; i++ {
		for k, in := range []*instance{a, b} {
			if i%2 == 1 {
				in = []*instance{b, a}[k]
			}
			wg.Add(1)
			go func(tok string, url string) {
				defer wg.Done()
				<-startGun
				code, body := call(t, "POST", url+"/api/appointments", tok, "key", map[string]any{"slotId": slot})
				mu.Lock()
				defer mu.Unlock()
				codes[code]++
				if code == 201 || code == 200 {
					var ap struct{ ID int64 }
					_ = json.Unmarshal(body, &ap)
					created[fmt.Sprint(ap.ID)] = true
				}
			}(tokens[i], in.url)
		}
	}
	close(startGun)
	wg.Wait()

	if len(created) != 10 {
		t.Fatalf("%d distinct appointments, want exactly 10 (answers by status: %v)", len(created), codes)
	}
	for code := range codes {
		if code >= 500 && code != 503 {
			t.Fatalf("a %d among the answers: %v", code, codes)
		}
	}
	var listed struct {
		Booked, Capacity int
	}
	code, body := call(t, "GET", a.url+fmt.Sprintf("/api/slots/%d", slot), "", "", nil)
	if code != 200 || json.Unmarshal(body, &listed) != nil || listed.Booked != 10 || listed.Capacity != 10 {
		t.Fatalf("slot after the rush: %d %s", code, body)
	}
	var rep struct{ Clean bool }
	code, body = call(t, "GET", b.url+"/api/admin/reconciliation", admin, "", nil)
	if code != 200 || json.Unmarshal(body, &rep) != nil || !rep.Clean {
		t.Fatalf("reconciliation: %d %s", code, body)
	}
	a.stop(t)
	b.stop(t)
	if strings.Contains(a.logs.String()+b.logs.String(), "+33600000000") {
		t.Fatal("a log contains a phone number")
	}
}

// TestReadReplica runs `slotd serve` with --db-read on a streaming replica
// of its database (scripts/test starts one under CI=true) and proves, with
// the replica's replay paused, that the lists and availability come from
// the replica and a booking and every read after it from the primary
// (internal/replicacheck, which scripts/cluster runs through HAProxy too).
func TestReadReplica(t *testing.T) {
	dsn := pgtest.DSN(t)
	const secret = "read-replica-test-secret-0123456789abcdef"
	keys := pii.Generate()
	var out, errb syncBuffer
	if err := run(context.Background(), []string{"migrate", "--db", dsn, "--data-keys", keys}, &out, &errb); err != nil {
		t.Fatalf("migrate: %v %s", err, errb.String())
	}
	replica := pgtest.ReplicaDSN(t, dsn)
	in := startInstance(t, []string{"SLOTD_DB=" + dsn, "SLOTD_DB_READ=" + replica, "SLOTD_AUTH_SECRET=" + secret, "SLOTD_DATA_KEYS=" + keys})
	signer, err := auth.NewSigner([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	saw, err := replicacheck.Run(ctx, replicacheck.Config{Base: in.url, Signer: signer, Replica: replica})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(saw)
	in.stop(t)
}
