package rush

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// runner drives the load phase against a Fixture.
type runner struct {
	cfg  *Config
	f    *Fixture
	c    *http.Client
	rec  *Recorder
	logf func(string, ...any)

	bookURL  string
	echoURL  string
	listURLs []string
	listIdx  []int                    // slot index → listURLs index
	etags    []atomic.Pointer[string] // per listURLs entry
	places   int64

	// root is cancelled only by the user (Ctrl-C): it aborts requests and
	// retry waits. gen ends the generation of new sessions.
	root    context.Context
	gen     context.Context
	stopGen context.CancelFunc
	wg      sync.WaitGroup

	inflight  atomic.Int64
	dropped   atomic.Int64 // open loop: MaxInFlight was reached
	noPatient atomic.Int64 // no idle patient was left to click
	started   atomic.Int64 // sessions
	doneCount atomic.Int64 // patients with a place or no sessions left
	sold      atomic.Int64
	firstSale atomic.Int64 // unix nanos
	lastSale  atomic.Int64
	cursor    atomic.Uint64
	lastParse atomic.Int64 // unix nanos of the last parsed slot list

	errMu      sync.Mutex
	errSamples []string
}

func newRunner(ctx context.Context, cfg *Config, f *Fixture, c *http.Client, rec *Recorder, logf func(string, ...any)) *runner {
	r := &runner{
		cfg: cfg, f: f, c: c, rec: rec, logf: logf, root: ctx,
		bookURL: bookURL(cfg),
		echoURL: cfg.Target + "/bench/echo",
		places:  int64(cfg.places()),
	}
	seen := map[string]int{}
	for _, s := range f.Slots {
		i, ok := seen[s.listURL]
		if !ok {
			i = len(r.listURLs)
			seen[s.listURL] = i
			r.listURLs = append(r.listURLs, s.listURL)
		}
		r.listIdx = append(r.listIdx, i)
	}
	r.etags = make([]atomic.Pointer[string], len(r.listURLs))
	return r
}

// noteError keeps a few examples of unexpected answers for the summary.
func (r *runner) noteError(ep Endpoint, x *exchange) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if len(r.errSamples) >= 10 {
		return
	}
	msg := fmt.Sprintf("%s: %s", ep, x.outcome)
	if x.err != nil {
		msg += ": " + x.err.Error()
	} else if x.body != nil {
		b := x.body.String()
		if len(b) > 200 {
			b = b[:200]
		}
		msg += fmt.Sprintf(" (%d) %s", x.status, b)
	}
	r.errSamples = append(r.errSamples, msg)
}

// load runs the load phase: it waits for the opening time (minus Early),
// then generates sessions and reads until Duration, sell-out or every
// patient is done, and waits for the sessions in flight.
func (r *runner) load() (began time.Time, took time.Duration, err error) {
	startAt := r.f.OpensAt.Add(-r.cfg.Early)
	r.warm()
	r.logf("waiting %.1fs for the opening time", time.Until(startAt).Seconds())
	select {
	case <-time.After(time.Until(startAt)):
	case <-r.root.Done():
		return time.Time{}, 0, r.root.Err()
	}
	began = time.Now()
	r.gen, r.stopGen = context.WithTimeout(r.root, r.cfg.Duration)
	defer r.stopGen()
	stopProgress := r.progress(began)
	if r.cfg.Rate > 0 {
		r.openLoop(began)
	} else {
		r.closedLoop()
	}
	<-r.gen.Done()
	r.wg.Wait()
	stopProgress()
	return began, time.Since(began), r.root.Err()
}

