package access_test

import (
	"errors"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/catalog"
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
	for _, bad := range []string{"10.0.0.0/33", "::ffff:0.0.0.0/0", "::ffff:10.0.0.0/95"} {
		if _, err := access.ParseTrustedProxies(bad); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("ParseTrustedProxies(%q): %v, want a refusal", bad, err)
		}
	}
	if got, err := access.ParseTrustedProxies("::ffff:10.0.0.0/104"); err != nil || got[0] != netip.MustParsePrefix("10.0.0.0/8") {
		t.Errorf("an IPv4-mapped /104 reads as %v, %v, want 10.0.0.0/8", got, err)
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

// FuzzTrustedProxies: whatever --trusted-proxies says, ParseTrustedProxies
// gives canonical prefixes (masked, IPv4 unmapped) that read back the same
// from their text, or an error; and with them, the client IP of any request
// is its peer unless the peer is a trusted proxy, and otherwise an address
// of its X-Forwarded-For.
func FuzzTrustedProxies(f *testing.F) {
	for _, s := range [][3]string{
		{"10.0.0.0/8, 127.0.0.1, ::1", "10.1.2.3:5", "1.2.3.4, 10.0.0.2"},
		{"::ffff:10.0.0.0/104", "10.0.0.9:1", "203.0.113.7"},
		{"0.0.0.0/0,::/0", "192.0.2.1:1", "garbage, 198.51.100.2"},
		{"10.0.0.1/8", "[::1]:2", "[2001:db8::1]:443"},
		{"fe80::1%eth0", "[fe80::1%eth0]:1", "1.1.1.1"},
		{"bogus", "", ""},
		{"1.2.3.4/33", "1.2.3.4:1", ""},
		{" , ,10.0.0.0/8", "10.0.0.1:1", "10.0.0.2,10.0.0.3"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, list, remote, xff string) {
		trusted, err := access.ParseTrustedProxies(list)
		if err != nil {
			if !errors.Is(err, catalog.ErrInvalid) {
				t.Fatalf("ParseTrustedProxies(%q): %v does not wrap catalog.ErrInvalid", list, err)
			}
			return
		}
		texts := make([]string, len(trusted))
		for i, p := range trusted {
			if !p.IsValid() || p != p.Masked() || p.Addr().Is4In6() || p.Addr().Zone() != "" {
				t.Fatalf("ParseTrustedProxies(%q) gives %v, not canonical", list, p)
			}
			texts[i] = p.String()
		}
		again, err := access.ParseTrustedProxies(strings.Join(texts, ","))
		if err != nil || !slices.Equal(again, trusted) {
			t.Fatalf("%q: round trip of %v gives %v, %v", list, trusted, again, err)
		}

		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		got := access.ClientIP(r, trusted)
		peer := access.ClientIP(r, nil)
		if got == peer {
			return
		}
		if !slices.ContainsFunc(trusted, func(p netip.Prefix) bool { return p.Contains(peer) }) {
			t.Fatalf("peer %v is not trusted, yet the client IP is %v", peer, got)
		}
		for _, hop := range strings.Split(xff, ",") {
			h := httptest.NewRequest("GET", "/", nil)
			h.RemoteAddr = strings.TrimSpace(hop)
			if access.ClientIP(h, nil) == got {
				return
			}
		}
		t.Fatalf("client IP %v is neither the peer %v nor in X-Forwarded-For %q", got, peer, xff)
	})
}
