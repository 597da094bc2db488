package access

import (
	"context"
	"net/url"
	"strings"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// requestInfo is what the Guard learned about a request.
type requestInfo struct {
	key      apikey.Key
	decision ratelimit.Decision
	clientIP string
}

type ctxKey struct{}

func withInfo(ctx context.Context, ri *requestInfo) context.Context {
	return context.WithValue(ctx, ctxKey{}, ri)
}

func infoFrom(ctx context.Context) *requestInfo {
	if li := logInfoFrom(ctx); li != nil && li.passed {
		return &li.info
	}
	ri, _ := ctx.Value(ctxKey{}).(*requestInfo)
	return ri
}

// Caller returns who made a request that passed the Guard: its key, the
// decision of its windows and the limits that apply to the key.
func (g *Guard) Caller(ctx context.Context) (apikey.Key, ratelimit.Decision, apikey.Limits, bool) {
	ri := infoFrom(ctx)
	if ri == nil {
		return apikey.Key{}, ratelimit.Decision{}, apikey.Limits{}, false
	}
	return ri.key, ri.decision, g.Tiers().For(ri.key), true
}

// LogInfo is what the Guard tells middleware that runs outside it, such as
// the access log, which cannot see the context the Guard gives the handler.
// The Guard fills it during ServeHTTP, and so do its admission calls
// (Check, Admit, AdmitAddress) given the request's context; read it after
// ServeHTTP returns.
type LogInfo struct {
	// KeyPrefix is the display prefix of the request's key, once the key
	// is known (also when the request was then refused); never the key.
	KeyPrefix string
	// ClientIP is the client address the Guard used.
	ClientIP string

	// What Caller returns, once the Guard admitted the
	// request (passed).
	info   requestInfo
	passed bool
}

type logInfoKey struct{}

// LogInfoKey is the context key the Guard reads a *LogInfo under. The
// caller gives each request a LogInfo, with context.WithValue or, when it
// already gives each request a context of its own, from that context's
// Value method, without adding a layer:
//
//	func (c *reqCtx) Value(k any) any {
//		if k == access.LogInfoKey {
//			return &c.log
//		}
//		return c.Context.Value(k)
//	}
var LogInfoKey any = logInfoKey{}

func logInfoFrom(ctx context.Context) *LogInfo {
	li, _ := ctx.Value(logInfoKey{}).(*LogInfo)
	return li
}

// QueryParam is the query parameter that may carry a key.
const QueryParam = "api_key"

// RedactQuery replaces the value of every api_key parameter of a raw query
// with "REDACTED", for access logs: a key must never reach a log line.
func RedactQuery(raw string) string {
	if !mayHaveKeyParam(raw) {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil && n == QueryParam {
			parts[i] = QueryParam + "=REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

// stripKeyParam removes api_key from a raw query, so that handlers behind
// the Guard never see the key, even if they echo their URL.
func stripKeyParam(raw string) string {
	if !mayHaveKeyParam(raw) {
		return raw
	}
	parts := strings.Split(raw, "&")
	out := parts[:0]
	for _, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil && n == QueryParam {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, "&")
}

// mayHaveKeyParam is a cheap test that lets most queries skip parsing; a
// name may be percent-encoded ("api%5Fkey"), hence the "%".
func mayHaveKeyParam(raw string) bool {
	return strings.Contains(raw, QueryParam) || strings.Contains(raw, "%")
}
