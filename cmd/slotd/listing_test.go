package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// `slotd listing` lists the days demo-data made: every listed day is a
// doctor's whole day (40 slots), which proves the day bounds are the API's.
func TestListingReadsWholeDays(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "listing.db")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"demo-data", "--db", db, "--doctors", "3", "--days", "2", "--patients", "0"}, &out, &errb); err != nil {
		t.Fatalf("demo-data: %v\n%s", err, errb.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"listing", "--db", db, "--lists", "30", "--days", "2"}, &out, &errb); err != nil {
		t.Fatalf("listing: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "listing: 30 days of 3 doctors (40 slots each on average), in process: p50 ") {
		t.Fatalf("listing said %q", out.String())
	}
	// The catalog's reads follow: no services here, so no first available.
	for _, line := range []string{"\ndoctor cards: 200 reads of 3 departments (1 cards on average", "\nsearch: 200 prefixes of "} {
		if !strings.Contains(out.String(), line) {
			t.Fatalf("listing said %q, without %q", out.String(), line)
		}
	}
	if err := run(context.Background(), []string{"listing", "--db", db, "--lists", "0"}, &out, &errb); err == nil {
		t.Fatal("--lists 0 was accepted")
	}
}
