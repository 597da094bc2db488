// Package areatest is the one test environment of the site's two
// signed-in areas, the developer portal (web/portal) and the admin
// dashboard (web/admin): an area on the ground of package web, over the
// real SQLite store in a temporary directory (handed to the area through
// Faulty, so that a test can make the store fail), behind a ServeMux as the
// server mounts it, on a test clock. Requests are sent as a browser sends
// them, and every HTML answer is held to the ground's rules (CheckPage).
// It is imported by tests only.
package areatest

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/testclock"
	"github.com/fragrance-data/fragrance/internal/web"
)

// Env is one area under test.
type Env struct {
	// T is the test the environment belongs to; Clock is the clock of the
	// ground, the area and the store.
	T     *testing.T
	Clock *testclock.Clock
	// Store is the database, as the test reads and writes it: it never
	// fails. Faults is the same store as the area is given it.
	Store  *sqlite.DB
	Faults *Faulty
	// Web is the ground, on the base URL and the clock.
	Web *web.Ground
	// Cookie is the area's session cookie's name on the base URL.
	Cookie string
	// IP is the peer address requests come from.
	IP string
	// Routes are the routes the area registered, in order (Mount).
	Routes []Route
	path   string  // the database file
	raw    *sql.DB // a handle of its own on it, for Exec
	h      http.Handler
}

// Route is one route an area registered: its pattern and name.
type Route struct{ Pattern, Name string }

// New makes the environment of an area served on base (http:// or
// https://), its clock at start, its session cookie named cookie without
// TLS (and __Host-cookie over https), requests from peer ip. The store is
// a fresh, empty database whose clock is the environment's.
func New(t *testing.T, base string, start time.Time, cookie, ip string) *Env {
	t.Helper()
	e := &Env{T: t, Clock: testclock.New(start), Cookie: cookie, IP: ip, path: filepath.Join(t.TempDir(), "store.db")}
	if strings.HasPrefix(base, "https://") {
		e.Cookie = "__Host-" + cookie
	}
	data, err := migrated()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if e.Store, err = sqlite.Open(context.Background(), e.path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Store.Close() })
	e.Store.SetClock(e.Clock.Now)
	e.Faults = NewFaulty(t, e.Store)
	if e.Web, err = web.New(web.Config{BaseURL: base, Now: e.Clock.Now}); err != nil {
		t.Fatal(err)
	}
	return e
}

// migrated is the file of a freshly migrated, empty database, made once
// per test binary: every environment starts from a copy of it, which
// spares each the migrations.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "areatest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "store.db"))
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil { // the last connection folds the log into the file
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "store.db"))
})

// Mount serves the ground's routes and the area's behind one ServeMux, as
// the server mounts them, with the 404 page for every other path; the
// area's routes are kept in Routes.
func (e *Env) Mount(area server.Routes) {
	mux := http.NewServeMux()
	e.Web.Register(func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) })
	area.Register(func(pattern, name string, h http.Handler) {
		mux.Handle(pattern, h)
		e.Routes = append(e.Routes, Route{pattern, name})
	})
	mux.Handle("/", e.Web.NotFound())
	e.h = mux
}

// Do sends a request from IP, with form as its body when not nil, the
// session cookie when session is not empty, and header pairs; every HTML
// page answered (not a redirect) is checked by CheckPage.
func (e *Env) Do(method, target string, form url.Values, session string, header ...string) *httptest.ResponseRecorder {
	e.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.RemoteAddr = e.IP + ":4711"
	if session != "" {
		r.AddCookie(&http.Cookie{Name: e.Cookie, Value: session})
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r)
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") && method != http.MethodHead && rec.Code/100 != 3 {
		CheckPage(e.T, method+" "+target, rec)
	}
	return rec
}

// Exec runs one SQL statement on the store's database outside the store,
// as an operator's own SQL would: for rows no method of the store writes
// as a test needs them.
func (e *Env) Exec(query string, args ...any) {
	e.T.Helper()
	if e.raw == nil {
		raw, err := sql.Open("sqlite", "file:"+e.path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			e.T.Fatal(err)
		}
		e.T.Cleanup(func() { raw.Close() })
		e.raw = raw
	}
	if _, err := e.raw.ExecContext(context.Background(), query, args...); err != nil {
		e.T.Fatalf("%s: %v", query, err)
	}
}

// CookieOf is the cookie name that rec sets, or nil.
func CookieOf(rec *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range rec.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}
