package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// apiPaths are the paths the JSON API keeps; the web UI serves the rest.
var apiPaths = []string{"/api/", "/healthz", "/readyz", "/openapi.json", "/problems/", "/metrics", "/bench/"}

// withWeb mounts the web UI at "/" beside the API handler api.
func withWeb(mux *http.ServeMux, api, ui http.Handler) {
	for _, p := range apiPaths {
		mux.Handle(p, api)
	}
	mux.Handle("/", ui)
}

// observers fans the booking outcomes out to several observers (the
// Prometheus metrics and the web dashboard's recorder).
type observers []service.Observer

func (o observers) Booked(outcome string, gated bool, took time.Duration) {
	for _, x := range o {
		x.Booked(outcome, gated, took)
	}
}

func (o observers) Batch(size int, took time.Duration) {
	for _, x := range o {
		x.Batch(size, took)
	}
}

// Offers and Reminders go to the observers that count them.
func (o observers) Offers(outcome string, n int) {
	for _, x := range o {
		if w, ok := x.(service.WaitlistObserver); ok {
			w.Offers(outcome, n)
		}
	}
}

// LeftoverOffers goes to the observers that count leftover offers.
func (o observers) LeftoverOffers(outcome string, n int) {
	for _, x := range o {
		if l, ok := x.(service.StandbyObserver); ok {
			l.LeftoverOffers(outcome, n)
		}
	}
}

// CheckIn goes to the observers that count check-ins.
func (o observers) CheckIn(by, outcome string) {
	for _, x := range o {
		if c, ok := x.(service.CheckInObserver); ok {
			c.CheckIn(by, outcome)
		}
	}
}

// WalkIn goes to the observers that count walk-ins.
func (o observers) WalkIn(outcome string) {
	for _, x := range o {
		if c, ok := x.(service.WalkInObserver); ok {
			c.WalkIn(outcome)
		}
	}
}

// QueueAction goes to the observers that count the queue's actions.
func (o observers) QueueAction(action string) {
	for _, x := range o {
		if c, ok := x.(service.QueueObserver); ok {
			c.QueueAction(action)
		}
	}
}

// QueueWait goes to the observers that time the queue's waits.
func (o observers) QueueWait(d time.Duration) {
	for _, x := range o {
		if c, ok := x.(service.QueueObserver); ok {
			c.QueueWait(d)
		}
	}
}

// StaffSignIn goes to the observers that count staff sign-ins.
func (o observers) StaffSignIn(outcome string, lockout bool) {
	for _, x := range o {
		if s, ok := x.(service.StaffObserver); ok {
			s.StaffSignIn(outcome, lockout)
		}
	}
}

// Refunded goes to the observers that count refunds.
func (o observers) Refunded(reason, outcome string, amount int64) {
	for _, x := range o {
		if r, ok := x.(service.RefundObserver); ok {
			r.Refunded(reason, outcome, amount)
		}
	}
}

// PaymentNotified goes to the observers that count payment notifications.
func (o observers) PaymentNotified(provider, outcome string) {
	for _, x := range o {
		if p, ok := x.(service.PaymentObserver); ok {
			p.PaymentNotified(provider, outcome)
		}
	}
}

// Person goes to the observers that count the accounts' changes to their
// people.
func (o observers) Person(action, outcome string) {
	for _, x := range o {
		if p, ok := x.(service.PeopleObserver); ok {
			p.Person(action, outcome)
		}
	}
}

// StatementChecked goes to the observers that export a day's
// reconciliation against the payment provider.
func (o observers) StatementChecked(c booking.StatementCheck) {
	for _, x := range o {
		if s, ok := x.(service.StatementObserver); ok {
			s.StatementChecked(c)
		}
	}
}

// SeriesBooked, NextDoseBooked, GroupBooked and EligibilityRefused go to
// the observers that count a campaign's bookings.
func (o observers) SeriesBooked(outcome string, doses int) {
	for _, x := range o {
		if s, ok := x.(service.SeriesObserver); ok {
			s.SeriesBooked(outcome, doses)
		}
	}
}

func (o observers) NextDoseBooked(outcome string) {
	for _, x := range o {
		if s, ok := x.(service.SeriesObserver); ok {
			s.NextDoseBooked(outcome)
		}
	}
}

func (o observers) GroupBooked(outcome string, members int) {
	for _, x := range o {
		if s, ok := x.(service.SeriesObserver); ok {
			s.GroupBooked(outcome, members)
		}
	}
}

func (o observers) EligibilityRefused(reason string) {
	for _, x := range o {
		if s, ok := x.(service.SeriesObserver); ok {
			s.EligibilityRefused(reason)
		}
	}
}

// PersonalListing goes to the observers that count the listings for one
// person.
func (o observers) PersonalListing(withRules bool) {
	for _, x := range o {
		if s, ok := x.(service.ListingObserver); ok {
			s.PersonalListing(withRules)
		}
	}
}

// SeriesBatch goes to the observers that see the series' group commit.
func (o observers) SeriesBatch(size int, took time.Duration) {
	for _, x := range o {
		if s, ok := x.(service.SeriesBatchObserver); ok {
			s.SeriesBatch(size, took)
		}
	}
}

// LotteryRegistered and LotteryDrawn go to the observers that count lotteries.
func (o observers) LotteryRegistered(outcome string) {
	for _, x := range o {
		if l, ok := x.(service.LotteryObserver); ok {
			l.LotteryRegistered(outcome)
		}
	}
}

// OpeningJoined and OpeningAdmitted go to the observers that count the
// waiting rooms.
func (o observers) OpeningJoined(outcome string) {
	for _, x := range o {
		if w, ok := x.(service.WaitingRoomObserver); ok {
			w.OpeningJoined(outcome)
		}
	}
}

func (o observers) OpeningAdmitted(n int, rate float64) {
	for _, x := range o {
		if w, ok := x.(service.WaitingRoomObserver); ok {
			w.OpeningAdmitted(n, rate)
		}
	}
}

func (o observers) PlaceStreams(open int) {
	for _, x := range o {
		if w, ok := x.(service.PlaceStreamObserver); ok {
			w.PlaceStreams(open)
		}
	}
}

func (o observers) LotteryDrawn(trigger string, registrants int) {
	for _, x := range o {
		if l, ok := x.(service.LotteryObserver); ok {
			l.LotteryDrawn(trigger, registrants)
		}
	}
}

func (o observers) Reminders(outcome string, n int) {
	for _, x := range o {
		if w, ok := x.(service.WaitlistObserver); ok {
			w.Reminders(outcome, n)
		}
	}
}

// demoStaff creates the demo staff user "admin" with password "demo" when
// there is none, and says so.
func demoStaff(ctx context.Context, acc accounts.Store, stdout io.Writer) error {
	if _, err := acc.StaffPasswordHash(ctx, "admin"); err == nil {
		fmt.Fprintln(stdout, "staff sign-in: user admin (password unchanged)")
		return nil
	} else if booking.ErrorCode(err) != booking.CodeNotFound {
		return err
	}
	hash, err := accounts.HashPassword("demo")
	if err != nil {
		return err
	}
	if err := acc.SetStaffPassword(ctx, "admin", hash, time.Now()); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "staff sign-in: user admin, password demo")
	return nil
}
