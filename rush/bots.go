package rush

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// The bots scenario: an opening where many people click once, a moment
// after the opening (or, with the waiting room, after their admission),
// beside a few bots that send their next booking as soon as the last one
// is answered (or, after a 429, as soon as the server allows). With the room everyone joins the opening's queue before
// it opens, asks for their place (people every PollEvery, as the page
// does; bots every botPoll) and books with the admission it gives.

// botPoll is how often a bot asks for its place in the queue.
const botPoll = 10 * time.Millisecond

// Reaction bounds a person's time between seeing the page change (the
// opening, or their admission) and their click.
const (
	reactMin = 200 * time.Millisecond
	reactMax = time.Second
)

// Fairness is the bots scenario's part of the report: who got the places,
// and in what order, as the clients saw it.
type Fairness struct {
	WaitingRoom bool  `json:"waitingRoom"`
	OpeningID   int64 `json:"openingId,omitempty"`
	People      int   `json:"people"`
	Bots        int   `json:"bots"`
	// PeopleBooked and BotsBooked are those who got a place; the rates
	// are their shares of each group.
	PeopleBooked int     `json:"peopleBooked"`
	BotsBooked   int     `json:"botsBooked"`
	PeopleRate   float64 `json:"peopleRate"`
	BotsRate     float64 `json:"botsRate"`
	// BotAttempts are the bookings the bots sent.
	BotAttempts int64 `json:"botAttempts"`
	// BotsLuck is the chance that the bots, each as likely to get a place
	// as anyone, would get at least BotsBooked of the places sold (a
	// hypergeometric tail): near 1 they did no better than a fair draw,
	// below 0.001 their speed paid.
	BotsLuck float64 `json:"botsLuck"`
	// Inversions are the pairs of those who got a place of whom the one
	// who came later was served first, seen from the client: with the
	// room "later" is a later place in the queue, without it a later
	// first click; "served" is when the booking's answer arrived.
	Inversions int64 `json:"inversions"`
	// Unavailable are the 503s answered (bookings and the queue).
	Unavailable int64 `json:"unavailable"`
	// JoinedLate are those whose place was taken after the opening (the
	// server was slow to answer their join): they follow the drawn
	// pre-queue, so a comparison with a fair draw holds only without them.
	JoinedLate int `json:"joinedLate"`
	// Server is the server's fairness report of the opening
	// (GET /api/admin/openings/{id}/report), with the room.
	Server *booking.OpeningReport `json:"server,omitempty"`
}

// contender is one person or bot of the bots scenario.
type contender struct {
	p   *Patient
	bot bool
	// place orders the contenders as they came: the queue's position with
	// the room, the first click's time without it.
	position int
	late     bool
	arrived  time.Time
	served   time.Time
	attempts int64
}

// placeAnswer is what rush reads of GET /api/openings/{id}/queue.
type placeAnswer struct {
	PreQueue bool   `json:"preQueue"`
	Position int    `json:"position"`
	Admitted bool   `json:"admitted"`
	Token    string `json:"admissionToken"`
}

// botsLoad runs the bots scenario's load: every contender in its own
// goroutine until each has a place or gave up, every place is sold, or
// Duration after the opening.
func (r *runner) botsLoad() (took time.Duration, cs []*contender, err error) {
	f := r.f
	r.gen, r.stopGen = context.WithDeadline(r.root, f.OpensAt.Add(r.cfg.Duration))
	defer r.stopGen()
	began := time.Now()
	stopProgress := r.progress(f.OpensAt)
	cs = make([]*contender, len(f.Patients))
	for i, p := range f.Patients {
		c := &contender{p: p, bot: i < f.Bots}
		cs[i] = c
		// People come to the page at a moment of the first half of the
		// wait before the opening (the rest is margin for a slow server's
		// answers); bots are there from the start.
		joinAt := began
		if !c.bot {
			joinAt = began.Add(time.Duration(rand.Int64N(int64(max(time.Millisecond, time.Until(f.OpensAt)/2)))))
		}
		react := reactMin + time.Duration(rand.Int64N(int64(reactMax-reactMin)))
		r.wg.Go(func() {
			if c.bot {
				r.bot(c)
			} else {
				r.person(c, joinAt, react)
			}
		})
	}
	r.wg.Wait()
	stopProgress()
	return time.Since(f.OpensAt), cs, r.root.Err()
}

