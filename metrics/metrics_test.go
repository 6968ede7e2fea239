package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestMetricsExposed(t *testing.T) {
	m := New()
	m.Booked("created", false, time.Millisecond)
	m.Booked("slot-full", true, time.Microsecond)
	m.Batch(12, 3*time.Millisecond)
	m.Request("POST /api/appointments", 201, time.Millisecond)
	depth := 7
	m.GaugeFunc("slotd_lane_queue_depth", "queued", func() float64 { return float64(depth) })
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`slotd_bookings_total{gated="false",outcome="created"} 1`,
		`slotd_bookings_total{gated="true",outcome="slot-full"} 1`,
		`slotd_booking_batch_size_sum 12`,
		`slotd_booking_decision_seconds_count 1`,
		`slotd_lane_queue_depth 7`,
		`slotd_http_request_seconds_count{code="201",route="POST /api/appointments"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestWindow(t *testing.T) {
	w := newWindow(5)
	t0 := time.Unix(1000, 0)
	w.add(t0, "created")
	w.add(t0.Add(300*time.Millisecond), "slot-full")
	w.add(t0.Add(2*time.Second), "created")
	w.add(t0.Add(7*time.Second), "created") // overwrites second 1002's ring cell
	got := w.recent(t0.Add(7*time.Second), 5)
	if len(got) != 5 || !got[4].At.Equal(t0.Add(7*time.Second)) || got[4].Total() != 1 {
		t.Fatalf("recent = %+v", got)
	}
	for _, s := range got[:4] {
		if s.Total() != 0 {
			t.Fatalf("seconds 1003..1006 must be empty, got %+v", got)
		}
	}
	got = w.recent(t0.Add(2*time.Second), 3)
	if got[0].Outcomes["created"] != 1 || got[0].Outcomes["slot-full"] != 1 || got[2].Total() != 0 {
		// second 1002 was overwritten by 1007: it reads as empty, not wrong
		t.Fatalf("recent at +2s = %+v", got)
	}
}
