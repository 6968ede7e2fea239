package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// buildInfo is what the binary knows of its own build: the module version
// (a tag when built with `go install …@vX`, "(devel)" from a checkout) and
// the VCS revision and time that `go build` stamps from a git checkout.
type buildInfo struct {
	Version, Revision, Time, GoVersion string
	Modified                           bool
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: "(devel)", Revision: "unknown", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func (b buildInfo) String() string {
	s := fmt.Sprintf("slotd %s (revision %s", b.Version, b.Revision)
	if b.Modified {
		s += ", modified"
	}
	if b.Time != "" {
		s += ", " + b.Time
	}
	return s + ", " + b.GoVersion + ")"
}

func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("version takes no arguments")
	}
	_, err := fmt.Fprintln(stdout, readBuildInfo())
	return err
}
