package areatest

import (
	"cmp"
	"context"
	"slices"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// The test's own reads and writes of the store, beside the area: each
// fails the test on an error.

// read is what do answers, the test failed on its error.
func read[T any](e *Env, do func(ctx context.Context) (T, error)) T {
	e.T.Helper()
	v, err := do(context.Background())
	if err != nil {
		e.T.Fatal(err)
	}
	return v
}

// Key is the stored key of prefix.
func (e *Env) Key(prefix string) apikey.Key {
	e.T.Helper()
	return read(e, func(ctx context.Context) (apikey.Key, error) { return e.Store.KeyByPrefix(ctx, prefix) })
}

// Keys is every stored key, oldest first.
func (e *Env) Keys() []apikey.Key {
	e.T.Helper()
	return read(e, e.Store.ListKeys)
}

// Account is the stored account of id.
func (e *Env) Account(id int64) account.Account {
	e.T.Helper()
	return read(e, func(ctx context.Context) (account.Account, error) { return e.Store.AccountByID(ctx, id) })
}

// Requests is every stored tier request, of every account, oldest first.
func (e *Env) Requests() []account.TierRequest {
	e.T.Helper()
	var out []account.TierRequest
	for _, a := range read(e, e.Store.ListAccounts) {
		out = append(out, read(e, func(ctx context.Context) ([]account.TierRequest, error) { return e.Store.TierRequests(ctx, a.ID) })...)
	}
	slices.SortFunc(out, func(a, b account.TierRequest) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Record stores a batch of counts as the meter flushes it: each hourly
// count in its hour and in its day.
func (e *Env) Record(b usage.Batch) {
	e.T.Helper()
	if err := e.Store.RecordUsage(context.Background(), b); err != nil {
		e.T.Fatal(err)
	}
}
