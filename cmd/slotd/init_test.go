package main

import (
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slotd/slotd/sqlite"
)

// answerInit makes init's standard input a terminal that answers input.
func answerInit(t *testing.T, input string) {
	t.Helper()
	oldIn, oldTerm := stdin, stdinIsTerminal
	t.Cleanup(func() { stdin, stdinIsTerminal = oldIn, oldTerm })
	stdin = strings.NewReader(input)
	stdinIsTerminal = func() bool { return true }
}

// TestInitAsksForTheClinic: on a terminal, init asks for each clinic
// setting not given as a flag, showing its default, which a bare Enter
// keeps; the answers are kept in the database for serve. A bad answer
// stops it, naming the flag, before anything is written.
func TestInitAsksForTheClinic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "slotd.db")

	answerInit(t, "Phòng khám Hà Nội\nMars/Olympus\n\n\n\n")
	if out, err := cli(ctx, "init", "--secrets", filepath.Join(dir, "bad"), "--db", "sqlite:"+path); err == nil || !strings.Contains(err.Error(), "--clinic-timezone") {
		t.Fatalf("init with an unknown time zone: %v\n%s", err, out)
	}

	// The name and time zone answered, the language given as a flag (so
	// not asked), currency and region left at their defaults by Enter.
	answerInit(t, "Phòng khám Hà Nội\nAsia/Ho_Chi_Minh\n\n\n")
	out, err := cli(ctx, "init", "--secrets", filepath.Join(dir, "secrets"), "--db", "sqlite:"+path, "--default-language", "vi")
	if err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	if asked := strings.Count(out, "]: "); asked != 4 || strings.Contains(out, serveFlag(t, "default-language").Usage) {
		t.Fatalf("init asked %d questions, want 4, not the language given as a flag:\n%s", asked, out)
	}
	for _, n := range []string{"clinic-name", "clinic-timezone", "currency", "phone-region"} {
		f := serveFlag(t, n)
		if !strings.Contains(out, f.Usage+" ["+f.DefValue+"]: ") {
			t.Errorf("no question for --%s showing its default %q:\n%s", n, f.DefValue, out)
		}
	}
	st, err := sqlite.Open(ctx, path)
	mustNil(t, err)
	defer st.Close()
	kept, err := st.ClinicSettings(ctx)
	mustNil(t, err)
	want := map[string]string{
		"clinic-name": "Phòng khám Hà Nội", "clinic-timezone": "Asia/Ho_Chi_Minh", "default-language": "vi",
		"currency": serveFlag(t, "currency").DefValue, "phone-region": serveFlag(t, "phone-region").DefValue,
	}
	for k, v := range want {
		if kept[k] != v {
			t.Errorf("kept %s = %q, want %q (all: %v)", k, kept[k], v, kept)
		}
	}
}

// serveFlag is serve's flag n, which init shares for the clinic settings.
func serveFlag(t *testing.T, n string) *flag.Flag {
	t.Helper()
	var f serveFlags
	fl := newServeFlagSet(&f).Lookup(n)
	if fl == nil {
		t.Fatalf("serve has no --%s", n)
	}
	return fl
}
