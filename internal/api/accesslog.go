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

// accessRecord is the access-log line of one request: a record made here,
// without the caller's program counter slog.Logger would look up on every
// request for nothing, its fields added in place (no slice to build). The
// query is logged without api_key, whose value must never reach a log.
func accessRecord(r *http.Request, ri *requestInfo, sw *statusWriter, at time.Time, level slog.Level, d time.Duration) slog.Record {
	rec := slog.NewRecord(at, level, "request", 0)
	rec.AddAttrs(
		slog.String("request_id", ri.id),
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.String("route", ri.route),
		slog.Int("status", sw.status),
	)
	var extra [6]slog.Attr // beyond the five a record holds inline: one allocation
	more := append(extra[:0],
		slog.Int("bytes", sw.bytes),
		slog.Duration("duration", d),
		slog.String("remote", r.RemoteAddr),
	)
	if q := access.RedactQuery(r.URL.RawQuery); q != "" {
		more = append(more, slog.String("query", q))
	}
	if li := ri.access; li != nil {
		if li.KeyPrefix != "" {
			more = append(more, slog.String("key_prefix", li.KeyPrefix))
		}
		if li.ClientIP != "" {
			more = append(more, slog.String("client_ip", li.ClientIP))
		}
	}
	rec.AddAttrs(more...)
	return rec
}
