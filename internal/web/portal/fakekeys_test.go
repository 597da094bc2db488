package portal_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The key store of fakeStore.

func (f *fakeStore) CreateKey(_ context.Context, k apikey.Key) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("CreateKey"); err != nil {
		return apikey.Key{}, err
	}
	k, err := k.ForCreate()
	if err != nil {
		return apikey.Key{}, err
	}
	for _, o := range f.keys {
		if o.Prefix == k.Prefix || o.Hash == k.Hash {
			return apikey.Key{}, apikey.ErrKeyExists
		}
	}
	k.ID, k.CreatedAt, k.UpdatedAt = int64(len(f.keys)+1), f.now(), f.now()
	f.keys = append(f.keys, k)
	return k, nil
}

func (f *fakeStore) find(match func(apikey.Key) bool) (*apikey.Key, error) {
	for i := range f.keys {
		if match(f.keys[i]) {
			return &f.keys[i], nil
		}
	}
	return nil, fmt.Errorf("key: %w", catalog.ErrNotFound)
}

func (f *fakeStore) KeyByHash(_ context.Context, hash string) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, err := f.find(func(k apikey.Key) bool { return k.Hash == hash })
	if err != nil {
		return apikey.Key{}, err
	}
	return *k, nil
}

func (f *fakeStore) KeyByPrefix(_ context.Context, prefix string) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("KeyByPrefix"); err != nil {
		return apikey.Key{}, err
	}
	k, err := f.find(func(k apikey.Key) bool { return k.Prefix == prefix })
	if err != nil {
		return apikey.Key{}, err
	}
	return *k, nil
}

func (f *fakeStore) ListKeys(context.Context) ([]apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.keys), nil
}

func (f *fakeStore) change(prefix string, do func(*apikey.Key) error) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, err := f.find(func(k apikey.Key) bool { return k.Prefix == prefix })
	if err != nil {
		return apikey.Key{}, err
	}
	if err := do(k); err != nil {
		return apikey.Key{}, err
	}
	k.UpdatedAt = f.now()
	return *k, nil
}

func (f *fakeStore) SetKeyState(_ context.Context, prefix string, s apikey.State) (apikey.Key, error) {
	if err := f.failing("SetKeyState"); err != nil {
		return apikey.Key{}, err
	}
	return f.change(prefix, func(k *apikey.Key) error {
		if k.State == apikey.Revoked {
			return apikey.ErrRevoked
		}
		k.State = s
		delete(f.byAccount, k.Prefix) // the operator's state from now on
		return nil
	})
}

func (f *fakeStore) SetKeyTier(_ context.Context, prefix string, tier apikey.Tier) (apikey.Key, error) {
	return f.change(prefix, func(k *apikey.Key) error {
		if k.State == apikey.Revoked {
			return apikey.ErrRevoked
		}
		k.Tier = tier
		return nil
	})
}

func (f *fakeStore) SetKeyLimits(_ context.Context, prefix string, perMinute, perDay int64) (apikey.Key, error) {
	return f.change(prefix, func(k *apikey.Key) error { k.PerMinute, k.PerDay = perMinute, perDay; return nil })
}

func (f *fakeStore) SetKeyExpiry(_ context.Context, prefix string, at time.Time) (apikey.Key, error) {
	if err := f.failing("SetKeyExpiry"); err != nil {
		return apikey.Key{}, err
	}
	return f.change(prefix, func(k *apikey.Key) error {
		if k.State == apikey.Revoked {
			return apikey.ErrRevoked
		}
		k.ExpiresAt = at
		return nil
	})
}

func (f *fakeStore) KeysChangedSince(_ context.Context, since time.Time) ([]apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apikey.Key
	for _, k := range f.keys {
		if !k.UpdatedAt.Before(since) {
			out = append(out, k)
		}
	}
	return out, nil
}

// key returns the stored key of prefix.
func (f *fakeStore) key(prefix string) apikey.Key {
	k, err := f.KeyByPrefix(context.Background(), prefix)
	if err != nil {
		panic(err)
	}
	return k
}
