package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapiJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
}

// TestOpenAPICoversEveryRoute compares the mux's patterns with the
// document's operations, both ways.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapiJSON)
	if err != nil {
		t.Fatal(err)
	}
	var inDoc []string
	for path, item := range doc.Paths.Map() {
		if strings.HasPrefix(path, "/ical/") {
			continue // served by package ical, whose test compares them
		}
		for method := range item.Operations() {
			inDoc = append(inDoc, method+" "+path)
		}
	}
	s := newServer(Config{Service: service.NewService(nil, service.Options{}), Signer: mustSigner(t)})
	var inMux []string
	for _, p := range s.patterns {
		inMux = append(inMux, p)
	}
	sort.Strings(inDoc)
	sort.Strings(inMux)
	if strings.Join(inDoc, "\n") != strings.Join(inMux, "\n") {
		t.Fatalf("routes differ\nopenapi.json:\n%s\n\nmux:\n%s", strings.Join(inDoc, "\n"), strings.Join(inMux, "\n"))
	}
}

// TestOpenAPIProblemTypesKnown checks that the document's Problem schema
// accepts every code's type.
func TestOpenAPIProblemTypesKnown(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Pattern string `json:"pattern"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(doc.Components.Schemas["Problem"].Properties["type"].Pattern)
	for _, c := range booking.Codes() {
		if !re.MatchString("/problems/" + string(c)) {
			t.Errorf("%s does not match the Problem type pattern", c)
		}
	}
}

func TestServeOpenAPI(t *testing.T) {
	e := newEnv(t)
	a := e.do(call{method: "GET", path: "/openapi.json"}).expect(t, 200)
	if a.header.Get("Content-Type") != "application/json" || string(a.body) != string(openapiJSON) {
		t.Fatalf("%q", a.header.Get("Content-Type"))
	}
}

// TestOpenAPIInputNumbersAreBounded checks that every number a client
// sends (parameters and request bodies) has a documented minimum and
// maximum, the ranges the handlers check.
func TestOpenAPIInputNumbersAreBounded(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapiJSON)
	if err != nil {
		t.Fatal(err)
	}
	var check func(where string, s *openapi3.Schema)
	check = func(where string, s *openapi3.Schema) {
		if s == nil {
			return
		}
		if s.Type.Is("integer") || s.Type.Is("number") {
			if s.Min == nil || s.Max == nil {
				t.Errorf("%s: a number without minimum and maximum", where)
			}
		}
		if s.Items != nil {
			check(where+"[]", s.Items.Value)
		}
		for name, p := range s.Properties {
			check(where+"."+name, p.Value)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				if p.Value.Schema != nil {
					check(method+" "+path+" ?"+p.Value.Name, p.Value.Schema.Value)
				}
			}
			if op.RequestBody != nil {
				for _, mt := range op.RequestBody.Value.Content {
					if mt.Schema != nil {
						check(method+" "+path+" body", mt.Schema.Value)
					}
				}
			}
		}
	}
}

// TestOpenAPIStatusEnumsAreTheDomains keeps every enum of appointment states
// in the document equal to booking.Statuses, so a new state cannot be
// forgotten in the API's description.
func TestOpenAPIStatusEnumsAreTheDomains(t *testing.T) {
	var want []string
	for _, s := range booking.Statuses {
		want = append(want, string(s))
	}
	found := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if enum, ok := x["enum"].([]any); ok && slices.Contains(enum, any(string(booking.StatusHeld))) {
				found++
				var got []string
				for _, e := range enum {
					got = append(got, e.(string))
				}
				if !slices.Equal(got, want) {
					t.Errorf("an appointment state enum lists %v, booking.Statuses %v", got, want)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	if found == 0 {
		t.Fatal("no appointment state enum in openapi.json")
	}
}
