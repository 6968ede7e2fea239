package rush

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// newHTTPClient returns a client tuned so that the generator, which shares
// two cores with the server, is never the bottleneck: connections are kept
// alive and reused (one per in-flight request at most), no compression, no
// HTTP/2 upgrade (a single h2 connection would serialize every request
// through one TCP stream and measure that instead of the server).
func newHTTPClient(timeout time.Duration, maxConns int) *http.Client {
	tr := &http.Transport{
		Proxy: nil,
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          0, // no global limit
		MaxIdleConnsPerHost:   maxConns,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
		ResponseHeaderTimeout: timeout,
		WriteBufferSize:       4 << 10,
		ReadBufferSize:        8 << 10,
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// bufPool recycles response buffers: a booking answer is a few hundred
// bytes and thousands arrive per second.
var bufPool = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 2048)) }}

// maxBody bounds what rush reads of one answer.
const maxBody = 1 << 20

// exchange is the result of one request.
type exchange struct {
	status     int
	outcome    Outcome
	retryAfter time.Duration
	latency    time.Duration
	began      time.Time
	// body is only kept when the caller asked (keep); return it with release.
	body *bytes.Buffer
	etag string
	err  error
}

func (x *exchange) release() {
	if x.body != nil {
		x.body.Reset()
		bufPool.Put(x.body)
		x.body = nil
	}
}

// isTimeout reports whether err is the client giving up waiting.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// do sends req and classifies the answer for ep. The body is read fully (so
// the connection is reused) and kept only when keep is true, or for a 409
// whose problem type decides the outcome.
func do(c *http.Client, ep Endpoint, req *http.Request, keep bool) exchange {
	x := exchange{began: time.Now()}
	resp, err := c.Do(req)
	if err != nil {
		x.latency = time.Since(x.began)
		x.err = err
		if isTimeout(err) {
			x.outcome = OutTimeout
		} else {
			x.outcome = OutTransport
		}
		return x
	}
	x.status = resp.StatusCode
	buf := bufPool.Get().(*bytes.Buffer)
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	x.latency = time.Since(x.began)
	if err != nil {
		buf.Reset()
		bufPool.Put(buf)
		x.err = err
		if isTimeout(err) {
			x.outcome = OutTimeout
		} else {
			x.outcome = OutTransport
		}
		return x
	}
	x.outcome = classify(ep, resp.StatusCode, buf.Bytes())
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		x.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	}
	if ep == EndpointList {
		x.etag = resp.Header.Get("ETag")
	}
	if keep || x.outcome.isError() {
		x.body = buf
	} else {
		buf.Reset()
		bufPool.Put(buf)
	}
	return x
}

// classify maps a status and body to an outcome.
func classify(ep Endpoint, status int, body []byte) Outcome {
	switch {
	case status == http.StatusCreated:
		return OutCreated
	case status == http.StatusOK:
		if ep == EndpointBook {
			return OutReplayed
		}
		return OutOK
	case status == http.StatusNotModified:
		return OutNotModified
	case status == http.StatusConflict:
		return problemOutcome(problemType(body))
	case status == http.StatusTooManyRequests:
		return OutRateLimited
	case status == http.StatusServiceUnavailable:
		if problemType(body) == "/problems/overloaded" {
			return OutOverloaded
		}
		return OutUnavailable
	case status == http.StatusBadGateway || status == http.StatusGatewayTimeout:
		// A proxy in front lost the server's answer (an instance died
		// mid-request): like a reset connection, the booking may have
		// been made, so the same key is sent again.
		return OutTransport
	case status >= 500:
		return OutServerError
	}
	return OutClientError
}

// problemType extracts "type" from a problem+json body without a full
// decode: the generator classifies thousands of refusals per second.
func problemType(body []byte) string {
	const key = `"type":`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(body[i+len(key):], " ")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	rest = rest[1:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// parseRetryAfter reads delay-seconds (the only form slotd sends); absent or
// odd values get one second, and the wait is capped so that a confused
// server cannot stall the run.
func parseRetryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return time.Second
	}
	if n > 30 {
		n = 30
	}
	return time.Duration(n) * time.Second
}

// api is a small JSON client for setup and verification, where clarity
// matters more than allocations.
type api struct {
	c    *http.Client
	base string
}

// apiError is a non-2xx answer of a setup or verification call.
type apiError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// call sends in as JSON (nil: no body) with token, and decodes a 2xx answer
// into out (nil: discard).
func (a *api) call(ctx context.Context, method, path, token string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.c.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		s := string(b)
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		return &apiError{Method: method, Path: path, Status: resp.StatusCode, Body: s}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	return nil
}

// statusOf returns the HTTP status of an apiError, or 0.
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}
