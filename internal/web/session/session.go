// Package session is what the site's two signed-in areas, the developer
// portal (web/portal) and the admin dashboard (web/admin), hold alike, with
// their differences (cookie names and paths, SameSite, how long the cookie
// is kept, who a session names, the areas' words) as configuration:
//
//   - the session: a cookie whose value (account.NewSecret) only the
//     browser holds while the store keeps its hash; issued at sign-in
//     (Start), read and touched on every request (Lookup), ended and
//     cleared at sign-out (End). It is HttpOnly always, and Secure and
//     named with the __Host- prefix when the site is served over https;
//   - the gate of the pages that need a session (SignedIn): a store that
//     cannot tell who is signed in means nobody is, and the visitor gets
//     the page of a store that cannot answer (503), never the page asked
//     for;
//   - the frame of the areas' pages: titles, the message page, the refusal
//     of a form sent from another site (http.CrossOriginProtection), the
//     reading of a form, the redirect that ends a POST, and the key a
//     route names.
//
// How long a session lasts is the store's rule (account.SessionIdle and
// SessionMax for the portal, admin's for the dashboard): the cookie is kept
// as long as a session can last, and a session the store ended is one the
// browser is told to forget.
package session

import (
	"context"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
)

// Config is one area's policy. Every field is required but Funcs, Pages,
// NoStore, NoCookieChoice, Admit, Now and Logger.
type Config[V any] struct {
	// Web is the ground the pages render on; when its BaseURL is https the
	// cookie is Secure and named with the __Host- prefix.
	Web *web.Ground
	// Templates holds the area's pages ("templates/<name>.html", partials
	// "templates/_*.html"), parsed with Funcs over the ground's layout:
	// those named in Pages, and "message", which reads a Message as .Data.
	Templates fs.FS
	Funcs     template.FuncMap
	Pages     []string
	// Name ends the area's page titles, before the service's name
	// ("Developer portal", "Admin").
	Name string
	// Who names the area in its pages' words, after "the" ("portal",
	// "dashboard"); Log starts the area's log lines ("portal", "admin").
	Who, Log string
	// Home is the area's first page: a message page leads back there,
	// named HomeText, unless it says otherwise.
	Home, HomeText string
	// NoStore keeps every message page out of caches (the dashboard's
	// pages are never kept).
	NoStore bool
	// NoCookieChoice marks every message page as asking no cookie choice
	// (web.Page.NoCookieChoice): the dashboard's one cookie is strictly
	// necessary.
	NoCookieChoice bool
	// Cookie is the session cookie's policy.
	Cookie Cookie
	// Admit, when set, is asked before the cookie is read: its error means
	// nobody can be signed in on the request (the dashboard's allow-list),
	// and is answered as a store that cannot tell.
	Admit func(r *http.Request) error
	// Touch returns who holds the live session whose cookie hashes to
	// hash, the store recording now as its last use. An error wrapping
	// catalog.ErrNotFound means there is no such live session (nobody is
	// signed in); any other, that the store cannot tell.
	Touch func(r *http.Request, hash string, now time.Time) (V, error)
	// End ends the session whose cookie hashes to hash; ending one that is
	// gone is no error.
	End func(ctx context.Context, hash string) error
	// SignInFirst answers a request that needs a session, sent without
	// one (the browser already told to forget a cookie that names none):
	// the portal's sign-in form, the dashboard's redirect to its own.
	SignInFirst http.HandlerFunc
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives the failures of stores; default discards.
	Logger *slog.Logger
}

// Cookie is an area's session cookie.
type Cookie struct {
	// Name is the cookie's name without TLS. Over https it is "__Host-"
	// and Name, and the browser holds it to that prefix's rules: Secure,
	// Path=/ and no Domain.
	Name string
	// Path is where the browser sends the cookie without TLS ("" is "/");
	// over https it is "/", as the prefix demands.
	Path string
	// SameSite is the cookie's SameSite attribute.
	SameSite http.SameSite
	// MaxAge is how long the browser keeps the cookie: as long as a
	// session can last (the store ends it sooner when idle).
	MaxAge time.Duration
}

// securePrefix names a cookie the browser keeps only from a secure origin,
// sent with Path=/ and without Domain.
const securePrefix = "__Host-"

// Area is one signed-in area's sessions and the frame of its pages, for
// visitors of type V (who a session names, as Touch returns them).
type Area[V any] struct {
	cfg     Config[V]
	pages   *web.Templates
	name    string // the cookie's name on this base URL
	path    string // the cookie's path on this base URL
	secure  bool   // the base URL is https
	now     func() time.Time
	log     *slog.Logger
	xorigin *http.CrossOriginProtection
}