// warm opens keep-alive connections before the opening time, as the
// browsers of users waiting on the page hold them: otherwise the first
// second measures thousands of TCP handshakes on two cores instead of
// bookings. Closed loop needs one per client; open loop one per session
// started early (they all press again within 20 ms of the opening) and a
// tenth of a second's worth more (beyond that, the server is already slow
// and new connections are part of the picture).
func (r *runner) warm() {
	n := r.cfg.Clients
	if r.cfg.Rate > 0 {
		n = min(r.cfg.MaxInFlight, max(64, int(r.cfg.Rate*(r.cfg.Early.Seconds()+0.1))))
	}
	n = min(n, 2000)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() {
			<-start
			req, err := http.NewRequestWithContext(r.root, http.MethodGet, r.cfg.Target+"/healthz", nil)
			if err != nil {
				return
			}
			if resp, err := r.c.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	close(start)
	wg.Wait()
}

// openLoop starts sessions at Rate and reads at Rate×ReadRatio per second
// on a schedule that ignores the answers, so that a slow server gets more
// concurrent requests, as it would from real users, and its latency is not
// hidden by the generator waiting (coordinated omission).
func (r *runner) openLoop(began time.Time) {
	readRate := r.cfg.Rate * r.cfg.ReadRatio
	var sentS, sentR int64
	for r.gen.Err() == nil {
		el := time.Since(began).Seconds()
		for due := int64(el * r.cfg.Rate); sentS < due; sentS++ {
			r.launchSession()
		}
		for due := int64(el * readRate); sentR < due; sentR++ {
			r.launchRead()
		}
		time.Sleep(time.Millisecond)
	}
}

func (r *runner) launchSession() {
	p := r.pickPatient()
	if p == nil {
		if r.gen.Err() == nil {
			r.noPatient.Add(1)
		}
		return
	}
	if r.inflight.Add(1) > int64(r.cfg.MaxInFlight) {
		r.inflight.Add(-1)
		p.busy.Store(false)
		r.dropped.Add(1)
		return
	}
	r.wg.Go(func() {
		defer r.inflight.Add(-1)
		r.session(p)
	})
}

func (r *runner) launchRead() {
	if r.inflight.Add(1) > int64(r.cfg.MaxInFlight) {
		r.inflight.Add(-1)
		r.dropped.Add(1)
		return
	}
	r.wg.Go(func() {
		defer r.inflight.Add(-1)
		r.read()
	})
}

// closedLoop runs Clients workers, each starting its next session when the
// previous one ended, with ReadRatio reads per session interleaved.
func (r *runner) closedLoop() {
	for i := 0; i < r.cfg.Clients; i++ {
		r.wg.Go(func() {
			r.inflight.Add(1)
			defer r.inflight.Add(-1)
			acc := 0.0
			for r.gen.Err() == nil {
				p := r.pickPatient()
				if p == nil {
					// Every idle patient is taken by other workers.
					time.Sleep(time.Millisecond)
					continue
				}
				r.session(p)
				for acc += r.cfg.ReadRatio; acc >= 1 && r.gen.Err() == nil; acc-- {
					r.read()
				}
			}
		})
	}
}

// pickPatient returns the next idle patient who still wants a place, in
// round-robin order, marked busy; nil when there is none. When every
// patient is done it ends the generation.
func (r *runner) pickPatient() *Patient {
	ps := r.f.Patients
	n := uint64(len(ps))
	for tries := uint64(0); tries < n; tries++ {
		p := ps[r.cursor.Add(1)%n]
		if p.done.Load() || !p.busy.CompareAndSwap(false, true) {
			continue
		}
		if p.done.Load() {
			p.busy.Store(false)
			continue
		}
		return p
	}
	if r.doneCount.Load() >= int64(len(ps)) {
		r.stopGen()
	}
	return nil
}

// markDone retires a patient once.
func (r *runner) markDone(p *Patient) {
	if p.done.CompareAndSwap(false, true) {
		if r.doneCount.Add(1) >= int64(len(r.f.Patients)) {
			r.stopGen()
		}
	}
}

// pickSlot chooses a slot that the client-side view shows with places
// left, as a user picks from the list; when the view shows none, any slot
// (users keep clicking on a sold-out day). not is avoided if possible.
func (r *runner) pickSlot(not *Slot) *Slot {
	ss := r.f.Slots[:r.f.Picks]
	n := len(ss)
	off := rand.IntN(n)
	for i := 0; i < n; i++ {
		s := ss[(off+i)%n]
		if s != not && s.remaining.Load() > 0 {
			return s
		}
	}
	return ss[off]
}

// click result of one Idempotency-Key.
type clickResult int

const (
	clickBooked clickResult = iota
	clickFull
	clickRefused
	clickGaveUp
)

// session is one patient's visit: a click, and after a slot-full up to
// Switch clicks on other slots, each with a new key.
func (r *runner) session(p *Patient) {
	defer p.busy.Store(false)
	r.started.Add(1)
	n := p.sessions.Add(1)
	s := r.pickSlot(nil)
	for sw := 0; ; sw++ {
		res := r.click(p, s, r.newKey(p))
		if res == clickBooked {
			r.markDone(p)
			return
		}
		if res != clickFull || sw >= r.cfg.Switch || r.root.Err() != nil {
			break
		}
		s = r.pickSlot(s)
	}
	if r.cfg.Sessions > 0 && int(n) >= r.cfg.Sessions {
		r.markDone(p)
	}
}

// newKey is a fresh Idempotency-Key: run, patient, click number.
func (r *runner) newKey(p *Patient) string {
	b := make([]byte, 0, 40)
	b = append(b, r.f.RunID...)
	b = append(b, '-')
	b = strconv.AppendInt(b, p.ID, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, p.clicks.Add(1), 10)
	return string(b)
}

// click sends one booking with key and retries it, with the same key, as a
// real client does: at once after a timeout, after Retry-After on 429/503,
// shortly on idempotency-key-in-use, at the opening time on not-open-yet.
func (r *runner) click(p *Patient, s *Slot, key string) clickResult {
	p.mu.Lock()
	p.clicked = true
	p.mu.Unlock()
	retries := 0
	// lost: an earlier try's answer never came (timeout, transport, a
	// proxy's 502): it may have booked, so only a definitive answer (a
	// booking, slot-full) settles the click; anything else leaves it for
	// the verification to look up.
	lost := false
	unresolved := func() {
		p.mu.Lock()
		p.unresolved = true
		p.mu.Unlock()
	}
	for {
		x := r.book(p, s, key)
		var wait time.Duration
		switch x.outcome {
		case OutCreated, OutReplayed:
			r.confirmed(p, s, &x)
			x.release()
			return clickBooked
		case OutSlotFull:
			s.remaining.Store(0)
			return clickFull
		case OutNotOpenYet:
			// Refused requests do not consume the key; a user who pressed
			// early presses again when the clock turns.
			if time.Now().After(r.f.OpensAt.Add(2 * time.Second)) {
				return clickRefused // the server's clock disagrees; stop
			}
			wait = time.Until(r.f.OpensAt) + time.Duration(rand.IntN(20))*time.Millisecond
			retries-- // bounded by the clock above, not by Retries
		case OutTimeout, OutTransport:
			lost = true
			wait = 50 * time.Millisecond
		case OutKeyInUse:
			wait = 200 * time.Millisecond
		case OutRateLimited, OutOverloaded, OutUnavailable:
			if r.gen.Err() != nil {
				// The measured window is over; a definitive refusal needs
				// no resolution.
				if lost {
					unresolved()
				}
				return clickRefused
			}
			wait = x.retryAfter
		default:
			if x.outcome.isError() {
				r.noteError(EndpointBook, &x)
			}
			x.release()
			if lost {
				unresolved()
			}
			return clickRefused
		}
		x.release()
		if retries >= r.cfg.Retries {
			if lost || x.outcome == OutKeyInUse {
				unresolved()
			}
			return clickGaveUp
		}
		retries++
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-r.root.Done():
				t.Stop()
				p.mu.Lock()
				p.unresolved = true
				p.mu.Unlock()
				return clickGaveUp
			}
		}
	}
}

