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
		"dev@example.com\r\nBcc: x@example.com", strings.Repeat("a", 250) + "@example.com"} {
		if got, err := account.NormalizeEmail(bad); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want ErrInvalid", bad, got, err)
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
