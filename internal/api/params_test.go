package api_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestInvalidParameters: every validation failure of the contract answers
// 400 invalid_parameter naming the parameter.
func TestInvalidParameters(t *testing.T) {
	h := newServer(t, nil)
	long := strings.Repeat("a", 201)
	tests := []struct{ target, param string }{
		{"/api/perfumes?page=0", "page"},
		{"/api/perfumes?page=-1", "page"},
		{"/api/perfumes?page=abc", "page"},
		{"/api/perfumes?page=1.5", "page"},
		{"/api/perfumes?page=99999999999999999999", "page"},
		{"/api/perfumes?limit=0", "limit"},
		{"/api/perfumes?limit=-5", "limit"},
		{"/api/perfumes?limit=ten", "limit"},
		{"/api/perfumes?q=" + long, "q"},
		{"/api/brands?q=" + long, "q"},
		{"/api/accords?search=" + long, "search"},
		{"/api/perfumes?limit=5&limit=10", "limit"},
		{"/api/perfumes/match?gender=other", "gender"},
		{"/api/perfumes/match?season=monsoon", "season"},
		{"/api/perfumes/match?time=noon", "time"},
		{"/api/perfumes/match?accords=woody:101", "accords"},
		{"/api/perfumes/match?accords=woody:-1", "accords"},
		{"/api/perfumes/match?accords=woody:x", "accords"},
		{"/api/perfumes/match?accords=woddy", "accords"},
		{"/api/perfumes/match?notes=Bergamott", "notes"},
		{"/api/perfumes/dior-sauvage/similar?limit=0", "limit"},
		{"/api/perfumes/dior-sauvage/dupes?limit=x", "limit"},
		{"/api/perfumers/dominique-ropion?page=0", "page"},
		{"/api/notes?limit=-1", "limit"},
	}
	for _, tt := range tests {
		rec := do(t, h, "GET", tt.target)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("GET %.80s = %d, want 400", tt.target, rec.Code)
			continue
		}
		m := decode(t, rec)
		if m["code"] != "invalid_parameter" || m["error"] != "Invalid parameter" {
			t.Errorf("GET %.80s body = %v", tt.target, m)
		}
		errs, _ := m["errors"].([]any)
		if len(errs) == 0 || errs[0].(map[string]any)["parameter"] != tt.param {
			t.Errorf("GET %.80s errors = %v, want parameter %q", tt.target, m["errors"], tt.param)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	m := decode(t, do(t, newServer(t, nil), "GET", "/api/perfumes/match?accords=woddy"))
	if !strings.Contains(strings.ToLower(m["detail"].(string)), "woody") {
		t.Errorf("no suggestion for woddy: %v", m["detail"])
	}
}

// TestHostileInputs: nothing a client sends answers 5xx; invalid input is a
// 4xx problem, odd but valid input a 200.
func TestHostileInputs(t *testing.T) {
	h := newServer(t, nil)
	inputs := []string{
		"/api/perfumes?q=" + url.QueryEscape(strings.Repeat("💥", 200)),
		"/api/perfumes?q=" + url.QueryEscape("' OR 1=1; DROP TABLE perfumes; --"),
		"/api/perfumes?q=" + url.QueryEscape("<script>alert(1)</script>"),
		"/api/perfumes?q=%00%01%02",
		"/api/perfumes?q=%ff%fe",
		"/api/perfumes?q=%zz",
		"/api/perfumes?limit=1e9",
		"/api/perfumes?limit=9223372036854775808",
		"/api/perfumes?page=-9223372036854775808",
		"/api/perfumes?brand=" + url.QueryEscape("../../etc/passwd"),
		"/api/perfumes/..%2f..%2fetc%2fpasswd",
		"/api/perfumes/%2e%2e",
		"/api/perfumes/" + strings.Repeat("a", 5000),
		"/api/perfumes/match?accords=" + url.QueryEscape(strings.Repeat("woody:50,", 300)),
		"/api/perfumes/match?accords=:50",
		"/api/perfumes/match?accords=woody:NaN",
		"/api/perfumes/match?accords=woody:1e400",
		"/api/perfumes/match?notes=" + url.QueryEscape(strings.Repeat(",", 100)),
		"/api/perfumes/match?q=%ZZ&accords=woody",
		"/api/brands?q=" + url.QueryEscape("%%%"),
		"/api/accords?search=" + url.QueryEscape("\u202e\u200b"),
		"/api/notes?limit=" + strings.Repeat("9", 400),
		"/api/perfumers/" + url.PathEscape("ü/ö"),
		"/api/perfumes?page=1&page=2&page=3",
	}
	for _, target := range inputs {
		rec := do(t, h, "GET", target)
		if rec.Code >= 500 {
			t.Errorf("GET %.100s = %d\n%s", target, rec.Code, rec.Body)
			continue
		}
		if rec.Code >= 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("GET %.100s = %d with %q", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}

// FuzzQueryParameters throws arbitrary query strings at every endpoint: the
// answer is never 5xx and always JSON.
func FuzzQueryParameters(f *testing.F) {
	for _, s := range []string{"q=dior", "limit=5&page=2", "accords=woody:40,vanilla", "notes=Rose&gender=feminine",
		"page=-1", "limit=%ff", "accords=a:b:c", "q=" + strings.Repeat("x", 300), "search=wood&limit=101"} {
		f.Add(s)
	}
	h := newServer(f, nil)
	paths := []string{"/api/perfumes", "/api/perfumes/match", "/api/perfumes/dior-sauvage/similar",
		"/api/perfumes/dior-sauvage/dupes", "/api/brands", "/api/notes", "/api/accords", "/api/perfumers/dominique-ropion"}
	f.Fuzz(func(t *testing.T, query string) {
		for _, p := range paths {
			req, err := http.NewRequest("GET", "http://x"+p, nil)
			if err != nil {
				t.Skip()
			}
			req.URL.RawQuery = query
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("GET %s?%q = %d: %s", p, query, rec.Code, rec.Body)
			}
		}
	})
}