// book sends one booking (POST /api/appointments, or a series) and
// records it.
func (r *runner) book(p *Patient, s *Slot, key string) exchange {
	req, err := http.NewRequestWithContext(r.root, http.MethodPost, r.bookURL, bytes.NewReader(s.body))
	if err != nil {
		return exchange{outcome: OutTransport, err: err}
	}
	req.Header = http.Header{
		"Authorization":   {p.authz},
		"Idempotency-Key": {key},
		"Content-Type":    {"application/json"},
	}
	if p.admission != "" {
		req.Header["Slotd-Admission"] = []string{p.admission}
	}
	x := do(r.c, EndpointBook, req, true)
	r.rec.Record(EndpointBook, x.outcome, x.began, x.latency)
	return x
}

// confirmed notes a 201 or 200: the first time an appointment id is seen it
// is a place sold.
func (r *runner) confirmed(p *Patient, s *Slot, x *exchange) {
	type appt struct {
		ID     int64 `json:"id"`
		SlotID int64 `json:"slotId"`
	}
	var a struct {
		appt
		Appointments []appt `json:"appointments"` // a series' doses
	}
	err := json.Unmarshal(x.body.Bytes(), &a)
	as := a.Appointments
	if !r.cfg.Series {
		as = []appt{a.appt}
	}
	if err != nil || len(as) == 0 || as[0].ID <= 0 {
		x.err = fmt.Errorf("undecodable booking answer: %v", err)
		r.noteError(EndpointBook, x)
		p.mu.Lock()
		p.unresolved = true
		p.mu.Unlock()
		return
	}
	if as[0].SlotID == 0 {
		as[0].SlotID = s.ID
	}
	p.mu.Lock()
	for _, rc := range p.receipts {
		if rc.AppointmentID == as[0].ID {
			p.mu.Unlock()
			return
		}
	}
	for _, d := range as {
		p.receipts = append(p.receipts, Receipt{PatientID: p.ID, SlotID: d.SlotID, AppointmentID: d.ID, Status: x.status})
	}
	p.mu.Unlock()
	now := time.Now().UnixNano()
	r.firstSale.CompareAndSwap(0, now)
	for {
		last := r.lastSale.Load()
		if now <= last || r.lastSale.CompareAndSwap(last, now) {
			break
		}
	}
	s.remaining.Add(-1)
	if s.twin != nil {
		s.twin.remaining.Add(-1)
	}
	if r.sold.Add(int64(len(as))) >= r.places && r.cfg.StopWhenSoldOut {
		r.stopGen()
	}
}

