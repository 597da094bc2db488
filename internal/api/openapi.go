package api

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI is the OpenAPI 3.1 document of every endpoint the service serves.
func OpenAPI() []byte { return openAPIDoc }

// openAPI serves the OpenAPI 3.1 document (no key needed).
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(openAPIDoc)
}
