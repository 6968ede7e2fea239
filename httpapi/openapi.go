package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/slotd/slotd/auth"
)

// openapiJSON is the OpenAPI 3.0 description of every route of this
// package. Tests load it with kin-openapi and validate every request and
// answer of the HTTP tests against it, so it cannot drift from the code.
//
//go:embed openapi.json
var openapiJSON []byte

// OpenAPI returns the embedded OpenAPI document.
func OpenAPI() []byte { return append([]byte(nil), openapiJSON...) }

func (s *server) openapi(w http.ResponseWriter, _ *http.Request, _ auth.Claims) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openapiJSON)
	return nil
}
