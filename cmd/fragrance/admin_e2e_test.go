package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// TestAdminDashboardEndToEnd runs the real server on SQLite: an admin
// made with the CLI signs in, finds a key, suspends it with a reason (the
// API refuses the key at once with 403 suspended_api_key), resumes it,
// reads the overview and a CSV, and the audit log lists each action.
func TestAdminDashboardEndToEnd(t *testing.T) {
	db := newDB(t, "fragrance.db")
	const pw = "a long enough password"
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"admin", "create-user", "--db", db, "--email", "ops@example.com", "--password-stdin"},
		noEnv, strings.NewReader(pw+"\n"), &out, &errb); err != nil {
		t.Fatalf("admin create-user: %v\n%s", err, errb.String())
	}
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "dev@example.com", "--name", "Shop"))
	pk, err := apikey.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := startServe(t, noEnv, "--db", db, "--admin-allow", "127.0.0.1/32")
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	page := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		var resp *http.Response
		var err error
		if method == "POST" {
			resp, err = browser.PostForm(base+path, form)
		} else {
			resp, err = browser.Get(base + path)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	api := func() (int, string) {
		code, m, _ := keyedGet(t, http.DefaultClient, base+"/api/perfumes?limit=1", key)
		c, _ := m["code"].(string)
		return code, c
	}

	if code, body := page("POST", "/admin/signin", url.Values{"email": {"ops@example.com"}, "password": {"wrong password!"}}); code != http.StatusUnauthorized ||
		!strings.Contains(body, "not right") {
		t.Fatalf("a wrong password: %d", code)
	}
	if code, body := page("POST", "/admin/signin", url.Values{"email": {"ops@example.com"}, "password": {pw}}); code != http.StatusOK ||
		!strings.Contains(body, "<h1>Overview</h1>") {
		t.Fatalf("sign in: %d\n%s", code, body)
	}
	if code, body := page("GET", "/admin/keys?email=dev@example.com", nil); code != http.StatusOK || !strings.Contains(body, pk.Prefix) {
		t.Fatalf("find the key: %d", code)
	}
	if code, _ := api(); code != http.StatusOK {
		t.Fatalf("the key before: %d", code)
	}
	if code, body := page("POST", "/admin/keys/"+pk.Prefix+"/suspend", url.Values{"reason": {"scraping the catalogue"}}); code != http.StatusOK ||
		!strings.Contains(body, "<dt>State</dt><dd>suspended</dd>") {
		t.Fatalf("suspend: %d", code)
	}
	if code, c := api(); code != http.StatusForbidden || c != "suspended_api_key" {
		t.Errorf("the suspended key: %d %q", code, c)
	}
	if code, _ := page("POST", "/admin/keys/"+pk.Prefix+"/resume", url.Values{"reason": {"they stopped"}}); code != http.StatusOK {
		t.Fatalf("resume: %d", code)
	}
	if code, _ := api(); code != http.StatusOK {
		t.Errorf("the resumed key: %d", code)
	}
	resp, err := browser.Get(base + "/admin?format=csv&table=topkeys")
	if err != nil {
		t.Fatal(err)
	}
	csv, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.HasPrefix(string(csv), "Key,Name,Email,Requests") {
		t.Errorf("a CSV: %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), csv)
	}
	_, body := page("GET", "/admin/audit", nil)
	for _, want := range []string{"key.resume", "they stopped", "key.suspend", "scraping the catalogue", "signin", "user.create"} {
		if !strings.Contains(body, want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
	// A developer's session, in the same database, is not an admin's.
	store, err := openExistingStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, linkHash := account.NewSecret()
	if err := store.CreateSignInLink(context.Background(), linkHash, "dev@example.com", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	dev, err := store.UseSignInLink(context.Background(), linkHash, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	devSecret, devHash := account.NewSecret()
	if err := store.CreateSession(context.Background(), account.Session{Hash: devHash, AccountID: dev.ID, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"admin", "session"} {
		req, _ := http.NewRequest("GET", base+"/admin", nil)
		req.Header.Set("Cookie", name+"="+devSecret)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/admin/signin") {
			t.Errorf("a developer session as cookie %q: %d %q", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}

	if code, _ := page("POST", "/admin/signout", url.Values{}); code != http.StatusOK {
		t.Errorf("sign out: %d", code)
	}
	if code, body := page("GET", "/admin/audit", nil); code != http.StatusOK || !strings.Contains(body, ">Sign in</button>") {
		t.Errorf("after signing out: %d", code)
	}
}
