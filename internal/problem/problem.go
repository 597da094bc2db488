// Package problem writes RFC 9457 problem details, the one error body of
// every /api answer: {"type","title","status","detail","code","error"}, where
// code is a stable machine string and error repeats title for the hosted
// service's existing clients.
package problem

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Codes of the contract's error table.
const (
	InvalidParameter   = "invalid_parameter"
	MissingAPIKey      = "missing_api_key"
	InvalidAPIKey      = "invalid_api_key"
	RevokedAPIKey      = "revoked_api_key"
	SuspendedAPIKey    = "suspended_api_key"
	OriginNotAllowed   = "origin_not_allowed"
	NotFound           = "not_found"
	MethodNotAllowed   = "method_not_allowed"
	RateLimited        = "rate_limited"
	DailyLimitExceeded = "daily_limit_exceeded"
	Unavailable        = "unavailable"
	Internal           = "internal_error"
)

// ContentType is the media type of a problem body.
const ContentType = "application/problem+json"

// FieldError names one invalid query parameter.
type FieldError struct {
	Parameter string `json:"parameter"`
	Message   string `json:"message"`
}

// Problem is one error answer. Extra members (retryAfter, dailyRemaining,
// ...) go in Extra and are written beside the standard ones.
type Problem struct {
	Status int
	Code   string
	Title  string
	Detail string
	Errors []FieldError
	Extra  map[string]any
}

// New returns a problem with the given status, code and title.
func New(status int, code, title, detail string) *Problem {
	return &Problem{Status: status, Code: code, Title: title, Detail: detail}
}

// TypeURI is the documentation address of a problem code, relative to the
// service's base URL.
func TypeURI(code string) string { return "/docs/errors#" + code }

// MarshalJSON writes the standard members, errors and extras, with what
// the client sent shortened (see MaxEcho).
func (p *Problem) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 8+len(p.Extra))
	for k, v := range p.Extra {
		m[k] = v
	}
	m["type"] = TypeURI(p.Code)
	m["title"] = p.Title
	m["status"] = p.Status
	m["detail"] = shorten(p.Detail)
	m["code"] = p.Code
	m["error"] = p.Title
	if len(p.Errors) > 0 {
		errs := make([]FieldError, len(p.Errors))
		for i, e := range p.Errors {
			errs[i] = FieldError{Parameter: shorten(e.Parameter), Message: shorten(e.Message)}
		}
		m["errors"] = errs
	}
	return json.Marshal(m)
}

// Write sends p as the response. HEAD requests get the headers only.
func Write(w http.ResponseWriter, r *http.Request, p *Problem) {
	body, err := json.Marshal(p)
	if err != nil { // only extras of unsupported types can fail; never expected
		body = []byte(`{"type":"/docs/errors#internal_error","title":"Internal server error","status":500,"detail":"","code":"internal_error","error":"Internal server error"}`)
		p = &Problem{Status: http.StatusInternalServerError}
	}
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	if r == nil || r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
}

// GetOnly wraps h so that OPTIONS answers 204 with the methods allowed
// (RFC 9110 §9.3.7; a CORS preflight under /api is answered before
// routing, by the CORS layer) and any other method but GET and HEAD
// answers 405 method_not_allowed with the same Allow header.
func GetOnly(h http.Handler) http.Handler {
	const allowGet = "GET, HEAD, OPTIONS"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			w.Header().Set("Allow", allowGet)
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", allowGet)
			Write(w, r, Of(MethodNotAllowed,
				r.Method+" is not allowed here; the API is read-only ("+allowGet+")"))
			return
		}
		h.ServeHTTP(w, r)
	})
}
