package main

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestOnePerAddressLimitAcrossFrontEnds: --public-rate is one budget per
// address over /fhir/, /ical/ and the pages: past it each answers 429
// problem+json with Retry-After to that address, whichever front end spent
// the budget, while another address is still served; two IPv6 addresses
// of one /64 are one client, of two /64s two.
func TestOnePerAddressLimitAcrossFrontEnds(t *testing.T) {
	const limit = 3
	fr := newFront(t, "--public-rate", strconv.Itoa(limit))
	get := func(remote, path string) *httptest.ResponseRecorder {
		r := request("GET", path, nil)
		r.RemoteAddr = remote
		rec := httptest.NewRecorder()
		fr.h.ServeHTTP(rec, r)
		return rec
	}
	paths := []string{"/fhir/metadata", "/ical/doctors/1.ics", "/"}
	limited := func(rec *httptest.ResponseRecorder, what string) {
		t.Helper()
		if rec.Code != 429 || rec.Header().Get("Retry-After") == "" || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s: %d %v, want 429 problem+json with Retry-After", what, rec.Code, rec.Header())
		}
		var p struct {
			Type   string `json:"type"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Type != "/problems/rate-limited" || p.Status != 429 {
			t.Fatalf("%s: body %s", what, rec.Body)
		}
	}
	served := func(rec *httptest.ResponseRecorder, what string) {
		t.Helper()
		if rec.Code == 429 || rec.Code >= 500 {
			t.Fatalf("%s: %d, want it served", what, rec.Code)
		}
	}
	for i, spend := range paths {
		addr := "198.51.100." + strconv.Itoa(10+i) + ":4000"
		for n := range limit {
			served(get(addr, spend), spend+" #"+strconv.Itoa(n))
		}
		// The budget spent on one front end is gone on all of them.
		for _, p := range paths {
			limited(get(addr, p), p+" after "+spend)
		}
		served(get("203.0.113."+strconv.Itoa(10+i)+":4000", spend), spend+" from another address")
	}
	// IPv6: one /64 is one client.
	for n := range limit {
		served(get("[2001:db8:5:6::"+strconv.Itoa(n+1)+"]:4000", "/fhir/metadata"), "IPv6 #"+strconv.Itoa(n))
	}
	limited(get("[2001:db8:5:6:ffff::1]:4000", "/"), "another address of the same /64")
	served(get("[2001:db8:5:7::1]:4000", "/"), "an address of another /64")
}
