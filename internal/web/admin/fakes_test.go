package admin_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// errDown is what a failing fake answers: a store that cannot answer.
var errDown = errors.New("store unreachable")

// errUnused answers the methods the dashboard never calls.
var errUnused = errors.New("not used by the dashboard")

// fakeStore is an in-memory admin, account, key and usage store meeting
// the contracts' rules the dashboard relies on. fail makes the named
// methods (every one when it holds "*") answer errDown.
type fakeStore struct {
	mu       sync.Mutex
	now      func() time.Time
	fail     map[string]bool
	users    []admin.User
	sessions map[string]admin.Session
	audit    []admin.AuditEntry
	accounts []account.Account
	keys     []apikey.Key
	requests []account.TierRequest
	signals  []usage.Signal
	// The usage rows the Usage reads answer, filtered by their spans.
	hourly, daily []usage.Count
	latency       []usage.Latency
	clicks        []usage.Click
	views         []usage.PerfumeViews
	empty         []usage.Search
}

var (
	_ admin.Store   = (*fakeStore)(nil)
	_ account.Store = (*fakeStore)(nil)
	_ apikey.Store  = (*fakeStore)(nil)
	_ usage.Store   = (*fakeStore)(nil)
)

func newFakeStore(now func() time.Time) *fakeStore {
	return &fakeStore{now: now, fail: map[string]bool{}, sessions: map[string]admin.Session{}}
}

func (f *fakeStore) failing(method string) error {
	if f.fail["*"] || f.fail[method] {
		return fmt.Errorf("%s: %w", method, errDown)
	}
	return nil
}

func (f *fakeStore) setFail(methods ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = map[string]bool{}
	for _, m := range methods {
		f.fail[m] = true
	}
}

// lock takes the store's lock and reports the failure of method.
func (f *fakeStore) lock(method string) (unlock func(), err error) {
	f.mu.Lock()
	return f.mu.Unlock, f.failing(method)
}

func notFound(what string) error { return fmt.Errorf("%s: %w", what, catalog.ErrNotFound) }

// --- admin.Store

func (f *fakeStore) CreateAdminUser(_ context.Context, u admin.User) (admin.User, error) {
	unlock, err := f.lock("CreateAdminUser")
	defer unlock()
	if err != nil {
		return admin.User{}, err
	}
	u.ID = int64(len(f.users) + 1)
	u.CreatedAt, u.UpdatedAt = f.now(), f.now()
	f.users = append(f.users, u)
	return u, nil
}

func (f *fakeStore) AdminUserByEmail(_ context.Context, email string) (admin.User, error) {
	unlock, err := f.lock("AdminUserByEmail")
	defer unlock()
	if err != nil {
		return admin.User{}, err
	}
	for _, u := range f.users {
		if u.Email == email {
			return u, nil
		}
	}
	return admin.User{}, notFound("admin user")
}

func (f *fakeStore) AdminUserByID(_ context.Context, id int64) (admin.User, error) {
	unlock, err := f.lock("AdminUserByID")
	defer unlock()
	if err != nil {
		return admin.User{}, err
	}
	for _, u := range f.users {
		if u.ID == id {
			return u, nil
		}
	}
	return admin.User{}, notFound("admin user")
}

func (f *fakeStore) ListAdminUsers(context.Context) ([]admin.User, error) {
	unlock, err := f.lock("ListAdminUsers")
	defer unlock()
	return slices.Clone(f.users), err
}

func (f *fakeStore) UpdateAdminUser(_ context.Context, u admin.User) (admin.User, error) {
	unlock, err := f.lock("UpdateAdminUser")
	defer unlock()
	if err != nil {
		return admin.User{}, err
	}
	for i := range f.users {
		if f.users[i].ID == u.ID {
			f.users[i].PasswordHash, f.users[i].TOTPSecret, f.users[i].Disabled = u.PasswordHash, u.TOTPSecret, u.Disabled
			f.users[i].RecoveryHashes = slices.Clone(u.RecoveryHashes)
			if u.Disabled {
				for h, s := range f.sessions {
					if s.UserID == u.ID {
						delete(f.sessions, h)
					}
				}
			}
			return f.users[i], nil
		}
	}
	return admin.User{}, notFound("admin user")
}

func (f *fakeStore) CreateAdminSession(_ context.Context, s admin.Session) error {
	unlock, err := f.lock("CreateAdminSession")
	defer unlock()
	if err != nil {
		return err
	}
	s.LastSeen = s.CreatedAt
	f.sessions[s.Hash] = s
	return nil
}

