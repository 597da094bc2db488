package apikey_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// FuzzOrigins: whatever an operator types as a key's origins and whatever a
// browser sends as Origin, ParseOrigins gives canonical origins (parsing one
// again gives itself) or an error, a key allows each origin it was given,
// and it allows an Origin header only if that header is, once canonical,
// one of them.
func FuzzOrigins(f *testing.F) {
	for _, s := range [][2]string{
		{"https://app.example.com", "https://APP.example.com"},
		{"https://a.example, http://localhost:3000/", "http://localhost:3000"},
		{"https://a.example/path", "https://a.example"},
		{"app.example.com", "null"},
		{"https://user@a.example", "https://a.example#x"},
		{"http://[::1]:8080", "http://[::1]:8080/"},
		{",,", ""},
		{"https://a.example?q=1", "https://a.example:443"},
		{"http://%41", "javascript://x"},
		{"https://<script>.example", "https://a_b.example"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, list, origin string) {
		origins, err := apikey.ParseOrigins(list)
		if err != nil {
			if !errors.Is(err, catalog.ErrInvalid) {
				t.Fatalf("ParseOrigins(%q): %v does not wrap catalog.ErrInvalid", list, err)
			}
			return
		}
		k := apikey.Key{Origins: origins}
		for _, o := range origins {
			again, err := apikey.ParseOrigins(o)
			if err != nil || len(again) != 1 || again[0] != o {
				t.Fatalf("origin %q of %q is not canonical: parses to %q, %v", o, list, again, err)
			}
			if strings.Contains(o, ",") || o != strings.ToLower(o) {
				t.Fatalf("origin %q of %q has a comma or upper case", o, list)
			}
			if !k.AllowsOrigin(o) {
				t.Fatalf("key with %q refuses its own origin %q", origins, o)
			}
		}
		if len(origins) == 0 {
			if !k.AllowsOrigin(origin) {
				t.Fatalf("a key without origins refuses %q", origin)
			}
			return
		}
		if k.AllowsOrigin(origin) {
			canon, err := apikey.ParseOrigins(origin)
			if err != nil || len(canon) != 1 || !contains(origins, canon[0]) {
				t.Fatalf("key with %q allows %q (canonical %q, %v)", origins, origin, canon, err)
			}
		}
	})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestParseOriginsHosts: an origin's host is a name or an IP address;
// anything else a URL parser lets through is refused.
func TestParseOriginsHosts(t *testing.T) {
	for _, ok := range []string{"https://app.example.com", "http://localhost:8080", "http://[::1]:3000", "http://127.0.0.1", "https://xn--bcher-kva.example"} {
		if _, err := apikey.ParseOrigins(ok); err != nil {
			t.Errorf("ParseOrigins(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"https://<script>.example", "https://a%20b.example", "https://a b.example", "https://[zz]:1"} {
		if got, err := apikey.ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) = %v", bad, got)
		}
	}
}
