package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slotd/slotd/internal/testkit"
)

// TestGettingStarted follows docs/getting-started.md's "A real
// installation" as written, block by block, in a fresh directory standing
// for the machine's root: init, the CSV import, serve, and the first
// booking. The only changes are where: /etc and /var/lib under the test's
// directory, 127.0.0.1:8080 a free port, the slot id the reader picks from
// the listed slots, and `slotd` this test's binary.
func TestGettingStarted(t *testing.T) {
	needCurl(t)
	blocks := shellBlocks(t, "docs/getting-started.md", "A real installation")
	if len(blocks) != 4 {
		t.Fatalf("%d shell blocks in \"A real installation\", want 4 (init, import, serve, book)", len(blocks))
	}

	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	mustNil(t, os.MkdirAll(bin, 0o755))
	// `slotd` is this test binary, which runs main under SLOTD_TEST_RUN_MAIN.
	mustNil(t, os.WriteFile(filepath.Join(bin, "slotd"), []byte("#!/bin/sh\nSLOTD_TEST_RUN_MAIN=1 exec "+os.Args[0]+" \"$@\"\n"), 0o755))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	mustNil(t, err)
	addr := ln.Addr().String()
	ln.Close()
	where := strings.NewReplacer("/etc/slotd", root+"/etc/slotd", "/var/lib/slotd", root+"/var/lib/slotd", "127.0.0.1:8080", addr)
	mustNil(t, os.MkdirAll(filepath.Join(root, "var", "lib", "slotd"), 0o755))
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "SLOTD_ADDR="+addr)
	shell := func(script string) *exec.Cmd {
		c := exec.Command("bash", "-euo", "pipefail", "-c", script)
		c.Env, c.Dir = env, root
		return c
	}
	runBlock := func(name, script string) string {
		t.Helper()
		out, err := shell(script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s block: %v\n%s\n%s", name, err, script, out)
		}
		return string(out)
	}

	out := runBlock("init", where.Replace(blocks[0]))
	if !strings.Contains(out, "admin password (shown once, not stored): ") {
		t.Fatalf("init printed no admin password:\n%s", out)
	}
	if out := runBlock("import", where.Replace(blocks[1])); strings.Count(out, "created") < 4 {
		t.Fatalf("the import created less than the four files' rows:\n%s", out)
	}

	serveScript := where.Replace(blocks[2])
	serve := shell(serveScript)
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the shell and its slotd, stopped together
	logs := &syncBuffer{}
	serve.Stdout, serve.Stderr = logs, logs
	mustNil(t, serve.Start())
	defer func() { _ = syscall.Kill(-serve.Process.Pid, syscall.SIGKILL); _ = serve.Wait() }()
	// The ready answer's own body is checked: a second request could meet
	// a database ping slowed past its timeout on a loaded machine.
	var ready []byte
	if !testkit.Poll(60*time.Second, func() bool {
		r, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		defer r.Body.Close()
		ready, _ = io.ReadAll(r.Body)
		return r.StatusCode == http.StatusOK
	}) {
		t.Fatalf("serve is not ready after a minute:\n%s\n%s", serveScript, logs.String())
	}
	if !strings.Contains(string(ready), `"channel":"email"`) {
		t.Errorf("/readyz does not name the e-mail channel the page configures: %s", ready)
	}

	// The booking block: its first command lists the slots, from which the
	// reader takes an open one's id for SLOT_ID.
	book := where.Replace(blocks[3])
	i := strings.Index(book, "curl -s -X POST")
	listed := runBlock("list slots", book[:i])
	var day struct {
		Slots []struct {
			ID     int64
			Status string
		}
	}
	if err := json.NewDecoder(strings.NewReader(listed)).Decode(&day); err != nil {
		t.Fatalf("the slot list: %v\n%s", err, listed)
	}
	var slot int64
	for _, s := range day.Slots {
		if s.Status == "OPEN" && slot == 0 {
			slot = s.ID
		}
	}
	if slot == 0 {
		t.Fatalf("no open slot tomorrow:\n%s\n%s", listed, logs.String())
	}
	booked := runBlock("book", strings.ReplaceAll(book, "SLOT_ID", fmt.Sprint(slot)))
	var appt struct {
		ID, SlotID, PatientID int64
		Status                string
	}
	dec := json.NewDecoder(strings.NewReader(booked))
	err = dec.Decode(&day) // the list again
	if err == nil {
		err = dec.Decode(&appt)
	}
	if err != nil || appt.Status != "BOOKED" || appt.SlotID != slot || appt.PatientID != 1 {
		t.Fatalf("the first booking: %+v (%v)\n%s\n%s", appt, err, booked, logs.String())
	}
}
