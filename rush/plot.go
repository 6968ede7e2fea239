package rush

import (
	"errors"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot sizes: wide enough for a 30 s series at 100 ms.
const (
	plotW = 10 * vg.Inch
	plotH = 5 * vg.Inch
)

// series is one named line.
type series struct {
	name string
	xy   plotter.XYs
}

// savePlot draws lines on p and saves it; the format follows the file
// name's extension (svg, png, pdf).
func savePlot(p *plot.Plot, lines []series, step bool, path string) error {
	drawn := 0
	for i, s := range lines {
		if len(s.xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 2 % 3)
		l.Width = vg.Points(1.2)
		if step {
			l.StepStyle = plotter.PostStep
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
		drawn++
	}
	if drawn == 0 {
		return errors.New("no data")
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p.Save(plotW, plotH, path)
}

// plotLatency draws p50 and p99 per BucketWidth of each endpoint over the
// run, on a log scale since a p99 is often a hundred times a p50.
func (r *Report) plotLatency(path string) error {
	p := plot.New()
	p.Title.Text = "slotd rush " + r.Scenario + ": latency over time (per 100 ms, by request start)"
	p.X.Label.Text = "seconds since load start"
	p.Y.Label.Text = "latency (ms)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var lines []series
	for _, ep := range []Endpoint{EndpointBook, EndpointList, EndpointEcho} {
		er := r.Endpoints[ep.String()]
		if er == nil {
			continue
		}
		var p50, p99 plotter.XYs
		for _, pt := range er.Series {
			if pt.Latency.Count == 0 {
				continue
			}
			p50 = append(p50, plotter.XY{X: pt.T, Y: math.Max(pt.Latency.P50, 0.001)})
			p99 = append(p99, plotter.XY{X: pt.T, Y: math.Max(pt.Latency.P99, 0.001)})
		}
		lines = append(lines, series{ep.String() + " p50", p50}, series{ep.String() + " p99", p99})
	}
	return savePlot(p, lines, false, path)
}

// plotHistogram draws each endpoint's latency distribution: the share of
// requests per logarithmic latency bin (20 per decade), from the full
// HdrHistogram of the run.
func (r *Report) plotHistogram(path string) error {
	p := plot.New()
	p.Title.Text = "slotd rush " + r.Scenario + ": latency distribution"
	p.X.Label.Text = "latency (ms, log scale)"
	p.Y.Label.Text = "% of requests"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	const perDecade = 20
	var lines []series
	for _, ep := range []Endpoint{EndpointBook, EndpointList, EndpointEcho} {
		er := r.Endpoints[ep.String()]
		if er == nil || er.Requests == 0 {
			continue
		}
		bins := map[int]int64{}
		lo, hi := math.MaxInt, math.MinInt
		var total int64
		for _, b := range er.dist.dist {
			if b.Count == 0 {
				continue
			}
			ms := float64(b.From+b.To) / 2 / 1000
			i := int(math.Floor(math.Log10(math.Max(ms, 0.001)) * perDecade))
			bins[i] += b.Count
			total += b.Count
			lo, hi = min(lo, i), max(hi, i)
		}
		var xy plotter.XYs
		for i := lo; i <= hi+1; i++ {
			xy = append(xy, plotter.XY{X: math.Pow(10, float64(i)/perDecade), Y: 100 * float64(bins[i]) / float64(total)})
		}
		lines = append(lines, series{ep.String(), xy})
	}
	return savePlot(p, lines, true, path)
}

// plotThroughput draws requests per second over the run by outcome group:
// the sell-out shows as the moment 201s stop and slot-full takes over.
func (r *Report) plotThroughput(path string) error {
	p := plot.New()
	p.Title.Text = "slotd rush " + r.Scenario + ": requests per second (per 100 ms)"
	p.X.Label.Text = "seconds since load start"
	p.Y.Label.Text = "requests/s"
	groups := []struct {
		name string
		ep   Endpoint
		outs []Outcome
	}{
		{"book 201/200", EndpointBook, []Outcome{OutCreated, OutReplayed}},
		{"book 409", EndpointBook, []Outcome{OutSlotFull, OutAlreadyBooked, OutNotOpenYet, OutSlotClosed, OutOverlapping, OutKeyInUse, OutConflict}},
		{"book 429/503", EndpointBook, []Outcome{OutRateLimited, OutOverloaded, OutUnavailable}},
		{"book errors/timeouts", EndpointBook, []Outcome{OutTimeout, OutTransport, OutClientError, OutServerError}},
		{"list", EndpointList, nil},
		{"echo", EndpointEcho, nil},
	}
	var lines []series
	for _, g := range groups {
		er := r.Endpoints[g.ep.String()]
		if er == nil || er.Requests == 0 {
			continue
		}
		var xy plotter.XYs
		any := false
		for _, pt := range er.Series {
			v := 0.0
			if g.outs == nil {
				for _, n := range pt.PerSecond {
					v += n
				}
			} else {
				for _, o := range g.outs {
					v += pt.PerSecond[o.String()]
				}
			}
			any = any || v > 0
			xy = append(xy, plotter.XY{X: pt.T, Y: v})
		}
		if any {
			lines = append(lines, series{g.name, xy})
		}
	}
	return savePlot(p, lines, true, path)
}
