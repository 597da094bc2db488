package portal

import (
	"errors"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// visitor is a signed-in visitor: the session of the request's cookie and
// its account.
type visitor struct {
	account account.Account
	session account.Session
}

// lookup finds the visitor signed in on r. ok is false when nobody is (no
// cookie, a malformed one, an unknown or expired session); err reports a
// store that cannot tell, and then nobody is signed in either: the portal
// fails closed.
func (p *Portal) lookup(r *http.Request) (v visitor, ok bool, err error) {
	c, err := r.Cookie(p.cookie)
	if err != nil || !account.ValidSecret(c.Value) {
		return visitor{}, false, nil
	}
	s, a, err := p.cfg.Accounts.TouchSession(r.Context(), account.Hash(c.Value), p.now())
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return visitor{}, false, nil
	case err != nil:
		return visitor{}, false, err
	case a.ID == 0 || a.ID != s.AccountID || a.Deleted() || a.Disabled:
		return visitor{}, false, nil
	}
	return visitor{account: a, session: s}, true, nil
}

// signedIn serves h for a signed-in visitor. Anyone else gets the sign-in
// form (401); a store that cannot answer gives the 503 page, never a
// signed-in page.
func (p *Portal) signedIn(h func(http.ResponseWriter, *http.Request, visitor)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok, err := p.lookup(r)
		switch {
		case err != nil:
			p.unavailable(w, r, err)
		case !ok:
			p.signInFirst(w, r)
		default:
			h(w, r, v)
		}
	}
}

// ownKey serves h for a signed-in visitor and a key of theirs, named by
// the route's {prefix}. A key of another account, or of none, is answered
// exactly as a key that does not exist: 404, nothing read out or changed.
func (p *Portal) ownKey(h func(http.ResponseWriter, *http.Request, visitor, apikey.Key)) http.HandlerFunc {
	return p.signedIn(func(w http.ResponseWriter, r *http.Request, v visitor) {
		prefix := r.PathValue("prefix")
		if n, err := apikey.NormalizePrefix(prefix); err != nil || n != prefix {
			p.notFound(w, r)
			return
		}
		k, err := p.cfg.Keys.KeyByPrefix(r.Context(), prefix)
		switch {
		case errors.Is(err, catalog.ErrNotFound) || (err == nil && k.AccountID != v.account.ID):
			p.notFound(w, r)
		case err != nil:
			p.unavailable(w, r, err)
		default:
			h(w, r, v, k)
		}
	})
}

// notFound answers the 404 page, which repeats the path asked for: with
// any key in it (a whole key pasted where a prefix goes) redacted.
func (p *Portal) notFound(w http.ResponseWriter, r *http.Request) {
	u := *r.URL
	u.Path, u.RawPath = apikey.RedactSecrets(u.Path), ""
	r2 := r.WithContext(r.Context())
	r2.URL = &u
	p.web.NotFoundPage(w, r2)
}

// signInFirst answers a page that needs a session, asked without one: the
// sign-in form, 401, and the browser forgets a cookie that no longer
// names a session.
func (p *Portal) signInFirst(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(p.cookie); err == nil {
		p.clearSession(w)
	}
	p.renderHome(w, r, http.StatusUnauthorized, homeData{
		Notice: "Sign in to manage your keys: you are not signed in, or your session has ended.",
	})
}

// setSession gives the browser the session cookie: HttpOnly, SameSite=Lax,
// Secure and __Host- over https, kept as long as a session can last (the
// store ends it sooner when idle).
func (p *Portal) setSession(w http.ResponseWriter, secret string) {
	http.SetCookie(w, &http.Cookie{
		Name: p.cookie, Value: secret, Path: "/", MaxAge: int(account.SessionMax / time.Second),
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode,
	})
}

// clearSession makes the browser drop the session cookie.
func (p *Portal) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: p.cookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode,
	})
}

// signOut is POST /developer/signout: this browser's session ends.
func (p *Portal) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(p.cookie); err == nil && account.ValidSecret(c.Value) {
		if err := p.cfg.Accounts.EndSession(r.Context(), account.Hash(c.Value)); err != nil && !errors.Is(err, catalog.ErrNotFound) {
			p.unavailable(w, r, err)
			return
		}
	}
	p.clearSession(w)
	seeOther(w, r, "/developer")
}

// signOutEverywhere is POST /developer/signout/everywhere: every session
// of the account ends, on every browser.
func (p *Portal) signOutEverywhere(w http.ResponseWriter, r *http.Request, v visitor) {
	if err := p.cfg.Accounts.EndSessions(r.Context(), v.account.ID); err != nil {
		p.unavailable(w, r, err)
		return
	}
	p.clearSession(w)
	seeOther(w, r, "/developer")
}
