// Package dashboard is the admin dashboard: /admin and everything under it,
// the operator's pages for the service's keys, developer accounts, tier
// requests, usage analytics, abuse signals and the audit log.
//
// It is the hardest part of the service to get into, and it fails closed.
// A request is served only when its client IP (the peer, or the forwarded
// address a trusted proxy vouches for: Config.ClientIP) is inside the
// allow-list (Config.Allow); to every other request, and to every request
// when the list is empty, each /admin path answers the site's plain 404
// page as if the dashboard did not exist. Then it needs an admin session:
// its own cookie (never the developer portal's), kept in the admin store,
// ended after admin.SessionIdle unused, and checked against the allow-list
// again on every request; it and the frame of the pages are package
// session's, as the portal's are. A store that cannot answer denies. Every form is
// a POST behind http.CrossOriginProtection; every change is written to the
// audit log with the admin, the client IP and the reason given.
//
// It knows the contracts of admin users and the audit log (package admin),
// accounts, keys and usage, and reaches the rest of the service only
// through the funcs of Config: the client IP, the tiers in force and that
// keys changed (the access Guard's), the password and second-factor checks
// (package admin's), a perfume's name (the catalogue). Pages stand on the
// ground of package web.
package dashboard

import (
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

//go:embed templates/*.html
var templateFS embed.FS

// Config holds the dashboard's dependencies. Web, Admins, Accounts, Keys,
// Usage and Credentials are required; without Allow or ClientIP nobody
// gets in.
type Config struct {
	// Web is the ground the pages render on; when its BaseURL is https the
	// session cookie is Secure and named with the __Host- prefix.
	Web *web.Ground
	// Allow are the client addresses the dashboard is served to (flag
	// --admin-allow). Empty: nobody.
	Allow []netip.Prefix
	// ClientIP is the client address of a request: the peer, or what a
	// trusted proxy forwards (access.ClientIP with --trusted-proxies). An
	// invalid address is refused. Nil: nobody gets in.
	ClientIP func(r *http.Request) netip.Addr
	// LimitAddress is the id the per-IP sign-in limit counts a client
	// address under (access.AddressKey: an IPv6 address's /64); nil: the
	// address itself.
	LimitAddress func(netip.Addr) string
	// Admins keeps the admin users, their sessions and the audit log.
	Admins admin.Store
	// Accounts keeps the developer portal's accounts and tier requests.
	Accounts account.Store
	// Keys keeps the API keys.
	Keys apikey.Store
	// Usage keeps the counts the meter writes and the abuse signals.
	Usage usage.Store
	// Credentials checks passwords and second factors.
	Credentials Credentials
	// SignInLimiter counts sign-ins per account and per client IP (the
	// Guard's limiter, so replicas share the counts on Redis); nil means
	// an in-process limiter on Now.
	SignInLimiter ratelimit.Limiter
	// SignInsPerAccount and SignInsPerIP limit sign-ins, each counted
	// before its password is checked (a right one counts too); zero means
	// DefaultSignInsPerAccount and DefaultSignInsPerIP.
	SignInsPerAccount, SignInsPerIP apikey.Limits
	// MaxPasswordChecks is the most passwords checked at once (each
	// argon2id check holds 64 MiB; the command sizes it from the memory
	// limit); 0 means DefaultPasswordChecks. A sign-in that gets no turn
	// within PasswordWait (0: DefaultPasswordWait) is told to try again.
	MaxPasswordChecks int
	PasswordWait      time.Duration
	// Tiers returns the tier limits in force (access.Guard.Tiers); nil
	// means apikey.DefaultTiers.
	Tiers func() apikey.Tiers
	// KeysChanged is called after every change of a key or an account, so
	// the API sees it at once (access.Guard.KeysChangedHere); other replicas
	// see it through the store within seconds. Nil: nothing is told.
	KeysChanged func()
	// Perfume names a perfume of the catalogue by its id, for the top
	// perfumes (name and page path); nil or not found: the id is shown.
	Perfume func(id int64) (name, path string, ok bool)
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives the failures of stores and every refused sign-in;
	// default discards.
	Logger *slog.Logger
}

// Credentials are the password and second-factor functions of package
// admin (argon2id, TOTP, recovery codes, the QR code), handed in by the
// command so tests can use cheap ones: an argon2id check is meant to be
// slow. Every field is required.
type Credentials struct {
	// CheckPassword reports whether pw matches the PHC hash (admin.CheckPassword).
	CheckPassword func(hash, pw string) bool
	// DummyCheckPassword costs what CheckPassword costs and checks nothing,
	// for a sign-in naming nobody (admin.DummyCheckPassword).
	DummyCheckPassword func(pw string)
	// NewTOTPSecret returns a fresh base32 secret (admin.NewTOTPSecret).
	NewTOTPSecret func() string
	// MatchTOTP reports whether code is the secret's code near now, and
	// of which step (admin.MatchTOTP).
	MatchTOTP func(secret, code string, now time.Time) (step int64, ok bool)
	// TOTPURI is the otpauth:// URI of a secret (admin.TOTPURI).
	TOTPURI func(issuer, email, secret string) string
	// QRCodeSVG draws text as a QR code, a complete <svg> (admin.QRCodeSVG).
	QRCodeSVG func(text, title string) (string, error)
	// NewRecoveryCodes returns n codes and their hashes (admin.NewRecoveryCodes).
	NewRecoveryCodes func(n int) (codes, hashes []string)
	// MatchRecoveryCode reports whether code is one of hashes, and which
	// (admin.MatchRecoveryCode); the store spends it.
	MatchRecoveryCode func(hashes []string, code string) (hash string, ok bool)
}

func (c Credentials) complete() bool {
	return c.CheckPassword != nil && c.DummyCheckPassword != nil && c.NewTOTPSecret != nil && c.MatchTOTP != nil &&
		c.TOTPURI != nil && c.QRCodeSVG != nil && c.NewRecoveryCodes != nil && c.MatchRecoveryCode != nil
}

// Default limits of sign-ins.
var (
	DefaultSignInsPerAccount = apikey.Limits{PerMinute: 5, PerDay: 30}
	DefaultSignInsPerIP      = apikey.Limits{PerMinute: 10, PerDay: 100}
)

// Defaults of the turns to check a password.
const (
	DefaultPasswordChecks = 2
	DefaultPasswordWait   = 2 * time.Second
)

// Dashboard serves the admin dashboard's pages.
type Dashboard struct {
	cfg     Config
	web     *web.Ground
	pages   *web.Templates
	area    *session.Area[operator]
	now     func() time.Time
	log     *slog.Logger
	tiers   func() apikey.Tiers
	limiter ratelimit.Limiter
	// turns holds one token per password being checked (checkPassword).
	turns chan struct{}
}

// New checks cfg and parses the dashboard's templates.
func New(cfg Config) (*Dashboard, error) {
	if cfg.Web == nil || cfg.Admins == nil || cfg.Accounts == nil || cfg.Keys == nil || cfg.Usage == nil {
		return nil, errors.New("admin: New needs the web ground and the admin, account, key and usage stores")
	}
	if !cfg.Credentials.complete() {
		return nil, errors.New("admin: New needs every function of Credentials")
	}
	d := &Dashboard{cfg: cfg, web: cfg.Web, tiers: cfg.Tiers, limiter: cfg.SignInLimiter}
	var err error
	d.area, err = session.New(session.Config[operator]{
		Web: cfg.Web, Templates: templateFS, Funcs: funcs(),
		Pages: []string{"signin", "totp", "codes", "overview", "keys", "key", "created", "accounts", "account", "tierrequests", "abuse", "audit"},
		Name:  "Admin", Who: "dashboard", Log: "admin", Home: "/admin", HomeText: "Back to the dashboard", NoStore: true, NoCookieChoice: true,
		// Its own cookie, never the portal's; without TLS sent only to
		// /admin. web.Cookies lists it for /privacy.
		Cookie: session.Cookie{Name: "admin", Path: "/admin", SameSite: http.SameSiteStrictMode, MaxAge: admin.SessionMax},
		Admit:  d.admit, Touch: d.touch, End: cfg.Admins.EndAdminSession, SignInFirst: d.signInFirst,
		Now: cfg.Now, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	d.pages, d.now, d.log = d.area.Pages(), d.area.Now, d.area.Logger()
	if d.tiers == nil {
		d.tiers = apikey.DefaultTiers
	}
	if d.limiter == nil {
		d.limiter = ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: d.now})
	}
	if d.cfg.SignInsPerAccount == (apikey.Limits{}) {
		d.cfg.SignInsPerAccount = DefaultSignInsPerAccount
	}
	if d.cfg.SignInsPerIP == (apikey.Limits{}) {
		d.cfg.SignInsPerIP = DefaultSignInsPerIP
	}
	if d.cfg.MaxPasswordChecks <= 0 {
		d.cfg.MaxPasswordChecks = DefaultPasswordChecks
	}
	if d.cfg.PasswordWait <= 0 {
		d.cfg.PasswordWait = DefaultPasswordWait
	}
	d.turns = make(chan struct{}, d.cfg.MaxPasswordChecks)
	return d, nil
}

// keysChanged tells the Guard that keys changed.
func (d *Dashboard) keysChanged() {
	if d.cfg.KeysChanged != nil {
		d.cfg.KeysChanged()
	}
}

// errorf wraps an error of a store read with what was read.
func errorf(what string, err error) error { return fmt.Errorf("admin: %s: %w", what, err) }
