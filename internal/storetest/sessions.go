package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
)

// SessionStores are a backend's portal and dashboard stores, which keep
// their sessions one way.
type SessionStores interface {
	account.Store
	admin.Store
}

// BenchTouchSession times the touch every signed-in page of the portal and
// of the dashboard starts with, on a fresh, empty store open makes reading
// now: a live session read with its owner and seen again just after its
// last use.
func BenchTouchSession(b *testing.B, open func(b *testing.B, now func() time.Time) SessionStores) {
	ctx := context.Background()
	c := suiteClock()
	s := open(b, c.Now)
	_, link := account.NewSecret()
	if err := s.CreateSignInLink(ctx, link, "dev@example.com", c.Now().Add(account.LinkTTL)); err != nil {
		b.Fatal(err)
	}
	a, err := s.UseSignInLink(ctx, link, c.Now())
	if err != nil {
		b.Fatal(err)
	}
	u, err := s.CreateAdminUser(ctx, admin.User{Email: "ops@example.com", PasswordHash: "$argon2id$x"})
	if err != nil {
		b.Fatal(err)
	}
	_, portal := account.NewSecret()
	_, dashboard := account.NewSecret()
	if err := s.CreateSession(ctx, account.Session{Hash: portal, AccountID: a.ID, CreatedAt: c.Now()}); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateAdminSession(ctx, admin.Session{Hash: dashboard, UserID: u.ID, IP: "192.0.2.7", CreatedAt: c.Now()}); err != nil {
		b.Fatal(err)
	}
	touch := map[string]func() error{
		"portal":    func() error { _, _, err := s.TouchSession(ctx, portal, c.Now()); return err },
		"dashboard": func() error { _, _, err := s.TouchAdminSession(ctx, dashboard, c.Now()); return err },
	}
	for _, name := range []string{"portal", "dashboard"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				c.Add(time.Millisecond) // within both areas' lifetimes for millions of touches
				if err := touch[name](); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
