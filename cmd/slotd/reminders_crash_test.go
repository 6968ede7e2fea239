package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/pii"
)

// TestReminderSurvivesKill9: a real `slotd serve` is killed (SIGKILL) after
// a booking, the next one's reminder scan records the reminder and enqueues
// its job and is killed before any delivery succeeds, and the third
// delivers it: the receiver counts exactly one reminder, and neither the
// restarts' scans nor the retries made a second one. SQLite and PostgreSQL.
func TestReminderSurvivesKill9(t *testing.T) {
	onBothBackends(t, testReminderSurvivesKill9)
}

// onBothBackends runs test in parallel on a fresh SQLite file and a fresh
// PostgreSQL database, with count answering a count(*) query on it from
// outside the processes under test.
func onBothBackends(t *testing.T, test func(t *testing.T, db string, count func(q string) int)) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var db string
			var count func(q string) int
			switch backend {
			case "sqlite":
				path := filepath.Join(t.TempDir(), "slotd.db")
				db = "sqlite:" + path
				count = func(q string) int {
					t.Helper()
					r, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					var n int
					if err := r.QueryRow(q).Scan(&n); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					return n
				}
			default:
				db = pgtest.DSN(t)
				count = func(q string) int {
					t.Helper()
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					c, err := pgx.Connect(ctx, db)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close(ctx)
					var n int
					if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					return n
				}
			}
			test(t, db, count)
		})
	}
}

func testReminderSurvivesKill9(t *testing.T, db string, count func(q string) int) {
	var errb syncBuffer
	keys := pii.Generate() // every process of the database shares them
	if err := run(context.Background(), []string{"migrate", "--db", db, "--data-keys", keys}, &syncBuffer{}, &errb); err != nil {
		t.Fatalf("migrate: %v %s", err, errb.String())
	}
	// The receiver counts deliveries by idempotency key.
	var mu sync.Mutex
	got := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m notify.Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got[m.Kind+" "+m.IdempotencyKey]++
		mu.Unlock()
	}))
	defer recv.Close()
	reminders := func() (keys, deliveries int) {
		mu.Lock()
		defer mu.Unlock()
		for k, n := range got {
			if len(k) > 9 && k[:9] == "reminder " {
				keys, deliveries = keys+1, deliveries+n
			}
		}
		return keys, deliveries
	}

	const secret = "reminder-crash-test-secret-0123456789abcdef"
	env := []string{"SLOTD_DB=" + db, "SLOTD_AUTH_SECRET=" + secret, "SLOTD_BOOKING_RATE=1000", "SLOTD_DATA_KEYS=" + keys}
	// The first two processes' deliveries fail (nothing listens on port 1):
	// their jobs stay in the database, retryable.
	refused := []string{"--notifier", "webhook", "--webhook-url", "http://127.0.0.1:1/hook", "--webhook-secret", "hook-secret", "--reminders", "24h"}
	kill := func(in *instance) {
		t.Helper()
		if err := in.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = in.cmd.Wait()
	}

	a := startInstance(t, env, refused...)
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
	// Three hours ahead: the 24 h reminder is due at once.
	start := time.Now().Add(3 * time.Hour).UTC().Truncate(time.Minute)
	slot := id(call(t, "POST", a.url+"/api/admin/slots", admin, "", map[string]any{
		"doctorId": doc, "startAt": start.Format(time.RFC3339), "durationMinutes": 30, "capacity": 5}))
	pid := id(call(t, "POST", a.url+"/api/admin/patients", admin, "", map[string]any{"name": "Ada", "phone": "+33600000000", "email": "ada@example.org"}))
	tok, _ := signer.Mint(auth.RolePatient, fmt.Sprint(pid), time.Hour)
	if code, body := call(t, "POST", a.url+"/api/appointments", tok, "k1", map[string]any{"slotId": slot}); code != 201 {
		t.Fatalf("book: %d %s", code, body)
	}
	kill(a) // the booking committed; no reminder was due at this process's start

	const reminderJobs = `SELECT count(*) FROM river_job WHERE kind = 'slotd.notify' AND CAST(args AS text) LIKE '%reminder%'`
	wait := func(what string, cond func() bool) {
		t.Helper()
		testkit.Eventually(t, what, 3*time.Minute, cond) // generous: leadership passes after a kill
	}
	b := startInstance(t, env, refused...)
	// Its scan at start records the reminder and enqueues its job in one
	// transaction; the delivery fails and the job waits for a retry.
	wait("the reminder job to fail once", func() bool {
		return count(reminderJobs+` AND state = 'retryable' AND attempt >= 1`) == 1
	})
	kill(b)
	if n := count(`SELECT count(*) FROM reminders`); n != 1 {
		t.Fatalf("%d reminder rows after the crash, want 1", n)
	}

	scansBefore := count(`SELECT count(*) FROM river_job WHERE kind = 'slotd.send_reminders' AND state = 'completed'`)
	c := startInstance(t, env, "--notifier", "webhook", "--webhook-url", recv.URL+"/hook", "--webhook-secret", "hook-secret", "--reminders", "24h")
	wait("the reminder's delivery", func() bool { _, n := reminders(); return n >= 1 })
	// The restarted process's own scan has run too and found it recorded.
	wait("the restarted process's reminder scan", func() bool {
		return count(`SELECT count(*) FROM river_job WHERE kind = 'slotd.send_reminders' AND state = 'completed'`) > scansBefore
	})
	wait("the reminder job to complete", func() bool { return count(reminderJobs+` AND state = 'completed'`) == 1 })
	c.stop(t)

	if keys, n := reminders(); keys != 1 || n != 1 {
		t.Fatalf("the receiver got %d reminders (%d keys), want exactly 1: %v", n, keys, got)
	}
	if n := count(reminderJobs); n != 1 {
		t.Fatalf("%d reminder jobs, want 1", n)
	}
	if n := count(`SELECT count(*) FROM reminders`); n != 1 {
		t.Fatalf("%d reminder rows, want 1", n)
	}
}
