package problem

import "net/http"

// Code documents one problem code of the contract: the status it answers
// with, its title (the exact text of title and error, which existing
// clients compare) and when it is answered. Codes is the one table of
// them: the error reference page (/docs/errors) is rendered from it, and
// the tests hold the OpenAPI document and every answer to it.
type Code struct {
	Code   string
	Status int
	Title  string
	When   string
}

// Codes lists every problem code, in the contract's order.
var Codes = []Code{
	{InvalidParameter, http.StatusBadRequest, "Invalid parameter", "page or limit not a positive whole number; a parameter given twice; unknown gender, season or time; an accord strength outside 0–100; q or search longer than 200 characters; unknown accord or note names in match (with suggestions); match with none of accords, notes, gender, season and time"},
	{MissingAPIKey, http.StatusUnauthorized, "Missing API key", "no key in X-API-Key, Authorization: Bearer or api_key"},
	{InvalidAPIKey, http.StatusUnauthorized, "Invalid API key", "a key that does not exist or fails its checksum"},
	{RevokedAPIKey, http.StatusUnauthorized, "Revoked API key", "a revoked key, or a replaced key whose grace period has ended (it expired)"},
	{SuspendedAPIKey, http.StatusForbidden, "Suspended API key", "a key suspended for abuse"},
	{OriginNotAllowed, http.StatusForbidden, "Origin not allowed", "a browser key used from an origin it does not allow"},
	{NotFound, http.StatusNotFound, "Not found", "unknown perfume or perfumer, unknown path under /api"},
	{MethodNotAllowed, http.StatusMethodNotAllowed, "Method not allowed", "any method but GET, HEAD and OPTIONS (with an Allow header)"},
	{RateLimited, http.StatusTooManyRequests, "Rate limit exceeded", "the minute window is full, or too many failed key checks from one client IP"},
	{DailyLimitExceeded, http.StatusTooManyRequests, "Daily limit exceeded", "the day window is full"},
	{Internal, http.StatusInternalServerError, "Internal server error", "a failure on our side; it is logged and never detailed"},
	{Unavailable, http.StatusServiceUnavailable, "Service unavailable", "the catalogue is loading, or the key store cannot be reached (authentication fails closed)"},
}

// Of returns the problem of code, with its status and title from Codes
// and detail. An unknown code is a programming error and answers as
// internal_error.
func Of(code, detail string) *Problem {
	for _, c := range Codes {
		if c.Code == code {
			return New(c.Status, c.Code, c.Title, detail)
		}
	}
	return New(http.StatusInternalServerError, Internal, "Internal server error", detail)
}
