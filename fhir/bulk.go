package fhir

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// SMART Scheduling Links (https://github.com/smart-on-fhir/smart-scheduling-links):
// GET /fhir/$bulk-publish is a manifest naming one NDJSON file each of
// Location, Schedule and Slot. The files are built in the background from
// the doctors' slots and served from memory, so an aggregator polling
// during the 7:00 rush costs no database work; _since (or since) keeps
// only the resources that changed after that instant.

// BulkOptions tune the publication.
type BulkOptions struct {
	// Debounce is how long after this instance's change the files are
	// rebuilt, gathering the changes of a burst (default 1s).
	Debounce time.Duration
	// Refresh rebuilds them at least this often, for other instances'
	// changes and slots that start or open as time passes (default 5m).
	Refresh time.Duration
	// MinInterval bounds the rebuilds to one per interval whatever the
	// rate of changes (default 5m): a rebuild reads every published slot,
	// and during a rush changes come many times a second.
	MinInterval time.Duration
	// Days of slots published from now (default 28).
	Days int
	// MaxSlots bounds the Slot file (default 200,000 lines): the reading
	// stops there, so a rebuild's rows and memory do not grow with the
	// number of slots in the database; the cut is logged.
	MaxSlots int
}

// bulkTypes are the files of the manifest, in order.
var bulkTypes = []string{"Location", "Schedule", "Slot"}

// published is one resource of a file with the time it last changed.
type published struct {
	hash     [sha256.Size]byte // of the resource without meta
	modified time.Time
	line     []byte // the resource with meta.lastUpdated, one NDJSON line
}

// snapshot is one generation of the files.
type snapshot struct {
	at    time.Time
	files map[string][]string  // type → ids in order
	res   map[string]published // "Type/id" → resource
	full  map[string][]byte    // type → the whole NDJSON file
	etag  string
	sites map[int64]*sitePart // site id → its part of each file
}

// sitePart is one site's lines of the whole files: each file is written
// site by site, so a site's resources are one run of lines and one byte
// range, served without a copy.
type sitePart struct {
	lines map[string][2]int // type → [first, end) index into files[type]
	bytes map[string][2]int // type → [first, end) offset into full[type]
	etag  string            // of the site's bytes only: other sites' changes keep it
}

// body is the site's part of the whole file kind.
func (sp *sitePart) body(s *snapshot, kind string) []byte {
	r := sp.bytes[kind]
	return s.full[kind][r[0]:r[1]]
}

// ids are the site's resources of kind, in order.
func (sp *sitePart) ids(s *snapshot, kind string) []string {
	r := sp.lines[kind]
	return s.files[kind][r[0]:r[1]]
}

type publisher struct {
	h    *Handler
	opts BulkOptions
	kick chan struct{}

	gen  sync.Mutex // one generation at a time
	mu   sync.Mutex // guards snap
	snap *snapshot

	// wait sleeps d unless ctx ends first (reporting whether it slept);
	// tests replace it to see the bound.
	wait func(ctx context.Context, d time.Duration) bool
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func newPublisher(h *Handler, opts BulkOptions) *publisher {
	if opts.Debounce <= 0 {
		opts.Debounce = time.Second
	}
	if opts.Refresh <= 0 {
		opts.Refresh = 5 * time.Minute
	}
	if opts.MinInterval <= 0 {
		opts.MinInterval = 5 * time.Minute
	}
	if opts.Days <= 0 {
		opts.Days = 28
	}
	if opts.MaxSlots <= 0 {
		opts.MaxSlots = 200_000
	}
	return &publisher{h: h, opts: opts, kick: make(chan struct{}, 1), wait: sleep}
}

// changed is called by the Service's watcher: it must not block.
func (p *publisher) changed() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *publisher) run(ctx context.Context) {
	for {
		built := time.Now()
		if _, err := p.regenerate(ctx); err != nil && ctx.Err() == nil {
			p.h.log.LogAttrs(ctx, slog.LevelWarn, "fhir bulk publication", slog.String("err", err.Error()))
		}
		t := time.NewTimer(p.opts.Refresh)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-p.kick:
			t.Stop()
			if !p.wait(ctx, p.opts.Debounce) {
				return
			}
		}
		// At most one rebuild per MinInterval: the changes meanwhile are
		// all in the next one.
		if d := p.opts.MinInterval - time.Since(built); d > 0 && !p.wait(ctx, d) {
			return
		}
		select {
		case <-p.kick:
		default:
		}
	}
}

