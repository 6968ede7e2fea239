package chaos

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// server is the `slotd serve` child, always on the same address so that
// the clients find each restart where the last one was.
type server struct {
	cfg    Config
	secret string
	addr   string
	url    string
	log    io.Writer

	mu    sync.Mutex
	cmd   *exec.Cmd
	exit  chan struct{} // closed when the current child exits
	kills int
	// unexpected lists the exits we did not cause.
	unexpected []string
	killing    bool
}

func newServer(cfg Config, secret string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	s := &server{cfg: cfg, secret: secret, addr: addr, url: "http://" + addr, log: io.Discard}
	if cfg.ServerLog != "" {
		f, err := os.OpenFile(cfg.ServerLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		s.log = f
	}
	return s, nil
}

// start starts a child and waits until it is ready.
func (s *server) start(ctx context.Context) error {
	cmd := exec.Command(s.cfg.Binary, "serve", "--addr", s.addr, "--db", s.cfg.DB,
		"--db-timeout", s.cfg.DBTimeout.String(), "--booking-rate", "1000000", "--quiet-access-log",
		"--public-rate", "0", "--drain", "0", // a load from one address; SIGTERM stops at once
		"--notifier", "log", "--allow-undelivered") // nobody signs in with a code
	cmd.Env = append(os.Environ(), "SLOTD_AUTH_SECRET="+s.secret, "SLOTD_DATA_KEYS="+s.cfg.DataKeys)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.exit = cmd, exit
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		if !s.killing && s.cmd == cmd {
			s.unexpected = append(s.unexpected, fmt.Sprintf("pid %d exited on its own: %v", cmd.Process.Pid, err))
		}
		s.mu.Unlock()
		close(exit)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exit:
			return fmt.Errorf("slotd serve exited at start (see %s)", s.cfg.ServerLog)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get(s.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("slotd serve was not ready within 60s (see %s)", s.cfg.ServerLog)
}

// kill9AndRestart kills the child with SIGKILL, waits for it to be gone,
// and starts the next one; an exit we did not cause is restarted too.
func (s *server) kill9AndRestart(ctx context.Context) error {
	s.mu.Lock()
	cmd, exit := s.cmd, s.exit
	s.killing = true
	s.mu.Unlock()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exit
	s.mu.Lock()
	s.killing = false
	s.kills++
	s.mu.Unlock()
	return s.start(ctx)
}

// ensureUp restarts a child that exited on its own, so that the checks can
// still ask the service.
func (s *server) ensureUp(ctx context.Context) error {
	s.mu.Lock()
	exit := s.exit
	s.mu.Unlock()
	select {
	case <-exit:
		return s.start(ctx)
	default:
		return nil
	}
}

// halt stops the child with SIGTERM (SIGKILL after 20 s) and waits for it,
// so that the database can be restored under it; start starts the next.
func (s *server) halt() {
	s.mu.Lock()
	cmd, exit := s.cmd, s.exit
	s.killing = true
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exit:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-exit
	}
	s.mu.Lock()
	s.killing = false
	s.mu.Unlock()
}

// close stops the child for good and closes its log.
func (s *server) close() {
	s.halt()
	s.mu.Lock()
	s.killing = true
	s.mu.Unlock()
	if c, ok := s.log.(io.Closer); ok {
		c.Close()
	}
}
