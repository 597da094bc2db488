// Package portal is the developer portal: /developer explains the API and
// signs a developer in by a single-use link sent by mail (the account is
// made on first use); /developer/keys lists the account's API keys and
// makes, rolls and revokes them, within the account's rules (the store's
// account.KeyRules: at most MaxKeys live keys, a rolled one counting until
// it stops; at most KeysPerHour made an hour; none while an operator's
// suspension of one holds the account); each key's page shows its usage against
// its limits and takes a request for a higher tier; /developer/account
// signs out and deletes the account.
//
// It knows the contracts of accounts (account.Store: links, sessions,
// tier requests), keys (apikey.Store) and usage, and reaches the API's
// access Guard only through the funcs of Config (what is left of a key's
// windows, the tiers in force, that keys changed). Its sessions and the
// frame of its pages are package session's, as the dashboard's are: an
// HttpOnly, SameSite=Lax cookie whose value only the visitor holds (the
// store keeps its hash), kept for account.SessionMax; every form that
// changes something is behind http.CrossOriginProtection; a store that
// cannot answer means nobody is signed in. Pages stand on the ground of
// package web.
package portal

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

//go:embed templates/*.html
var templateFS embed.FS

// Defaults of the limits on an account's keys.
const (
	// DefaultMaxKeys is the most live keys an account may hold when
	// Config.MaxKeys is 0.
	DefaultMaxKeys = 5
	// DefaultKeysPerHour is the most keys an account may make an hour
	// when Config.KeysPerHour is 0.
	DefaultKeysPerHour = 10
)

// AddressLimits limit the sign-in links sent to one address, folded as
// account.FoldEmail folds it. Both windows are short on purpose: whoever
// asks for links to an address that is not theirs keeps its owner from a
// new one for at most an hour (the links they cause arrive in the
// owner's mailbox, and work for the owner), and the mailbox gets at most
// PerHour an hour.
type AddressLimits struct {
	// PerMinute is the most links in any 60 seconds.
	PerMinute int64
	// PerHour is the most links in one hour of the clock (UTC): the
	// window empties when the hour ends.
	PerHour int64
}

// DefaultSignInPerAddress limits the sign-in links sent to one address
// when Config.SignInPerAddress is zero: one a minute, five an hour.
var DefaultSignInPerAddress = AddressLimits{PerMinute: 1, PerHour: 5}

// Config holds the portal's dependencies. Web, Accounts, Keys, Mail,
// Report and Hourly are required; the others have defaults.
type Config struct {
	// Web is the ground the pages render on. Its BaseURL (absolute) starts
	// the sign-in links; when it is https the session cookie is Secure and
	// named with the __Host- prefix.
	Web *web.Ground
	// Accounts keeps accounts, sign-in links, sessions and tier requests.
	Accounts account.Store
	// Keys keeps the API keys.
	Keys apikey.Store
	// Mail sends the sign-in links.
	Mail mail.Sender
	// Report is a key's usage per day over the last days (the meter's
	// Report, which adds counts not yet written), as /api/usage reports it.
	Report func(ctx context.Context, prefix string, days int) (usage.Report, error)
	// Hourly is a key's hourly counts over [from, to) (the usage store's
	// HourlyUsage); a key's recent 429s are read from it.
	Hourly func(ctx context.Context, prefix string, from, to time.Time) ([]usage.Count, error)
	// Windows reports what is left of a key's windows now, counting
	// nothing: the numbers /api/usage gives (access.Guard.Peek). Nil: the
	// key page says they are not available.
	Windows func(ctx context.Context, k apikey.Key) (ratelimit.Decision, error)
	// Tiers returns the tier limits in force (access.Guard.Tiers), for the
	// limits the pages show; nil means apikey.DefaultTiers.
	Tiers func() apikey.Tiers
	// KeysChanged is called after every change of a key (made, rolled,
	// revoked, an account deleted), so the API refuses a revoked key at
	// once (access.Guard.KeysChanged). Nil: nothing is told.
	KeysChanged func()
	// SignInLimiter counts the sign-in links sent per address, under ids
	// "signin:" and the folded address's hash (Redis shares it between
	// replicas); nil means an in-process limiter on Now.
	SignInLimiter ratelimit.Limiter
	// SignInPerAddress limits the sign-in links sent to one address; zero
	// means DefaultSignInPerAddress.
	SignInPerAddress AddressLimits
	// LimitPerIP admits a request of the form that sends sign-in links on
	// a limit per client IP (access.Guard.AdmitAddress with a name and a
	// rate). An admitted request's answer carries the window's rate-limit
	// headers; a refusal, by the limit (429) or by a limiter that cannot
	// decide (503), gets a page with its status and headers. Nil: no limit
	// per IP.
	LimitPerIP func(r *http.Request) (access.Admission, *access.Refusal)
	// MaxKeys is the most live keys an account may hold: every key that
	// works or may work again (account.Live), a rolled key counting until
	// it stops; 0 means DefaultMaxKeys (flag --portal-max-keys).
	MaxKeys int
	// KeysPerHour is the most keys an account may make an hour, rolls
	// included, whatever it revokes; 0 means DefaultKeysPerHour (flag
	// --portal-keys-per-hour).
	KeysPerHour int
	// Contact is the operator's address, which the portal gives an
	// account held by a suspended key to appeal to (flag
	// --contact-email); "" gives none, only the tier-request form.
	Contact string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives the failures of stores and mail; default discards.
	Logger *slog.Logger
}

