package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// RunKeyStore runs the apikey.Store contract against stores made by
// open, which must return a fresh, empty store reading now for its
// timestamps.
func RunKeyStore(t *testing.T, open func(t *testing.T, now func() time.Time) apikey.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s apikey.Store, c *testclock.Clock)
	}{
		{"CreateAndFind", testKeyCreateAndFind},
		{"NotFound", testKeyNotFound},
		{"Duplicates", testKeyDuplicates},
		{"ListOldestFirst", testKeyList},
		{"States", testKeyStates},
		{"Limits", testKeyLimits},
		{"ChangedSince", testKeysChangedSince},
		{"Expiry", testKeyExpiry},
		{"Tier", testKeyTier},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			tc.fn(t, open(t, c.Now), c)
		})
	}
}

// newTestKey returns a key record ready for CreateKey, made from a real key.
func newTestKey(t *testing.T, tier apikey.Tier) apikey.Key {
	t.Helper()
	secret, err := apikey.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pk, err := apikey.ParseKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	return apikey.Key{Prefix: pk.Prefix, Hash: pk.Hash, Name: "test", Email: "dev@example.com", Tier: tier, State: apikey.Active}
}

func mustCreate(t *testing.T, s apikey.Store, k apikey.Key) apikey.Key {
	t.Helper()
	got, err := s.CreateKey(context.Background(), k)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return got
}

func testKeyCreateAndFind(t *testing.T, s apikey.Store, c *testclock.Clock) {
	ctx := context.Background()
	k := newTestKey(t, apikey.Pro)
	k.PerMinute, k.PerDay = 7, 70
	k.Origins = []string{"https://app.example.com", "http://localhost:3000"}
	k.AccountID, k.ExpiresAt = 42, c.Now().Add(7*24*time.Hour)
	created := mustCreate(t, s, k)
	if created.ID == 0 || !created.CreatedAt.Equal(c.Now()) || !created.UpdatedAt.Equal(c.Now()) {
		t.Fatalf("created = %+v, want an ID and times %v", created, c.Now())
	}
	byHash, err := s.KeyByHash(ctx, k.Hash)
	if err != nil {
		t.Fatal(err)
	}
	byPrefix, err := s.KeyByPrefix(ctx, k.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []apikey.Key{byHash, byPrefix} {
		if !sameKey(got, created) {
			t.Fatalf("read back %+v, want %+v", got, created)
		}
	}
	plain := mustCreate(t, s, newTestKey(t, apikey.Free))
	if got, _ := s.KeyByPrefix(ctx, plain.Prefix); got.Origins != nil || got.PerMinute != 0 || got.State != apikey.Active ||
		got.AccountID != 0 || !got.ExpiresAt.IsZero() {
		t.Fatalf("defaults read back as %+v", got)
	}
}

// sameKey compares keys with times compared as instants.
func sameKey(a, b apikey.Key) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) || !a.ExpiresAt.Equal(b.ExpiresAt) {
		return false
	}
	a.CreatedAt, a.UpdatedAt, b.CreatedAt, b.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	a.ExpiresAt, b.ExpiresAt = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func testKeyNotFound(t *testing.T, s apikey.Store, _ *testclock.Clock) {
	ctx := context.Background()
	if _, err := s.KeyByHash(ctx, "00"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("KeyByHash of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.KeyByPrefix(ctx, "fds_nothing0"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("KeyByPrefix of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.SetKeyState(ctx, "fds_nothing0", apikey.Suspended); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("SetKeyState of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.SetKeyLimits(ctx, "fds_nothing0", 1, 1); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("SetKeyLimits of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.SetKeyExpiry(ctx, "fds_nothing0", time.Now()); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("SetKeyExpiry of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.SetKeyTier(ctx, "fds_nothing0", apikey.Pro); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("SetKeyTier of nothing: %v, want ErrNotFound", err)
	}
	if ks, err := s.ListKeys(ctx); err != nil || len(ks) != 0 {
		t.Errorf("ListKeys of an empty store: %v, %v", ks, err)
	}
}

func testKeyDuplicates(t *testing.T, s apikey.Store, _ *testclock.Clock) {
	k := mustCreate(t, s, newTestKey(t, apikey.Free))
	samePrefix := newTestKey(t, apikey.Free)
	samePrefix.Prefix = k.Prefix
	sameHash := newTestKey(t, apikey.Free)
	sameHash.Hash = k.Hash
	for _, dup := range []apikey.Key{samePrefix, sameHash} {
		if _, err := s.CreateKey(context.Background(), dup); !errors.Is(err, apikey.ErrKeyExists) {
			t.Errorf("duplicate %+v: %v, want ErrKeyExists", dup, err)
		}
	}
	bad := newTestKey(t, apikey.Free)
	bad.State = "lost"
	if _, err := s.CreateKey(context.Background(), bad); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("unknown state: %v, want ErrInvalid", err)
	}
}

func testKeyList(t *testing.T, s apikey.Store, c *testclock.Clock) {
	var want []string
	for i := 0; i < 3; i++ {
		want = append(want, mustCreate(t, s, newTestKey(t, apikey.Basic)).Prefix)
		c.Add(time.Second)
	}
	ks, err := s.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range ks {
		got = append(got, k.Prefix)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListKeys = %v, want %v", got, want)
	}
}

func testKeyStates(t *testing.T, s apikey.Store, _ *testclock.Clock) {
	ctx := context.Background()
	k := mustCreate(t, s, newTestKey(t, apikey.Free))
	for _, st := range []apikey.State{apikey.Suspended, apikey.Active, apikey.Revoked} {
		got, err := s.SetKeyState(ctx, k.Prefix, st)
		if err != nil || got.State != st {
			t.Fatalf("SetKeyState(%s) = %+v, %v", st, got, err)
		}
	}
	if _, err := s.SetKeyState(ctx, k.Prefix, apikey.Active); !errors.Is(err, apikey.ErrRevoked) || !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("resuming a revoked key: %v, want ErrRevoked", err)
	}
	if _, err := s.SetKeyLimits(ctx, k.Prefix, 1, 1); !errors.Is(err, apikey.ErrRevoked) {
		t.Fatalf("changing a revoked key's limits: %v, want ErrRevoked", err)
	}
	if got, _ := s.KeyByHash(ctx, k.Hash); got.State != apikey.Revoked {
		t.Fatalf("state after refused changes = %s", got.State)
	}
	if _, err := s.SetKeyState(ctx, k.Prefix, "paused"); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("unknown state: %v", err)
	}
}

