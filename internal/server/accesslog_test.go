package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// TestAccessLogNeverHoldsKey: the access log names the key's prefix, never
// the key, whether it came in a header or in ?api_key=.
func TestAccessLogNeverHoldsKey(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := access.NewGuard(db, servetest.Meter(t, db, nil), nil, access.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(ctx)
	key, secret, err := apikey.Issue(ctx, db, apikey.NewKey{Tier: apikey.Free, Email: "log@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Guard = g
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	for _, target := range []string{
		"/api/perfumes?limit=1&api_key=" + secret,
		"/api/perfumes/dior-sauvage?api_key=" + secret,
		"/api/nothing?api_key=" + secret,
		"/api/perfumes?api_key=" + secret[:20] + "broken",
	} {
		servetest.Do(t, h, "GET", target)
	}
	servetest.Do(t, h, "GET", "/api/perfumes", "X-API-Key", secret)
	out := logs.String()
	if strings.Contains(out, secret) || strings.Contains(out, secret[4:20]+"broken") {
		t.Fatalf("a key reached the log:\n%s", out)
	}
	if !strings.Contains(out, `"key_prefix":"`+key.Prefix+`"`) || !strings.Contains(out, "api_key=REDACTED") {
		t.Errorf("log lacks the key prefix or the redaction:\n%s", out)
	}
}

// TestAccessEntryAppendMatchesSlog: the access log's own writers give what
// slog's handlers give for the same record: the text line byte for byte,
// the JSON line with the same members, in the same order, with the same
// values.
func TestAccessEntryAppendMatchesSlog(t *testing.T) {
	at := time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC)
	zone := time.FixedZone("X", -(3*3600 + 30*60))
	entries := []server.AccessEntry{
		{Time: at, Level: slog.LevelInfo, RequestID: "bba5ad45d29c6a7efd62b8a0", Method: "GET", Path: "/api/perfumes/dior-sauvage",
			Route: "perfumes.detail", Status: 200, Bytes: 8024, Duration: 1234567 * time.Nanosecond, Remote: "127.0.0.1:51234",
			KeyPrefix: "fds_abcd1234", ClientIP: "127.0.0.1"},
		{Time: at.Add(999*time.Millisecond + 999999), Level: slog.LevelWarn, RequestID: "x", Method: "HEAD", Path: "/api/perfumes",
			Route: "perfumes.list", Status: 503, Bytes: 0, Duration: 0, Remote: "[::1]:80", Query: "q=dior sauvage&brand=a=b&x=<y>&api_key=REDACTED"},
		{Time: at.In(zone).Add(7 * time.Millisecond), Level: slog.LevelError, RequestID: "", Method: "GET", Path: "/é/\"quoted\"/back\\slash/tab\t/nl\n/bell\x07/ff\f",
			Route: "unmatched", Status: 500, Bytes: 12, Duration: 3 * time.Second, Remote: "", Query: "a=%ff&b=\xff\xfe&c=\u2028\u2029&d=\u00a0"},
		{Time: at.Add(123456789), Level: slog.LevelInfo, RequestID: "id", Method: "OPTIONS", Path: "/", Route: "pages", Status: 204,
			Duration: 42 * time.Microsecond, Remote: "192.0.2.1:1", ClientIP: "192.0.2.1", Query: "=", KeyPrefix: " "},
	}
	for i, e := range entries {
		var text, js bytes.Buffer
		if err := slog.NewTextHandler(&text, nil).Handle(context.Background(), e.Record()); err != nil {
			t.Fatal(err)
		}
		if got := string(e.AppendText(nil)); got != text.String() {
			t.Errorf("entry %d, text:\n got %q\nwant %q", i, got, text.String())
		}
		if err := slog.NewJSONHandler(&js, nil).Handle(context.Background(), e.Record()); err != nil {
			t.Fatal(err)
		}
		got := e.AppendJSON(nil)
		if !json.Valid(got) || !bytes.HasSuffix(got, []byte("\n")) || bytes.Count(got, []byte("\n")) != 1 {
			t.Fatalf("entry %d: not one JSON line: %q", i, got)
		}
		if g, w := jsonTokens(t, got), jsonTokens(t, js.Bytes()); !slices.Equal(g, w) {
			t.Errorf("entry %d, JSON:\n got %q\nwant %q", i, got, js.String())
		}
	}
}

// jsonTokens lists a JSON document's tokens, so that two documents that
// differ only in how they spell an escape compare equal.
func jsonTokens(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		out = append(out, fmt.Sprintf("%T:%v", tok, tok))
	}
}

// TestAccessEntryTimestamps holds the text timestamp to slog's through the
// kept second: runs of lines within one second, the next second, another
// zone of the same instant, and back.
func TestAccessEntryTimestamps(t *testing.T) {
	base := time.Date(2026, 3, 29, 0, 59, 59, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris") // changes offset at 01:00 UTC that day
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	var times []time.Time
	for _, d := range []time.Duration{0, 1, 999999, time.Millisecond, 10 * time.Millisecond, 999 * time.Millisecond,
		999*time.Millisecond + 999999, time.Second, time.Second + 5*time.Millisecond, 2 * time.Second} {
		at := base.Add(d)
		times = append(times, at, at.In(paris), at, at.Local(), at.In(time.FixedZone("", -(9*3600+30*60))))
	}
	times = append(times, time.Date(12, 1, 1, 0, 0, 0, 5e6, time.UTC), time.Date(12, 1, 1, 0, 0, 0, 6e6, time.UTC))
	for _, at := range times {
		e := server.AccessEntry{Time: at, Level: slog.LevelInfo, Method: "GET", Path: "/", Route: "pages", Status: 200}
		var text bytes.Buffer
		if err := slog.NewTextHandler(&text, nil).Handle(context.Background(), e.Record()); err != nil {
			t.Fatal(err)
		}
		if got := string(e.AppendText(nil)); got != text.String() {
			t.Errorf("%v:\n got %q\nwant %q", at, got, text.String())
		}
	}
}
