package access_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
)

func TestClientIP(t *testing.T) {
	trusted, err := access.ParseTrustedProxies("10.0.0.0/8, 127.0.0.1, ::1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, remote string
		xff          []string
		want         string
	}{
		{"direct", "203.0.113.9:5000", nil, "203.0.113.9"},
		{"untrusted peer's header ignored", "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9"},
		{"trusted proxy", "10.1.2.3:80", []string{"198.51.100.1"}, "198.51.100.1"},
		{"chain of proxies", "127.0.0.1:80", []string{"6.6.6.6, 198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"several headers", "10.1.2.3:80", []string{"6.6.6.6", "198.51.100.2"}, "198.51.100.2"},
		{"all trusted", "10.1.2.3:80", []string{"10.0.0.5"}, "10.0.0.5"},
		{"garbage stops the walk", "10.1.2.3:80", []string{"6.6.6.6, nonsense"}, "10.1.2.3"},
		{"ipv6 peer", "[::1]:80", []string{"2001:db8::7"}, "2001:db8::7"},
		{"mapped ipv4", "[::ffff:10.1.2.3]:80", []string{"198.51.100.3"}, "198.51.100.3"},
		{"xff with port", "10.1.2.3:80", []string{"198.51.100.4:1234"}, "198.51.100.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/perfumes", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := access.ClientIP(r, trusted); got.String() != tc.want {
				t.Fatalf("ClientIP = %v, want %s", got, tc.want)
			}
		})
	}
	if _, err := access.ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Fatal("bad prefix accepted")
	}
}

func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.1:1", "1.2.3.4, 10.0.0.2")
	f.Add("[::1]:1", "[2001:db8::1]:80,,")
	f.Add("garbage", "")
	f.Add("203.0.113.9:5000", "")
	f.Add("010.0.0.1:1", "")
	f.Add("[::ffff:203.0.113.9]:1", "")
	f.Add("1.2.3.4:", "")
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	e := newEnv(f, access.Config{TrustedProxies: trusted})
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		got := access.ClientIP(r, trusted)
		if got.IsValid() && got.Is4In6() {
			t.Fatalf("mapped address %v not unmapped", got)
		}
		// The Guard's text of it, spared an allocation when it can be.
		want := "unknown"
		if got.IsValid() {
			want = got.String()
		}
		if s := e.g.ClientIP(r); s != want {
			t.Fatalf("Guard.ClientIP = %q, want %q", s, want)
		}
	})
}
