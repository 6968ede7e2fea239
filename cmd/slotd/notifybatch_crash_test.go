package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/pii"
)

// TestNotifyBatchSurvivesKill9: a suspension cancels five appointments and
// writes one batch job for their five messages. A real `slotd serve`
// delivers them; the receiver answers two and holds the others unanswered,
// and the process is killed (SIGKILL) mid-delivery. The next process
// rescues the batch: the two answered (marked sent) are never sent again,
// every other one is sent exactly once more — the ones in flight at the
// kill twice in all (at least once: the receiver drops the duplicate by
// its Idempotency-Key) — and no message is lost. SQLite and PostgreSQL.
func TestNotifyBatchSurvivesKill9(t *testing.T) {
	onBothBackends(t, testNotifyBatchSurvivesKill9)
}

func testNotifyBatchSurvivesKill9(t *testing.T, db string, count func(q string) int) {
	var errb syncBuffer
	keys := pii.Generate()
	if err := run(context.Background(), []string{"migrate", "--db", db, "--data-keys", keys}, &syncBuffer{}, &errb); err != nil {
		t.Fatalf("migrate: %v %s", err, errb.String())
	}
	const patients = 5
	// The receiver answers the first two suspension messages of the first
	// process and holds every later one until its client goes away (the
	// kill); after the restart (phase 2) it answers at once.
	var mu sync.Mutex
	phase := 1
	answered := map[string]bool{} // phase 1, answered 200
	held := map[string]bool{}     // phase 1, in flight at the kill
	after := map[string]int{}     // phase 2 deliveries by key
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m notify.Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if m.Kind != notify.KindSuspension {
			return // the confirmations
		}
		mu.Lock()
		switch {
		case phase == 2:
			after[m.IdempotencyKey]++
			mu.Unlock()
			return
		case len(answered) < 2 && !answered[m.IdempotencyKey]:
			answered[m.IdempotencyKey] = true
			mu.Unlock()
			return
		}
		held[m.IdempotencyKey] = true
		mu.Unlock()
		<-r.Context().Done() // never answered: the sender dies first
	}))
	defer recv.Close()

	const secret = "notify-batch-crash-test-secret-0123456789abcdef"
	env := []string{"SLOTD_DB=" + db, "SLOTD_AUTH_SECRET=" + secret, "SLOTD_BOOKING_RATE=1000", "SLOTD_DATA_KEYS=" + keys}
	hook := []string{"--notifier", "webhook", "--webhook-url", recv.URL + "/hook", "--webhook-secret", "hook-secret"}
	a := startInstance(t, env, hook...)
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
	dept := id(call(t, "POST", a.url+"/api/admin/departments", admin, "", map[string]any{"name": "Cardiology"}))
	doc := id(call(t, "POST", a.url+"/api/admin/doctors", admin, "", map[string]any{"name": "Dr. Martin", "departmentId": dept, "timezone": "Europe/Paris"}))
	start := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Hour)
	slot := id(call(t, "POST", a.url+"/api/admin/slots", admin, "", map[string]any{
		"doctorId": doc, "startAt": start.Format(time.RFC3339), "durationMinutes": 30, "capacity": patients}))
	for i := range patients {
		pid := id(call(t, "POST", a.url+"/api/admin/patients", admin, "", map[string]any{
			"name": fmt.Sprintf("Patient %d", i), "phone": fmt.Sprintf("+3360000000%d", i), "email": fmt.Sprintf("p%d@example.org", i)}))
		tok, _ := signer.Mint(auth.RolePatient, fmt.Sprint(pid), time.Hour)
		if code, body := call(t, "POST", a.url+"/api/appointments", tok, fmt.Sprintf("k%d", i), map[string]any{"slotId": slot}); code != 201 {
			t.Fatalf("book: %d %s", code, body)
		}
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		testkit.Eventually(t, what, 3*time.Minute, cond) // generous: leadership passes after a kill
	}
	const sent = `SELECT count(*) FROM messages WHERE kind = 'suspension' AND state = 'sent'`
	// The confirmations went first (their own jobs), so that the batch is
	// the only notification work left.
	wait("the confirmations", func() bool {
		return count(`SELECT count(*) FROM messages WHERE kind = 'confirmation' AND state = 'sent'`) == patients
	})
	if code, body := call(t, "POST", fmt.Sprintf("%s/api/admin/doctors/%d/suspensions", a.url, doc), admin, "", map[string]any{
		"from": start.Add(-time.Hour).Format(time.RFC3339), "to": start.Add(time.Hour).Format(time.RFC3339), "reason": "Sick leave"}); code != 201 {
		t.Fatalf("suspend: %d %s", code, body)
	}
	const batches = `SELECT count(*) FROM river_job WHERE kind = 'slotd.notify_batch' AND CAST(args AS text) LIKE '%suspension%'`
	if n := count(batches); n != 1 {
		t.Fatalf("%d batch jobs for the suspension, want 1", n)
	}
	// Mid-delivery: two answered and marked, the rest held unanswered.
	wait("two messages sent and the others in flight", func() bool {
		mu.Lock()
		h := len(held)
		mu.Unlock()
		return h >= 1 && count(sent) == 2
	})
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	mu.Lock()
	phase = 2
	inFlight := len(held)
	mu.Unlock()
	if n := count(sent); n != 2 {
		t.Fatalf("%d suspension messages marked sent after the kill, want the 2 answered", n)
	}
	if n := count(`SELECT count(*) FROM river_job WHERE kind = 'slotd.notify' AND CAST(args AS text) LIKE '%suspension%'`); n != 0 {
		t.Fatalf("%d single notification jobs: the batch was fanned out", n)
	}

	// The batch's job is left running by the dead process: the next one's
	// rescuer takes it for dead after --jobs-rescue-after (its least, 1m, here) and
	// the retry delivers what was not marked.
	b := startInstance(t, env, append(hook, "--jobs-rescue-after", "1m")...)
	wait("every suspension message marked sent", func() bool { return count(sent) == patients })
	wait("the batch job to complete", func() bool { return count(batches+` AND state = 'completed'`) == 1 })
	b.stop(t)

	mu.Lock()
	defer mu.Unlock()
	for k := range answered {
		if after[k] != 0 {
			t.Errorf("%s, answered before the kill, was sent again %d times", k, after[k])
		}
	}
	if len(after) != patients-len(answered) {
		t.Errorf("after the restart %d messages went, want the %d not answered: %v", len(after), patients-len(answered), after)
	}
	for k, n := range after {
		if n != 1 || answered[k] {
			t.Errorf("%s sent %d times after the restart (answered before: %v), want once", k, n, answered[k])
		}
	}
	t.Logf("%d answered before the kill, %d in flight at it (sent again), %d sent after it", len(answered), inFlight, len(after))
}