// current returns the latest snapshot, building the first one if the
// background run has not yet.
func (p *publisher) current(ctx context.Context) (*snapshot, error) {
	p.mu.Lock()
	s := p.snap
	p.mu.Unlock()
	if s != nil {
		return s, nil
	}
	return p.regenerate(ctx)
}

// regenerate builds the files from the store. A resource keeps its
// modified time while its content is unchanged, which is what _since
// compares with.
func (p *publisher) regenerate(ctx context.Context) (*snapshot, error) {
	p.gen.Lock()
	defer p.gen.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 4*p.h.timeout)
	defer cancel()
	now := p.h.svc.Now()
	p.mu.Lock()
	prev := p.snap
	p.mu.Unlock()

	s := &snapshot{at: now, files: map[string][]string{}, res: map[string]published{}, full: map[string][]byte{},
		sites: map[int64]*sitePart{}}
	// mark extends the site's run of lines of kind to the file's end so
	// far (its first line is where the run began).
	mark := func(site int64, kind string, first int) {
		sp := s.sites[site]
		if sp == nil {
			return // a site not listed has no Location and no files
		}
		r, ok := sp.lines[kind]
		if !ok {
			r[0] = first
		}
		r[1] = len(s.files[kind])
		sp.lines[kind] = r
	}
	add := func(kind, rid string, r any, setMeta func(*Meta)) error {
		body, err := marshal(r)
		if err != nil {
			return err
		}
		pub := published{hash: sha256.Sum256(body), modified: now}
		if prev != nil {
			if old, ok := prev.res[kind+"/"+rid]; ok && old.hash == pub.hash {
				pub.modified = old.modified
			}
		}
		setMeta(&Meta{LastUpdated: pub.modified.UTC().Format(instantMillis)})
		if pub.line, err = marshal(r); err != nil {
			return err
		}
		pub.line = bytes.TrimSuffix(pub.line, []byte("\n"))
		s.files[kind] = append(s.files[kind], rid)
		s.res[kind+"/"+rid] = pub
		return nil
	}

	_, sites, err := p.h.sites(ctx)
	if err != nil {
		return nil, err
	}
	for _, site := range sites {
		s.sites[site.ID] = &sitePart{lines: map[string][2]int{}, bytes: map[string][2]int{}}
		l := siteLocation(site, p.h.clinic)
		first := len(s.files["Location"])
		if err := add("Location", l.ID, &l, func(m *Meta) { l.Meta = m }); err != nil {
			return nil, err
		}
		mark(site.ID, "Location", first)
	}
	scheds, err := p.h.schedules(ctx)
	if err != nil {
		return nil, err
	}
	// Site by site, so an aggregator reads one place's slots together;
	// doctor by doctor within a site.
	slices.SortStableFunc(scheds, func(a, b schedOf) int { return cmp.Compare(a.site, b.site) })
	cut := 0
	for _, sc := range scheds {
		if sc.doctor == nil {
			continue // rooms are allocated in rounds, not booked by the public
		}
		firstSched, firstSlot := len(s.files["Schedule"]), len(s.files["Slot"])
		sr := sc.res
		if sc.phone != "" {
			sr.Extension = []Extension{{URL: ExtBookingPhone, ValueString: sc.phone}}
		}
		if err := add("Schedule", sr.ID, &sr, func(m *Meta) { sr.Meta = m }); err != nil {
			return nil, err
		}
		// The schedules are sorted by site, so each site's lines are one
		// run of each file (its slots are marked after their pages).
		mark(sc.site, "Schedule", firstSched)
		if p.opts.MaxSlots-len(s.files["Slot"]) <= 0 {
			cut++ // every Schedule is published, its slots not
			continue
		}
		// Read by bounded pages, never more than the file has room for.
		var after booking.SlotCursor
		for {
			room := p.opts.MaxSlots - len(s.files["Slot"])
			if room <= 0 {
				break
			}
			limit := min(room, booking.MaxSlotPage)
			slots, err := p.h.store.ListSlotsPage(ctx, booking.SlotPage{DoctorID: sc.doctor.ID, From: now, To: now.AddDate(0, 0, p.opts.Days), After: after, Limit: limit})
			if err != nil {
				return nil, err
			}
			for _, bs := range slots {
				sl := slot(bs, now, p.h.links(bs, sc))
				if sl.Status == "busy-unavailable" {
					sl.Status = "busy" // SMART Scheduling Links knows only free and busy
				}
				if err := add("Slot", sl.ID, &sl, func(m *Meta) { sl.Meta = m }); err != nil {
					return nil, err
				}
			}
			if len(slots) < limit {
				break
			}
			after = booking.CursorOf(slots)
		}
		mark(sc.site, "Slot", firstSlot)
	}
	if cut > 0 {
		p.h.log.LogAttrs(ctx, slog.LevelWarn, "fhir bulk publication cut at its bound",
			slog.Int("maxSlots", p.opts.MaxSlots), slog.Int("schedulesWithoutSlots", cut))
	}
	tag := sha256.New()
	for _, kind := range bulkTypes {
		var b bytes.Buffer
		at := make([]int, len(s.files[kind])+1) // line → its byte offset
		for i, rid := range s.files[kind] {
			at[i] = b.Len()
			b.Write(s.res[kind+"/"+rid].line)
			b.WriteByte('\n')
		}
		at[len(at)-1] = b.Len()
		s.full[kind] = b.Bytes()
		tag.Write(b.Bytes())
		for _, sp := range s.sites {
			r := sp.lines[kind] // a site without lines of kind: [0, 0)
			sp.bytes[kind] = [2]int{at[r[0]], at[r[1]]}
			if r[1] == r[0] {
				sp.bytes[kind] = [2]int{}
			}
		}
	}
	s.etag = hex.EncodeToString(tag.Sum(nil)[:12])
	for _, sp := range s.sites {
		st := sha256.New()
		for _, kind := range bulkTypes {
			st.Write([]byte(kind))
			st.Write(sp.body(s, kind))
		}
		sp.etag = hex.EncodeToString(st.Sum(nil)[:12])
	}
	p.mu.Lock()
	p.snap = s
	p.mu.Unlock()
	return s, nil
}

