package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
)

// logLevel logs server errors as errors, 503s (loading, a backing
// service away: each is also logged where it is noticed) as warnings and
// everything else as info, a client that went away (499) included.
func logLevel(status int) slog.Level {
	switch {
	case status == 503:
		return slog.LevelWarn
	case status >= 500:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// AccessEntry is the access-log line of one request. Query is logged
// without api_key's value, which must never reach a log, and Path and
// Query with anything shaped like a key cut to its prefix.
type AccessEntry struct {
	Time      time.Time
	Level     slog.Level
	RequestID string
	Method    string
	Path      string
	Route     string
	Status    int
	Bytes     int
	Duration  time.Duration
	Remote    string
	Query     string // empty: not logged
	KeyPrefix string // empty: not logged
	ClientIP  string // empty: not logged
}

// AccessLog takes the access-log lines when Config.AccessLog is set,
// instead of Config.Logger: it is called once per request, so it should
// append e with AppendText or AppendJSON (which write what slog's text and
// JSON handlers write for e.Record, without their cost) to its output.
// Log must not keep e.
type AccessLog interface {
	Enabled(level slog.Level) bool
	Log(e *AccessEntry)
}

// maxLogged bounds the path and the query of an access-log line: a client
// cannot make one request write 100 KB of log.
const maxLogged = 1024

// clipLogged is s cut to maxLogged bytes (at a rune boundary), marked with
// an ellipsis and the length sent.
func clipLogged(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	cut := maxLogged
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// redactToken hides the value of a "token" parameter: the developer
// portal's sign-in links carry one, and an unused link signs its holder in.
func redactToken(raw string) string {
	if !strings.Contains(raw, "token") {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		if name, _, _ := strings.Cut(p, "="); name == "token" {
			parts[i] = "token=REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

// fill sets e from a finished request and its state.
func (e *AccessEntry) fill(r *http.Request, st *requestState, at time.Time, level slog.Level, d time.Duration) {
	*e = AccessEntry{
		Time: at, Level: level, RequestID: st.info.id, Method: r.Method, Path: clipLogged(apikey.RedactSecrets(r.URL.Path)), Route: st.info.route,
		Status: st.writer.status, Bytes: st.writer.bytes, Duration: d, Remote: r.RemoteAddr,
		// api_key's value, and a key wherever else a client put one.
		Query:     clipLogged(apikey.RedactSecrets(redactToken(access.RedactQuery(r.URL.RawQuery)))),
		KeyPrefix: st.log.KeyPrefix, ClientIP: st.log.ClientIP,
	}
}

// Record is e as a slog record, for Config.Logger: made here, without the
// caller's program counter slog.Logger would look up on every request for
// nothing, its fields added in place.
func (e *AccessEntry) Record() slog.Record {
	rec := slog.NewRecord(e.Time, e.Level, "request", 0)
	rec.AddAttrs(
		slog.String("request_id", e.RequestID),
		slog.String("method", e.Method),
		slog.String("path", e.Path),
		slog.String("route", e.Route),
		slog.Int("status", e.Status),
	)
	var extra [6]slog.Attr // beyond the five a record holds inline: one allocation
	more := append(extra[:0],
		slog.Int("bytes", e.Bytes),
		slog.String("duration", e.Duration.String()), // the log's convention: "1.2ms", never bare nanoseconds
		slog.String("remote", e.Remote),
	)
	if e.Query != "" {
		more = append(more, slog.String("query", e.Query))
	}
	if e.KeyPrefix != "" {
		more = append(more, slog.String("key_prefix", e.KeyPrefix))
	}
	if e.ClientIP != "" {
		more = append(more, slog.String("client_ip", e.ClientIP))
	}
	rec.AddAttrs(more...)
	return rec
}

// AppendText appends e as one line, exactly as slog.TextHandler writes
// e.Record (accesslog_test.go holds it to that).
func (e *AccessEntry) AppendText(b []byte) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, e.Time)
	b = append(b, " level="...)
	b = append(b, e.Level.String()...)
	b = append(b, " msg=request request_id="...)
	b = appendTextString(b, e.RequestID)
	b = appendTextString(append(b, " method="...), e.Method)
	b = appendTextString(append(b, " path="...), e.Path)
	b = appendTextString(append(b, " route="...), e.Route)
	b = strconv.AppendInt(append(b, " status="...), int64(e.Status), 10)
	b = strconv.AppendInt(append(b, " bytes="...), int64(e.Bytes), 10)
	b = append(append(b, " duration="...), e.Duration.String()...)
	b = appendTextString(append(b, " remote="...), e.Remote)
	if e.Query != "" {
		b = appendTextString(append(b, " query="...), e.Query)
	}
	if e.KeyPrefix != "" {
		b = appendTextString(append(b, " key_prefix="...), e.KeyPrefix)
	}
	if e.ClientIP != "" {
		b = appendTextString(append(b, " client_ip="...), e.ClientIP)
	}
	return append(b, '\n')
}

// AppendJSON appends e as one line of the JSON that slog.JSONHandler
// writes for e.Record: the same members in the same order, the same
// values (its escapes of control characters may be spelled differently,
// \b for \u0008).
func (e *AccessEntry) AppendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = jsonenc.AppendString(b, e.Level.String())
	b = append(b, `,"msg":"request","request_id":`...)
	b = jsonenc.AppendString(b, e.RequestID)
	b = jsonenc.AppendString(append(b, `,"method":`...), e.Method)
	b = jsonenc.AppendString(append(b, `,"path":`...), e.Path)
	b = jsonenc.AppendString(append(b, `,"route":`...), e.Route)
	b = strconv.AppendInt(append(b, `,"status":`...), int64(e.Status), 10)
	b = strconv.AppendInt(append(b, `,"bytes":`...), int64(e.Bytes), 10)
	b = append(append(append(b, `,"duration":"`...), e.Duration.String()...), '"')
	b = jsonenc.AppendString(append(b, `,"remote":`...), e.Remote)
	if e.Query != "" {
		b = jsonenc.AppendString(append(b, `,"query":`...), e.Query)
	}
	if e.KeyPrefix != "" {
		b = jsonenc.AppendString(append(b, `,"key_prefix":`...), e.KeyPrefix)
	}
	if e.ClientIP != "" {
		b = jsonenc.AppendString(append(b, `,"client_ip":`...), e.ClientIP)
	}
	return append(b, "}\n"...)
}

// appendRFC3339Millis writes t as slog's text handler does: RFC 3339 with
// exactly three decimals, truncated. Lines come by the thousand per
// second: the date, time and zone of the last second are kept and only
// the milliseconds are written anew.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if st := lastStamp.Load(); st != nil && st.sec == sec && st.loc == t.Location() {
		ms := t.Nanosecond() / 1e6
		b = append(b, st.text[:len(stampSeconds)]...)
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		return append(b, st.text[len(stampSeconds)+4:]...)
	}
	n := len(b)
	// RFC3339Nano trims trailing zeros: add a tenth of a millisecond so
	// there are always four decimals, then drop the fourth.
	b = t.Truncate(time.Millisecond).Add(time.Millisecond/10).AppendFormat(b, time.RFC3339Nano)
	b = append(b[:n+len(stampSeconds)+4], b[n+len(stampSeconds)+5:]...)
	if len(b)-n >= len(stampSeconds)+4 && b[n+len(stampSeconds)] == '.' { // years 0–9999: fixed width
		lastStamp.Store(&stamp{sec: sec, loc: t.Location(), text: string(b[n:])})
	}
	return b
}

// stamp is the text of one second's timestamp (any millisecond in it) in
// one location; the zone offset cannot change within a second.
type stamp struct {
	sec  int64
	loc  *time.Location
	text string // "2006-01-02T15:04:05.000Z07:00"
}

const stampSeconds = "2006-01-02T15:04:05"

var lastStamp atomic.Pointer[stamp]

// appendTextString writes s as slog's text handler does: as it is, or
// Go-quoted when it is empty or holds a space, '=', a quote, a control
// character or anything not printable.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '\\' && (c == ' ' || c == '=' || !jsonenc.PlainASCII(c)) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
