package rush

import (
	"encoding/xml"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// plotReport is a report of a made-up clinic rush: 3 s of load that
// starts 200 ms before the opening, latencies from 1 ms to 90 ms.
func plotReport() *Report {
	start := time.Date(2026, 1, 5, 6, 59, 59, 800_000_000, time.Local)
	rec := NewRecorder(start)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		began := start.Add(time.Duration(i) * time.Millisecond)
		out := OutSlotFull
		if i < 200 {
			out = OutNotOpenYet
		} else if i < 280 {
			out = OutCreated
		}
		rec.Record(EndpointBook, out, began, time.Duration(1+rng.IntN(90))*time.Millisecond)
		rec.Record(EndpointList, OutOK, began, time.Duration(1+rng.IntN(9))*time.Millisecond)
	}
	r := &Report{Scenario: ScenarioClinic, OpensAt: start.Add(200 * time.Millisecond), Settings: Settings{Early: "200ms"},
		Endpoints: map[string]*EndpointReport{}}
	r.Endpoints[EndpointBook.String()] = endpointReport(rec, EndpointBook, 3)
	r.Endpoints[EndpointList.String()] = endpointReport(rec, EndpointList, 3)
	return r
}

// svgText is one text element of an SVG: where it is drawn and what it says.
type svgText struct {
	x, y, size float64
	text       string
	rotated    bool // the y axis's label, turned a quarter
}

// svgTexts reads an SVG as gonum/plot writes it: a width and height in
// points, stroked paths (how far right they reach), and text elements placed
// by x and y; texts in a rotated group (the y axis's label) are marked.
func svgTexts(t *testing.T, path string) (w, h, maxPathX float64, texts []svgText) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(s, "pt"), "px"), 64)
		if err != nil {
			t.Fatalf("%s: not a number %q", path, s)
		}
		return v
	}
	var cur *svgText
	var size float64
	var groups []string // the transforms of the open groups
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "g":
				groups = append(groups, attr["transform"])
			case "svg":
				w, h = num(attr["width"]), num(attr["height"])
			case "text":
				if attr["transform"] != "" && !strings.HasPrefix(attr["transform"], "scale(1, -1)") {
					t.Fatalf("%s: text with transform %q, the test reads positions only", path, attr["transform"])
				}
				cur = &svgText{x: num(attr["x"]), y: num(attr["y"])}
				for _, g := range groups {
					cur.rotated = cur.rotated || strings.Contains(g, "rotate")
				}
				if m := fontSize.FindStringSubmatch(attr["style"]); m != nil {
					size = num(m[1])
				}
				cur.size = size
			case "path":
				if !strings.Contains(attr["style"], "stroke:") {
					continue // a fill: the canvas's background
				}
				for _, m := range pathPoint.FindAllStringSubmatch(attr["d"], -1) {
					maxPathX = max(maxPathX, num(m[1]))
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "g" && len(groups) > 0 {
				groups = groups[:len(groups)-1]
			}
			if e.Name.Local == "text" && cur != nil {
				texts = append(texts, *cur)
				cur = nil
			}
		}
	}
	return w, h, maxPathX, texts
}

var (
	fontSize  = regexp.MustCompile(`font-size:([0-9.]+)px`)
	pathPoint = regexp.MustCompile(`[MLC]\s*(-?[0-9.e+-]+),`)
)

// TestPlotsTidy draws the three plots as SVG and checks where their texts
// are, as gonum/plot writes them (y flipped: a text at y is -y above the
// bottom): every text whole inside the canvas with room to spare (the
// title off the top edge, the last tick label off the right edge), the
// legend right of everything the data area holds (no line, grid or axis
// reaches under it), and the opening time marked on the plots over time.
// It also writes PNGs, which must decode.
func TestPlotsTidy(t *testing.T) {
	r := plotReport()
	dir := t.TempDir()
	if err := r.writeFiles(dir, "svg"); err != nil {
		t.Fatal(err)
	}
	legends := map[string][]string{
		"latency.svg":    {"book p50", "book p99", "list p50", "list p99"},
		"histogram.svg":  {"book", "list"},
		"throughput.svg": {"book 201/200", "book 409", "list"},
	}
	for name, want := range legends {
		w, h, maxPathX, texts := svgTexts(t, filepath.Join(dir, name))
		if w == 0 || h == 0 || len(texts) == 0 {
			t.Fatalf("%s: canvas %gx%g with %d texts", name, w, h, len(texts))
		}
		const room = 2.0
		byText := map[string]svgText{}
		for _, tx := range texts {
			byText[tx.text] = tx
			if tx.rotated {
				continue
			}
			top := h + tx.y // baseline below the top edge
			width := 0.55 * tx.size * float64(utf8.RuneCountInString(tx.text))
			if tx.x < room || tx.x+width > w-room || top < tx.size+room || -tx.y < room {
				t.Errorf("%s: %q at (%.1f, %.1f below the top), %.0f px, not whole inside %gx%g with %g to spare",
					name, tx.text, tx.x, top, tx.size, w, h, room)
			}
		}
		for _, l := range want {
			tx, ok := byText[l]
			if !ok {
				t.Errorf("%s: no legend entry %q", name, l)
				continue
			}
			if tx.x <= maxPathX {
				t.Errorf("%s: legend %q at x %.1f, on the data area (which reaches x %.1f)", name, l, tx.x, maxPathX)
			}
		}
		var opening []string
		for _, tx := range texts {
			if strings.HasPrefix(tx.text, "opening ") {
				opening = append(opening, tx.text)
			}
		}
		if wantMark := name != "histogram.svg"; wantMark != (len(opening) == 1) {
			t.Errorf("%s: opening labels %q, want one: %v", name, opening, wantMark)
		} else if wantMark && opening[0] != "opening 07:00:00" {
			t.Errorf("%s: %q, want the opening time 07:00:00", name, opening[0])
		}
	}

	if err := r.writeFiles(dir, "png"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"latency.png", "histogram.png", "throughput.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 600 {
			t.Errorf("%s: %+v, %v", name, cfg, err)
		}
	}
}