// bookURL is where a click books: a place, or a whole series.
func bookURL(cfg *Config) string {
	if cfg.Series {
		return cfg.Target + "/api/series-bookings"
	}
	return cfg.Target + "/api/appointments"
}

// read fetches one doctor's day of slots, revalidating with the ETag it
// last saw as a browser does (but ignoring max-age, so every read reaches
// the server: the worst case). At most ten lists a second are decoded to
// refresh the patients' view of free places; the rest are only drained.
func (r *runner) read() {
	si := rand.IntN(len(r.f.Slots))
	li := r.listIdx[si]
	req, err := http.NewRequestWithContext(r.root, http.MethodGet, r.listURLs[li], nil)
	if err != nil {
		return
	}
	if et := r.etags[li].Load(); et != nil {
		req.Header = http.Header{"If-None-Match": {*et}}
	}
	now := time.Now().UnixNano()
	last := r.lastParse.Load()
	parse := now-last > int64(100*time.Millisecond) && r.lastParse.CompareAndSwap(last, now)
	x := do(r.c, EndpointList, req, parse)
	r.rec.Record(EndpointList, x.outcome, x.began, x.latency)
	if x.outcome.isError() {
		r.noteError(EndpointList, &x)
	}
	if x.outcome == OutOK {
		if x.etag != "" {
			et := x.etag
			r.etags[li].Store(&et)
		}
		if parse && x.body != nil {
			r.updateView(x.body.Bytes())
		}
	}
	x.release()
}

// updateView refreshes the remaining places the patients see.
func (r *runner) updateView(body []byte) {
	var l struct {
		Slots []struct {
			ID        int64 `json:"id"`
			Capacity  int   `json:"capacity"`
			Booked    int   `json:"booked"`
			Remaining *int  `json:"remaining"`
		} `json:"slots"`
	}
	if json.Unmarshal(body, &l) != nil {
		return
	}
	for _, v := range l.Slots {
		if s := r.f.slotByID[v.ID]; s != nil {
			rem := v.Capacity - v.Booked
			if v.Remaining != nil {
				rem = *v.Remaining
			}
			s.remaining.Store(int32(rem))
		}
	}
}

