package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Error is a problem the service answered (RFC 9457 problem details):
// the status, the stable code (invalid_parameter, missing_api_key,
// rate_limited, not_found, ...; every code is explained at /docs/errors),
// the detail, and the request id to quote when asking the operator.
type Error struct {
	Status    int
	Code      string
	Title     string
	Detail    string
	RequestID string
	// RetryAfter is how long to wait before trying again (429, 503).
	RetryAfter time.Duration
	// Errors names the parameters that were wrong (invalid_parameter).
	Errors []FieldError
}

// Error says what the service said.
func (e *Error) Error() string {
	s := fmt.Sprintf("fragrance API: %d %s", e.Status, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// problemOf reads the problem of an answer that is not a 200. A body that
// is not a problem (a proxy's page, say) still gives the status and the
// request id.
func problemOf(res *http.Response, body []byte) *Error {
	e := &Error{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	var p Problem
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		e.Code, e.Title, e.Detail = string(p.Code), p.Title, p.Detail
		if p.Errors != nil {
			e.Errors = *p.Errors
		}
	} else {
		e.Code, e.Title = "http_"+fmt.Sprint(res.StatusCode), http.StatusText(res.StatusCode)
	}
	if d, ok := retryAfter(res.Header); ok {
		e.RetryAfter = d
	}
	return e
}
