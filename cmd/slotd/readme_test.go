package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/internal/testkit"
)

// TestReadmeFirstLook runs the README's "A first look" API block as a
// reader would: `serve --demo` on a free port, its printed export lines
// pasted into a shell, then the block as written. It books tomorrow's
// first slot for the demo patient and reads it back.
func TestReadmeFirstLook(t *testing.T) {
	needCurl(t)
	block := shellBlocks(t, "README.md", "A first look")[0]

	ctx, stop := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--drain=0", "--addr", "127.0.0.1:0", "--quiet-access-log",
			"--db", "sqlite:" + filepath.Join(t.TempDir(), "demo.db")}, &out, &errb)
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	waitURL(t, &out, &errb, done)
	testkit.Eventually(t, "the demo's export lines", 10*time.Second, func() bool { return strings.Contains(out.String(), "export PATIENT_TOKEN=") })
	var exports []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "export ") {
			exports = append(exports, l)
		}
	}
	if len(exports) != 3 {
		t.Fatalf("the demo printed %d export lines, want B, ADMIN_TOKEN and PATIENT_TOKEN:\n%s", len(exports), out.String())
	}
	sh := exec.Command("bash", "-euo", "pipefail", "-c", strings.Join(exports, "\n")+"\n"+block)
	got, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's block: %v\n%s", err, got)
	}
	answer := string(got)
	booked := regexp.MustCompile(`"status":"(BOOKED|HELD)"`).FindAllString(answer, -1)
	if len(booked) < 2 || strings.Contains(answer, `"type":"/problems/`) || !strings.Contains(answer, "slotd_build_info") {
		t.Fatalf("the README's block did not book and read back, or a call failed:\n%.3000s", answer)
	}
}

// needCurl skips a test whose documented commands use curl where it is
// missing, but fails under CI=true, where .ci/run installs it.
func needCurl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the documented commands use curl, which .ci/run installs: it is missing")
		}
		t.Skip("curl is not installed: the documented commands use it (apt-get install curl)")
	}
}

// shellBlocks are the ```sh blocks of a document's section ("## title",
// up to the next "## "), read from the repository's root.
func shellBlocks(t *testing.T, doc, section string) []string {
	t.Helper()
	text := readFile(t, filepath.Join("..", "..", doc))
	start := strings.Index(text, "## "+section+"\n")
	if start < 0 {
		t.Fatalf("%s has no section %q", doc, section)
	}
	text = text[start+1:]
	if end := strings.Index(text, "\n## "); end >= 0 {
		text = text[:end]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) == 0 {
		t.Fatalf("%s: no shell block under %q", doc, section)
	}
	return blocks
}