// instantMillis is a FHIR instant with milliseconds, so that _since can
// tell generations within one second apart.
const instantMillis = "2006-01-02T15:04:05.000Z07:00"

// since reads the _since (or since) parameter; zero means everything.
func since(q url.Values) (time.Time, string, error) {
	v, name := q.Get("_since"), "_since"
	if v == "" {
		v, name = q.Get("since"), "since"
	}
	if v == "" {
		return time.Time{}, "", nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return t, "", booking.Errorf(booking.CodeInvalidRequest, "%s must be a FHIR instant (2026-12-01T07:00:00Z)", name)
	}
	return t, v, nil
}

// bulkManifest answers the SMART Scheduling Links manifest: the whole
// files, or with site=<id> that site's files only (its Location, its
// doctors' Schedules and their Slots), each entry naming its site in the
// output's extension. The whole manifest keeps its three files and lists
// no site's: SMART consumers read every file of a manifest, and would
// read each slot twice.
func (h *Handler) bulkManifest(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := checkParams(q, "_since", "since", "_type", "site"); err != nil {
		return err
	}
	_, raw, err := since(q)
	if err != nil {
		return err
	}
	site, err := siteParam(q.Get("site"))
	if err != nil {
		return err
	}
	s, err := h.bulk.current(r.Context())
	if err != nil {
		return service.Classify(r.Context(), err)
	}
	type output struct {
		Type      string            `json:"type"`
		URL       string            `json:"url"`
		Extension map[string]string `json:"extension,omitempty"`
	}
	suffix := ""
	if raw != "" {
		suffix = "?_since=" + url.QueryEscape(raw)
	}
	var outs []output
	etag, variant := s.etag, "manifest|"+raw
	if site == 0 {
		for _, kind := range bulkTypes {
			outs = append(outs, output{Type: kind, URL: h.base + "/bulk/" + kind + ".ndjson" + suffix})
		}
	} else {
		sp := s.sites[site]
		if sp == nil {
			return booking.NotFound("site")
		}
		ref := map[string]string{"site": "Location/" + siteID(site)}
		for _, kind := range bulkTypes {
			outs = append(outs, output{Type: kind, URL: h.base + "/bulk/sites/" + id(site) + "/" + kind + ".ndjson" + suffix, Extension: ref})
		}
		etag, variant = sp.etag, "manifest|"+id(site)+"|"+raw
	}
	if h.cacheable(w, r, etag, s.at, variant) {
		return nil
	}
	writeJSONBody(w, map[string]any{
		"transactionTime": s.at.UTC().Format(instantMillis),
		"request":         h.web + r.URL.Path + queryOf(r),
		"output":          outs,
		"error":           []any{},
	}, "application/json")
	return nil
}