func testKeyLimits(t *testing.T, s apikey.Store, _ *testclock.Clock) {
	ctx := context.Background()
	k := mustCreate(t, s, newTestKey(t, apikey.Enterprise))
	got, err := s.SetKeyLimits(ctx, k.Prefix, 1000, 50)
	if err != nil || got.PerMinute != 1000 || got.PerDay != 50 {
		t.Fatalf("SetKeyLimits = %+v, %v", got, err)
	}
	if got, _ := s.KeyByHash(ctx, k.Hash); got.PerMinute != 1000 || got.PerDay != 50 {
		t.Fatalf("read back %+v", got)
	}
	if _, err := s.SetKeyLimits(ctx, k.Prefix, -1, 0); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("negative limit: %v", err)
	}
}

func testKeysChangedSince(t *testing.T, s apikey.Store, c *testclock.Clock) {
	ctx := context.Background()
	t0 := c.Now()
	a := mustCreate(t, s, newTestKey(t, apikey.Free))
	c.Add(time.Second)
	b := mustCreate(t, s, newTestKey(t, apikey.Free))
	c.Add(time.Second)
	if _, err := s.SetKeyState(ctx, a.Prefix, apikey.Suspended); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		since time.Time
		want  []string
	}{
		{t0, []string{b.Prefix, a.Prefix}},
		{t0.Add(time.Second), []string{b.Prefix, a.Prefix}},
		{t0.Add(1500 * time.Millisecond), []string{a.Prefix}},
		{t0.Add(3 * time.Second), nil},
	} {
		ks, err := s.KeysChangedSince(ctx, tc.since)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range ks {
			got = append(got, k.Prefix)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("KeysChangedSince(+%v) = %v, want %v", tc.since.Sub(t0), got, tc.want)
		}
	}
}

