package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/racedetect"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

// maxErrorBody bounds the body of every error answer under /api, and
// maxPageErrorBody of every error page (a whole page with its layout, the
// sign-in form of the portal, say), whatever was sent: neither grows with
// the input.
const (
	maxErrorBody     = 4096
	maxPageErrorBody = 16384
)

// hostileServer is the server as serve composes it, with every optional
// route mounted: the real access layer over a SQLite key store, the real
// image host (over files beside that database, knowing one perfume, id 1),
// and a proxy range trusted so that X-Forwarded-For is read (httptest's
// peer is 192.0.2.1). It returns the server and the secret of
// a valid key whose limits never bind, and the server's log.
func hostileServer(t *testing.T) (*server.Server, string, *lockedBuffer) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	m := servetest.Meter(t, db, nil)
	g, err := access.NewGuard(db, m, nil, access.Config{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		UsageBudget:    apikey.Limits{PerMinute: 1_000_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(ctx); m.Close(ctx); db.Close() })
	_, secret, err := apikey.Issue(ctx, db, apikey.NewKey{Tier: apikey.Enterprise, PerMinute: 1_000_000, PerDay: 100_000_000})
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "images.db")
	idb, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idb.Close() })
	blobs, err := imgfiles.NewFS(imgfiles.DefaultDir(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	img, err := images.New(ctx, images.Config{BaseURL: "/img"}, imgstore.With(blobs, idb),
		images.NewCatalogue([]catalog.Perfume{{ID: 1, Slug: "dior-sauvage", Name: "Sauvage", Brand: "Dior"}}))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	logs := &lockedBuffer{}
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.Guard, c.Caller, c.Usage = g, g, m
		c.Registry = reg
		c.ImageHost, c.ImagePath = img.Handler(), "/img"
		c.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
		if racedetect.Enabled {
			// Each perfume of a change feed page is ranked for its similar
			// perfumes on one goroutine, where the race detector has
			// nothing to find and is slow: under it the feed holds three
			// perfumes; the plain pass serves whole pages.
			c.Changes = servetest.SeededFeed(t, 3)
		}
		c.Area = func(ground *web.Ground) server.Routes { // the developer portal, on the same store
			p, err := portal.New(portal.Config{Web: ground, Accounts: db, Keys: db, Mail: discardMail{},
				Report: m.Report, Hourly: db.HourlyUsage, Windows: g.Peek, Tiers: g.Tiers, KeysChanged: g.KeysChanged})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	})
	s, ok := h.(*server.Server)
	if !ok {
		t.Fatalf("servetest.NewServer gives a %T, not the *server.Server", h)
	}
	return s, secret, logs
}

// discardMail takes the portal's sign-in links and sends nothing.
type discardMail struct{}

func (discardMail) Send(context.Context, mail.Message) error { return nil }

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// hostileRequest is one request of the table and the class of status it
// must get: 4 for a 4xx; 0 when any answer but a 5xx will do.
type hostileRequest struct {
	what    string
	method  string
	target  string
	header  http.Header
	body    []byte
	class   int
	secrets []string // values that must not come back
}

var wildcard = regexp.MustCompile(`\{[^}]+\}`)

// TestHostileInput sends hostile input to every route of the server's
// route table: huge, repeated, invalid UTF-8, NUL, traversing, negative and
// overflowing values in the path and in each query parameter the route
// reads, wrong methods, bad and huge key headers, bogus origins and odd
// X-Forwarded-For. No answer is a 5xx; a hostile value the route reads is
// a 4xx; every error under /api is a JSON problem; no error body is larger
// than maxErrorBody; and no key sent comes back in a body or a header, or
// reaches the log.
func TestHostileInput(t *testing.T) {
	s, secret, logs := hostileServer(t)
	doc := loadDoc(t, servedDoc(t), false)
	examples := map[string]string{}
	for _, p := range docPaths(t, doc) {
		examples[p.path] = p.target
	}
	routes := s.Routes()
	if len(routes) < 15 {
		t.Fatalf("the route table has %d routes: %v", len(routes), routes)
	}
	n := 0
	sent := map[string]bool{}
	for _, route := range routes {
		for _, req := range hostileRequests(route, examples, queryParams(doc, route.Pattern), keyless(doc), secret) {
			n++
			checkHostile(t, s, route, req)
			for _, k := range req.secrets {
				sent[k] = true
			}
		}
	}
	log := logs.String()
	for k := range sent {
		if strings.Contains(log, k) {
			t.Errorf("the log repeats the key %.12s…", k)
		}
	}
	if !strings.Contains(log, "route=perfumes.list") {
		t.Errorf("the log has no access lines: %.300s", log)
	}
	// Each request writes one access line with its path and query cut to
	// 1 KB each; a 100 KB value must not reach the log whole.
	if strings.Contains(log, strings.Repeat("a", 2048)) {
		t.Errorf("the log holds a 2 KB run of what a client sent: paths and queries are not cut")
	}
	t.Logf("%d routes, %d hostile requests, %d bytes of log", len(routes), n, len(log))
}