// over reports whether the rush is over for a contender still waiting:
// every place sold (the page says so) or the load's time is up.
func (r *runner) over() bool { return r.gen.Err() != nil || r.sold.Load() >= r.places }

// sleepUntil waits for t; false when the rush ended first.
func (r *runner) sleepUntil(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return r.gen.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-r.gen.Done():
		return false
	}
}

// person clicks once: react after the opening, or, with the room, after
// the admission they wait for by asking every PollEvery.
func (r *runner) person(c *contender, joinAt time.Time, react time.Duration) {
	if r.f.OpeningID != 0 {
		if !r.sleepUntil(joinAt) {
			return
		}
		pl, ok := r.queue(c, http.MethodPost)
		c.arrived, c.late = time.Now(), ok && !pl.PreQueue
		for ok && !pl.Admitted {
			if !r.sleepUntil(time.Now().Add(r.cfg.PollEvery)) || r.over() {
				return
			}
			pl, ok = r.queue(c, http.MethodGet)
		}
		if !ok || !r.sleepUntil(time.Now().Add(react)) {
			return
		}
		c.p.admission = pl.Token
	} else {
		if !r.sleepUntil(r.f.OpensAt.Add(react)) {
			return
		}
		c.arrived = time.Now()
	}
	r.started.Add(1)
	c.attempts++
	if r.click(c.p, r.pickSlot(nil), r.newKey(c.p)) == clickBooked {
		c.served = time.Now()
	}
}

// bot books as fast as it can from the opening (with the room, from its
// admission, asked for every botPoll) until it has a place or the rush is
// over: each answer is followed at once by the next booking, with a new
// key, but for a 429, whose Retry-After no client can beat.
func (r *runner) bot(c *contender) {
	p := c.p
	if r.f.OpeningID != 0 {
		pl, ok := r.queue(c, http.MethodPost)
		c.arrived, c.late = time.Now(), ok && !pl.PreQueue
		for !pl.Admitted {
			if !r.sleepUntil(time.Now().Add(botPoll)) || r.over() {
				return
			}
			pl, ok = r.queue(c, http.MethodGet)
			if !ok {
				pl = placeAnswer{}
			}
		}
		p.admission = pl.Token
	} else if !r.sleepUntil(r.f.OpensAt) {
		return
	}
	r.started.Add(1)
	p.mu.Lock()
	p.clicked = true
	p.mu.Unlock()
	s := r.pickSlot(nil)
	for !r.over() {
		if c.arrived.IsZero() {
			c.arrived = time.Now()
		}
		c.attempts++
		x := r.book(p, s, r.newKey(p))
		switch x.outcome {
		case OutCreated, OutReplayed:
			r.confirmed(p, s, &x)
			x.release()
			c.served = time.Now()
			return
		case OutSlotFull:
			s.remaining.Store(0)
			s = r.pickSlot(s)
		case OutRateLimited:
			// The per-patient limit: no bot gets an answer sooner.
			if !r.sleepUntil(time.Now().Add(x.retryAfter)) {
				x.release()
				return
			}
		case OutTimeout, OutTransport:
			// The server may have booked it: the verification asks.
			p.mu.Lock()
			p.unresolved = true
			p.mu.Unlock()
		default:
			if x.outcome.isError() {
				r.noteError(EndpointBook, &x)
			}
		}
		x.release()
	}
}

// queue joins the opening's queue (POST) or asks for the contender's
// place in it (GET); ok is false when the answer was not a place.
func (r *runner) queue(c *contender, method string) (placeAnswer, bool) {
	url := r.cfg.Target + "/api/openings/" + strconv.FormatInt(r.f.OpeningID, 10) + "/queue"
	req, err := http.NewRequestWithContext(r.root, method, url, nil)
	if err != nil {
		return placeAnswer{}, false
	}
	req.Header = http.Header{"Authorization": {c.p.authz}}
	x := do(r.c, EndpointQueue, req, true)
	r.rec.Record(EndpointQueue, x.outcome, x.began, x.latency)
	defer x.release()
	var pl placeAnswer
	if x.status != http.StatusOK && x.status != http.StatusCreated {
		if x.outcome.isError() {
			r.noteError(EndpointQueue, &x)
		}
		return pl, false
	}
	if x.body == nil || json.Unmarshal(x.body.Bytes(), &pl) != nil {
		return pl, false
	}
	if pl.Position > 0 {
		c.position = pl.Position
	}
	return pl, true
}

