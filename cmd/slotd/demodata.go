package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
)

func runDemoData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo-data", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	o := demo.Options{Progress: stderr}
	fs.IntVar(&o.Doctors, "doctors", 20, "doctors to create (2000 reaches the source scale)")
	fs.IntVar(&o.Days, "days", 14, "days of slots from today")
	fs.IntVar(&o.Patients, "patients", 100, "patients to create")
	fs.StringVar(&o.TimeZone, "timezone", "Europe/Paris", "the doctors' IANA time zone")
	fs.StringVar(&o.Language, "lang", "en", "the language of the departments' and doctors' names: en, zh-Hans, vi or fr")
	fs.IntVar(&o.Sites, "sites", 1, "sites to spread the doctors over, each with its copy of the departments")
	fs.BoolVar(&o.Services, "services", false, "create one service per department kind, offered by up to 500 of its doctors across the sites")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	// An empty database it fills is the demo's, which `serve --demo` may
	// use; one that held data before stays unmarked (booking.DecideDemo).
	if _, err := store.ClaimDemo(ctx); err != nil && booking.ErrorCode(err) != booking.CodeConflict {
		return err
	}
	start := time.Now()
	sum, err := demo.Load(ctx, store, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created %d departments, %d doctors, %d schedules, %d slots, %d patients in %s\n",
		sum.Departments, sum.Doctors, sum.Schedules, sum.Slots, sum.Patients, time.Since(start).Round(time.Millisecond))
	if sum.Sites > 0 || sum.Services > 0 {
		fmt.Fprintf(stdout, "created %d sites, %d services\n", sum.Sites, sum.Services)
	}
	return nil
}
