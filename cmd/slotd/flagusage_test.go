package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestFlagUsagesHaveNoBackquotes: the flag package reads a backquoted word
// in a usage as the flag's argument name (serve --help once printed
// "-bench-endpoints slotd rush --scenario echo"), so no usage of any
// subcommand's flags may hold a backquote.
func TestFlagUsagesHaveNoBackquotes(t *testing.T) {
	var sets []*flag.FlagSet
	parsing = func(fs *flag.FlagSet) { sets = append(sets, fs) }
	t.Cleanup(func() { parsing = nil })
	for _, c := range commands {
		if c.name == "version" {
			continue // takes no flags
		}
		before := len(sets)
		var out bytes.Buffer
		if err := run(context.Background(), []string{c.name, "-h"}, &out, &out); err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s -h: %v", c.name, err)
		}
		if len(sets) == before {
			t.Errorf("%s -h parsed no flag set", c.name)
		}
	}
	n := 0
	for _, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			n++
			if strings.Contains(f.Usage, "`") {
				name, _ := flag.UnquoteUsage(f)
				t.Errorf("%s -%s: a backquote in its usage makes %q its argument name: %q", fs.Name(), f.Name, name, f.Usage)
			}
		})
	}
	if n == 0 {
		t.Fatal("no flags seen")
	}

	var out bytes.Buffer
	_ = run(context.Background(), []string{"serve", "-h"}, &out, &out)
	if !strings.Contains(out.String(), "-bench-endpoints\n") {
		t.Fatalf("serve -h does not show -bench-endpoints as a plain switch:\n%s", out.String())
	}
}