// echo runs Clients closed-loop workers against POST /bench/echo for d,
// sending what a booking sends (same headers, same body) so that the two
// differ only by what the server does with it.
func (r *runner) echo(d time.Duration, token string) (began time.Time, took time.Duration, missing bool) {
	ctx, cancel := context.WithTimeout(r.root, d)
	defer cancel()
	var gone atomic.Bool
	authz := ""
	if token != "" {
		authz = "Bearer " + token
	}
	body := []byte(`{"slotId":1}`)
	began = time.Now()
	var wg sync.WaitGroup
	var n atomic.Int64
	for i := 0; i < r.cfg.Clients; i++ {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.echoURL, bytes.NewReader(body))
				if err != nil {
					return
				}
				req.Header = http.Header{
					"Idempotency-Key": {"echo-" + strconv.FormatInt(n.Add(1), 10)},
					"Content-Type":    {"application/json"},
				}
				if authz != "" {
					req.Header["Authorization"] = []string{authz}
				}
				x := do(r.c, EndpointEcho, req, false)
				if ctx.Err() != nil && (x.outcome == OutTimeout || x.outcome == OutTransport) {
					// Cut off by the end of the phase, not by the server.
					x.release()
					return
				}
				r.rec.Record(EndpointEcho, x.outcome, x.began, x.latency)
				if x.status == http.StatusNotFound {
					gone.Store(true)
					cancel()
				} else if x.outcome.isError() {
					r.noteError(EndpointEcho, &x)
				}
				x.release()
			}
		})
	}
	wg.Wait()
	return began, time.Since(began), gone.Load()
}

// progress prints the load's progress on Progress until the returned
// function is called: on a terminal one line rewritten in place (\r) every
// second, anywhere else (a file, a pipe, a CI log) a plain line every
// plainEvery and a last one at the end, so that a log holds whole lines.
func (r *runner) progress(began time.Time) (stop func()) {
	w := r.cfg.Progress
	if w == nil {
		return func() {}
	}
	tty := isTerminal(w)
	every := time.Second
	if !tty {
		every = plainEvery
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		var prevB, prevL int64
		prevAt := began
		line := func() {
			now := time.Now()
			b := r.rec.Counts(EndpointBook)
			l := r.rec.Counts(EndpointList)
			tb, tl := sum(b[:]), sum(l[:])
			var errs int64
			for o, n := range b {
				if Outcome(o).isError() || Outcome(o) == OutTimeout {
					errs += n
				}
			}
			secs := max(now.Sub(prevAt).Seconds(), 1e-3)
			printProgress(w, tty, now.Sub(began), int64(float64(tb-prevB)/secs), int64(float64(tl-prevL)/secs), b, errs, r.sold.Load(), r.places, r.inflight.Load(), r.dropped.Load())
			prevB, prevL, prevAt = tb, tl, now
		}
		for {
			select {
			case <-done:
				if tty {
					fmt.Fprintln(w)
				} else {
					line()
				}
				return
			case <-t.C:
				line()
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// plainEvery is the progress interval when Progress is not a terminal.
const plainEvery = 5 * time.Second

// isTerminal reports whether w is a terminal, the only place where a
// carriage return rewrites a line rather than leaving one in a log.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printProgress writes one progress line: rewritten in place on a terminal
// (\r, no newline), a whole line elsewhere. Rates are per second.
func printProgress(w io.Writer, tty bool, el time.Duration, bookPS, listPS int64, b [numOutcomes]int64, errs, sold, places, inflight, dropped int64) {
	prefix, suffix := "", "\n"
	if tty {
		prefix, suffix = "\r", "   "
	}
	fmt.Fprintf(w, prefix+"%5.1fs book %5d/s [201 %d  full %d  early %d  429 %d  503 %d  err %d]  list %5d/s  sold %d/%d  in-flight %d  dropped %d"+suffix,
		el.Seconds(), bookPS, b[OutCreated], b[OutSlotFull], b[OutNotOpenYet], b[OutRateLimited],
		b[OutOverloaded]+b[OutUnavailable], errs, listPS, sold, places, inflight, dropped)
}

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}
