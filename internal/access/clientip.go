package access

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// ParseTrustedProxies reads a comma-separated list of CIDR prefixes or
// single addresses ("10.0.0.0/8, 127.0.0.1") for a --trusted-proxies flag.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			a, err := netip.ParseAddr(item)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", item, catalog.ErrInvalid)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", item, catalog.ErrInvalid)
		}
		if p.Addr().Is4In6() {
			// An IPv4-mapped prefix is the IPv4 prefix it maps, as the peers
			// it is matched against are; one shorter than /96 reaches past
			// the mapped addresses into IPv6, which is not what such a
			// spelling says, so it is refused rather than guessed at.
			if p.Bits() < 96 {
				return nil, fmt.Errorf("trusted proxy %q: an IPv4-mapped prefix must be /96 or longer: %w", item, catalog.ErrInvalid)
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// ClientIP is the address a request came from: the peer of the connection,
// or, when that peer is a trusted proxy, the nearest address in
// X-Forwarded-For that is not itself a trusted proxy. Headers from an
// untrusted peer are ignored, since anyone can write them. The zero Addr
// means the peer address could not be read.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHostAddr(r.RemoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
		return peer
	}
	hops := r.Header.Values("X-Forwarded-For")
	client := peer
	// Walk from the nearest hop outwards; each trusted hop vouches for the
	// one before it.
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a := parseHostAddr(strings.TrimSpace(parts[j]))
			if !a.IsValid() {
				return client
			}
			client = a
			if !isTrusted(a, trusted) {
				return a
			}
		}
	}
	return client
}

// parseHostAddr reads "ip", "ip:port", "[v6]:port" or "[v6]".
func parseHostAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// DefaultIPv6Prefix is the IPv6 prefix length a per-IP limit counts as
// one client unless configured otherwise: the /64 a client is given.
const DefaultIPv6Prefix = 64

// LimitAddr is the address a per-IP limit counts a for: an IPv6 address
// masked to its prefix of v6Bits bits (the first address of its /64 by
// default), any other as it is (an IPv4-mapped address as its IPv4), for
// limits that key on a netip.Addr rather than on AddressKey's text.
func LimitAddr(a netip.Addr, v6Bits int) netip.Addr {
	if a = a.Unmap(); !a.Is6() {
		return a
	}
	if v6Bits <= 0 {
		v6Bits = DefaultIPv6Prefix
	}
	if v6Bits >= 128 {
		return a.WithZone("")
	}
	p, _ := a.WithZone("").Prefix(v6Bits)
	return p.Addr()
}

// AddressKey is the id a per-IP limit counts the client address ip under:
// an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4), an
// IPv6 address as its prefix of v6Bits bits ("2001:db8:0:7::/64"; the
// address itself at 128 or more, DefaultIPv6Prefix at 0 or less). Text
// that is no address ("unknown") is returned as it is.
func AddressKey(ip string, v6Bits int) string {
	if !strings.Contains(ip, ":") {
		return ip // IPv4, or "unknown": the common case, without parsing
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	if v6Bits <= 0 {
		v6Bits = DefaultIPv6Prefix
	}
	if v6Bits >= 128 {
		return a.WithZone("").String()
	}
	p, _ := a.WithZone("").Prefix(v6Bits)
	return p.String()
}
