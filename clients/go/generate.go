// Package slotdclient is a Go client of slotd's JSON API, generated from
// httpapi/openapi.json with oapi-codegen (go generate ./clients/go).
package slotdclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi.yaml ../../httpapi/openapi.json