// New checks cfg and parses the area's templates.
func New[V any](cfg Config[V]) (*Area[V], error) {
	if cfg.Web == nil || cfg.Templates == nil || cfg.Touch == nil || cfg.End == nil || cfg.SignInFirst == nil {
		return nil, errors.New("session: New needs the web ground, the area's templates, Touch, End and SignInFirst")
	}
	if cfg.Name == "" || cfg.Who == "" || cfg.Log == "" || cfg.Home == "" || cfg.HomeText == "" || cfg.Cookie.Name == "" || cfg.Cookie.MaxAge <= 0 {
		return nil, errors.New("session: New needs the area's names, its home and its cookie's name and lifetime")
	}
	a := &Area[V]{cfg: cfg, name: cfg.Cookie.Name, path: cfg.Cookie.Path, now: cfg.Now, log: cfg.Logger}
	if a.path == "" {
		a.path = "/"
	}
	if strings.HasPrefix(cfg.Web.BaseURL(), "https://") {
		a.secure, a.name, a.path = true, securePrefix+cfg.Cookie.Name, "/"
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.xorigin = http.NewCrossOriginProtection()
	a.xorigin.SetDenyHandler(http.HandlerFunc(a.refuseForm))
	var err error
	if a.pages, err = cfg.Web.Templates(cfg.Templates, cfg.Funcs, append([]string{"message"}, cfg.Pages...)...); err != nil {
		return nil, err
	}
	return a, nil
}

// Pages are the area's pages, over the ground's layout.
func (a *Area[V]) Pages() *web.Templates { return a.pages }

// Now is the area's clock.
func (a *Area[V]) Now() time.Time { return a.now() }

// Logger receives the area's failures.
func (a *Area[V]) Logger() *slog.Logger { return a.log }

// secret is the value of the session cookie r carries, when it has the
// shape of one (a malformed cookie never reaches the store).
func (a *Area[V]) secret(r *http.Request) (string, bool) {
	c, err := r.Cookie(a.name)
	if err != nil || !account.ValidSecret(c.Value) {
		return "", false
	}
	return c.Value, true
}

// Lookup finds who is signed in on r. ok is false when nobody is (no
// cookie, a malformed one, no live session); err reports a store that
// cannot tell (or Admit's refusal), and then nobody is signed in either:
// the area fails closed.
func (a *Area[V]) Lookup(r *http.Request) (v V, ok bool, err error) {
	var none V
	if a.cfg.Admit != nil {
		if err := a.cfg.Admit(r); err != nil {
			return none, false, err
		}
	}
	secret, ok := a.secret(r)
	if !ok {
		return none, false, nil
	}
	v, err = a.cfg.Touch(r, account.Hash(secret), a.now())
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return none, false, nil
	case err != nil:
		return none, false, err
	}
	return v, true, nil
}

// SignedIn serves h for a signed-in visitor. Anyone else is answered by
// SignInFirst, the browser told to forget a cookie that names no session;
// a store that cannot answer gives the 503 page, never h.
func (a *Area[V]) SignedIn(h func(http.ResponseWriter, *http.Request, V)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok, err := a.Lookup(r)
		switch {
		case err != nil:
			a.Unavailable(w, r, err)
		case !ok:
			a.ForgetStale(w, r)
			a.cfg.SignInFirst(w, r)
		default:
			h(w, r, v)
		}
	}
}

// Start begins a session on this browser: a fresh secret, whose hash
// create stores; the session the browser had before in the area ends (a
// failure to end it is logged: the new session stands either way); the
// cookie is set. An error of create is returned, and nothing is set.
func (a *Area[V]) Start(w http.ResponseWriter, r *http.Request, create func(hash string) error) error {
	secret, hash := account.NewSecret()
	if err := create(hash); err != nil {
		return err
	}
	if old, ok := a.secret(r); ok {
		if err := a.cfg.End(r.Context(), account.Hash(old)); err != nil && !errors.Is(err, catalog.ErrNotFound) {
			a.log.WarnContext(r.Context(), a.cfg.Log+": the previous session could not be ended", "err", err)
		}
	}
	http.SetCookie(w, a.cookie(secret, int(a.cfg.Cookie.MaxAge/time.Second)))
	return nil
}

// End ends this browser's session, when its cookie names one, and makes
// the browser forget the cookie. A store that cannot end it gives its
// error, and the cookie stays.
func (a *Area[V]) End(w http.ResponseWriter, r *http.Request) error {
	if secret, ok := a.secret(r); ok {
		if err := a.cfg.End(r.Context(), account.Hash(secret)); err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return err
		}
	}
	a.Forget(w)
	return nil
}

// Forget makes the browser drop the session cookie (after its sessions
// ended elsewhere: signed out everywhere, the account deleted).
func (a *Area[V]) Forget(w http.ResponseWriter) { http.SetCookie(w, a.cookie("", -1)) }

// ForgetStale makes the browser drop the session cookie it sent, if it
// sent one: for a request on which nobody is signed in, that cookie names
// no session any more.
func (a *Area[V]) ForgetStale(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(a.name); err == nil {
		a.Forget(w)
	}
}

// cookie is the session cookie with value, kept maxAge seconds (-1: drop
// it now).
func (a *Area[V]) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: a.name, Value: value, Path: a.path, MaxAge: maxAge,
		HttpOnly: true, Secure: a.secure, SameSite: a.cfg.Cookie.SameSite}
}