// queryParams lists the query parameters the document gives pattern.
func queryParams(doc *openapi3.T, pattern string) []string {
	item := doc.Paths.Value(pattern)
	if item == nil || item.Get == nil {
		return nil
	}
	var out []string
	for _, p := range item.Get.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
			out = append(out, p.Value.Name)
		}
	}
	return out
}

// keyless lists the /api paths whose operation the document marks as
// needing no key (an empty security requirement).
func keyless(doc *openapi3.T) map[string]bool {
	out := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		if item.Get != nil && item.Get.Security != nil && len(*item.Get.Security) == 0 {
			out[path] = true
		}
	}
	return out
}

// hostileRequests builds the table of one route.
func hostileRequests(route server.Route, examples map[string]string, params []string, keyless map[string]bool, secret string) []hostileRequest {
	_, pattern, hasMethod := strings.Cut(route.Pattern, " ")
	if !hasMethod {
		pattern = route.Pattern
	}
	keyed := strings.HasPrefix(pattern, "/api/") && !keyless[pattern]
	base, ok := examples[pattern]
	switch {
	case ok:
	case pattern == "/":
		base = "/no-such-page"
	case pattern == "/img/":
		base = "/img/perfume/1.jpg"
	case strings.HasSuffix(pattern, "/"):
		base = pattern + "no-such-endpoint"
	default:
		base = wildcard.ReplaceAllString(pattern, "x")
	}
	auth := http.Header{}
	if keyed {
		auth.Set("X-API-Key", secret)
	}
	with := func(h http.Header, kv ...string) http.Header {
		out := h.Clone()
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = []string{kv[i+1]}
		}
		return out
	}
	huge := strings.Repeat("a", 100_000)
	unknownKey, _ := apikey.GenerateKey()
	var reqs []hostileRequest
	add := func(r hostileRequest) {
		if r.method == "" {
			r.method = http.MethodGet
		}
		if r.header == nil {
			r.header = auth
		}
		r.secrets = append(r.secrets, secret)
		reqs = append(reqs, r)
	}

	// Wrong methods, a body included. A form's own POST without its fields
	// may answer anything but a 5xx (signing out with no session redirects).
	postClass := 4
	if strings.HasPrefix(route.Pattern, "POST ") {
		postClass = 0
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "TRACE", "PROPFIND"} {
		class := 4
		if m == "POST" {
			class = postClass
		}
		add(hostileRequest{what: m, method: m, target: base, class: class})
	}
	add(hostileRequest{what: "POST with 1 MB", method: "POST", target: base, body: bytes.Repeat([]byte("x"), 1<<20), class: postClass})

	// The path: each wildcard, or past a catch-all.
	pathValues := map[string]string{
		"100k characters": huge, "NUL": "%00", "invalid UTF-8": "%ff%fe", "traversal": "..%2f..%2fetc%2fpasswd",
		"dot-dot": "%2e%2e", "negative": "-1", "overflow": "99999999999999999999999999", "control": "%01%7f",
	}
	if wildcard.MatchString(pattern) || strings.HasSuffix(pattern, "/") {
		for what, v := range pathValues {
			target := wildcard.ReplaceAllString(pattern, v)
			if !wildcard.MatchString(pattern) {
				target = pattern + v
			}
			add(hostileRequest{what: "path " + what, target: target, class: 4})
		}
	}
	add(hostileRequest{what: "raw traversal", target: strings.TrimSuffix(base, "/") + "/../../../etc/passwd"})
	if pattern == "/img/" {
		for what, v := range pathValues {
			add(hostileRequest{what: "image id " + what, target: "/img/perfume/" + v + ".jpg", class: 4})
			add(hostileRequest{what: "transparent image id " + what, target: "/img/perfume-nobg/" + v + ".webp", class: 4})
		}
	}

	// The query: each parameter the route reads, and some it does not.
	for _, p := range append(params, "api_key", "unknown") {
		reads := p != "unknown" && p != "api_key"
		class := 0
		if reads {
			class = 4
		}
		for _, q := range []struct {
			what, query string
			class       int
		}{
			{"100k characters", p + "=" + huge, class},
			{"repeated", p + "=1&" + p + "=2", class},
			{"invalid UTF-8", p + "=%ff%fe", class},
			{"NUL", p + "=%00", 0},
			{"negative", p + "=-1", 0},
			{"overflow", p + "=99999999999999999999999999", 0},
			{"not a number", p + "=1e309", 0},
			{"bad escape", p + "=%zz", class},
		} {
			sep := "?"
			if strings.Contains(base, "?") {
				sep = "&"
			}
			add(hostileRequest{what: fmt.Sprintf("%s %s", p, q.what), target: base + sep + q.query, class: q.class})
		}
	}

	// Key headers, origins, forwarded addresses, request ids.
	keyClass := 0
	if keyed {
		keyClass = 4
	}
	bad := func(what string, h http.Header, class int, secrets ...string) {
		add(hostileRequest{what: what, target: base, header: h, class: class, secrets: secrets})
	}
	none := http.Header{}
	bad("no key", none, keyClass)
	bad("huge X-API-Key", with(none, "X-Api-Key", "fds_"+huge), keyClass, "fds_"+huge[:40])
	bad("huge Bearer", with(none, "Authorization", "Bearer fds_"+huge), keyClass, "fds_"+huge[:40])
	bad("unknown key", with(none, "X-Api-Key", unknownKey), keyClass, unknownKey)
	bad("unknown key as Bearer", with(none, "Authorization", "Bearer "+unknownKey), keyClass, unknownKey)
	bad("unknown key in the query", none, keyClass, unknownKey)
	reqs[len(reqs)-1].target = base + sepOf(base) + "api_key=" + unknownKey
	bad("Basic auth", with(none, "Authorization", "Basic "+unknownKey), keyClass, unknownKey)
	bad("NUL key", with(none, "X-Api-Key", "fds_\x00\x00"), keyClass)
	bad("invalid UTF-8 key", with(none, "X-Api-Key", "\xff\xfe"+unknownKey[2:]), keyClass, unknownKey[2:])
	bad("Bearer only", with(none, "Authorization", "Bearer"), keyClass)
	bad("valid key, bogus Origin", with(auth, "Origin", "null"), 0)
	bad("valid key, huge Origin", with(auth, "Origin", "https://"+huge), 0)
	bad("valid key, huge Authorization too", with(auth, "Authorization", "Bearer "+huge), 0)
	bad("odd X-Forwarded-For", with(auth, "X-Forwarded-For", "garbage, ::1, 10.0.0.1:99, [::ffff:1.2.3.4]"), 0)
	bad("huge X-Forwarded-For", with(auth, "X-Forwarded-For", strings.Repeat("1.2.3.4, ", 10_000)), 0)
	bad("X-Forwarded-For unknown", with(auth, "X-Forwarded-For", "unknown"), 0)
	bad("huge X-Request-Id", with(auth, "X-Request-Id", huge), 0)
	bad("control X-Request-Id", with(auth, "X-Request-Id", "a\x00b\x1b[31m"), 0)
	return reqs
}