// siteParam reads a site's id, as a number or its Location's id
// (site-<id>); zero when absent.
func siteParam(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	if n, ok := siteOf(v); ok {
		return n, nil
	}
	if n, ok := siteOf(sitePrefix + v); ok {
		return n, nil
	}
	return 0, booking.Errorf(booking.CodeInvalidRequest, "site must be a site's id (3 or site-3)")
}

// bulkFile answers one NDJSON file, whole or since an instant.
func (h *Handler) bulkFile(w http.ResponseWriter, r *http.Request) error {
	return h.serveBulk(w, r, 0)
}

// bulkSiteFile answers one site's part of a file, whole or since an
// instant; an unknown site is 404.
func (h *Handler) bulkSiteFile(w http.ResponseWriter, r *http.Request) error {
	site, err := strconv.ParseInt(r.PathValue("site"), 10, 64)
	if err != nil || site <= 0 {
		return booking.NotFound("site")
	}
	return h.serveBulk(w, r, site)
}

// serveBulk answers a file of the snapshot: the whole one (site 0) or a
// site's part, with its own ETag.
func (h *Handler) serveBulk(w http.ResponseWriter, r *http.Request, site int64) error {
	kind, ok := strings.CutSuffix(r.PathValue("file"), ".ndjson")
	if !ok || !slices.Contains(bulkTypes, kind) {
		return booking.NotFound("file")
	}
	q := r.URL.Query()
	if err := checkParams(q, "_since", "since"); err != nil {
		return err
	}
	t, raw, err := since(q)
	if err != nil {
		return err
	}
	s, err := h.bulk.current(r.Context())
	if err != nil {
		return service.Classify(r.Context(), err)
	}
	whole, ids, etag, variant := s.full[kind], s.files[kind], s.etag, kind+"|"+raw
	if site != 0 {
		sp := s.sites[site]
		if sp == nil {
			return booking.NotFound("site")
		}
		whole, ids, etag, variant = sp.body(s, kind), sp.ids(s, kind), sp.etag, id(site)+"|"+variant
	}
	if h.cacheable(w, r, etag, s.at, variant) {
		return nil
	}
	w.Header().Set("Content-Type", "application/fhir+ndjson")
	if t.IsZero() {
		_, err = w.Write(whole)
		return err
	}
	// Streamed line by line from the snapshot: no copy of the file per
	// request, whatever the number of concurrent pollers.
	bw := bufio.NewWriterSize(w, 32<<10)
	for _, rid := range ids {
		if pub := s.res[kind+"/"+rid]; pub.modified.After(t) {
			if _, err := bw.Write(pub.line); err != nil {
				return nil // the client went away; the status is sent
			}
			_ = bw.WriteByte('\n')
		}
	}
	_ = bw.Flush()
	return nil
}

// cacheable lets clients and proxies keep an answer briefly (the files
// change at most once per Debounce) and answers 304 to a client that has
// this generation's variant already, reporting whether it did.
func (h *Handler) cacheable(w http.ResponseWriter, r *http.Request, tag string, at time.Time, variant string) bool {
	v := sha256.Sum256([]byte(variant))
	etag := `"` + tag + "-" + hex.EncodeToString(v[:4]) + `"`
	w.Header().Set("Cache-Control", "public, max-age=2")
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", at.UTC().Format(http.TimeFormat))
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

func writeJSONBody(w http.ResponseWriter, v any, ct string) {
	b, err := marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
}
