package main

import (
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReplicasSharePortalSessions: a developer signed in on one replica is
// signed in on the other (sessions live in PostgreSQL), makes a browser key
// there, and the API of the first refuses that key from an origin it does
// not list and takes it from one it does.
func TestReplicasSharePortalSessions(t *testing.T) {
	pgBase, redisURL := backendURLs(t)
	db := freshSchema(t, pgBase)
	outbox := t.TempDir()
	args := []string{"--db", db, "--redis", redisURL, "--redis-timeout", "5s", "--mail-outbox", outbox}
	baseA, _ := startServe(t, noEnv, args...)
	baseB, _ := startServe(t, noEnv, args...)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(u string, form url.Values, cookie *http.Cookie) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookie != nil {
			req.AddCookie(cookie)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// Ask on A, sign in on A. (The address is new each run: its sign-in
	// limit is counted in the shared Redis.)
	email := fmt.Sprintf("two-%d@example.com", time.Now().UnixNano())
	res := post(baseA+"/developer/signin/link", url.Values{"email": {email}}, nil)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("asking for a link: %d", res.StatusCode)
	}
	token := readToken(t, outbox)
	res = post(baseA+"/developer/signin", url.Values{"token": {token}}, nil)
	res.Body.Close()
	var session *http.Cookie
	for _, c := range res.Cookies() {
		if strings.Contains(c.Name, "session") && c.Value != "" {
			session = c
		}
	}
	if res.StatusCode != http.StatusSeeOther || session == nil {
		t.Fatalf("signing in on A: %d, cookies %v", res.StatusCode, res.Cookies())
	}

	// B knows the session, and makes a browser key with it.
	req, _ := http.NewRequest("GET", baseB+"/developer/keys", nil)
	req.AddCookie(session)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), email) {
		t.Fatalf("B does not know the session signed in on A: %d", res.StatusCode)
	}
	// The form's answer is a redirect to the page that shows the key once,
	// its secret in a flash cookie that A opens as well as B.
	res = post(baseB+"/developer/keys", url.Values{"name": {"Widget"}, "kind": {"browser"}, "origins": {"https://shop.example"}}, session)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("making a key on B: %d", res.StatusCode)
	}
	req, _ = http.NewRequest("GET", baseA+res.Header.Get("Location"), nil)
	req.AddCookie(session)
	for _, c := range res.Cookies() {
		req.AddCookie(c)
	}
	if res, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(res.Body)
	res.Body.Close()
	key := regexp.MustCompile(`fds_[0-9A-Za-z]{49}`).Find(page)
	if res.StatusCode != 200 || key == nil {
		t.Fatalf("the key made on B, shown on A: %d", res.StatusCode)
	}

	// A's API: refused from another origin, taken from the listed one.
	for origin, want := range map[string]int{"https://evil.example": http.StatusForbidden, "https://shop.example": http.StatusOK} {
		req, _ := http.NewRequest("GET", baseA+"/api/perfumes?limit=1", nil)
		req.Header.Set("X-API-Key", string(key))
		req.Header.Set("Origin", origin)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("the browser key from %s: %d, want %d", origin, res.StatusCode, want)
		}
	}
}

// readToken returns the token of the sign-in link in the one message of
// the outbox.
func readToken(t *testing.T, outbox string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(outbox, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d messages in the outbox", len(files))
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = m.Body // 7bit: as written
	if m.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
		r = quotedprintable.NewReader(m.Body)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	tok := regexp.MustCompile(`/developer/signin\?token=([A-Za-z0-9_-]+)`).FindSubmatch(body)
	if tok == nil {
		t.Fatalf("no sign-in link in:\n%s", body)
	}
	return string(tok[1])
}
