package apikey_test

import (
	"context"
	"errors"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// TestIssueWith: the record is stored through the function given, a new
// key drawn when its prefix is taken; the function's own refusal is
// returned as it is, with no key.
func TestIssueWith(t *testing.T) {
	ctx := context.Background()
	var tries []apikey.Key
	k, secret, err := apikey.IssueWith(ctx, apikey.NewKey{Name: "n", Tier: apikey.Free, AccountID: 7}, func(k apikey.Key) (apikey.Key, error) {
		tries = append(tries, k)
		if len(tries) == 1 {
			return apikey.Key{}, apikey.ErrKeyExists
		}
		k.ID = 1
		return k, nil
	})
	if err != nil || len(tries) != 2 || tries[0].Prefix == tries[1].Prefix || k.ID != 1 || k.AccountID != 7 || k.State != apikey.Active {
		t.Fatalf("IssueWith = %+v, %v after %d tries", k, err, len(tries))
	}
	if pk, err := apikey.ParseKey(secret); err != nil || pk.Prefix != k.Prefix || pk.Hash != k.Hash {
		t.Fatalf("the secret %q does not name the key stored: %v", secret, err)
	}
	refused := errors.New("refused by a rule")
	k, secret, err = apikey.IssueWith(ctx, apikey.NewKey{Tier: apikey.Free}, func(apikey.Key) (apikey.Key, error) { return apikey.Key{}, refused })
	if !errors.Is(err, refused) || secret != "" || k.Prefix != "" {
		t.Fatalf("a refused key = %+v, %q, %v", k, secret, err)
	}
	if _, _, err := apikey.IssueWith(ctx, apikey.NewKey{Tier: "gold"}, nil); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("an unknown tier: %v, want ErrInvalid", err)
	}
}
