package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// The second factor's codes work once: a TOTP step, and a recovery code,
// are spent in the store, atomically.

func testTOTPStep(t *testing.T, s admin.Store, _ *testclock.Clock) {
	ctx := context.Background()
	a, b := newAdmin(t, s, "a@example.com"), newAdmin(t, s, "b@example.com")
	if err := s.UseTOTPStep(ctx, a.ID, 1000); err != nil {
		t.Fatal(err)
	}
	for _, step := range []int64{1000, 999, 0} {
		if err := s.UseTOTPStep(ctx, a.ID, step); !errors.Is(err, admin.ErrCodeUsed) || !errors.Is(err, catalog.ErrInvalid) {
			t.Fatalf("step %d after 1000: %v, want ErrCodeUsed", step, err)
		}
	}
	if err := s.UseTOTPStep(ctx, b.ID, 999); err != nil {
		t.Fatalf("another admin's step: %v", err)
	}
	if err := s.UseTOTPStep(ctx, a.ID, 1001); err != nil {
		t.Fatalf("the next step: %v", err)
	}
	if err := s.UseTOTPStep(ctx, b.ID+100, 5); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("the step of nobody: %v, want ErrNotFound", err)
	}
	// One code sent at once, over several rounds: exactly one use wins.
	const n = 8
	for round := range int64(10) {
		errs := make([]error, n)
		AtOnce(n, func(i int) { errs[i] = s.UseTOTPStep(ctx, a.ID, 2000+round) })
		wantOneWon(t, errs, admin.ErrCodeUsed, "uses of one step at once")
	}
}

func testSpendRecoveryCode(t *testing.T, s admin.Store, _ *testclock.Clock) {
	ctx := context.Background()
	u := newAdmin(t, s, "a@example.com")
	u.RecoveryHashes = []string{"h1", "h2", "h3"}
	u, err := s.UpdateAdminUser(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if left, err := s.SpendRecoveryCode(ctx, u.ID, "h2"); err != nil || left != 2 {
		t.Fatalf("SpendRecoveryCode = %d, %v; want 2 left", left, err)
	}
	for _, h := range []string{"h2", "h9", ""} {
		if _, err := s.SpendRecoveryCode(ctx, u.ID, h); !errors.Is(err, catalog.ErrNotFound) {
			t.Fatalf("spending %q: %v, want ErrNotFound", h, err)
		}
	}
	if got, _ := s.AdminUserByID(ctx, u.ID); len(got.RecoveryHashes) != 2 || got.RecoveryHashes[0] != "h1" || got.RecoveryHashes[1] != "h3" {
		t.Fatalf("the codes left = %v, want h1 h3", got.RecoveryHashes)
	}
	if _, err := s.SpendRecoveryCode(ctx, u.ID+100, "h1"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("spending a code of nobody: %v, want ErrNotFound", err)
	}
	const n = 8
	for _, h := range []string{"h1", "h3"} {
		errs := make([]error, n)
		AtOnce(n, func(i int) { _, errs[i] = s.SpendRecoveryCode(ctx, u.ID, h) })
		wantOneWon(t, errs, catalog.ErrNotFound, "spends of one code at once")
	}
	if got, _ := s.AdminUserByID(ctx, u.ID); len(got.RecoveryHashes) != 0 {
		t.Fatalf("the codes left = %v, want none", got.RecoveryHashes)
	}
}

// wantOneWon holds concurrent attempts to exactly one success, the others
// failing with lost.
func wantOneWon(t *testing.T, errs []error, lost error, what string) {
	t.Helper()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, lost):
			t.Fatalf("%s: %v, want success or %v", what, err, lost)
		}
	}
	if won != 1 {
		t.Fatalf("%s: %d succeeded, want 1", what, won)
	}
}
