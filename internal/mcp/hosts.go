package mcp

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// allowHosts refuses, with 403, a request that reached the server over a
// loopback connection with a Host that is neither loopback's nor one of
// allowed: a page on another site cannot make a local browser call the
// server through a name that resolves to 127.0.0.1 (DNS rebinding), while
// a reverse proxy on the same machine that keeps the public Host (the host
// of --base-url, in allowed) is served. Names are compared without their
// port and case. It stands in for the SDK's own check, which allows
// loopback names only.
func allowHosts(allowed []string, h http.Handler) http.Handler {
	names := make(map[string]bool, len(allowed))
	for _, a := range allowed {
		names[hostName(a)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if ok && local != nil && isLoopback(local.String()) {
			if host := hostName(r.Host); !isLoopback(host) && !names[host] {
				http.Error(w, "Forbidden: the Host "+r.Host+" is not this server's", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// hostName is the name of a Host header or an address, without its port
// and brackets, in lower case.
func hostName(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// isLoopback reports an address or name of the loopback interface.
func isLoopback(hostport string) bool {
	h := hostName(hostport)
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}
