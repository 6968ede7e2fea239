package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// readyTimeout bounds the readiness probe: a load balancer must learn
// quickly that the database is gone.
const readyTimeout = time.Second

// healthz says the process is up; it touches nothing else.
func (s *server) healthz(w http.ResponseWriter, _ *http.Request, _ auth.Claims) error {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz says the database answers, and 503 while the process drains
// before shutting down. Its detail names the delivery channels
// configured and whether each is working (its last attempt succeeded):
// a failing channel does not make the instance unready, since another
// instance would fail alike.
func (s *server) readyz(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if s.draining != nil && s.draining() {
		return &booking.Error{Code: booking.CodeUnavailable, Message: "shutting down", RetryAfter: time.Second}
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.LogAttrs(r.Context(), slog.LevelWarn, "readiness check failed", slog.Any("error", err))
		return &booking.Error{Code: booking.CodeUnavailable, Message: "the database is not reachable", Err: err}
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "channels": channelsJSON(s.deliveries)})
	return nil
}
