package rush

import (
	"errors"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot sizes: wide enough for a 30 s series at 100 ms.
const (
	plotW = 10 * vg.Inch
	plotH = 5 * vg.Inch
	// plotMargin is kept free on every edge, so that the title, the last
	// tick label and the legend never touch or cross the canvas's edge.
	plotMargin = 0.2 * vg.Inch
	// legendGap separates the data area from the legend on its right.
	legendGap = 0.15 * vg.Inch
)

// series is one named line.
type series struct {
	name string
	xy   plotter.XYs
}

// marker is a vertical line across the data area at X, labelled at its
// top: the opening time on the plots whose x axis is time.
type marker struct {
	X     float64
	Label string
}

// savePlot draws lines on p, the marker (if any) and a legend beside the
// data area, top right, and saves it; the format follows the file name's
// extension (svg, png, pdf).
func savePlot(p *plot.Plot, lines []series, step bool, mark *marker, path string) error {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(3)
	leg.TextStyle.Font.Size = vg.Points(10)
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
		leg.Add(s.name, l)
		drawn++
	}
	if drawn == 0 {
		return errors.New("no data")
	}
	p.Add(plotter.NewGrid())
	if mark != nil {
		p.Add(mark)
	}
	p.Title.Padding = 0.15 * vg.Inch
	p.X.Padding, p.Y.Padding = vg.Points(4), vg.Points(4)

	format := strings.TrimPrefix(filepath.Ext(path), ".")
	c, err := draw.NewFormattedCanvas(plotW, plotH, format)
	if err != nil {
		return err
	}
	whole := draw.New(c)
	whole.SetColor(color.White)
	whole.Fill(whole.Rectangle.Path())
	p.BackgroundColor = nil
	dc := draw.Crop(whole, plotMargin, -plotMargin, plotMargin, -plotMargin)
	lw := leg.Rectangle(dc).Size().X
	p.Draw(draw.Crop(dc, 0, -(lw + legendGap), 0, 0))
	// The legend's column starts level with the top of the data area.
	top := vg.Length(0)
	if p.Title.Text != "" {
		top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	legC := draw.Crop(dc, dc.Size().X-lw, 0, 0, -top)
	leg.Draw(legC)

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// DataRange widens the x axis to the marker and leaves y alone.
func (m *marker) DataRange() (xmin, xmax, ymin, ymax float64) {
	return m.X, m.X, math.Inf(1), math.Inf(-1)
}

// Plot draws the marker's line across the data area and its label, just
// right of the line at the top.
func (m *marker) Plot(c draw.Canvas, p *plot.Plot) {
	x := c.X(p.X.Norm(m.X))
	ls := draw.LineStyle{Color: color.Gray{Y: 64}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
	c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
	ts := draw.TextStyle{Color: color.Gray{Y: 32}, Font: p.X.Tick.Label.Font, Handler: p.X.Tick.Label.Handler, XAlign: draw.XLeft, YAlign: draw.YTop}
	c.FillText(ts, vg.Point{X: x + vg.Points(3), Y: c.Max.Y - vg.Points(2)}, m.Label)
}

// opening is the marker of the slots' opening time on the plots over
// time: the load starts Early before it, so it sits at Early seconds.
func (r *Report) opening() *marker {
	if r.OpensAt.IsZero() {
		return nil
	}
	early := 0.0
	if r.Settings.Early != "" {
		if d, err := time.ParseDuration(r.Settings.Early); err == nil {
			early = d.Seconds()
		}
	}
	return &marker{X: early, Label: "opening " + r.OpensAt.Local().Format("15:04:05")}
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
	for _, ep := range []Endpoint{EndpointBook, EndpointList, EndpointQueue, EndpointEcho} {
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
	return savePlot(p, lines, false, r.opening(), path)
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
	for _, ep := range []Endpoint{EndpointBook, EndpointList, EndpointQueue, EndpointEcho} {
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
	return savePlot(p, lines, true, nil, path)
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
		{"book 409", EndpointBook, []Outcome{OutSlotFull, OutAlreadyBooked, OutNotOpenYet, OutSlotClosed, OutOverlapping, OutKeyInUse, OutNotAdmitted, OutConflict}},
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
	return savePlot(p, lines, true, r.opening(), path)
}
