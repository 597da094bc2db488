package access

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestStripAndRedactKeyParam(t *testing.T) {
	for _, tc := range []struct{ in, stripped, redacted string }{
		{"q=dior", "q=dior", "q=dior"},
		{"api_key=SECRET", "", "api_key=REDACTED"},
		{"q=a&api_key=SECRET&page=2", "q=a&page=2", "q=a&api_key=REDACTED&page=2"},
		{"api%5Fkey=SECRET&q=%C3%A9", "q=%C3%A9", "api_key=REDACTED&q=%C3%A9"},
		{"api_key=1&api_key=2", "", "api_key=REDACTED&api_key=REDACTED"},
		{"api_keys=x", "api_keys=x", "api_keys=x"},
	} {
		if got := stripKeyParam(tc.in); got != tc.stripped {
			t.Errorf("stripKeyParam(%q) = %q, want %q", tc.in, got, tc.stripped)
		}
		if got := RedactQuery(tc.in); got != tc.redacted {
			t.Errorf("RedactQuery(%q) = %q, want %q", tc.in, got, tc.redacted)
		}
	}
}

// FuzzKeyParam: whatever the query, what the handler sees and what the log
// shows carry no api_key value that url.ParseQuery would find.
func FuzzKeyParam(f *testing.F) {
	f.Add("q=a&api_key=SECRET")
	f.Add("api%5Fkey=S&%61pi_key=T")
	f.Add("a;b&api_key")
	f.Fuzz(func(t *testing.T, raw string) {
		if v, _ := url.ParseQuery(stripKeyParam(raw)); len(v[QueryParam]) > 0 {
			t.Fatalf("stripKeyParam(%q) leaves %q", raw, v[QueryParam])
		}
		v, _ := url.ParseQuery(RedactQuery(raw))
		for _, s := range v[QueryParam] {
			if s != "REDACTED" {
				t.Fatalf("RedactQuery(%q) leaves %q", raw, s)
			}
		}
	})
}

// FuzzCredentials: whatever the X-API-Key and Authorization headers and the
// query hold, the key read is X-API-Key's (trimmed) when it has one, else
// the Bearer token, else api_key's value; a Bearer token is never empty or
// padded, is part of its header, and reads back from "Bearer <token>" in
// any case of the scheme.
func FuzzCredentials(f *testing.F) {
	for _, s := range [][3]string{
		{"fds_abc", "Bearer other", "api_key=third"},
		{"  ", "bearer   tok  ", ""},
		{"", "Basic dXNlcjpwYXNz", "api%5Fkey=%20k%20"},
		{"", "Bearer", "api_key=&api_key=second"},
		{"", "BEARER a b c", "x=1"},
		{"", "Bearer\ttab", "%zz&api_key=v"},
		{"\x00", "Bearer \x00", "api_key=\x00"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, xkey, auth, query string) {
		r := httptest.NewRequest("GET", "/api/perfumes", nil)
		r.URL.RawQuery = query
		r.Header["X-Api-Key"] = []string{xkey}
		r.Header["Authorization"] = []string{auth}
		got, ok := credentials(r)
		tok, isBearer := bearer(auth)
		want := strings.TrimSpace(xkey)
		switch {
		case want != "":
		case isBearer:
			want = tok
		default:
			want = strings.TrimSpace(r.URL.Query().Get(QueryParam))
		}
		if got != want || ok != (want != "") {
			t.Fatalf("credentials(X-API-Key %q, Authorization %q, query %q) = %q, %v; want %q", xkey, auth, query, got, ok, want)
		}
		if !isBearer {
			return
		}
		if tok == "" || tok != strings.TrimSpace(tok) || !strings.Contains(auth, tok) {
			t.Fatalf("bearer(%q) = %q", auth, tok)
		}
		if again, ok := bearer("bEaReR " + tok); !ok || again != tok {
			t.Fatalf("bearer of %q reads back as %q, %v", tok, again, ok)
		}
	})
}