// fairness sums up the contenders; rush's own accounting (r.sold) decides
// the places, each contender's served time who got one.
func (r *runner) fairness(cs []*contender) *Fairness {
	fr := &Fairness{WaitingRoom: r.f.OpeningID != 0, OpeningID: r.f.OpeningID, Bots: r.f.Bots, People: len(cs) - r.f.Bots}
	var served []booking.Served
	for _, c := range cs {
		if c.bot {
			fr.BotAttempts += c.attempts
		}
		if c.late {
			fr.JoinedLate++
		}
		if c.served.IsZero() {
			continue
		}
		if c.bot {
			fr.BotsBooked++
		} else {
			fr.PeopleBooked++
		}
		served = append(served, booking.Served{Position: c.position, At: c.served})
	}
	if !fr.WaitingRoom {
		// Without a queue, the order people came in is their first click's.
		order := make([]*contender, 0, len(served))
		for _, c := range cs {
			if !c.served.IsZero() {
				order = append(order, c)
			}
		}
		sortByArrival(order)
		served = served[:0]
		for i, c := range order {
			served = append(served, booking.Served{Position: i + 1, At: c.served})
		}
	}
	fr.Inversions = booking.Inversions(served)
	if fr.People > 0 {
		fr.PeopleRate = float64(fr.PeopleBooked) / float64(fr.People)
	}
	if fr.Bots > 0 {
		fr.BotsRate = float64(fr.BotsBooked) / float64(fr.Bots)
	}
	fr.BotsLuck = hypergeometricTail(len(cs), fr.PeopleBooked+fr.BotsBooked, fr.Bots, fr.BotsBooked)
	for _, ep := range []Endpoint{EndpointBook, EndpointQueue} {
		n := r.rec.Counts(ep)
		fr.Unavailable += n[OutOverloaded] + n[OutUnavailable]
	}
	return fr
}

func sortByArrival(cs []*contender) {
	slices.SortStableFunc(cs, func(a, b *contender) int { return a.arrived.Compare(b.arrived) })
}

// hypergeometricTail is P(X ≥ k) for X the number of marked among n drawn
// without replacement from N of which K are marked: the chance that n bots
// get at least k of K places given out at random among N contenders.
func hypergeometricTail(N, K, n, k int) float64 {
	if k <= 0 {
		return 1
	}
	lchoose := func(a, b int) float64 {
		x, _ := math.Lgamma(float64(a + 1))
		y, _ := math.Lgamma(float64(b + 1))
		z, _ := math.Lgamma(float64(a - b + 1))
		return x - y - z
	}
	total := lchoose(N, n)
	p := 0.0
	for i := k; i <= min(n, K); i++ {
		if n-i > N-K {
			continue
		}
		p += math.Exp(lchoose(K, i) + lchoose(N-K, n-i) - total)
	}
	return min(p, 1)
}

// serverReport reads the server's fairness report of the opening.
func serverReport(ctx context.Context, a *api, f *Fixture) (*booking.OpeningReport, error) {
	var rep booking.OpeningReport
	err := a.call(ctx, http.MethodGet, "/api/admin/openings/"+strconv.FormatInt(f.OpeningID, 10)+"/report", f.AdminToken, nil, &rep)
	return &rep, err
}

// print writes the bots scenario's lines of the summary.
func (fr *Fairness) print(w io.Writer) {
	room := "off"
	if fr.WaitingRoom {
		room = "on"
	}
	fmt.Fprintf(w, "\nwaiting room %s: people %d/%d booked (%.1f%%), bots %d/%d (%.1f%%) after %d bookings sent; bots' luck %.3g (below 0.001: their speed paid)\n",
		room, fr.PeopleBooked, fr.People, 100*fr.PeopleRate, fr.BotsBooked, fr.Bots, 100*fr.BotsRate, fr.BotAttempts, fr.BotsLuck)
	fmt.Fprintf(w, "inversions seen by the clients %d; 503s %d", fr.Inversions, fr.Unavailable)
	if fr.WaitingRoom {
		fmt.Fprintf(w, "; %d joined the queue after the opening", fr.JoinedLate)
	}
	fmt.Fprintln(w)
	if s := fr.Server; s != nil {
		fmt.Fprintf(w, "server's report: %d sold of %d, %d in the queue, %d admitted, inversions %d (within a slot %d), p99 %.1f ms\n",
			s.Sold, s.Places, s.People, s.Admitted, s.Inversions, s.LaneInversions, s.Requests.P99Ms)
	}
}
