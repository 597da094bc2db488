package server

import (
	"net/http"
	"strings"
)

// corsPolicy is what a mount allows a browser: the request headers a
// preflight may name and the response headers a script may read. Origins
// are always *, without credentials (the contract): keys travel in
// headers, never in cookies.
type corsPolicy struct {
	allowHeaders  []string
	exposeHeaders []string
}

// The CORS policies of the API and of the image host. Their header values
// are shared by all answers (the header map holds them as is; they must
// never be modified).
var (
	apiCORS = &corsPolicy{
		allowHeaders:  []string{"X-API-Key, Authorization, Content-Type"},
		exposeHeaders: []string{"RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, X-API-Version, X-Service-Nobg-Status"},
	}
	imageCORS = &corsPolicy{
		allowHeaders:  []string{"X-API-Key, Authorization, Content-Type, Range, If-None-Match"},
		exposeHeaders: []string{"ETag, Content-Length, X-Service-Nobg-Status, X-Request-Id, X-API-Version"},
	}
	corsAnyOrigin = []string{"*"}
	corsMethods   = []string{"GET, HEAD, OPTIONS"}
	corsMaxAge    = []string{"86400"}
	corsVary      = []string{"Origin"}
)

// corsFor is the policy of the mount a path belongs to: the API's under
// /api/, the image host's under the image path, none elsewhere (pages are
// same-origin only).
func (s *Server) corsFor(path string) *corsPolicy {
	switch {
	case strings.HasPrefix(path, "/api/"):
		return apiCORS
	case s.imagePrefix != "" && strings.HasPrefix(path, s.imagePrefix):
		return imageCORS
	}
	return nil
}

// cors sets the CORS headers of the request's mount on its answer, and
// answers preflight requests itself (no key needed). It reports whether
// the request was fully answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	p := s.corsFor(r.URL.Path)
	if p == nil {
		return false
	}
	h := w.Header()
	h["Access-Control-Allow-Origin"] = corsAnyOrigin
	h["Access-Control-Expose-Headers"] = p.exposeHeaders
	if r.Method != http.MethodOptions {
		return false
	}
	h["Access-Control-Allow-Methods"] = corsMethods
	h["Access-Control-Allow-Headers"] = p.allowHeaders
	h["Access-Control-Max-Age"] = corsMaxAge
	h["Vary"] = corsVary
	w.WriteHeader(http.StatusNoContent)
	return true
}
