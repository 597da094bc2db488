package api

import (
	_ "embed"
	"net/http"
	"slices"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPIDocument returns a copy of the OpenAPI 3.1 document the API
// serves at /api/openapi.json, for the pages that render it (the
// developer docs and the playground).
func OpenAPIDocument() []byte { return slices.Clone(openAPIDoc) }

// openAPI serves the OpenAPI 3.1 document (no key needed).
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(openAPIDoc)
}
