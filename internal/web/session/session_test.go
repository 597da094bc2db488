package session_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// store is the sessions an area's Touch and End reach: hashes to who holds
// them; down makes every call fail.
type store struct {
	held    map[string]string
	touched int
	ended   []string
	down    bool
}

func (s *store) touch(_ *http.Request, hash string, _ time.Time) (string, error) {
	s.touched++
	switch who, ok := s.held[hash]; {
	case s.down:
		return "", errors.New("store unreachable")
	case !ok:
		return "", catalog.ErrNotFound
	default:
		return who, nil
	}
}

func (s *store) end(_ context.Context, hash string) error {
	if s.down {
		return errors.New("store unreachable")
	}
	s.ended = append(s.ended, hash)
	delete(s.held, hash)
	return nil
}

// newArea is an area on base over s, its message page a template of one
// line.
func newArea(t *testing.T, base string, s *store) *session.Area[string] {
	t.Helper()
	ground, err := web.New(web.Config{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	a, err := session.New(session.Config[string]{
		Web:       ground,
		Templates: fstest.MapFS{"templates/message.html": {Data: []byte(`{{define "content"}}<h1>{{.Data.Heading}}</h1>{{end}}`)}},
		Name:      "Test area", Who: "area", Log: "test", Home: "/area", HomeText: "Back to the area",
		Cookie: session.Cookie{Name: "area", Path: "/area", SameSite: http.SameSiteStrictMode, MaxAge: time.Hour},
		Touch:  s.touch, End: s.end,
		SignInFirst: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func request(name, value string) *http.Request {
	r := httptest.NewRequest("GET", "/area/page", nil)
	if value != "" {
		r.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	return r
}

// TestNewNeedsTheWholePolicy: an area without its store funcs, names,
// home or cookie is refused.
func TestNewNeedsTheWholePolicy(t *testing.T) {
	ground, err := web.New(web.Config{BaseURL: "http://area.test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.New(session.Config[string]{Web: ground}); err == nil {
		t.Error("an area without templates, store or cookie was made")
	}
}

// TestMalformedCookieNeverReachesTheStore: only a cookie of a secret's
// shape is looked up; an unknown one is nobody; a store that cannot tell
// is an error, never a visitor.
func TestMalformedCookieNeverReachesTheStore(t *testing.T) {
	secret, hash := account.NewSecret()
	s := &store{held: map[string]string{hash: "dev"}}
	a := newArea(t, "http://area.test", s)
	for _, bad := range []string{"", "short", strings.Repeat("A", 44), strings.Repeat("*", 43)} {
		if _, ok, err := a.Lookup(request("area", bad)); ok || err != nil {
			t.Errorf("cookie %q: signed in %v, %v", bad, ok, err)
		}
	}
	if s.touched != 0 {
		t.Fatalf("the store was asked %d times about malformed cookies", s.touched)
	}
	if who, ok, err := a.Lookup(request("area", secret)); !ok || err != nil || who != "dev" {
		t.Errorf("the session's cookie: %q %v %v", who, ok, err)
	}
	if _, ok, err := a.Lookup(request("__Host-area", secret)); ok || err != nil {
		t.Errorf("the https cookie's name over http: signed in %v, %v", ok, err)
	}
	unknown, _ := account.NewSecret()
	if _, ok, err := a.Lookup(request("area", unknown)); ok || err != nil {
		t.Errorf("an unknown session: signed in %v, %v", ok, err)
	}
	s.down = true
	if who, ok, err := a.Lookup(request("area", secret)); ok || err == nil || who != "" {
		t.Errorf("a store that cannot tell: %q %v %v", who, ok, err)
	}
}

// TestCookiePolicy: the cookie is HttpOnly with the area's SameSite and
// lifetime; without TLS its name and path are the area's, over https
// __Host- and "/".
func TestCookiePolicy(t *testing.T) {
	for _, c := range []struct{ base, name, path string }{
		{"http://area.test", "area", "/area"},
		{"https://area.test", "__Host-area", "/"},
	} {
		a := newArea(t, c.base, &store{held: map[string]string{}})
		rec := httptest.NewRecorder()
		if err := a.Start(rec, request("", ""), func(string) error { return nil }); err != nil {
			t.Fatal(err)
		}
		k := rec.Result().Cookies()[0]
		if k.Name != c.name || k.Path != c.path || k.Secure != strings.HasPrefix(c.base, "https") || !k.HttpOnly ||
			k.SameSite != http.SameSiteStrictMode || k.MaxAge != 3600 || !account.ValidSecret(k.Value) {
			t.Errorf("%s: cookie %+v", c.base, k)
		}
	}
}

// TestStartEndsThePreviousSession: a new session ends the one the browser
// had; one that cannot be ended leaves the new one standing; a session
// that cannot be stored sets no cookie.
func TestStartEndsThePreviousSession(t *testing.T) {
	old, oldHash := account.NewSecret()
	s := &store{held: map[string]string{oldHash: "dev"}}
	a := newArea(t, "http://area.test", s)
	var made string
	rec := httptest.NewRecorder()
	if err := a.Start(rec, request("area", old), func(hash string) error { made = hash; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(s.ended) != 1 || s.ended[0] != oldHash || made == "" || account.Hash(rec.Result().Cookies()[0].Value) != made {
		t.Errorf("ended %v, made %q, cookie %v", s.ended, made, rec.Result().Cookies())
	}
	s.down = true
	rec = httptest.NewRecorder()
	if err := a.Start(rec, request("area", old), func(string) error { return nil }); err != nil || len(rec.Result().Cookies()) != 1 {
		t.Errorf("a previous session that cannot be ended: %v, cookies %v", err, rec.Result().Cookies())
	}
	rec = httptest.NewRecorder()
	if err := a.Start(rec, request("", ""), func(string) error { return errors.New("full") }); err == nil || len(rec.Result().Cookies()) != 0 {
		t.Errorf("a session that cannot be stored: %v, cookies %v", err, rec.Result().Cookies())
	}
}

// TestEnd: the session ends and the cookie goes; a store that cannot end
// it keeps the cookie and says so.
func TestEnd(t *testing.T) {
	secret, hash := account.NewSecret()
	s := &store{held: map[string]string{hash: "dev"}}
	a := newArea(t, "http://area.test", s)
	s.down = true
	rec := httptest.NewRecorder()
	if err := a.End(rec, request("area", secret)); err == nil || len(rec.Result().Cookies()) != 0 {
		t.Errorf("ending while the store is down: %v, cookies %v", err, rec.Result().Cookies())
	}
	s.down = false
	rec = httptest.NewRecorder()
	if err := a.End(rec, request("area", secret)); err != nil {
		t.Fatal(err)
	}
	if c := rec.Result().Cookies(); len(c) != 1 || c[0].MaxAge >= 0 || len(s.ended) != 1 {
		t.Errorf("after End: cookies %v, ended %v", c, s.ended)
	}
}

// TestSignedIn: the gate serves a visitor, sends anyone else to
// SignInFirst with a stale cookie dropped, and answers 503 when the store
// cannot tell.
func TestSignedIn(t *testing.T) {
	secret, hash := account.NewSecret()
	s := &store{held: map[string]string{hash: "dev"}}
	a := newArea(t, "http://area.test", s)
	h := a.SignedIn(func(w http.ResponseWriter, _ *http.Request, who string) { w.Write([]byte("hello " + who)) })
	serve := func(value string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h(rec, request("area", value))
		return rec
	}
	if rec := serve(secret); rec.Code != http.StatusOK || rec.Body.String() != "hello dev" {
		t.Errorf("a visitor: %d %q", rec.Code, rec.Body)
	}
	stale, _ := account.NewSecret()
	if rec := serve(stale); rec.Code != http.StatusUnauthorized || len(rec.Result().Cookies()) != 1 || rec.Result().Cookies()[0].MaxAge >= 0 {
		t.Errorf("a stale cookie: %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	if rec := serve(""); rec.Code != http.StatusUnauthorized || len(rec.Result().Cookies()) != 0 {
		t.Errorf("no cookie: %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	s.down = true
	if rec := serve(secret); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || strings.Contains(rec.Body.String(), "hello") {
		t.Errorf("a store that cannot tell: %d %q", rec.Code, rec.Body)
	}
}

// TestTyped: what a page repeats of a typed value is valid UTF-8, and
// nothing of a value over the bound.
func TestTyped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"dev@example.com", 254, "dev@example.com"},
		{"d\xffv", 254, "d\uFFFDv"},
		{"\xed\xa0\x80x", 254, "\uFFFDx"},
		{strings.Repeat("a", 255), 254, ""},
	} {
		if got := session.Typed(tc.in, tc.max); got != tc.want {
			t.Errorf("Typed(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
