package web

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// The dashboard's charts are server-rendered SVG: no chart library, no
// script needed to read them; app.js only swaps in a fresh copy every two
// seconds.

// bar is one bar of a chart, with its geometry precomputed.
type bar struct {
	X, Y, W, H float64
	Label      string
	Value      string
	Full       bool
	N, Max     int64 // a bar chart's row as a <meter>: N of Max
}

// dashboardData is what the charts template draws.
type dashboardData struct {
	At                string
	Created, Replayed int64
	Rejected          int64
	LastSecond        int
	PeakSecond        int
	Rate              []bar
	RateMax           int
	Rejections        []bar
	Hot               []bar
	Summary           string
	// Reconcile is the scheduled reconciliation's last verdict (Ran false
	// before its first run); only the full page shows it.
	Reconcile struct {
		Ran                 bool
		At                  string
		Violations, Pending int
	}
	// Channels are the message channels and what this instance saw of
	// each; only the full page shows them.
	Channels []channelRow
}

// channelRow is one message channel on the dashboard.
type channelRow struct {
	Name                          string
	Working                       bool
	LastSent, LastFailure, Reason string
}

// Chart geometry (SVG user units).
const (
	rateW, rateH = 600.0, 180.0
)

// handleStaffDashboard is the live rush dashboard: bookings per second,
// rejections by reason, and the fill level of the hottest slots. With
// ?partial=1 it answers only the charts, for the script's refresh.
func (s *server) handleStaffDashboard(w http.ResponseWriter, r *http.Request, _ session) {
	st := s.stats.Snapshot()
	pr := s.printer(r)
	d := dashboardData{At: pr.Clock(st.At.In(s.clinicZone)) + " (" + s.clinicZone.String() + ")", Created: st.Created, Replayed: st.Replayed}

	// Bookings per second.
	for _, v := range st.PerSecond {
		d.PeakSecond = max(d.PeakSecond, v)
	}
	if n := len(st.PerSecond); n > 0 {
		d.LastSecond = st.PerSecond[n-1]
	}
	d.RateMax = niceMax(d.PeakSecond)
	if n := len(st.PerSecond); n > 0 {
		step := rateW / float64(n)
		for i, v := range st.PerSecond {
			h := float64(v) / float64(d.RateMax) * (rateH - 20)
			d.Rate = append(d.Rate, bar{X: float64(i) * step, Y: rateH - 20 - h, W: step * 0.8, H: h,
				Label: pr.T("%d s ago", n-1-i), Value: fmt.Sprint(v)})
		}
	}

	// Rejections by reason, largest first.
	type kv struct {
		code string
		n    int64
	}
	var rej []kv
	var most int64 = 1
	for c, n := range st.Rejections {
		rej = append(rej, kv{c, n})
		d.Rejected += n
		most = max(most, n)
	}
	sort.Slice(rej, func(i, j int) bool {
		if rej[i].n != rej[j].n {
			return rej[i].n > rej[j].n
		}
		return rej[i].code < rej[j].code
	})
	for _, e := range rej {
		d.Rejections = append(d.Rejections, bar{N: e.n, Max: most,
			Label: pr.T(problemOf(booking.Code(e.code)).Title) + " (" + e.code + ")", Value: fmt.Sprint(e.n)})
	}

	// Fill of the hottest slots.
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	docs := map[int64]booking.Doctor{}
	for _, id := range st.HotSlots {
		sl, err := s.store.GetSlot(ctx, id)
		if err != nil {
			continue
		}
		doc, ok := docs[sl.DoctorID]
		if !ok {
			doc, _ = s.store.GetDoctor(ctx, sl.DoctorID)
			docs[sl.DoctorID] = doc
		}
		loc := zone(doc.TimeZone)
		d.Hot = append(d.Hot, bar{
			Label: doc.Name + ", " + pr.ShortDate(sl.StartAt.In(loc)) + " " + pr.Clock(sl.StartAt.In(loc)),
			Value: fmt.Sprintf("%d/%d", sl.BookedCount, sl.Capacity), Full: sl.BookedCount >= sl.Capacity,
			N: int64(sl.BookedCount), Max: int64(sl.Capacity)})
	}
	d.Summary = pr.T("%d bookings in the last second, peak %d per second over the last minute; %d created, %d rejected in all.",
		d.LastSecond, d.PeakSecond, d.Created, d.Rejected)

	p := s.newPage(w, r, "Rush dashboard")
	p.Data = d
	if r.URL.Query().Get("partial") == "1" {
		var buf bytes.Buffer
		if err := s.pages["staff_dashboard"].ExecuteTemplate(&buf, "charts", p); err != nil {
			s.log.ErrorContext(r.Context(), "web: template failed", "page", "staff_dashboard", "err", err)
			http.Error(w, "internal error", problem.Status(booking.CodeInternal))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
		return
	}
	if run, err := s.svc.LastReconcileRun(r.Context()); err == nil {
		d.Reconcile.Ran, d.Reconcile.At = true, pr.DateTime(run.CheckedAt.In(s.clinicZone))+" ("+s.clinicZone.String()+")"
		d.Reconcile.Violations, d.Reconcile.Pending = run.Violations, run.Pending
	}
	if s.deliveries != nil {
		for _, c := range s.deliveries.Channels() {
			row := channelRow{Name: c.Channel, Working: c.Working(), Reason: c.Reason}
			if w, ok := messageWords[c.Channel]; ok {
				row.Name = pr.T(w)
			}
			if !c.LastSent.IsZero() {
				row.LastSent = pr.DateTime(c.LastSent.In(s.clinicZone))
			}
			if !c.LastFailure.IsZero() {
				row.LastFailure = pr.DateTime(c.LastFailure.In(s.clinicZone))
			}
			d.Channels = append(d.Channels, row)
		}
	}
	p.Data = d // the full page's parts too (the reconciliation, the channels)
	s.render(w, r, http.StatusOK, "staff_dashboard", p)
}

// niceMax rounds a chart's top up to 1, 2 or 5 times a power of ten.
func niceMax(v int) int {
	if v < 1 {
		return 1
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}
