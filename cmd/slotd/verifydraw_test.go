package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// TestVerifyDrawOfARoundRunThroughTheAPI runs a lottery round through the
// HTTP API (create, register, draw) and checks its draw with slotd
// verify-draw, from the server and from a file; then a changed list and a
// changed seed are refused with exit status 1.
func TestVerifyDrawOfARoundRunThroughTheAPI(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	signer, err := auth.NewSigner(bytes.Repeat([]byte("k"), 32))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Truncate(time.Second).Add(time.Hour)
	var clock atomic.Int64
	clock.Store(t0.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	svc := service.NewService(db, service.Options{Now: now, Timeout: 10 * time.Second})
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: svc, Store: db, Signer: signer, Now: now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer srv.Close()
	do := func(method, path, role, sub string, body any, want int) []byte {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, srv.URL+path, rd)
		req.Header.Set("Content-Type", "application/json")
		tok, err := signer.Mint(auth.Role(role), sub, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, out, want)
		}
		return out
	}
	var round struct {
		ID             int64  `json:"id"`
		SeedCommitment string `json:"seedCommitment"`
	}
	json.Unmarshal(do("POST", "/api/admin/rounds", string(auth.RoleAdmin), "1", map[string]any{"name": "Autumn lottery",
		"opensAt": t0.Add(2 * time.Hour), "closesAt": t0.Add(48 * time.Hour), "termStart": t0.Add(72 * time.Hour), "termEnd": t0.Add(900 * time.Hour),
		"lottery": map[string]any{"registrationOpensAt": t0.Add(-time.Hour), "registrationClosesAt": t0.Add(time.Hour)}}, 201), &round)
	do("POST", fmt.Sprintf("/api/admin/rounds/%d/open", round.ID), string(auth.RoleAdmin), "1", nil, 200)
	for i := range 12 {
		p, err := db.CreatePatient(ctx, booking.Patient{Name: "Student", Phone: fmt.Sprintf("+3360000%04d", i)})
		if err != nil {
			t.Fatal(err)
		}
		do("POST", fmt.Sprintf("/api/rounds/%d/registration", round.ID), string(auth.RolePatient), fmt.Sprint(p.ID), nil, 201)
	}
	clock.Store(t0.Add(time.Hour).UnixNano())
	drawn := do("POST", fmt.Sprintf("/api/admin/rounds/%d/draw", round.ID), string(auth.RoleAdmin), "1", nil, 200)

	verify := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(ctx, append([]string{"verify-draw"}, args...), &out, &errb)
		return out.String() + errb.String(), err
	}
	if out, err := verify("--url", srv.URL, "--round", fmt.Sprint(round.ID), "--commitment", round.SeedCommitment); err != nil || !strings.Contains(out, "the draw matches") {
		t.Fatalf("verify-draw --url of the real draw: %v %s", err, out)
	}
	file := filepath.Join(t.TempDir(), "draw.json")
	if err := os.WriteFile(file, drawn, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := verify("--file", file); err != nil {
		t.Fatalf("verify-draw --file of the real draw: %v %s", err, out)
	}

	var d booking.Draw
	if err := json.Unmarshal(drawn, &d); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*booking.Draw){
		"a changed list": func(d *booking.Draw) { d.Order[3], d.Order[7] = d.Order[7], d.Order[3] },
		"an id added":    func(d *booking.Draw) { d.Order = append(d.Order, 999) },
		"a changed seed": func(d *booking.Draw) {
			seed := strings.Repeat("0", 62) + "01"
			d.Seed = seed
		},
	} {
		c := d
		c.Order = append([]int64(nil), d.Order...)
		change(&c)
		b, _ := json.Marshal(c)
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := verify("--file", file)
		var st *exitStatus
		if !errors.As(err, &st) || st.code != 1 || !strings.Contains(err.Error(), "does NOT match") {
			t.Errorf("%s: verify-draw answered %v %s, want exit 1", name, err, out)
		}
	}
	// A seed consistent with a commitment, but not the one recorded before.
	other := bytes.Repeat([]byte{9}, booking.SeedSize)
	c := d
	c.Seed, c.Commitment = fmt.Sprintf("%x", other), booking.Commit(other)
	c.Order = booking.DrawOrder(other, d.Order)
	b, _ := json.Marshal(c)
	os.WriteFile(file, b, 0o600)
	if _, err := verify("--file", file); err != nil {
		t.Fatalf("a self-consistent draw refused without a recorded commitment: %v", err)
	}
	if _, err := verify("--file", file, "--commitment", round.SeedCommitment); err == nil {
		t.Fatal("a replaced seed accepted against the commitment recorded before the draw")
	}
	if _, err := verify(); err == nil {
		t.Fatal("verify-draw without --file or --url accepted")
	}
	if _, err := verify("--url", srv.URL); err == nil {
		t.Fatal("verify-draw --url without --round accepted")
	}
}
