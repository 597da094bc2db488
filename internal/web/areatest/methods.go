package areatest

import (
	"context"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// Every method of the contracts Faulty meets passes to the SQLite store,
// unless Fail named it.

// --- account.Store

// CreateSignInLink is the store's, unless it is told to fail.
func (f *Faulty) CreateSignInLink(ctx context.Context, hash, email string, expires time.Time) error {
	if err := f.fault("CreateSignInLink"); err != nil {
		return err
	}
	return f.db.CreateSignInLink(ctx, hash, email, expires)
}

// SignInLinkEmail is the store's, unless it is told to fail.
func (f *Faulty) SignInLinkEmail(ctx context.Context, hash string, now time.Time) (string, error) {
	return pass(f, "SignInLinkEmail", func() (string, error) { return f.db.SignInLinkEmail(ctx, hash, now) })
}

// UseSignInLink is the store's, unless it is told to fail.
func (f *Faulty) UseSignInLink(ctx context.Context, hash string, now time.Time) (account.Account, error) {
	return pass(f, "UseSignInLink", func() (account.Account, error) { return f.db.UseSignInLink(ctx, hash, now) })
}

// AccountByID is the store's, unless it is told to fail.
func (f *Faulty) AccountByID(ctx context.Context, id int64) (account.Account, error) {
	return pass(f, "AccountByID", func() (account.Account, error) { return f.db.AccountByID(ctx, id) })
}

// AccountByEmail is the store's, unless it is told to fail.
func (f *Faulty) AccountByEmail(ctx context.Context, email string) (account.Account, error) {
	return pass(f, "AccountByEmail", func() (account.Account, error) { return f.db.AccountByEmail(ctx, email) })
}

// ListAccounts is the store's, unless it is told to fail.
func (f *Faulty) ListAccounts(ctx context.Context) ([]account.Account, error) {
	return pass(f, "ListAccounts", func() ([]account.Account, error) { return f.db.ListAccounts(ctx) })
}

// DuplicateAccounts is the store's, unless it is told to fail.
func (f *Faulty) DuplicateAccounts(ctx context.Context) ([]account.Account, error) {
	return pass(f, "DuplicateAccounts", func() ([]account.Account, error) { return f.db.DuplicateAccounts(ctx) })
}

// DeleteAccount is the store's, unless it is told to fail.
func (f *Faulty) DeleteAccount(ctx context.Context, id int64, now time.Time) error {
	if err := f.fault("DeleteAccount"); err != nil {
		return err
	}
	return f.db.DeleteAccount(ctx, id, now)
}

// SetAccountDisabled is the store's, unless it is told to fail.
func (f *Faulty) SetAccountDisabled(ctx context.Context, id int64, disabled bool) (account.Account, error) {
	return pass(f, "SetAccountDisabled", func() (account.Account, error) { return f.db.SetAccountDisabled(ctx, id, disabled) })
}

// ReleaseKeyHold is the store's, unless it is told to fail.
func (f *Faulty) ReleaseKeyHold(ctx context.Context, id int64) (account.Account, error) {
	return pass(f, "ReleaseKeyHold", func() (account.Account, error) { return f.db.ReleaseKeyHold(ctx, id) })
}

// CreateSession is the store's, unless it is told to fail.
func (f *Faulty) CreateSession(ctx context.Context, s account.Session) error {
	if err := f.fault("CreateSession"); err != nil {
		return err
	}
	return f.db.CreateSession(ctx, s)
}

// TouchSession is the store's, unless it is told to fail.
func (f *Faulty) TouchSession(ctx context.Context, hash string, now time.Time) (account.Session, account.Account, error) {
	if err := f.fault("TouchSession"); err != nil {
		return account.Session{}, account.Account{}, err
	}
	return f.db.TouchSession(ctx, hash, now)
}

// EndSession is the store's, unless it is told to fail.
func (f *Faulty) EndSession(ctx context.Context, hash string) error {
	if err := f.fault("EndSession"); err != nil {
		return err
	}
	return f.db.EndSession(ctx, hash)
}

// EndSessions is the store's, unless it is told to fail.
func (f *Faulty) EndSessions(ctx context.Context, accountID int64) error {
	if err := f.fault("EndSessions"); err != nil {
		return err
	}
	return f.db.EndSessions(ctx, accountID)
}

// AccountKeys is the store's, unless it is told to fail.
func (f *Faulty) AccountKeys(ctx context.Context, accountID int64) ([]apikey.Key, error) {
	return pass(f, "AccountKeys", func() ([]apikey.Key, error) { return f.db.AccountKeys(ctx, accountID) })
}

// LiveAccountKeys is the store's, unless it is told to fail.
func (f *Faulty) LiveAccountKeys(ctx context.Context, accountID int64, now time.Time) ([]apikey.Key, error) {
	return pass(f, "LiveAccountKeys", func() ([]apikey.Key, error) { return f.db.LiveAccountKeys(ctx, accountID, now) })
}

// EndedAccountKeys is the store's, unless it is told to fail.
func (f *Faulty) EndedAccountKeys(ctx context.Context, accountID int64, q account.EndedKeys) ([]apikey.Key, error) {
	return pass(f, "EndedAccountKeys", func() ([]apikey.Key, error) { return f.db.EndedAccountKeys(ctx, accountID, q) })
}

// CreateAccountKey is the store's, unless it is told to fail.
func (f *Faulty) CreateAccountKey(ctx context.Context, k apikey.Key, r account.KeyRules) (apikey.Key, error) {
	return pass(f, "CreateAccountKey", func() (apikey.Key, error) { return f.db.CreateAccountKey(ctx, k, r) })
}

// RollAccountKey is the store's, unless it is told to fail.
func (f *Faulty) RollAccountKey(ctx context.Context, old string, k apikey.Key, stopAt time.Time, r account.KeyRules) (apikey.Key, apikey.Key, error) {
	if err := f.fault("RollAccountKey"); err != nil {
		return apikey.Key{}, apikey.Key{}, err
	}
	return f.db.RollAccountKey(ctx, old, k, stopAt, r)
}

// CreateTierRequest is the store's, unless it is told to fail.
func (f *Faulty) CreateTierRequest(ctx context.Context, r account.TierRequest) (account.TierRequest, error) {
	return pass(f, "CreateTierRequest", func() (account.TierRequest, error) { return f.db.CreateTierRequest(ctx, r) })
}

// TierRequests is the store's, unless it is told to fail.
func (f *Faulty) TierRequests(ctx context.Context, accountID int64) ([]account.TierRequest, error) {
	return pass(f, "TierRequests", func() ([]account.TierRequest, error) { return f.db.TierRequests(ctx, accountID) })
}

// PendingTierRequests is the store's, unless it is told to fail.
func (f *Faulty) PendingTierRequests(ctx context.Context) ([]account.TierRequest, error) {
	return pass(f, "PendingTierRequests", func() ([]account.TierRequest, error) { return f.db.PendingTierRequests(ctx) })
}

// DecideTierRequest is the store's, unless it is told to fail.
func (f *Faulty) DecideTierRequest(ctx context.Context, id int64, s account.RequestState, note string, now time.Time) (account.TierRequest, error) {
	return pass(f, "DecideTierRequest", func() (account.TierRequest, error) { return f.db.DecideTierRequest(ctx, id, s, note, now) })
}

// --- apikey.Store

// CreateKey is the store's, unless it is told to fail.
func (f *Faulty) CreateKey(ctx context.Context, k apikey.Key) (apikey.Key, error) {
	return pass(f, "CreateKey", func() (apikey.Key, error) { return f.db.CreateKey(ctx, k) })
}

// KeyByHash is the store's, unless it is told to fail.
func (f *Faulty) KeyByHash(ctx context.Context, hash string) (apikey.Key, error) {
	return pass(f, "KeyByHash", func() (apikey.Key, error) { return f.db.KeyByHash(ctx, hash) })
}

// KeyByPrefix is the store's, unless it is told to fail.
func (f *Faulty) KeyByPrefix(ctx context.Context, prefix string) (apikey.Key, error) {
	return pass(f, "KeyByPrefix", func() (apikey.Key, error) { return f.db.KeyByPrefix(ctx, prefix) })
}

// ListKeys is the store's, unless it is told to fail.
func (f *Faulty) ListKeys(ctx context.Context) ([]apikey.Key, error) {
	return pass(f, "ListKeys", func() ([]apikey.Key, error) { return f.db.ListKeys(ctx) })
}

// SetKeyState is the store's, unless it is told to fail.
func (f *Faulty) SetKeyState(ctx context.Context, prefix string, s apikey.State) (apikey.Key, error) {
	return pass(f, "SetKeyState", func() (apikey.Key, error) { return f.db.SetKeyState(ctx, prefix, s) })
}

// SetKeyLimits is the store's, unless it is told to fail.
func (f *Faulty) SetKeyLimits(ctx context.Context, prefix string, perMinute, perDay int64) (apikey.Key, error) {
	return pass(f, "SetKeyLimits", func() (apikey.Key, error) { return f.db.SetKeyLimits(ctx, prefix, perMinute, perDay) })
}

// SetKeyTier is the store's, unless it is told to fail.
func (f *Faulty) SetKeyTier(ctx context.Context, prefix string, tier apikey.Tier) (apikey.Key, error) {
	return pass(f, "SetKeyTier", func() (apikey.Key, error) { return f.db.SetKeyTier(ctx, prefix, tier) })
}

// SetKeyExpiry is the store's, unless it is told to fail.
func (f *Faulty) SetKeyExpiry(ctx context.Context, prefix string, at time.Time) (apikey.Key, error) {
	return pass(f, "SetKeyExpiry", func() (apikey.Key, error) { return f.db.SetKeyExpiry(ctx, prefix, at) })
}

// KeysChangedSince is the store's, unless it is told to fail.
func (f *Faulty) KeysChangedSince(ctx context.Context, since time.Time) ([]apikey.Key, error) {
	return pass(f, "KeysChangedSince", func() ([]apikey.Key, error) { return f.db.KeysChangedSince(ctx, since) })
}

// --- admin.Store

// CreateAdminUser is the store's, unless it is told to fail.
func (f *Faulty) CreateAdminUser(ctx context.Context, u admin.User) (admin.User, error) {
	return pass(f, "CreateAdminUser", func() (admin.User, error) { return f.db.CreateAdminUser(ctx, u) })
}

// AdminUserByEmail is the store's, unless it is told to fail.
func (f *Faulty) AdminUserByEmail(ctx context.Context, email string) (admin.User, error) {
	return pass(f, "AdminUserByEmail", func() (admin.User, error) { return f.db.AdminUserByEmail(ctx, email) })
}

// AdminUserByID is the store's, unless it is told to fail.
func (f *Faulty) AdminUserByID(ctx context.Context, id int64) (admin.User, error) {
	return pass(f, "AdminUserByID", func() (admin.User, error) { return f.db.AdminUserByID(ctx, id) })
}

// ListAdminUsers is the store's, unless it is told to fail.
func (f *Faulty) ListAdminUsers(ctx context.Context) ([]admin.User, error) {
	return pass(f, "ListAdminUsers", func() ([]admin.User, error) { return f.db.ListAdminUsers(ctx) })
}

// UpdateAdminUser is the store's, unless it is told to fail.
func (f *Faulty) UpdateAdminUser(ctx context.Context, u admin.User) (admin.User, error) {
	return pass(f, "UpdateAdminUser", func() (admin.User, error) { return f.db.UpdateAdminUser(ctx, u) })
}

// UseTOTPStep is the store's, unless it is told to fail.
func (f *Faulty) UseTOTPStep(ctx context.Context, userID, step int64) error {
	if err := f.fault("UseTOTPStep"); err != nil {
		return err
	}
	return f.db.UseTOTPStep(ctx, userID, step)
}

// SpendRecoveryCode is the store's, unless it is told to fail.
func (f *Faulty) SpendRecoveryCode(ctx context.Context, userID int64, hash string) (int, error) {
	return pass(f, "SpendRecoveryCode", func() (int, error) { return f.db.SpendRecoveryCode(ctx, userID, hash) })
}

// CreateAdminSession is the store's, unless it is told to fail.
func (f *Faulty) CreateAdminSession(ctx context.Context, s admin.Session) error {
	if err := f.fault("CreateAdminSession"); err != nil {
		return err
	}
	return f.db.CreateAdminSession(ctx, s)
}

// TouchAdminSession is the store's, unless it is told to fail.
func (f *Faulty) TouchAdminSession(ctx context.Context, hash string, now time.Time) (admin.Session, admin.User, error) {
	if err := f.fault("TouchAdminSession"); err != nil {
		return admin.Session{}, admin.User{}, err
	}
	return f.db.TouchAdminSession(ctx, hash, now)
}

// EndAdminSession is the store's, unless it is told to fail.
func (f *Faulty) EndAdminSession(ctx context.Context, hash string) error {
	if err := f.fault("EndAdminSession"); err != nil {
		return err
	}
	return f.db.EndAdminSession(ctx, hash)
}

// AppendAudit is the store's, unless it is told to fail.
func (f *Faulty) AppendAudit(ctx context.Context, e admin.AuditEntry) (admin.AuditEntry, error) {
	return pass(f, "AppendAudit", func() (admin.AuditEntry, error) { return f.db.AppendAudit(ctx, e) })
}

// Audit is the store's, unless it is told to fail.
func (f *Faulty) Audit(ctx context.Context, beforeID int64, limit int, target string) ([]admin.AuditEntry, error) {
	return pass(f, "Audit", func() ([]admin.AuditEntry, error) { return f.db.Audit(ctx, beforeID, limit, target) })
}

// --- usage.Store

// HourlyLatency is the store's, unless it is told to fail.
func (f *Faulty) HourlyLatency(ctx context.Context, from, to time.Time) ([]usage.Latency, error) {
	return pass(f, "HourlyLatency", func() ([]usage.Latency, error) { return f.db.HourlyLatency(ctx, from, to) })
}

// TopViewed is the store's, unless it is told to fail.
func (f *Faulty) TopViewed(ctx context.Context, from, to time.Time, limit int) ([]usage.PerfumeViews, error) {
	return pass(f, "TopViewed", func() ([]usage.PerfumeViews, error) { return f.db.TopViewed(ctx, from, to, limit) })
}

// EmptySearches is the store's, unless it is told to fail.
func (f *Faulty) EmptySearches(ctx context.Context, from, to time.Time, limit int) ([]usage.Search, error) {
	return pass(f, "EmptySearches", func() ([]usage.Search, error) { return f.db.EmptySearches(ctx, from, to, limit) })
}

// RecordUsage is the store's, unless it is told to fail.
func (f *Faulty) RecordUsage(ctx context.Context, b usage.Batch) error {
	if err := f.fault("RecordUsage"); err != nil {
		return err
	}
	return f.db.RecordUsage(ctx, b)
}

// DailyUsage is the store's, unless it is told to fail.
func (f *Faulty) DailyUsage(ctx context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	return pass(f, "DailyUsage", func() ([]usage.Count, error) { return f.db.DailyUsage(ctx, prefix, from, to) })
}

// HourlyUsage is the store's, unless it is told to fail.
func (f *Faulty) HourlyUsage(ctx context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	return pass(f, "HourlyUsage", func() ([]usage.Count, error) { return f.db.HourlyUsage(ctx, prefix, from, to) })
}

// DailyClicks is the store's, unless it is told to fail.
func (f *Faulty) DailyClicks(ctx context.Context, from, to time.Time) ([]usage.Click, error) {
	return pass(f, "DailyClicks", func() ([]usage.Click, error) { return f.db.DailyClicks(ctx, from, to) })
}

// PruneHourlyUsage is the store's, unless it is told to fail.
func (f *Faulty) PruneHourlyUsage(ctx context.Context, before time.Time) (int64, error) {
	return pass(f, "PruneHourlyUsage", func() (int64, error) { return f.db.PruneHourlyUsage(ctx, before) })
}

// RecordSignals is the store's, unless it is told to fail.
func (f *Faulty) RecordSignals(ctx context.Context, s []usage.Signal) error {
	if err := f.fault("RecordSignals"); err != nil {
		return err
	}
	return f.db.RecordSignals(ctx, s)
}

// Signals is the store's, unless it is told to fail.
func (f *Faulty) Signals(ctx context.Context, since time.Time, limit int) ([]usage.Signal, error) {
	return pass(f, "Signals", func() ([]usage.Signal, error) { return f.db.Signals(ctx, since, limit) })
}
