package apikey

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// NewKey describes a key to issue.
type NewKey struct {
	Name  string
	Email string
	Tier  Tier
	// PerMinute and PerDay override the tier's limits when positive.
	PerMinute, PerDay int64
	// Origins are the allowed browser origins (see ParseOrigins); empty
	// allows any.
	Origins []string
	// AccountID is the developer-portal account that owns the key; 0 for
	// a key an operator makes.
	AccountID int64
}

// Issue generates a key, stores its hash and returns the stored record with
// the key itself, which is to be shown once: it is not kept anywhere.
func Issue(ctx context.Context, store Store, nk NewKey) (Key, string, error) {
	return IssueWith(ctx, nk, func(k Key) (Key, error) { return store.CreateKey(ctx, k) })
}

// IssueWith is Issue storing the record through create, which answers as
// Store.CreateKey does (a taken prefix or hash: ErrKeyExists, and a new
// key is drawn), and may refuse it by rules of its own: an account's
// keys are stored within the account's rules.
func IssueWith(ctx context.Context, nk NewKey, create func(Key) (Key, error)) (Key, string, error) {
	if _, err := ParseTier(string(nk.Tier)); err != nil {
		return Key{}, "", err
	}
	if nk.PerMinute < 0 || nk.PerDay < 0 {
		return Key{}, "", fmt.Errorf("issue key: limits must not be negative: %w", catalog.ErrInvalid)
	}
	if nk.Email != "" && !strings.Contains(nk.Email, "@") {
		return Key{}, "", fmt.Errorf("issue key: %q is not an email address: %w", nk.Email, catalog.ErrInvalid)
	}
	// A clash of the 8-character display prefix is rare but possible: draw again.
	for attempt := 0; ; attempt++ {
		secret, err := GenerateKey()
		if err != nil {
			return Key{}, "", err
		}
		pk, err := ParseKey(secret)
		if err != nil {
			return Key{}, "", fmt.Errorf("issue key: generated key does not parse: %w", err)
		}
		k, err := create(Key{
			Prefix: pk.Prefix, Hash: pk.Hash, Name: nk.Name, Email: nk.Email, Tier: nk.Tier, State: Active,
			PerMinute: nk.PerMinute, PerDay: nk.PerDay, Origins: nk.Origins, AccountID: nk.AccountID,
		})
		if errors.Is(err, ErrKeyExists) && attempt < 3 {
			continue
		}
		if err != nil {
			return Key{}, "", fmt.Errorf("issue key: %w", err)
		}
		return k, secret, nil
	}
}
