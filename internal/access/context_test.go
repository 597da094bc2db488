package access

import (
	"net/url"
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
