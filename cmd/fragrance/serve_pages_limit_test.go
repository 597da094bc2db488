package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPagesLimitedPerIP: the keyless pages, their Markdown twins and the
// sitemaps share one generous per-IP window (--page-limit a minute): past
// it a page answers 429 with Retry-After, while the assets the pages load
// are not counted; robots.txt tells crawlers the pace.
func TestPagesLimitedPerIP(t *testing.T) {
	db := newDB(t, "pages.db")
	base, stop := startServe(t, noEnv, "--db", db, "--page-limit", "6")
	defer stop()
	get := func(path string) *http.Response {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	robots := func() string {
		res, err := http.Get(base + "/robots.txt")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}()
	if !strings.Contains(robots, "Crawl-delay: 1") || !strings.Contains(robots, "6 pages a minute") {
		t.Errorf("robots.txt does not give the pace:\n%s", robots)
	}
	for i, path := range []string{"/perfumes/dior-sauvage", "/perfumes/dior-sauvage.md", "/brands", "/sitemap.xml", "/"} {
		if res := get(path); res.StatusCode != http.StatusOK {
			t.Fatalf("page %d %s: %d", i+2, path, res.StatusCode)
		}
	}
	res := get("/perfumes/dior-sauvage")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("the seventh page of a limit of 6: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if res := get("/healthz"); res.StatusCode != http.StatusOK {
		t.Errorf("/healthz past the pages' limit: %d", res.StatusCode)
	}
}
