package api

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
)

// logLevel logs server errors as errors, 503s (loading, a backing
// service away: each is also logged where it is noticed) as warnings and
// everything else as info.
func logLevel(status int) slog.Level {
	switch {
	case status == 503:
		return slog.LevelWarn
	case status >= 500:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// slogAttrs are the fields of one access-log line. The query is logged
// without api_key, whose value must never reach a log.
func slogAttrs(r *http.Request, ri *requestInfo, sw *statusWriter, d time.Duration) []slog.Attr {
	attrs := []slog.Attr{
		slog.String("request_id", ri.id),
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.String("route", ri.route),
		slog.Int("status", sw.status),
		slog.Int("bytes", sw.bytes),
		slog.Duration("duration", d),
		slog.String("remote", r.RemoteAddr),
	}
	if q := access.RedactQuery(r.URL.RawQuery); q != "" {
		attrs = append(attrs, slog.String("query", q))
	}
	if li := ri.access; li != nil {
		if li.KeyPrefix != "" {
			attrs = append(attrs, slog.String("key_prefix", li.KeyPrefix))
		}
		if li.ClientIP != "" {
			attrs = append(attrs, slog.String("client_ip", li.ClientIP))
		}
	}
	return attrs
}
