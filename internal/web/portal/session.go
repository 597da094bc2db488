package portal

import (
	"errors"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// visitor is a signed-in visitor: the session of the request's cookie and
// its account.
type visitor struct {
	account account.Account
	session account.Session
}

// touch is the visitor of the live session whose cookie hashes to hash,
// the store recording now as its last use. A session of no live, enabled
// account names nobody (account.ErrNoSession), whatever the store said.
func (p *Portal) touch(r *http.Request, hash string, now time.Time) (visitor, error) {
	s, a, err := p.cfg.Accounts.TouchSession(r.Context(), hash, now)
	switch {
	case err != nil:
		return visitor{}, err
	case a.ID == 0 || a.ID != s.AccountID || a.Deleted() || a.Disabled:
		return visitor{}, account.ErrNoSession
	}
	return visitor{account: a, session: s}, nil
}

// ownKey serves h for a signed-in visitor and a key of theirs, named by
// the route's {prefix}. A key of another account, or of none, is answered
// exactly as a key that does not exist: 404, nothing read out or changed.
func (p *Portal) ownKey(h func(http.ResponseWriter, *http.Request, visitor, apikey.Key)) http.HandlerFunc {
	return p.area.SignedIn(func(w http.ResponseWriter, r *http.Request, v visitor) {
		k, err := session.RouteKey(r, p.cfg.Keys)
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
// sign-in form, 401.
func (p *Portal) signInFirst(w http.ResponseWriter, r *http.Request) {
	p.renderHome(w, r, http.StatusUnauthorized, homeData{
		Notice: "Sign in to manage your keys: you are not signed in, or your session has ended.",
	})
}

// signOut is POST /developer/signout: this browser's session ends.
func (p *Portal) signOut(w http.ResponseWriter, r *http.Request) {
	if err := p.area.End(w, r); err != nil {
		p.unavailable(w, r, err)
		return
	}
	session.SeeOther(w, r, "/developer")
}

// signOutEverywhere is POST /developer/signout/everywhere: every session
// of the account ends, on every browser.
func (p *Portal) signOutEverywhere(w http.ResponseWriter, r *http.Request, v visitor) {
	if err := p.cfg.Accounts.EndSessions(r.Context(), v.account.ID); err != nil {
		p.unavailable(w, r, err)
		return
	}
	p.area.Forget(w)
	session.SeeOther(w, r, "/developer")
}