func (f *fakeStore) TouchAdminSession(_ context.Context, hash string, now time.Time) (admin.Session, admin.User, error) {
	unlock, err := f.lock("TouchAdminSession")
	defer unlock()
	if err != nil {
		return admin.Session{}, admin.User{}, err
	}
	s, ok := f.sessions[hash]
	if !ok {
		return admin.Session{}, admin.User{}, notFound("admin session")
	}
	if s.Expired(now) {
		delete(f.sessions, hash)
		return admin.Session{}, admin.User{}, notFound("admin session")
	}
	for _, u := range f.users {
		if u.ID == s.UserID && !u.Disabled {
			s.LastSeen = now
			f.sessions[hash] = s
			return s, u, nil
		}
	}
	return admin.Session{}, admin.User{}, notFound("admin session")
}

func (f *fakeStore) EndAdminSession(_ context.Context, hash string) error {
	unlock, err := f.lock("EndAdminSession")
	defer unlock()
	if err != nil {
		return err
	}
	delete(f.sessions, hash)
	return nil
}

func (f *fakeStore) AppendAudit(_ context.Context, e admin.AuditEntry) (admin.AuditEntry, error) {
	unlock, err := f.lock("AppendAudit")
	defer unlock()
	if err != nil {
		return admin.AuditEntry{}, err
	}
	e.ID = int64(len(f.audit) + 1)
	f.audit = append(f.audit, e)
	return e, nil
}

func (f *fakeStore) Audit(_ context.Context, beforeID int64, limit int, target string) ([]admin.AuditEntry, error) {
	unlock, err := f.lock("Audit")
	defer unlock()
	if err != nil {
		return nil, err
	}
	var out []admin.AuditEntry
	for i := len(f.audit) - 1; i >= 0 && len(out) < limit; i-- {
		e := f.audit[i]
		if (beforeID == 0 || e.ID < beforeID) && (target == "" || e.Target == target) {
			out = append(out, e)
		}
	}
	return out, nil
}

// entries returns the audit log, oldest first.
func (f *fakeStore) entries() []admin.AuditEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.audit)
}

// --- account.Store

func (f *fakeStore) CreateSignInLink(context.Context, string, string, time.Time) error {
	return errUnused
}
func (f *fakeStore) UseSignInLink(context.Context, string, time.Time) (account.Account, error) {
	return account.Account{}, errUnused
}
func (f *fakeStore) AccountByEmail(context.Context, string) (account.Account, error) {
	return account.Account{}, errUnused
}
func (f *fakeStore) DeleteAccount(context.Context, int64, time.Time) error { return errUnused }
func (f *fakeStore) CreateSession(context.Context, account.Session) error  { return errUnused }
func (f *fakeStore) TouchSession(context.Context, string, time.Time) (account.Session, account.Account, error) {
	return account.Session{}, account.Account{}, errUnused
}
func (f *fakeStore) EndSession(context.Context, string) error { return errUnused }
func (f *fakeStore) EndSessions(context.Context, int64) error { return errUnused }
func (f *fakeStore) CreateTierRequest(context.Context, account.TierRequest) (account.TierRequest, error) {
	return account.TierRequest{}, errUnused
}

func (f *fakeStore) AccountByID(_ context.Context, id int64) (account.Account, error) {
	unlock, err := f.lock("AccountByID")
	defer unlock()
	if err != nil {
		return account.Account{}, err
	}
	for _, a := range f.accounts {
		if a.ID == id {
			return a, nil
		}
	}
	return account.Account{}, notFound("account")
}

func (f *fakeStore) ListAccounts(context.Context) ([]account.Account, error) {
	unlock, err := f.lock("ListAccounts")
	defer unlock()
	return slices.Clone(f.accounts), err
}

func (f *fakeStore) SetAccountDisabled(_ context.Context, id int64, disabled bool) (account.Account, error) {
	unlock, err := f.lock("SetAccountDisabled")
	defer unlock()
	if err != nil {
		return account.Account{}, err
	}
	for i := range f.accounts {
		if f.accounts[i].ID != id {
			continue
		}
		f.accounts[i].Disabled = disabled
		for j := range f.keys {
			k := &f.keys[j]
			if k.AccountID == id && disabled && k.State == apikey.Active {
				k.State = apikey.Suspended
			} else if k.AccountID == id && !disabled && k.State == apikey.Suspended {
				k.State = apikey.Active
			}
		}
		return f.accounts[i], nil
	}
	return account.Account{}, notFound("account")
}

func (f *fakeStore) AccountKeys(_ context.Context, id int64) ([]apikey.Key, error) {
	unlock, err := f.lock("AccountKeys")
	defer unlock()
	var out []apikey.Key
	for _, k := range f.keys {
		if k.AccountID == id {
			out = append(out, k)
		}
	}
	return out, err
}

