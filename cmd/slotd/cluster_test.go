package main

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/testkit"
)

// TestRedisHungAndBrokerDown serves with a Redis that accepts connections
// and never answers and a RabbitMQ that is not there: every booking still
// succeeds (each Redis call gives up within its bound and falls back), the
// metrics and the log say so, and the events wait behind the relay's
// cursor, counted by slotd_events_backlog.
func TestRedisHungAndBrokerDown(t *testing.T) {
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	go func() { // accept, read nothing, answer nothing
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := gone.Addr().String()
	gone.Close()

	const secret = "redis-down-test-secret-0123456789abcdef"
	in := startInstance(t, []string{"SLOTD_DB=sqlite:" + filepath.Join(t.TempDir(), "s.db"), "SLOTD_AUTH_SECRET=" + secret},
		"--redis", "redis://"+hung.Addr().String()+"/0", "--amqp", "amqp://guest:guest@"+goneAddr+"/")
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
	dept := id(call(t, "POST", in.url+"/api/admin/departments", admin, "", map[string]any{"name": "Cardiology"}))
	doc := id(call(t, "POST", in.url+"/api/admin/doctors", admin, "", map[string]any{"name": "Dr A", "departmentId": dept, "timezone": "UTC"}))
	start := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Hour)
	slot := id(call(t, "POST", in.url+"/api/admin/slots", admin, "", map[string]any{
		"doctorId": doc, "startAt": start.Format(time.RFC3339), "durationMinutes": 30, "capacity": 5}))
	const bookings = 3
	for i := range bookings {
		pid := id(call(t, "POST", in.url+"/api/admin/patients", admin, "", map[string]any{"name": fmt.Sprint("P", i)}))
		tok, _ := signer.Mint(auth.RolePatient, fmt.Sprint(pid), time.Hour)
		if code, body := call(t, "POST", in.url+"/api/appointments", tok, fmt.Sprint("k", i), map[string]any{"slotId": slot}); code != 201 {
			t.Fatalf("booking %d with Redis hung: %d %s", i, code, body)
		}
	}

	metric := func(exposition, series string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` ([0-9.e+]+)$`).FindStringSubmatch(exposition)
		if m == nil {
			return -1
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	// The relay reads the backlog each round, backing off from 1s after a
	// failure: wait for a round that saw the three events (liveness).
	var exp string
	if !testkit.Poll(60*time.Second, func() bool {
		_, body := call(t, "GET", in.url+"/metrics", "", "", nil)
		exp = string(body)
		return metric(exp, "slotd_events_backlog") >= bookings
	}) {
		t.Fatalf("slotd_events_backlog never counted the %d events:\n%s", bookings, grepLines(exp, "slotd_events"))
	}
	if v := metric(exp, "slotd_redis_up"); v != 0 {
		t.Errorf("slotd_redis_up = %v with Redis hung, want 0", v)
	}
	for _, layer := range []string{"limit", "idempotency-key"} {
		if v := metric(exp, `slotd_redis_fallbacks_total{layer="`+layer+`"}`); v < 1 {
			t.Errorf("slotd_redis_fallbacks_total{layer=%q} = %v, want ≥ 1:\n%s", layer, v, grepLines(exp, "slotd_redis"))
		}
	}
	if v := metric(exp, "slotd_events_published_total"); v != 0 {
		t.Errorf("slotd_events_published_total = %v with the broker down", v)
	}
	in.stop(t)
	logs := in.logs.String()
	for _, want := range []string{"redis unavailable: falling back to in-process admission state", "events: publishing failed"} {
		if !strings.Contains(logs, want) {
			t.Errorf("no log line %q:\n%s", want, logs)
		}
	}
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
