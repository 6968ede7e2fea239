package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// exitStatus is an error that carries the process's exit status: a command
// whose outcome is a verdict (reconcile: breaches found) exits 1 after it
// has printed its report, keeping 2 for failures to run at all.
//
// reconcile exits 0 when nothing needs doing, 1 when an invariant is
// broken, 3 when every invariant holds but work is pending (refunds to pay,
// stale holds to expire, payment conflicts to settle).
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string { return e.msg }

// ExitPending is reconcile's status when only pending actions were found.
const ExitPending = 3

func runReconcile(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reconcile", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	repair := fs.Bool("repair", false, "set each mismatched slot counter from its appointment rows (when they fit its capacity) and report the changes")
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
	// A deliberate run from the shell may take as long as the scan takes.
	svc := service.NewService(store, service.Options{Timeout: time.Hour})
	rep, err := svc.Reconcile(ctx, *repair)
	if err != nil {
		return err
	}
	printReconciliation(stdout, rep, *repair)
	broken := rep.Violations() > 0
	if *repair {
		// Every breach the repair fixed no longer counts.
		broken = remaining(rep) > 0
	}
	switch {
	case broken:
		return &exitStatus{code: 1, msg: "reconcile: invariants are broken (see the report)"}
	case rep.Pending() > 0:
		return &exitStatus{code: ExitPending, msg: "reconcile: every invariant holds; actions are pending (see the report)"}
	}
	return nil
}

// remaining counts the breaches a repair did not fix: duplicate actives,
// round quota mismatches, lost refunds, broken series and the counter mismatches it left
// alone (rows beyond capacity).
func remaining(r booking.Reconciliation) int {
	fixed := map[int64]bool{}
	for _, c := range r.Repaired {
		fixed[c.SlotID] = true
	}
	n := len(r.DuplicateActives) + len(r.RoundQuotaMismatches) + len(r.UnrefundedCancels) + len(r.BrokenSeries)
	for _, m := range r.CounterMismatches {
		if !fixed[m.SlotID] {
			n++
		}
	}
	return n
}

// printReconciliation writes the report for a person: one heading per
// finding with its rows, and a verdict line last.
func printReconciliation(w io.Writer, r booking.Reconciliation, repair bool) {
	fmt.Fprintf(w, "reconciliation at %s\n", r.CheckedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "\ncounter mismatches: %d\n", len(r.CounterMismatches))
	for _, m := range r.CounterMismatches {
		note := ""
		if m.Active > m.Capacity {
			note = "  (more active appointments than places: not repairable by counting)"
		}
		fmt.Fprintf(w, "  slot %d: booked_count %d, active appointments %d, capacity %d%s\n",
			m.SlotID, m.BookedCount, m.Active, m.Capacity, note)
	}
	fmt.Fprintf(w, "\nduplicate active appointments: %d\n", len(r.DuplicateActives))
	for _, d := range r.DuplicateActives {
		fmt.Fprintf(w, "  slot %d, patient %d: %d active appointments\n", d.SlotID, d.PatientID, d.Count)
	}
	fmt.Fprintf(w, "\nround quota mismatches: %d\n", len(r.RoundQuotaMismatches))
	for _, q := range r.RoundQuotaMismatches {
		fmt.Fprintf(w, "  round %d, patient %d: quota counts %d, active appointments %d\n", q.RoundID, q.PatientID, q.Used, q.Active)
	}
	fmt.Fprintf(w, "\npaid appointments cancelled without a refund: %d\n", len(r.UnrefundedCancels))
	for _, a := range r.UnrefundedCancels {
		fmt.Fprintf(w, "  appointment %d in slot %d\n", a.ID, a.SlotID)
	}
	fmt.Fprintf(w, "\ndose series not whole: %d\n", len(r.BrokenSeries))
	for _, id := range r.BrokenSeries {
		fmt.Fprintf(w, "  series booking %d\n", id)
	}
	fmt.Fprintf(w, "\nstale holds (past their deadline, not yet expired): %d\n", len(r.StaleHolds))
	for _, a := range r.StaleHolds {
		deadline := "?"
		if a.HoldExpiresAt != nil {
			deadline = a.HoldExpiresAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  appointment %d in slot %d: hold ended %s\n", a.ID, a.SlotID, deadline)
	}
	fmt.Fprintf(w, "\npayments needing a refund: %d\n", len(r.RefundsNeeded))
	for _, p := range r.RefundsNeeded {
		fmt.Fprintf(w, "  trade %s for appointment %d: %d cents, %s (received %s)\n",
			p.TradeNo, p.AppointmentID, p.AmountCents, p.Reason, p.ReceivedAt.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(w, "\npayment conflicts (a recorded trade number sent for another payment): %d\n", len(r.PaymentConflicts))
	for _, c := range r.PaymentConflicts {
		fmt.Fprintf(w, "  trade %s for appointment %d: %d cents (received %s)\n",
			c.TradeNo, c.AppointmentID, c.AmountCents, c.ReceivedAt.UTC().Format(time.RFC3339))
	}
	if repair {
		fmt.Fprintf(w, "\nrepaired: %d\n", len(r.Repaired))
		for _, c := range r.Repaired {
			fmt.Fprintf(w, "  slot %d: booked_count %d -> %d\n", c.SlotID, c.From, c.To)
		}
	}
	fmt.Fprintf(w, "\nviolations: %d, pending actions: %d\n", r.Violations(), r.Pending())
	switch {
	case r.Clean():
		fmt.Fprintln(w, "clean: every invariant holds and nothing is pending")
	case repair && remaining(r) > 0:
		fmt.Fprintf(w, "NOT CLEAN: %d breaches remain after the repair\n", remaining(r))
	case !repair && r.Violations() > 0:
		fmt.Fprintln(w, "NOT CLEAN: run with --repair to set the counters from the rows")
	case repair && r.Violations() > 0 && r.Pending() == 0:
		fmt.Fprintln(w, "repaired: every invariant holds again")
	default:
		fmt.Fprintln(w, "PENDING: every invariant holds; settle the refunds (POST /api/admin/payments/{tradeNo}/refund), payment conflicts and holds above")
	}
}
