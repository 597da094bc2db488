package admin

import (
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
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

// lookup finds the admin signed in on r. ok is false when nobody is (no
// cookie, a malformed one, an unknown or ended session, a disabled user);
// err reports a store that cannot tell, or a client outside the
// allow-list, and then nobody is signed in either: the dashboard fails
// closed.
func (d *Dashboard) lookup(r *http.Request) (op operator, ok bool, err error) {
	ip, allowed := d.clientIP(r)
	if !allowed {
		return operator{}, false, errOutside
	}
	c, err := r.Cookie(d.cookie)
	if err != nil || !account.ValidSecret(c.Value) {
		return operator{}, false, nil
	}
	now := d.now()
	s, u, err := d.cfg.Admins.TouchAdminSession(r.Context(), account.Hash(c.Value), now)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return operator{}, false, nil
	case err != nil:
		return operator{}, false, errorf("touch an admin session", err)
	case u.ID == 0 || s.UserID != u.ID || u.Disabled || s.Expired(now):
		return operator{}, false, nil
	}
	return operator{user: u, session: s, ip: ip}, true, nil
}

// signedIn serves h for a signed-in admin. Anyone else is sent to the
// sign-in form (a POST does nothing); a store that cannot answer gives the
// 503 page, never a signed-in page.
func (d *Dashboard) signedIn(h func(http.ResponseWriter, *http.Request, operator)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op, ok, err := d.lookup(r)
		switch {
		case err != nil:
			d.unavailable(w, r, err)
		case !ok:
			d.signInFirst(w, r)
		default:
			h(w, r, op)
		}
	})
}

// signInFirst answers a request that needs a session, sent without one: a
// redirect (303) to the sign-in form, which comes back to a page asked for
// with GET; the browser forgets a cookie that names no session.
func (d *Dashboard) signInFirst(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(d.cookie); err == nil {
		d.clearSession(w)
	}
	to := signInPath
	if r.Method == http.MethodGet {
		if next := r.URL.RequestURI(); safeNext(next) && next != "/admin" {
			to += "?" + url.Values{"next": {next}}.Encode()
		}
	}
	seeOther(w, r, to)
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

// setSession gives the browser the session cookie: HttpOnly,
// SameSite=Strict, Secure and __Host- over https (Path=/ then, as the
// prefix demands), Path=/admin otherwise; kept as long as a session can
// last (the store ends it sooner when idle).
func (d *Dashboard) setSession(w http.ResponseWriter, secret string) {
	http.SetCookie(w, &http.Cookie{
		Name: d.cookie, Value: secret, Path: d.path, MaxAge: int(admin.SessionMax.Seconds()),
		HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteStrictMode,
	})
}

// clearSession makes the browser drop the session cookie.
func (d *Dashboard) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: d.cookie, Value: "", Path: d.path, MaxAge: -1,
		HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteStrictMode,
	})
}

// seeOther sends the browser to path (303): after a POST, so a reload
// does not send the form again, and to the sign-in form.
func seeOther(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, path, http.StatusSeeOther)
}
