package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// operator is a signed-in admin: the session of the request's cookie, its
// user, and the client IP the request came from.
type operator struct {
	user    admin.User
	session admin.Session
	ip      netip.Addr
}

// clientIP is the client address of r when it is inside the allow-list;
// ok is false otherwise, and always when the list or the ClientIP func is
// missing, or the address cannot be read.
func (d *Dashboard) clientIP(r *http.Request) (ip netip.Addr, ok bool) {
	if d.cfg.ClientIP == nil || len(d.cfg.Allow) == 0 {
		return netip.Addr{}, false
	}
	ip = d.cfg.ClientIP(r).Unmap()
	if !ip.IsValid() {
		return netip.Addr{}, false
	}
	for _, p := range d.cfg.Allow {
		if p.IsValid() && p.Contains(ip) {
			return ip, true
		}
	}
	return netip.Addr{}, false
}

// gate serves h only to a client inside the allow-list. Everyone else gets
// the site's 404 page, as for a path that does not exist: nothing tells
// that a dashboard is here.
func (d *Dashboard) gate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := d.clientIP(r); !ok {
			d.web.NotFoundPage(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// errOutside reports a request from outside the allow-list that reached a
// session check (it cannot, behind gate; the check fails closed anyway).
var errOutside = errors.New("admin: the client is outside the allow-list")

// admit refuses every session to a client outside the allow-list: the
// session's lookup then fails closed, before the cookie is read.
func (d *Dashboard) admit(r *http.Request) error {
	if _, ok := d.clientIP(r); !ok {
		return errOutside
	}
	return nil
}

// errNoOperator reports a session the store found that names no enabled
// admin, or has ended: nobody is signed in.
var errNoOperator = fmt.Errorf("admin: the session names no enabled admin: %w", catalog.ErrNotFound)

// touch is the operator of the live session whose cookie hashes to hash,
// the store recording now as its last use, with the request's client IP.
// An unknown or ended session, or a disabled admin's, names nobody.
func (d *Dashboard) touch(r *http.Request, hash string, now time.Time) (operator, error) {
	s, u, err := d.cfg.Admins.TouchAdminSession(r.Context(), hash, now)
	switch {
	case err != nil:
		return operator{}, errorf("touch an admin session", err)
	case u.ID == 0 || s.UserID != u.ID || u.Disabled || s.Expired(now):
		return operator{}, errNoOperator
	}
	ip, _ := d.clientIP(r)
	return operator{user: u, session: s, ip: ip}, nil
}

// signInFirst answers a request that needs a session, sent without one: a
// redirect (303) to the sign-in form, which comes back to a page asked for
// with GET.
func (d *Dashboard) signInFirst(w http.ResponseWriter, r *http.Request) {
	to := signInPath
	if r.Method == http.MethodGet {
		if next := r.URL.RequestURI(); safeNext(next) && next != "/admin" {
			to += "?" + url.Values{"next": {next}}.Encode()
		}
	}
	session.SeeOther(w, r, to)
}

// signInPath is the sign-in form's path.
const signInPath = "/admin/signin"

// maxNext bounds the page a sign-in returns to.
const maxNext = 1024

// safeNext reports whether next is a page of the dashboard to return to
// after signing in: a path under /admin, nothing that leaves the site.
func safeNext(next string) bool {
	if len(next) > maxNext || (next != "/admin" && !strings.HasPrefix(next, "/admin/") && !strings.HasPrefix(next, "/admin?")) ||
		strings.Contains(next, "\\") || strings.Contains(next, "/..") {
		return false
	}
	for _, c := range next {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	u, err := url.Parse(next)
	return err == nil && u.Scheme == "" && u.Host == "" && !strings.HasPrefix(u.Path, "//")
}
