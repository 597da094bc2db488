package main

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

// defaultSignInPerIP is the default of --portal-signin-limit.
const defaultSignInPerIP = 10

// portalFlags are the developer portal's flags.
type portalFlags struct {
	maxKeys     *int
	keysPerHour *int
	signInPerIP *int
}

// addPortalFlags adds the developer portal's flags to serve's.
func addPortalFlags(f *flags) portalFlags {
	return portalFlags{
		maxKeys: f.Int("portal-max-keys", portal.DefaultMaxKeys,
			"live keys one developer-portal account may hold: every key that works, a rolled one until it stops"),
		keysPerHour: f.Int("portal-keys-per-hour", portal.DefaultKeysPerHour,
			"keys one developer-portal account may make an hour, rolls included, whatever it revokes"),
		signInPerIP: f.Int("portal-signin-limit", defaultSignInPerIP, fmt.Sprintf(
			"sign-in links a minute one client IP may ask for (each address also gets at most %d a minute and %d an hour, however its case is spelled)",
			portal.DefaultSignInPerAddress.PerMinute, portal.DefaultSignInPerAddress.PerHour)),
	}
}

// newPortal builds the developer portal on the ground: accounts and keys in
// the store, links through the mailer, usage from the meter and the store,
// windows, tiers and key changes from the Guard, the sign-in limits in the
// Guard's limiter (Redis when configured, so replicas share them), and
// the operator's address (contact, "" for none) for appeals.
func newPortal(pf portalFlags, contact string, ground *web.Ground, store backend, mailer mail.Sender, guard *access.Guard, m *meter.Meter, log *slog.Logger) (*portal.Portal, error) {
	if *pf.maxKeys < 1 {
		return nil, fmt.Errorf("--portal-max-keys %d: want at least 1", *pf.maxKeys)
	}
	if *pf.keysPerHour < 1 {
		return nil, fmt.Errorf("--portal-keys-per-hour %d: want at least 1", *pf.keysPerHour)
	}
	if *pf.signInPerIP < 1 {
		return nil, fmt.Errorf("--portal-signin-limit %d: want at least 1", *pf.signInPerIP)
	}
	perIP := int64(*pf.signInPerIP)
	return portal.New(portal.Config{
		Web:           ground,
		Accounts:      store,
		Keys:          store,
		Mail:          mailer,
		Report:        m.Report,
		Hourly:        store.HourlyUsage,
		Windows:       guard.Peek,
		Tiers:         guard.Tiers,
		KeysChanged:   guard.KeysChangedHere,
		SignInLimiter: guard.Limiter(),
		LimitPerIP: func(r *http.Request) (access.Admission, *access.Refusal) {
			return guard.AdmitAddress(r.Context(), guard.AddressCall(r, "portal.signin"), perIP)
		},
		MaxKeys:     *pf.maxKeys,
		KeysPerHour: *pf.keysPerHour,
		Contact:     contact,
		Logger:      log,
	})
}
