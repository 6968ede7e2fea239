package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/testkit"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb syncBuffer
		if err := run(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !regexp.MustCompile(`^slotd \S+ \(revision \S+.*go1\.`).MatchString(out.String()) {
			t.Fatalf("%v printed %q", args, out.String())
		}
	}
}

func TestSecretsFromFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLOTD_PAYMENT_SECRET_FILE", path)
	var f serveFlags
	fs := newServeFlagSet(&f)
	if err := parse(fs, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if f.paymentSecret != "from-a-file" {
		t.Fatalf("payment secret %q", f.paymentSecret)
	}
	t.Setenv("SLOTD_PAYMENT_SECRET", "also-in-env")
	if err := parse(newServeFlagSet(&f), nil, io.Discard); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("both set: %v", err)
	}
}

// writeCert writes a fresh self-signed certificate for 127.0.0.1 named cn.
func writeCert(t *testing.T, certFile, keyFile, cn string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A reload serves the renewed certificate to new connections; a broken
// file keeps the old one.
func TestCertReload(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	writeCert(t, certFile, keyFile, "first")
	certs, err := newCertReloader(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), ReadHeaderTimeout: time.Second}
	go srv.Serve(tls.NewListener(ln, certs.config()))
	defer srv.Close()
	served := func() string {
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if cn := served(); cn != "first" {
		t.Fatalf("served %q", cn)
	}
	writeCert(t, certFile, keyFile, "renewed")
	if err := certs.reload(); err != nil {
		t.Fatal(err)
	}
	if cn := served(); cn != "renewed" {
		t.Fatalf("after reload served %q", cn)
	}
	os.WriteFile(certFile, []byte("garbage"), 0o600)
	if certs.reload() == nil {
		t.Fatal("a broken certificate was accepted")
	}
	if cn := served(); cn != "renewed" {
		t.Fatalf("after a failed reload served %q", cn)
	}
}

// otlpReceiver collects the spans slotd exports with OTLP over HTTP.
type otlpReceiver struct {
	mu    sync.Mutex
	spans map[string][]string // span name → trace ids (hex)
	attrs map[string][]string // span name → attribute keys
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				o.spans[s.Name] = append(o.spans[s.Name], hex.EncodeToString(s.TraceId))
				for _, a := range s.Attributes {
					o.attrs[s.Name] = append(o.attrs[s.Name], a.Key)
				}
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(out)
}

// TestServeOperations runs `slotd serve` as the operations team would:
// secrets from files, a trusted proxy, metrics on their own listener, OTLP
// export; then checks the web pages are counted and logged with the
// caller's trace, the booking span is exported, every metric the alert
// rules and dashboard use exists, and SIGTERM drains readiness first.
func TestServeOperations(t *testing.T) {
	recv := &otlpReceiver{spans: map[string][]string{}, attrs: map[string][]string{}}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")

	dir := t.TempDir()
	secret := "ops-test-secret-ops-test-secret-0123456789"
	secretFile := filepath.Join(dir, "auth-secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLOTD_AUTH_SECRET_FILE", secretFile)
	ml, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := ml.Addr().String()
	ml.Close()

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--log-format", "json", "--drain", "3s",
			"--metrics-addr", metricsAddr, "--trusted-proxies", "127.0.0.1/32", "--cors-origins", "https://app.example",
			"--reconcile-interval", "100ms",
			"--db", "sqlite:" + filepath.Join(dir, "ops.db")}, &out, &errb)
	}()
	base := waitURL(t, &out, &errb, done)

	const traceID = "0af7651916cd43dd8448eb211c80319c"
	get := func(url string, h map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := get(base+"/", map[string]string{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01",
		"X-Forwarded-For": "203.0.113.5", "X-Forwarded-Proto": "https", "X-Request-Id": "ops-home"})
	if res.StatusCode != 200 || res.Header.Get("Strict-Transport-Security") == "" {
		t.Fatalf("GET / through the proxy: %d, HSTS %q", res.StatusCode, res.Header.Get("Strict-Transport-Security"))
	}
	// The token minted with the secret from the file is accepted.
	signer, _ := auth.NewSigner([]byte(secret))
	tok, _ := signer.Mint(auth.RolePatient, "1", time.Hour)
	if res := get(base+"/api/me/appointments", map[string]string{"Authorization": "Bearer " + tok}); res.StatusCode != 200 {
		t.Fatalf("a token of SLOTD_AUTH_SECRET_FILE's secret: %d", res.StatusCode)
	}
	book(t, base, tok, traceID)
	pre, _ := http.NewRequest("OPTIONS", base+"/api/appointments", nil)
	pre.Header.Set("Origin", "https://app.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	if res, err := http.DefaultClient.Do(pre); err != nil || res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("CORS preflight: %v %v", err, res)
	}
	if res := get(base+"/metrics", nil); res.StatusCode != 404 {
		t.Fatalf("public /metrics with --metrics-addr: %d", res.StatusCode)
	}
	// The first periodic reconciliation runs a moment after start.
	// (Not there within the minute: the checks below say what is missing.)
	var exposition []byte
	testkit.Poll(60*time.Second, func() bool {
		mres, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		exposition, _ = io.ReadAll(mres.Body)
		mres.Body.Close()
		return strings.Contains(string(exposition), "\nslotd_reconciliation_issues{")
	})
	for _, want := range []string{`route="GET /{$}"`, "slotd_build_info{", "# TYPE slotd_db_pool_wait_seconds_total counter"} {
		if !strings.Contains(string(exposition), want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}
	for _, name := range deployMetricNames(t) {
		if !strings.Contains(string(exposition), "\n"+name) {
			t.Errorf("deploy/ uses %s, which slotd does not export", name)
		}
	}

	// SIGTERM: /readyz answers 503 while the listener still serves.
	stop()
	testkit.Eventually(t, "/readyz to answer 503 after the signal", 30*time.Second, func() bool {
		return get(base+"/readyz", nil).StatusCode == 503
	})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop")
	}

	// The web page's access log line carries the caller's trace and its
	// request id and real client address.
	var found bool
	for _, line := range strings.Split(errb.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "http" || rec["route"] != "GET /{$}" {
			continue
		}
		found = rec["traceId"] == traceID && rec["requestId"] == "ops-home" && rec["client"] == "203.0.113.5"
	}
	if !found {
		t.Fatalf("no access log line of GET / with its trace, request id and client:\n%s", errb.String())
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if ids := recv.spans["booking.Book"]; len(ids) == 0 || ids[0] != traceID {
		t.Fatalf("booking span not exported in the caller's trace: %v (spans %v)", ids, keys(recv.spans))
	}
	if !strings.Contains(strings.Join(recv.attrs["booking.Book"], ","), "slotd.booking.outcome") {
		t.Fatalf("booking span attributes %v", recv.attrs["booking.Book"])
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// waitURL waits for serve to print its URL and be listening.
func waitURL(t *testing.T, out, errb *syncBuffer, done chan error) string {
	t.Helper()
	urlRe := regexp.MustCompile(`running at (https?://[0-9.:]+)`)
	var base string
	if !testkit.Poll(180*time.Second, func() bool {
		if m := urlRe.FindStringSubmatch(out.String()); m != nil && strings.Contains(errb.String(), "slotd listening") {
			base = m[1]
			return true
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, errb.String())
		default:
		}
		return false
	}) {
		t.Fatalf("serve did not start:\n%s\n%s", out.String(), errb.String())
	}
	return base
}

// book tries to book the first slot of doctor 1 in trace traceID.
func book(t *testing.T, base, tok, traceID string) {
	t.Helper()
	res, err := http.Get(base + "/api/doctors/1/availability")
	if err != nil {
		t.Fatal(err)
	}
	var av struct {
		Days []struct {
			Date      string `json:"date"`
			Remaining int    `json:"remaining"`
		} `json:"days"`
	}
	json.NewDecoder(res.Body).Decode(&av)
	res.Body.Close()
	date := ""
	for _, d := range av.Days {
		if d.Remaining > 0 {
			date = d.Date
			break
		}
	}
	if res, err = http.Get(base + "/api/doctors/1/slots?date=" + date); err != nil {
		t.Fatal(err)
	}
	var day struct {
		Slots []struct {
			ID int64 `json:"id"`
		} `json:"slots"`
	}
	json.NewDecoder(res.Body).Decode(&day)
	res.Body.Close()
	slots := day.Slots
	if len(slots) == 0 {
		t.Fatalf("no demo slot on %q: %+v", date, av)
	}
	req, _ := http.NewRequest("POST", base+"/api/appointments", strings.NewReader(fmt.Sprintf(`{"slotId":%d}`, slots[0].ID)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Idempotency-Key", "ops-test-1")
	req.Header.Set("traceparent", "00-"+traceID+"-c7ad6b7169203331-01")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

// deployMetricNames are the slotd_ metrics the alert rules and the
// dashboard query, as they appear in the exposition (histograms by their
// _bucket/_count series).
func deployMetricNames(t *testing.T) []string {
	t.Helper()
	var names []string
	seen := map[string]bool{}
	for _, f := range []string{"../../deploy/prometheus/alerts.yml", "../../deploy/grafana/slotd.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range regexp.MustCompile(`slotd_[a-z_]+`).FindAllString(string(b), -1) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}
