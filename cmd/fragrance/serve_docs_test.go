package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeDocs: serve mounts the developer docs; the pricing page shows
// the tiers as stored (--tier-limits seeds them), --tier-prices and
// --contact-email (also from the environment), and the playground the
// service's own base URL.
func TestServeDocs(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"FRAGRANCE_CONTACT_EMAIL": "Sales@Example.COM"}[k]
	}
	base, stop := startServe(t, env, "--db", filepath.Join(t.TempDir(), "f.db"), "--tier-limits", "pro=1234/56789",
		"--tier-prices", "basic=19 EUR/month,pro=99 EUR/month")
	defer stop()
	read := func(path string) string {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s = %d", path, res.StatusCode)
		}
		return string(b)
	}
	pricing := read("/pricing")
	for _, want := range []string{">1,234<", ">56,789<", ">19 EUR/month<", ">99 EUR/month<", ">Price on request<", `href="mailto:Sales@example.com"`} {
		if !strings.Contains(pricing, want) {
			t.Errorf("/pricing lacks %s", want)
		}
	}
	if pg := read("/developer/playground?endpoint=getPerfume&slug=dior-sauvage"); !strings.Contains(pg, "&#39;"+base+"/api/perfumes/dior-sauvage&#39;") {
		t.Errorf("the playground does not write requests to %s", base)
	}
	for _, path := range []string{"/docs", "/docs/reference"} {
		read(path)
	}
}

// TestServeDocsFlagErrors: serve refuses prices and a contact it cannot
// show, naming the flag.
func TestServeDocsFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tier-prices", "gold=10 EUR"}, `--tier-prices: tier prices: "gold=10 EUR": unknown tier "gold"`},
		{[]string{"--tier-prices", "basic"}, `--tier-prices: tier prices: "basic" is not TIER=PRICE`},
		{[]string{"--contact-email", "sales at example"}, `--contact-email: "sales at example" is not an email address`},
	} {
		listening, err, log := serveOutcome(t, append([]string{"--db", filepath.Join(t.TempDir(), "f.db")}, tc.args...)...)
		if listening || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %v: listening %v, err %v; want %q\n%s", tc.args, listening, err, tc.want, log)
		}
	}
}
