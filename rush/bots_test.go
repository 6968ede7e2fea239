package rush

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// startRoomServer is startServer with the waiting rooms on, as `slotd
// serve` runs them: admissions signed with the server's derived key,
// admitted every booking.AdmitTick.
func startRoomServer(t *testing.T) (string, *auth.Signer) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	path := filepath.Join(t.TempDir(), "slotd.db")
	if err := sqlite.Migrate(ctx, path); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	signer, err := auth.NewSigner(bytes.Repeat([]byte("s"), auth.MinSecretLen))
	if err != nil {
		t.Fatal(err)
	}
	svc := service.NewService(store, service.Options{WaitingRoom: service.WaitingRoomOptions{
		Tokens: booking.NewAdmissionTokens(signer.DeriveKey(booking.AdmissionKeyPurpose))}})
	done := make(chan struct{})
	go func() { defer close(done); svc.RunWaitingRooms(ctx) }()
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: svc, Store: store, Signer: signer,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(func() {
		srv.Close()
		stop()
		<-done
		store.Close()
	})
	return srv.URL, signer
}

// botsRun runs a small bots scenario over HTTP with the room on or off.
func botsRun(t *testing.T, room bool) *Report {
	t.Helper()
	url, signer := startRoomServer(t)
	cfg, err := Preset(ScenarioBots)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cfg.Target, cfg.Signer, cfg.Log = url, signer, &log
	cfg.Patients, cfg.Bots, cfg.Capacity = 150, 10, 20
	cfg.WaitingRoom = room
	cfg.PollEvery = 300 * time.Millisecond
	cfg.Duration = 40 * time.Second
	// People join in the first half of the wait; the rest leaves a slow
	// (-race, a busy machine) server time to answer before the opening.
	cfg.OpenIn = 6 * time.Second
	cfg.SetupWorkers = 8
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	var sum bytes.Buffer
	rep.PrintSummary(&sum)
	t.Log("\n" + sum.String())
	if !rep.Passed() {
		t.Fatalf("verification failed")
	}
	fr := rep.Fairness
	if fr == nil || rep.Sold != 20 || fr.PeopleBooked+fr.BotsBooked != 20 {
		t.Fatalf("room %v: sold %d, fairness %+v: want the 20 places sold, each to one contender", room, rep.Sold, fr)
	}
	return rep
}

// TestBotsScenario: with the waiting room the bots' share of the places
// is what a fair draw gives ten of 160 contenders (their luck, the chance
// a draw gives them at least as many, is not below 0.001), while without
// it the same bots beat the draw (luck below 0.001) — so the assertion
// tells the two apart and cannot pass vacuously. With the room nobody gets
// a 503 and the server's report agrees that every place went to its queue.
func TestBotsScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("two rushes of a few seconds each")
	}
	off := botsRun(t, false).Fairness
	on := botsRun(t, true)
	fr := on.Fairness
	switch {
	case off.BotsLuck >= 0.001 || off.BotsRate <= off.PeopleRate:
		t.Fatalf("without the room the bots did not beat the draw (bots %.0f%%, people %.0f%%, luck %.3g): the scenario measures nothing",
			100*off.BotsRate, 100*off.PeopleRate, off.BotsLuck)
	case fr.JoinedLate != 0:
		t.Fatalf("%d joined the queue after the opening, behind the drawn pre-queue: the draw is not everyone's (raise OpenIn)", fr.JoinedLate)
	case fr.BotAttempts < int64(fr.BotsBooked):
		t.Fatalf("the bots sent %d bookings for %d places", fr.BotAttempts, fr.BotsBooked)
	case fr.BotsLuck < 0.001:
		t.Fatalf("with the room the bots won %d of %d (people %d of %d): a fair draw gives that with chance %.3g",
			fr.BotsBooked, fr.Bots, fr.PeopleBooked, fr.People, fr.BotsLuck)
	case fr.PeopleBooked == 0:
		t.Fatalf("with the room no person got a place")
	case fr.Unavailable != 0:
		t.Fatalf("with the room %d answers were 503", fr.Unavailable)
	case fr.Server == nil || fr.Server.ServedFromQueue != 20 || fr.Server.Admitted < 20:
		t.Fatalf("the server's report: %+v, want 20 places served from the queue", fr.Server)
	}
}