func (f *fakeStore) TierRequests(_ context.Context, id int64) ([]account.TierRequest, error) {
	unlock, err := f.lock("TierRequests")
	defer unlock()
	var out []account.TierRequest
	for i := len(f.requests) - 1; i >= 0; i-- {
		if f.requests[i].AccountID == id {
			out = append(out, f.requests[i])
		}
	}
	return out, err
}

func (f *fakeStore) PendingTierRequests(context.Context) ([]account.TierRequest, error) {
	unlock, err := f.lock("PendingTierRequests")
	defer unlock()
	var out []account.TierRequest
	for _, r := range f.requests {
		if r.State == account.Pending {
			out = append(out, r)
		}
	}
	return out, err
}

func (f *fakeStore) DecideTierRequest(_ context.Context, id int64, s account.RequestState, note string, now time.Time) (account.TierRequest, error) {
	unlock, err := f.lock("DecideTierRequest")
	defer unlock()
	if err != nil {
		return account.TierRequest{}, err
	}
	for i := range f.requests {
		r := &f.requests[i]
		if r.ID != id {
			continue
		}
		if r.State != account.Pending {
			return account.TierRequest{}, fmt.Errorf("decided: %w", catalog.ErrInvalid)
		}
		r.State, r.Note, r.DecidedAt = s, note, now
		return *r, nil
	}
	return account.TierRequest{}, notFound("tier request")
}

// --- apikey.Store

func (f *fakeStore) CreateKey(_ context.Context, k apikey.Key) (apikey.Key, error) {
	unlock, err := f.lock("CreateKey")
	defer unlock()
	if err != nil {
		return apikey.Key{}, err
	}
	if k, err = k.ForCreate(); err != nil {
		return apikey.Key{}, err
	}
	k.ID = int64(len(f.keys) + 1)
	k.CreatedAt, k.UpdatedAt = f.now(), f.now()
	f.keys = append(f.keys, k)
	return k, nil
}

func (f *fakeStore) KeyByHash(context.Context, string) (apikey.Key, error) {
	return apikey.Key{}, errUnused
}
func (f *fakeStore) SetKeyExpiry(context.Context, string, time.Time) (apikey.Key, error) {
	return apikey.Key{}, errUnused
}
func (f *fakeStore) KeysChangedSince(context.Context, time.Time) ([]apikey.Key, error) {
	return nil, errUnused
}

func (f *fakeStore) KeyByPrefix(_ context.Context, prefix string) (apikey.Key, error) {
	unlock, err := f.lock("KeyByPrefix")
	defer unlock()
	if err != nil {
		return apikey.Key{}, err
	}
	for _, k := range f.keys {
		if k.Prefix == prefix {
			return k, nil
		}
	}
	return apikey.Key{}, notFound("key")
}

func (f *fakeStore) ListKeys(context.Context) ([]apikey.Key, error) {
	unlock, err := f.lock("ListKeys")
	defer unlock()
	return slices.Clone(f.keys), err
}

// change applies do to the key of prefix under the lock, as the Set
// methods do.
func (f *fakeStore) change(method, prefix string, do func(*apikey.Key) error) (apikey.Key, error) {
	unlock, err := f.lock(method)
	defer unlock()
	if err != nil {
		return apikey.Key{}, err
	}
	for i := range f.keys {
		if f.keys[i].Prefix == prefix {
			if err := do(&f.keys[i]); err != nil {
				return apikey.Key{}, err
			}
			f.keys[i].UpdatedAt = f.now()
			return f.keys[i], nil
		}
	}
	return apikey.Key{}, notFound("key")
}

func (f *fakeStore) SetKeyState(_ context.Context, prefix string, s apikey.State) (apikey.Key, error) {
	return f.change("SetKeyState", prefix, func(k *apikey.Key) error {
		if k.State == apikey.Revoked {
			return apikey.ErrRevoked
		}
		k.State = s
		return nil
	})
}

func (f *fakeStore) SetKeyLimits(_ context.Context, prefix string, perMinute, perDay int64) (apikey.Key, error) {
	return f.change("SetKeyLimits", prefix, func(k *apikey.Key) error {
		k.PerMinute, k.PerDay = perMinute, perDay
		return nil
	})
}

func (f *fakeStore) SetKeyTier(_ context.Context, prefix string, t apikey.Tier) (apikey.Key, error) {
	return f.change("SetKeyTier", prefix, func(k *apikey.Key) error {
		if k.State == apikey.Revoked {
			return apikey.ErrRevoked
		}
		k.Tier = t
		return nil
	})
}

// key returns the key of prefix as stored.
func (f *fakeStore) key(prefix string) apikey.Key {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range f.keys {
		if k.Prefix == prefix {
			return k
		}
	}
	return apikey.Key{}
}
