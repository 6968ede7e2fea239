// Package twiliotest is a local fake of Twilio's Messages API for tests:
// it checks each request as Twilio documents it (POST, form-encoded, HTTP
// basic auth with the account SID and auth token, To, Body and From or
// MessagingServiceSid) and answers what the test scripts: 201 with a new
// sid, or Twilio's error answers (400 with a code, 429, 5xx).
package twiliotest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// Account and token the fake accepts.
const (
	AccountSID = "AC00000000000000000000000000000001"
	AuthToken  = "test-auth-token-0123456789"
)

// Request is one message request the fake accepted as well-formed.
type Request struct {
	Form url.Values
	SID  string // the sid answered, "" for an error answer
}

// Fake is a running fake Twilio.
type Fake struct {
	*httptest.Server
	mu       sync.Mutex
	script   []int
	requests []Request
	next     int
}

// New starts a fake that answers the statuses of script in turn (201 once
// it runs out); t stops it at the end of the test.
func New(t testing.TB, script ...int) *Fake {
	f := &Fake{script: script}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Requests returns the well-formed requests received.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+AccountSID+"/Messages.json" {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"code": 20404, "message": "The requested resource was not found", "status": 404}`)
		return
	}
	if user, pass, ok := r.BasicAuth(); !ok || user != AccountSID || pass != AuthToken {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"code": 20003, "message": "Authenticate", "status": 401}`)
		return
	}
	if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"code": 20001, "message": "not a form", "status": 400}`)
		return
	}
	form := r.PostForm
	if form.Get("To") == "" || form.Get("Body") == "" || (form.Get("From") == "") == (form.Get("MessagingServiceSid") == "") {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"code": 21604, "message": "A 'To', a 'Body' and one of 'From' or 'MessagingServiceSid' are required.", "status": 400}`)
		return
	}
	f.mu.Lock()
	status := http.StatusCreated
	if len(f.script) > 0 {
		status, f.script = f.script[0], f.script[1:]
	}
	req := Request{Form: form}
	if status == http.StatusCreated {
		f.next++
		req.SID = fmt.Sprintf("SM%032d", f.next)
	}
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	w.WriteHeader(status)
	switch status {
	case http.StatusCreated:
		fmt.Fprintf(w, `{"sid": %q, "status": "queued", "to": %q}`, req.SID, form.Get("To"))
	case http.StatusBadRequest:
		fmt.Fprintf(w, `{"code": 21211, "message": "The 'To' number %s is not a valid phone number.", "more_info": "https://www.twilio.com/docs/errors/21211", "status": 400}`, form.Get("To"))
	case http.StatusTooManyRequests:
		fmt.Fprint(w, `{"code": 20429, "message": "Too Many Requests", "status": 429}`)
	default:
		fmt.Fprintf(w, `{"code": 20500, "message": "Internal Server Error", "status": %d}`, status)
	}
}
