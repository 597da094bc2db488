package access

import (
	"net/http"
	"net/netip"
	"strings"
)

// Call is one request put to the Guard, whatever carried it (an HTTP
// request, an MCP tool call, a page's form): who asks, from where, and
// for which endpoint. CallOf reads one from an HTTP request.
type Call struct {
	// Endpoint is the name the call is metered and limited under, such as
	// "perfumes.list" or "mcp.search_perfumes".
	Endpoint string
	// Key is the credentials the caller presented, as sent; empty when it
	// sent none. A keyless call (AdmitAddress) leaves it empty.
	Key string
	// ClientIP is the caller's address, resolved with the trusted-proxy
	// rule (Guard.ClientIP); "unknown" when it could not be read.
	ClientIP string
	// Origin is the web origin a browser sent the call from (its Origin
	// header), which a key restricted to origins must allow; empty for
	// other clients.
	Origin string
	// Cost is how many requests the call counts as against the key's
	// windows (Admit): a page of the change feed counts one per 100
	// records it may hold. 0 counts as 1.
	Cost int64
	// Path and Query are the URL path and raw query of the call, which the
	// scraping signals follow (AbuseConfig.ListEndpoint's page parameter,
	// DetailEndpoint's slug); empty for a call that has no URL.
	Path, Query string
}

// CallOf reads the Call of an HTTP request to endpoint: its key (from
// X-API-Key, else Authorization: Bearer, else the api_key query
// parameter), its client IP under the Guard's trusted proxies, its Origin
// header, and its path and query.
func (g *Guard) CallOf(r *http.Request, endpoint string) Call {
	key, _ := credentials(r)
	return Call{
		Endpoint: endpoint,
		Key:      key,
		ClientIP: g.ClientIP(r),
		Origin:   headerValue(r.Header, "Origin"),
		Path:     r.URL.Path,
		Query:    r.URL.RawQuery,
	}
}

// ClientIP returns the request's client address as a string (see the
// ClientIP function), with the Guard's trusted proxies; "unknown" when the
// peer address cannot be read.
func (g *Guard) ClientIP(r *http.Request) string {
	a := ClientIP(r, g.cfg.TrustedProxies)
	if !a.IsValid() {
		return "unknown"
	}
	// Most often the client is the IPv4 peer: its address as the
	// connection spells it is the canonical text (ParseAddr refuses
	// leading zeros), and needs no new string.
	if i := strings.LastIndexByte(r.RemoteAddr, ':'); a.Is4() && i > 0 {
		if host := r.RemoteAddr[:i]; len(host) <= len("255.255.255.255") {
			if p, err := netip.ParseAddr(host); err == nil && p == a {
				return host
			}
		}
	}
	return a.String()
}

// credentials returns the key a request carries. The X-API-Key header wins
// over Authorization: Bearer, and both over the api_key query parameter.
func credentials(r *http.Request) (string, bool) {
	// The header map is read by canonical names ("X-Api-Key", not
	// "X-API-Key"): net/http canonicalizes the names it reads, and
	// Header.Get would check the name's spelling again on every request.
	if v := strings.TrimSpace(headerValue(r.Header, "X-Api-Key")); v != "" {
		return v, true
	}
	if v, ok := bearer(headerValue(r.Header, "Authorization")); ok {
		return v, true
	}
	if mayHaveKeyParam(r.URL.RawQuery) {
		if v := strings.TrimSpace(r.URL.Query().Get(QueryParam)); v != "" {
			return v, true
		}
	}
	return "", false
}

// headerValue is h.Get(name) for a name in canonical form.
func headerValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// bearer reads "Bearer <token>" (the scheme is case-insensitive).
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