// Portal serves the developer portal's pages.
type Portal struct {
	cfg     Config
	web     *web.Ground
	pages   *web.Templates
	area    *session.Area[visitor]
	base    string
	origin  string // of base: scheme://host[:port]
	now     func() time.Time
	log     *slog.Logger
	tiers   func() apikey.Tiers
	limiter ratelimit.Limiter
}

// New checks cfg and parses the portal's templates.
func New(cfg Config) (*Portal, error) {
	if cfg.Web == nil || cfg.Accounts == nil || cfg.Keys == nil || cfg.Mail == nil || cfg.Report == nil || cfg.Hourly == nil {
		return nil, errors.New("portal: New needs the web ground, the account and key stores, a mail sender and the usage reads")
	}
	base := cfg.Web.BaseURL()
	if !strings.HasPrefix(base, "https://") && !strings.HasPrefix(base, "http://") {
		return nil, fmt.Errorf("portal: the base URL %q is not absolute: sign-in links start with it", base)
	}
	p := &Portal{cfg: cfg, web: cfg.Web, base: base, tiers: cfg.Tiers, limiter: cfg.SignInLimiter}
	if u, err := url.Parse(base); err == nil {
		p.origin = u.Scheme + "://" + u.Host
	}
	var err error
	p.area, err = session.New(session.Config[visitor]{
		Web: cfg.Web, Templates: templateFS, Funcs: funcs(),
		Pages: []string{"developer", "sent", "signin", "keys", "created", "key", "revoke", "account"},
		Name:  "Developer portal", Who: "portal", Log: "portal", Home: "/developer", HomeText: "Back to the portal",
		// web.Cookies lists the cookie for /privacy.
		Cookie: session.Cookie{Name: "session", SameSite: http.SameSiteLaxMode, MaxAge: account.SessionMax},
		Touch:  p.touch, End: cfg.Accounts.EndSession, SignInFirst: p.signInFirst,
		Now: cfg.Now, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("portal: %w", err)
	}
	p.pages, p.now, p.log = p.area.Pages(), p.area.Now, p.area.Logger()
	if p.cfg.MaxKeys <= 0 {
		p.cfg.MaxKeys = DefaultMaxKeys
	}
	if p.cfg.KeysPerHour <= 0 {
		p.cfg.KeysPerHour = DefaultKeysPerHour
	}
	if p.cfg.SignInPerAddress == (AddressLimits{}) {
		p.cfg.SignInPerAddress = DefaultSignInPerAddress
	}
	if p.tiers == nil {
		p.tiers = apikey.DefaultTiers
	}
	if p.limiter == nil {
		p.limiter = ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: p.now})
	}
	return p, nil
}

