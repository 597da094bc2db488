package account_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

func TestNormalizeEmail(t *testing.T) {
	for in, want := range map[string]string{
		"dev@example.com":           "dev@example.com",
		"  Dev.Name+x@Example.COM ": "Dev.Name+x@example.com",
		"a@b.co":                    "a@b.co",
	} {
		if got, err := account.NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", "dev", "@example.com", "dev@", "dev@localhost", "dev@.com.",
		"Dev <dev@example.com>", "a@example.com, b@example.com", "a@example.com;b@example.com", "a b@example.com",
		"dev@example.com\r\nBcc: x@example.com", strings.Repeat("a", 250) + "@example.com",
		"a@[127.0.0.1]", "a@[IPv6:2001:db8::1]", "a@[example.com]", "d\xffv@example.com", "dev@exa\xfe.com"} {
		if got, err := account.NormalizeEmail(bad); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want ErrInvalid", bad, got, err)
		}
	}
}

// TestFoldEmail: the local part's ASCII letters fold to lower case with
// the domain's; dots, +tags and letters outside ASCII stay as typed.
func TestFoldEmail(t *testing.T) {
	for in, want := range map[string]string{
		" Bob@Example.COM ":      "bob@example.com",
		"B.O.B+News@example.com": "b.o.b+news@example.com",
		"Ünal@Example.com":       "Ünal@example.com",
	} {
		if got, err := account.FoldEmail(in); err != nil || got != want {
			t.Errorf("FoldEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := account.FoldEmail("a@[127.0.0.1]"); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("FoldEmail of a domain literal = %q, %v; want ErrInvalid", got, err)
	}
}

// TestLive: a key counts while it works or may work again.
func TestLive(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		k    apikey.Key
		want bool
	}{
		{apikey.Key{State: apikey.Active}, true},
		{apikey.Key{State: apikey.Suspended}, true},
		{apikey.Key{State: apikey.Active, ExpiresAt: now.Add(time.Millisecond)}, true},
		{apikey.Key{State: apikey.Active, ExpiresAt: now}, false},
		{apikey.Key{State: apikey.Revoked}, false},
	} {
		if got := account.Live(tc.k, now); got != tc.want {
			t.Errorf("Live(%s, ends %v) = %v", tc.k.State, tc.k.ExpiresAt, got)
		}
	}
}

func TestSessionExpired(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := account.Session{CreatedAt: t0, LastSeen: t0}
	for _, tc := range []struct {
		seen, now time.Duration
		want      bool
	}{
		{0, 0, false},
		{0, account.SessionIdle - time.Nanosecond, false},
		{0, account.SessionIdle, true},
		{6 * 24 * time.Hour, 12 * 24 * time.Hour, false},
		{account.SessionMax - time.Hour, account.SessionMax - time.Nanosecond, false},
		{account.SessionMax - time.Hour, account.SessionMax, true},
	} {
		s.LastSeen = t0.Add(tc.seen)
		if got := s.Expired(t0.Add(tc.now)); got != tc.want {
			t.Errorf("seen at +%v, Expired(+%v) = %v, want %v", tc.seen, tc.now, got, tc.want)
		}
	}
}

func TestTierRequestCheck(t *testing.T) {
	ok := account.TierRequest{KeyPrefix: "fds_abcdefgh", Tier: apikey.Pro, UseCase: strings.Repeat("é", account.MaxUseCase),
		Volume: strings.Repeat("é", account.MaxVolume)}
	if err := ok.Check(); err != nil {
		t.Fatalf("Check of a request at its bounds: %v", err)
	}
	for name, change := range map[string]func(*account.TierRequest){
		"no key":        func(r *account.TierRequest) { r.KeyPrefix = "" },
		"no tier":       func(r *account.TierRequest) { r.Tier = "" },
		"blank use":     func(r *account.TierRequest) { r.UseCase = " \n" },
		"long use":      func(r *account.TierRequest) { r.UseCase += "x" },
		"long volume":   func(r *account.TierRequest) { r.Volume += "x" },
		"no use at all": func(r *account.TierRequest) { r.UseCase = "" },
		"use not UTF-8": func(r *account.TierRequest) { r.UseCase = "a \xc3 shop" },
		"volume bytes":  func(r *account.TierRequest) { r.Volume = "\xed\xa0\x80" },
	} {
		r := ok
		change(&r)
		if err := r.Check(); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	for _, s := range []account.RequestState{account.Pending, account.Approved, account.Declined} {
		if !s.Valid() {
			t.Errorf("%s is not Valid", s)
		}
	}
	if account.RequestState("maybe").Valid() {
		t.Error("an unknown state is Valid")
	}
}

func TestSecrets(t *testing.T) {
	a, ha := account.NewSecret()
	b, hb := account.NewSecret()
	if a == b || ha == hb || !account.ValidSecret(a) || account.Hash(a) != ha || len(ha) != 64 {
		t.Fatalf("NewSecret = %q %q, %q %q", a, ha, b, hb)
	}
	if strings.Contains(ha, a) {
		t.Fatal("the hash shows the secret")
	}
	for _, bad := range []string{"", a[:42], a + "A", strings.Repeat("!", 43), ha} {
		if account.ValidSecret(bad) {
			t.Errorf("ValidSecret(%q) = true", bad)
		}
	}
	if acc := (account.Account{DeletedAt: time.Now()}); !acc.Deleted() || (account.Account{}).Deleted() {
		t.Error("Deleted does not follow DeletedAt")
	}
}
