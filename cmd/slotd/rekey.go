package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/slotd/slotd/pii"
)

// runRekey re-seals every patient sealed with an older data key with the
// newest, a batch per transaction: interrupted, it resumes where it
// stopped when run again (the rows left are those still on an older key).
func runRekey(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rekey", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	batch := fs.Int("batch", 500, "patients re-sealed per transaction (1–10000)")
	maxBatches := fs.Int("max-batches", 0, "stop after this many batches (0: until done); run again to resume")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *batch < 1 || *batch > 10000 || *maxBatches < 0 {
		return errors.New("--batch 1 to 10000, --max-batches ≥ 0")
	}
	s, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	total := 0
	for b := 0; *maxBatches == 0 || b < *maxBatches; b++ {
		n, err := s.Rekey(ctx, *batch)
		if err != nil {
			return fmt.Errorf("rekey: after %d patients: %w", total, err)
		}
		if n == 0 {
			break
		}
		total += n
	}
	counts, err := s.SealedWith(ctx)
	if err != nil {
		return err
	}
	ids := make([]int, 0, len(counts))
	for id := range counts {
		ids = append(ids, int(id))
	}
	slices.Sort(ids)
	fmt.Fprintf(stdout, "re-sealed %d patients;", total)
	for _, id := range ids {
		if id == 0 {
			fmt.Fprintf(stdout, " erased: %d", counts[0])
		} else {
			fmt.Fprintf(stdout, " key %d: %d", id, counts[uint16(id)])
		}
	}
	fmt.Fprintln(stdout)
	return nil
}

// runDataKeys prints a new key set for --data-keys, or with --add the
// given set with a new, higher-numbered key appended (the rotation step;
// then `slotd rekey`).
func runDataKeys(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("data-keys", flag.ContinueOnError)
	var db dbFlags
	fs.StringVar(&db.dataKeys, "data-keys", "", "the current keys, to which --add appends one")
	add := fs.Bool("add", false, "append a new data key to --data-keys (SLOTD_DATA_KEYS)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !*add {
		fmt.Fprintln(stdout, pii.Generate())
		return nil
	}
	k, err := pii.Parse(db.dataKeys)
	if err != nil {
		return fmt.Errorf("--data-keys: %w", err)
	}
	fmt.Fprintln(stdout, pii.AddKey(db.dataKeys, k.Newest()))
	return nil
}
