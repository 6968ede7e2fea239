package chaos

import (
	"strings"
	"testing"
	"time"
)

func TestCheckGap(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	book := func(start, end float64, status int) attempt {
		return attempt{Kind: "book", Start: at(start), End: at(end), Status: status}
	}
	record := []attempt{
		book(0, 0.1, 201), book(1, 1.1, 201),
		book(2, 4, 503), book(4.5, 6.5, 503), book(5, 10, 0), book(6, 6.1, 500),
		book(10.5, 11, 201), book(11, 11.2, 200),
		{Kind: "read", Start: at(3), End: at(3.1), Status: 503}, // counted: any request in the gap
	}
	var checks []Check
	add := func(name string, err error) { checks = append(checks, Check{name, err}) }
	line := checkGap(record, at(12), add)
	if len(checks) != 1 || checks[0].Err != nil {
		t.Fatalf("checks = %+v, want one passed", checks)
	}
	for _, want := range []string{"9.9s", "07:00:01.100 to 07:00:11.000", "3 answers 503", "1 other 5xx", "1 unanswered"} {
		if !strings.Contains(line, want) {
			t.Errorf("figures %q lack %q", line, want)
		}
	}

	checks = nil
	checkGap(record[:3], at(30), add) // the last success at 1.1 s, the rush ended at 30 s
	if len(checks) != 1 || checks[0].Err == nil || !strings.Contains(checks[0].Err.Error(), "did not reach the new leader") {
		t.Fatalf("a rush that never recovered passed: %+v", checks)
	}
	checks = nil
	checkGap(record[2:6], at(12), add)
	if len(checks) != 1 || checks[0].Err == nil {
		t.Fatalf("a rush without any booking passed: %+v", checks)
	}
}