// funcs are the template functions of the portal's pages.
func funcs() template.FuncMap {
	return template.FuncMap{
		"when":        when,
		"day":         func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
		"n64":         func(n int64) string { return web.Thousands(int(n)) },
		"linkMinutes": func() int { return linkMinutes },
	}
}

// when writes a moment for people, in UTC to the minute.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04") + " UTC"
}

// Register hands each route of the portal to handle, with the name logs
// and metrics know it by: the portal's whole route table. Every form that
// changes something is a POST behind http.CrossOriginProtection.
func (p *Portal) Register(handle func(pattern, name string, h http.Handler)) {
	get := func(pattern, name string, h http.HandlerFunc) { handle("GET "+pattern, name, p.web.Secure(h)) }
	post := func(pattern, name string, h http.HandlerFunc) {
		handle("POST "+pattern, name, p.web.Secure(p.area.OwnForms(h)))
	}
	get("/developer", "portal.home", p.home)
	post("/developer/signin/link", "portal.signin.link", p.perIP(p.sendLink))
	get("/developer/signin", "portal.signin", p.confirmSignIn)
	post("/developer/signin", "portal.signin.use", p.signIn)
	post("/developer/signout", "portal.signout", p.signOut)
	post("/developer/signout/everywhere", "portal.signout.everywhere", p.area.SignedIn(p.signOutEverywhere))
	get("/developer/account", "portal.account", p.area.SignedIn(p.account))
	post("/developer/account/delete", "portal.account.delete", p.area.SignedIn(p.deleteAccount))
	get("/developer/keys", "portal.keys", p.area.SignedIn(p.keys))
	post("/developer/keys", "portal.keys.create", p.area.SignedIn(p.createKey))
	get("/developer/keys/{prefix}", "portal.key", p.ownKey(p.key))
	get("/developer/keys/{prefix}/new", "portal.key.new", p.ownKey(p.newKey))
	post("/developer/keys/{prefix}/roll", "portal.key.roll", p.ownKey(p.roll))
	get("/developer/keys/{prefix}/revoke", "portal.key.revoke.confirm", p.ownKey(p.confirmRevoke))
	post("/developer/keys/{prefix}/revoke", "portal.key.revoke", p.ownKey(p.revoke))
	post("/developer/keys/{prefix}/tier", "portal.key.tier", p.ownKey(p.requestTier))
}

// Keys returns the keys of the visitor signed in on r that the playground
// can use, oldest first: those that work (active, not expired), and of
// the browser keys those that allow the site's own origin, where the
// playground sends its requests from; nil when nobody is signed in or
// the stores cannot answer.
func (p *Portal) Keys(r *http.Request) []web.KeyChoice {
	v, ok, err := p.area.Lookup(r)
	if err != nil || !ok {
		return nil
	}
	now := p.now()
	ks, err := p.cfg.Accounts.LiveAccountKeys(r.Context(), v.account.ID, now)
	if err != nil {
		p.log.ErrorContext(r.Context(), "portal: the keys of an account cannot be read", "err", err)
		return nil
	}
	var out []web.KeyChoice
	for _, k := range slices.Backward(ks) { // oldest first
		if k.State == apikey.Active && !k.Expired(now) && k.AllowsOrigin(p.origin) {
			out = append(out, web.KeyChoice{Name: k.Name, Prefix: k.Prefix, Kind: kindOf(k)})
		}
	}
	return out
}

// Key kinds.
const (
	serverKey  = "server"
	browserKey = "browser"
)

// kindOf is "browser" for a key that lists the origins allowed to use it,
// "server" otherwise.
func kindOf(k apikey.Key) string {
	if len(k.Origins) > 0 {
		return browserKey
	}
	return serverKey
}

// keysChanged tells the Guard that keys changed.
func (p *Portal) keysChanged() {
	if p.cfg.KeysChanged != nil {
		p.cfg.KeysChanged()
	}
}
