package main

import (
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strings"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/dashboard"
)

// dashboardFlags are the admin dashboard's flags (the client IP is read with
// --trusted-proxies, as everywhere).
type dashboardFlags struct {
	allow *string
}

// addDashboardFlags adds the admin dashboard's flags to serve's.
func addDashboardFlags(f *flags) dashboardFlags {
	return dashboardFlags{
		allow: f.String("admin-allow", "", "comma-separated CIDRs (or addresses) of the clients the admin dashboard (/admin) is served to, "+
			"after --trusted-proxies; empty or unreadable: nobody, and every /admin path answers 404"),
	}
}

// adminAllow reads --admin-allow. Empty or unreadable, the dashboard is
// closed to everyone (said in the log), never open to more than asked.
func adminAllow(s string, log *slog.Logger) []netip.Prefix {
	if strings.TrimSpace(s) == "" {
		log.Info("the admin dashboard is closed: no --admin-allow")
		return nil
	}
	allow, err := access.ParseTrustedProxies(s) // the same syntax: CIDRs or single addresses
	if err != nil || len(allow) == 0 {
		log.Error("the admin dashboard is closed: --admin-allow is unreadable (want comma-separated CIDRs such as 10.1.0.0/16)",
			"admin_allow", s, "err", err)
		return nil
	}
	log.Info("the admin dashboard is open to", "admin_allow", s)
	return allow
}

// newAdmin builds the admin dashboard on the ground: the allow-list, the
// client IP as the Guard reads it (with --trusted-proxies), the stores,
// package admin's password and second-factor functions, as many password
// checks at once as the memory limit allows (passwordChecks), the
// Guard's limiter for sign-ins (Redis when configured, so replicas share
// the counts), tiers and key changes, and perfume names from the
// catalogue.
func newAdmin(df dashboardFlags, ground *web.Ground, store backend, guard *access.Guard, holder *index.Holder, log *slog.Logger) (*dashboard.Dashboard, error) {
	return dashboard.New(dashboard.Config{
		Web:   ground,
		Allow: adminAllow(*df.allow, log),
		ClientIP: func(r *http.Request) netip.Addr {
			a, err := netip.ParseAddr(guard.ClientIP(r)) // "unknown" does not parse: refused
			if err != nil {
				return netip.Addr{}
			}
			return a
		},
		LimitAddress: func(a netip.Addr) string { return guard.AddressKey(a.String()) },
		Admins:       store,
		Accounts:     store,
		Keys:         store,
		Usage:        store,
		Credentials: dashboard.Credentials{
			CheckPassword:      admin.CheckPassword,
			DummyCheckPassword: admin.DummyCheckPassword,
			NewTOTPSecret:      admin.NewTOTPSecret,
			MatchTOTP:          admin.MatchTOTP,
			TOTPURI:            admin.TOTPURI,
			QRCodeSVG:          admin.QRCodeSVG,
			NewRecoveryCodes:   admin.NewRecoveryCodes,
			MatchRecoveryCode:  admin.MatchRecoveryCode,
		},
		MaxPasswordChecks: passwordChecks(memoryLimit()),
		SignInLimiter:     guard.Limiter(),
		Tiers:             guard.Tiers,
		KeysChanged:       guard.KeysChangedHere,
		Perfume:           perfumeName(holder),
		Logger:            log,
	})
}

// passwordChecks is how many admin passwords may be checked at once under
// a memory limit of limit bytes: a quarter of it in argon2id checks of
// admin.PasswordMemory each, from one to four (more would not run faster
// on the few cores a replica has); without a limit, the dashboard's
// default.
func passwordChecks(limit int64) int {
	if limit == math.MaxInt64 {
		return dashboard.DefaultPasswordChecks
	}
	return int(min(max(limit/4/admin.PasswordMemory, 1), 4))
}

// perfumeName names a perfume of the served catalogue and its page.
func perfumeName(holder *index.Holder) func(id int64) (string, string, bool) {
	return func(id int64) (string, string, bool) {
		ix := holder.Load()
		if ix == nil {
			return "", "", false
		}
		e, ok := ix.ByID(id)
		if !ok {
			return "", "", false
		}
		return e.Brand() + " " + e.Name(), "/perfumes/" + e.Slug(), true
	}
}
