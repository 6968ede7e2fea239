package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"
)

// runHealthcheck asks a running slotd whether it is up: the container
// image's HEALTHCHECK (a distroless image has no curl). Exit 0 on 200.
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:8080/healthz", "the probe to GET")
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return &exitStatus{code: 1, msg: err.Error()}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return &exitStatus{code: 1, msg: fmt.Sprintf("%s answered %s", *url, res.Status)}
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}
