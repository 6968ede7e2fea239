package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// maxDrawBytes bounds the draw read from a file or a server: 10 MB holds
// the ids of several hundred thousand registrants.
const maxDrawBytes = 10 << 20

// runVerifyDraw checks a lottery round's published draw (docs/clinic.md,
// lottery rounds): the seed against its commitment, and the order against
// the one the algorithm gives from the seed and the registration ids.
// Exit 0 when they match, 1 when they do not.
func runVerifyDraw(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify-draw", flag.ContinueOnError)
	file := fs.String("file", "", "the draw as GET /api/rounds/{id}/draw answers it (JSON), from a file; - reads stdin")
	url := fs.String("url", "", "a slotd server to fetch the draw from (with --round), e.g. https://rooms.example.org")
	round := fs.Int64("round", 0, "the round whose draw --url fetches")
	commitment := fs.String("commitment", "", "the seed commitment you recorded before the draw (GET /api/rounds/{id} showed it); checked too when given")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for --url")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var body []byte
	var err error
	switch {
	case (*file == "") == (*url == ""):
		return errors.New("give either --file or --url with --round")
	case *file == "-":
		body, err = io.ReadAll(io.LimitReader(os.Stdin, maxDrawBytes))
	case *file != "":
		body, err = readLimited(*file)
	case *round < 1:
		return errors.New("--url needs --round, the round's id")
	default:
		body, err = fetchDraw(ctx, *url, *round, *timeout)
	}
	if err != nil {
		return err
	}
	var d booking.Draw
	if err := json.Unmarshal(body, &d); err != nil {
		return fmt.Errorf("the draw is not the JSON of GET /api/rounds/{id}/draw: %v", err)
	}
	if err := booking.VerifyDraw(d, *commitment); err != nil {
		return &exitStatus{code: 1, msg: "the draw does NOT match: " + err.Error()}
	}
	fmt.Fprintf(stdout, "the draw matches: SHA-256(seed) = %s, and the %d registration ids are in the order algorithm version %d gives\n",
		d.Commitment, len(d.Order), d.Version)
	return nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxDrawBytes))
}

// fetchDraw GETs base/api/rounds/{round}/draw.
func fetchDraw(ctx context.Context, base string, round int64, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := fmt.Sprintf("%s/api/rounds/%d/draw", strings.TrimRight(base, "/"), round)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDrawBytes))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s: %s", u, res.Status, strings.TrimSpace(string(body)))
	}
	return body, nil
}