// testKeyExpiry: setting or clearing a key's expiry is a change replicas
// fetch (UpdatedAt moves), and a revoked key stays as it is.
func testKeyExpiry(t *testing.T, s apikey.Store, c *testclock.Clock) {
	ctx := context.Background()
	k := mustCreate(t, s, newTestKey(t, apikey.Basic))
	c.Add(time.Second)
	at := c.Now().Add(24 * time.Hour)
	got, err := s.SetKeyExpiry(ctx, k.Prefix, at)
	if err != nil || !got.ExpiresAt.Equal(at) || !got.UpdatedAt.Equal(c.Now()) || got.State != apikey.Active {
		t.Fatalf("SetKeyExpiry = %+v, %v; want it expiring at %v, updated now", got, err, at)
	}
	if read, _ := s.KeyByHash(ctx, k.Hash); !sameKey(read, got) || read.Expired(at.Add(-time.Millisecond)) || !read.Expired(at) {
		t.Fatalf("read back %+v, want %+v", read, got)
	}
	if ks, err := s.KeysChangedSince(ctx, c.Now()); err != nil || len(ks) != 1 || !ks[0].ExpiresAt.Equal(at) {
		t.Fatalf("KeysChangedSince(the expiry was set) = %+v, %v; want the key", ks, err)
	}
	if ks, err := s.ListKeys(ctx); err != nil || len(ks) != 1 || !ks[0].ExpiresAt.Equal(at) {
		t.Fatalf("ListKeys = %+v, %v; want the key with its expiry", ks, err)
	}
	c.Add(time.Second)
	got, err = s.SetKeyExpiry(ctx, k.Prefix, time.Time{})
	if err != nil || !got.ExpiresAt.IsZero() || !got.UpdatedAt.Equal(c.Now()) {
		t.Fatalf("clearing the expiry = %+v, %v", got, err)
	}
	if read, _ := s.KeyByPrefix(ctx, k.Prefix); !read.ExpiresAt.IsZero() {
		t.Fatalf("cleared expiry reads back as %v", read.ExpiresAt)
	}
	if _, err := s.SetKeyState(ctx, k.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetKeyExpiry(ctx, k.Prefix, at); !errors.Is(err, apikey.ErrRevoked) {
		t.Fatalf("SetKeyExpiry of a revoked key: %v, want ErrRevoked", err)
	}
}

// testKeyTier: a tier change is a change replicas fetch (UpdatedAt
// moves) and touches nothing else; a revoked key stays as it is.
func testKeyTier(t *testing.T, s apikey.Store, c *testclock.Clock) {
	ctx := context.Background()
	k := newTestKey(t, apikey.Free)
	k.PerMinute = 9
	k = mustCreate(t, s, k)
	c.Add(time.Second)
	got, err := s.SetKeyTier(ctx, k.Prefix, apikey.Pro)
	want := k
	want.Tier, want.UpdatedAt = apikey.Pro, c.Now()
	if err != nil || !sameKey(got, want) {
		t.Fatalf("SetKeyTier = %+v, %v; want %+v", got, err, want)
	}
	if read, _ := s.KeyByHash(ctx, k.Hash); !sameKey(read, want) {
		t.Fatalf("read back %+v, want %+v", read, want)
	}
	if ks, err := s.KeysChangedSince(ctx, c.Now()); err != nil || len(ks) != 1 || ks[0].Tier != apikey.Pro {
		t.Fatalf("KeysChangedSince(the tier changed) = %+v, %v; want the key", ks, err)
	}
	if _, err := s.SetKeyTier(ctx, k.Prefix, "platinum"); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("an unknown tier: %v, want ErrInvalid", err)
	}
	if _, err := s.SetKeyState(ctx, k.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetKeyTier(ctx, k.Prefix, apikey.Enterprise); !errors.Is(err, apikey.ErrRevoked) {
		t.Fatalf("SetKeyTier of a revoked key: %v, want ErrRevoked", err)
	}
	if read, _ := s.KeyByHash(ctx, k.Hash); read.Tier != apikey.Pro {
		t.Fatalf("a revoked key's tier changed to %s", read.Tier)
	}
}
