package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/problem"
)

// requestID returns the id the middleware gave the request.
func requestID(ctx context.Context) string { return edge.RequestID(ctx) }

// middleware wraps every request: request id, body limit, panic recovery
// and one log line. The log line deliberately has no headers, query, body or
// token: those may carry credentials or personal data (phone, e-mail).
func (s *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r = edge.WithRequestID(w, r) // kept when the edge gave one
		id := requestID(r.Context())
		if r.Body != nil {
			limit := s.maxBody
			if r.URL.Path == importPath || r.URL.Path == cohortsImportPath {
				limit = csvdata.MaxImportBytes
			}
			if isPhotoUpload(r) {
				limit = booking.MaxPhotoBytes
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		sw := &statusWriter{ResponseWriter: w}

		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.LogAttrs(r.Context(), slog.LevelError, "panic",
					slog.String("requestId", id),
					slog.String("route", r.Pattern),
					slog.String("panic", fmt.Sprint(v)),
					slog.String("stack", string(debug.Stack())))
				if !sw.wrote {
					writeProblem(sw, booking.Errorf(booking.CodeInternal, "internal error"), problem.Status(booking.CodeInternal))
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			took := time.Since(start)
			s.metrics.Request(route, sw.status, took)
			level := slog.LevelInfo
			if sw.status >= 500 {
				level = slog.LevelError
			} else if s.quietLog {
				return
			}
			s.log.LogAttrs(r.Context(), level, "http",
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", sw.status),
				slog.Duration("duration", took),
				slog.String("client", edge.ClientAddr(r)),
				slog.String("requestId", id))
		}()
		next.ServeHTTP(sw, r)
	})
}

// statusWriter remembers the status written, for the log and for knowing
// whether a panic can still be answered.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// authenticate returns the verified caller of r, once the Service has
// admitted its token (not signed out, revoked or of a departed patient),
// on every request, whether the signer remembered the token or not. Why a
// token was refused is not told to the client (it would help forgers).
func (s *server) authenticate(r *http.Request) (auth.Claims, error) {
	c, err := s.signer.Caller(r)
	if err != nil {
		return c, err
	}
	if err := s.svc.Admit(r.Context(), string(c.Role), c.Subject, c.Issued); err != nil {
		return auth.Claims{}, err
	}
	return c, nil
}
