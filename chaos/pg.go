package chaos

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// pgControl stops, starts, freezes and thaws the PostgreSQL server of
// Config.PGData.
type pgControl struct{ cfg Config }

func (p pgControl) pgCtl(ctx context.Context, args ...string) error {
	return p.run(ctx, filepath.Join(p.cfg.PGBin, "pg_ctl"), append([]string{"-D", p.cfg.PGData}, args...)...)
}

// run runs a server tool (pg_ctl, pgbackrest) as the server's user.
func (p pgControl) run(ctx context.Context, name string, args ...string) error {
	argv := args
	if p.cfg.PGUser != "" {
		// The server refuses to run as root, and its files are its user's.
		argv = append([]string{"-u", p.cfg.PGUser, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = filepath.Dir(p.cfg.PGData) // the server's user may not read our cwd
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return nil
}

// stop stops the server at once: no shutdown checkpoint, the next start
// recovers from the WAL as after a crash.
func (p pgControl) stop(ctx context.Context) error {
	return p.pgCtl(ctx, "-m", "immediate", "-w", "-t", "30", "stop")
}

// start starts it again on the port of Config.DB and waits until it accepts
// connections.
func (p pgControl) start(ctx context.Context) error {
	u, err := url.Parse(p.cfg.DB)
	if err != nil || u.Port() == "" {
		return fmt.Errorf("no port in --db")
	}
	return p.pgCtl(ctx, "-l", p.cfg.PGLog, "-o", "-p "+u.Port(), "-w", "-t", "60", "start")
}

func (p pgControl) freeze(context.Context) error { return p.signal(syscall.SIGSTOP) }
func (p pgControl) thaw(context.Context) error   { return p.signal(syscall.SIGCONT) }

// signal sends sig to the postmaster and every process it started.
func (p pgControl) signal(sig syscall.Signal) error {
	pids, err := p.processes()
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil {
			return fmt.Errorf("signal %v to %d: %w", sig, pid, err)
		}
	}
	return nil
}

// processes returns the postmaster (first line of postmaster.pid) and its
// children (from /proc).
func (p pgControl) processes() ([]int, error) {
	f, err := os.Open(filepath.Join(p.cfg.PGData, "postmaster.pid"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	master, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
	if err != nil {
		return nil, fmt.Errorf("postmaster.pid: %v", err)
	}
	pids := []int{master}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may contain spaces, so cut at the last ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(master) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