func sepOf(target string) string {
	if strings.Contains(target, "?") {
		return "&"
	}
	return "?"
}

// checkHostile sends one request and checks its answer.
func checkHostile(t *testing.T, h http.Handler, route server.Route, hr hostileRequest) {
	t.Helper()
	u, err := url.ParseRequestURI(hr.target)
	if err != nil { // net/http answers 400 itself, before any handler
		t.Fatalf("%s: the table's target does not parse: %v", hr.what, err)
	}
	req := httptest.NewRequest(hr.method, "/", bytes.NewReader(hr.body))
	req.URL, req.RequestURI = u, hr.target
	req.Header = hr.header.Clone()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	name := fmt.Sprintf("%s %s (%s): %s %.60s", route.Name, route.Pattern, hr.what, hr.method, hr.target)
	body := rec.Body.Bytes()
	switch {
	case rec.Code >= 500:
		t.Errorf("%s = %d: %.300s", name, rec.Code, body)
		return
	case hr.class != 0 && rec.Code/100 != hr.class:
		t.Errorf("%s = %d, want %dxx: %.300s", name, rec.Code, hr.class, body)
	}
	if rec.Code >= 400 {
		limit := maxErrorBody
		if !strings.HasPrefix(req.URL.Path, "/api/") {
			limit = maxPageErrorBody
		}
		if len(body) > limit {
			t.Errorf("%s = %d with a body of %d bytes", name, rec.Code, len(body))
		}
		if strings.HasPrefix(req.URL.Path, "/api/") && hr.method != http.MethodHead {
			var p map[string]any
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("%s = %d as %q, not a problem", name, rec.Code, ct)
			} else if err := json.Unmarshal(body, &p); err != nil || p["code"] == nil || p["status"] != float64(rec.Code) {
				t.Errorf("%s = %d: not a JSON problem (%v): %.300s", name, rec.Code, err, body)
			}
		}
	}
	for _, s := range hr.secrets {
		if s == "" {
			continue
		}
		if bytes.Contains(body, []byte(s)) {
			t.Errorf("%s: the body repeats the key %.12s…", name, s)
		}
		for k, vs := range rec.Header() {
			for _, v := range vs {
				if strings.Contains(v, s) {
					t.Errorf("%s: header %s repeats the key %.12s…", name, k, s)
				}
			}
		}
	}
}
