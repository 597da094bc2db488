package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeLimitsPerIP: the keyless per-IP limits are wired to the Guard's
// admission: past --portal-signin-limit the sign-in form draws a 429 page,
// past --site-search-limit the site search answers the API's 429 problem,
// both with Retry-After and the address's rate-limit headers.
func TestServeLimitsPerIP(t *testing.T) {
	dir := t.TempDir()
	base, _ := startServe(t, noEnv, "--db", filepath.Join(dir, "fragrance.db"), "--mail-outbox", filepath.Join(dir, "outbox"),
		"--portal-signin-limit", "2", "--site-search-limit", "2")
	read := func(res *http.Response, err error) (*http.Response, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(b)
	}
	for i, want := range []int{200, 200, 429} {
		res, page := read(http.PostForm(base+"/developer/signin/link", url.Values{"email": {fmt.Sprintf("ip-%d@example.com", i)}}))
		if res.StatusCode != want || res.Header.Get("X-Ratelimit-Limit") != "2" {
			t.Fatalf("sign-in link %d: %d, X-RateLimit-Limit %q", i+1, res.StatusCode, res.Header.Get("X-Ratelimit-Limit"))
		}
		if want == 429 && (res.Header.Get("Retry-After") == "" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(page, "Too many sign-in links were asked for from your network")) {
			t.Errorf("the per-IP refusal of the sign-in form: %v\n%s", res.Header, page)
		}
	}
	for i, want := range []int{200, 200, 429} {
		res, body := read(http.Get(base + "/api/search?q=dior"))
		if res.StatusCode != want || res.Header.Get("X-Ratelimit-Limit") != "2" {
			t.Fatalf("site search %d: %d, X-RateLimit-Limit %q", i+1, res.StatusCode, res.Header.Get("X-Ratelimit-Limit"))
		}
		if want != 429 {
			continue
		}
		var p struct {
			Code             string   `json:"code"`
			RetryAfter       int64    `json:"retryAfter"`
			ViolatedPolicies []string `json:"violatedPolicies"`
		}
		if err := json.Unmarshal([]byte(body), &p); err != nil || p.Code != "rate_limited" || p.RetryAfter < 1 ||
			len(p.ViolatedPolicies) != 1 || res.Header.Get("Retry-After") == "" {
			t.Errorf("the site search's 429: %v %s", res.Header, body)
		}
	}
}
