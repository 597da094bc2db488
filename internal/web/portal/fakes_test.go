package portal_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// errDown is what a failing fake answers: a store that cannot answer.
var errDown = errors.New("store unreachable")

// fakeStore is an in-memory account.Store and apikey.Store that meets the
// contracts' rules the portal relies on. fail makes the named methods
// (every one when it holds "*") answer errDown.
type fakeStore struct {
	mu       sync.Mutex
	now      func() time.Time
	fail     map[string]bool
	links    map[string]link
	accounts []account.Account
	sessions map[string]account.Session
	keys     []apikey.Key
	requests []account.TierRequest
	// byAccount holds the prefixes of the keys a disabled account's
	// SetAccountDisabled suspended.
	byAccount map[string]bool
}

type link struct {
	email   string
	expires time.Time
	used    bool
}

var (
	_ account.Store = (*fakeStore)(nil)
	_ apikey.Store  = (*fakeStore)(nil)
)

func newFakeStore(now func() time.Time) *fakeStore {
	return &fakeStore{now: now, fail: map[string]bool{}, links: map[string]link{}, sessions: map[string]account.Session{},
		byAccount: map[string]bool{}}
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

func (f *fakeStore) CreateSignInLink(_ context.Context, hash, email string, expires time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("CreateSignInLink"); err != nil {
		return err
	}
	f.links[hash] = link{email: email, expires: expires}
	return nil
}

func (f *fakeStore) UseSignInLink(_ context.Context, hash string, now time.Time) (account.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("UseSignInLink"); err != nil {
		return account.Account{}, err
	}
	l, ok := f.links[hash]
	if !ok || l.used || !now.Before(l.expires) {
		return account.Account{}, account.ErrLinkInvalid
	}
	l.used = true
	f.links[hash] = l
	for _, a := range f.accounts {
		if a.Email == l.email && !a.Deleted() {
			return a, nil
		}
	}
	a := account.Account{ID: int64(len(f.accounts) + 1), Email: l.email, CreatedAt: now}
	f.accounts = append(f.accounts, a)
	return a, nil
}

func (f *fakeStore) AccountByID(_ context.Context, id int64) (account.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("AccountByID"); err != nil {
		return account.Account{}, err
	}
	for _, a := range f.accounts {
		if a.ID == id {
			return a, nil
		}
	}
	return account.Account{}, catalog.ErrNotFound
}

func (f *fakeStore) AccountByEmail(_ context.Context, email string) (account.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.accounts {
		if a.Email == email && !a.Deleted() {
			return a, nil
		}
	}
	return account.Account{}, catalog.ErrNotFound
}

func (f *fakeStore) ListAccounts(context.Context) ([]account.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.accounts), nil
}

func (f *fakeStore) DeleteAccount(_ context.Context, id int64, now time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("DeleteAccount"); err != nil {
		return err
	}
	for i := range f.keys {
		if f.keys[i].AccountID == id {
			f.keys[i].State, f.keys[i].Email, f.keys[i].UpdatedAt = apikey.Revoked, "", now
		}
	}
	for i := range f.accounts {
		if f.accounts[i].ID == id {
			for h, l := range f.links {
				if l.email == f.accounts[i].Email && !l.used {
					delete(f.links, h)
				}
			}
			f.accounts[i].Email, f.accounts[i].DeletedAt = "", now
		}
	}
	for h, s := range f.sessions {
		if s.AccountID == id {
			delete(f.sessions, h)
		}
	}
	return nil
}

func (f *fakeStore) CreateSession(_ context.Context, s account.Session) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("CreateSession"); err != nil {
		return err
	}
	for _, a := range f.accounts {
		if a.ID == s.AccountID && !a.Deleted() && !a.Disabled {
			s.LastSeen = s.CreatedAt
			f.sessions[s.Hash] = s
			return nil
		}
	}
	return fmt.Errorf("no live, enabled account %d: %w", s.AccountID, catalog.ErrNotFound)
}

func (f *fakeStore) SetAccountDisabled(_ context.Context, id int64, disabled bool) (account.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("SetAccountDisabled"); err != nil {
		return account.Account{}, err
	}
	i := slices.IndexFunc(f.accounts, func(a account.Account) bool { return a.ID == id })
	if i < 0 {
		return account.Account{}, catalog.ErrNotFound
	}
	f.accounts[i].Disabled = disabled
	for j := range f.keys {
		k := &f.keys[j]
		switch {
		case k.AccountID != id:
		case disabled && k.State == apikey.Active:
			k.State, k.UpdatedAt, f.byAccount[k.Prefix] = apikey.Suspended, f.now(), true
		case !disabled && k.State == apikey.Suspended && f.byAccount[k.Prefix]:
			k.State, k.UpdatedAt = apikey.Active, f.now()
			delete(f.byAccount, k.Prefix)
		}
	}
	if disabled {
		for h, s := range f.sessions {
			if s.AccountID == id {
				delete(f.sessions, h)
			}
		}
	}
	return f.accounts[i], nil
}

func (f *fakeStore) TouchSession(_ context.Context, hash string, now time.Time) (account.Session, account.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("TouchSession"); err != nil {
		return account.Session{}, account.Account{}, err
	}
	s, ok := f.sessions[hash]
	if !ok {
		return account.Session{}, account.Account{}, account.ErrNoSession
	}
	if s.Expired(now) {
		delete(f.sessions, hash)
		return account.Session{}, account.Account{}, account.ErrNoSession
	}
	for _, a := range f.accounts {
		if a.ID == s.AccountID && !a.Deleted() && !a.Disabled {
			s.LastSeen = now
			f.sessions[hash] = s
			return s, a, nil
		}
	}
	return account.Session{}, account.Account{}, account.ErrNoSession
}

func (f *fakeStore) EndSession(_ context.Context, hash string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("EndSession"); err != nil {
		return err
	}
	delete(f.sessions, hash)
	return nil
}

func (f *fakeStore) EndSessions(_ context.Context, accountID int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("EndSessions"); err != nil {
		return err
	}
	for h, s := range f.sessions {
		if s.AccountID == accountID {
			delete(f.sessions, h)
		}
	}
	return nil
}

func (f *fakeStore) AccountKeys(_ context.Context, accountID int64) ([]apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("AccountKeys"); err != nil {
		return nil, err
	}
	var out []apikey.Key
	for _, k := range f.keys {
		if k.AccountID == accountID {
			out = append(out, k)
		}
	}
	return out, nil
}

func (f *fakeStore) CreateTierRequest(_ context.Context, r account.TierRequest) (account.TierRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("CreateTierRequest"); err != nil {
		return account.TierRequest{}, err
	}
	if err := r.Check(); err != nil {
		return account.TierRequest{}, err
	}
	r.ID, r.State, r.CreatedAt = int64(len(f.requests)+1), account.Pending, f.now()
	f.requests = append(f.requests, r)
	return r, nil
}

func (f *fakeStore) TierRequests(_ context.Context, accountID int64) ([]account.TierRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("TierRequests"); err != nil {
		return nil, err
	}
	var out []account.TierRequest
	for i := len(f.requests) - 1; i >= 0; i-- {
		if f.requests[i].AccountID == accountID {
			out = append(out, f.requests[i])
		}
	}
	return out, nil
}

func (f *fakeStore) PendingTierRequests(context.Context) ([]account.TierRequest, error) {
	return nil, errors.New("not used by the portal")
}

func (f *fakeStore) DecideTierRequest(_ context.Context, id int64, s account.RequestState, note string, now time.Time) (account.TierRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.requests {
		if f.requests[i].ID == id {
			f.requests[i].State, f.requests[i].Note, f.requests[i].DecidedAt = s, note, now
			return f.requests[i], nil
		}
	}
	return account.TierRequest{}, catalog.ErrNotFound
}

// fakeMail records the messages sent; fail makes Send fail.
type fakeMail struct {
	mu   sync.Mutex
	sent []mail.Message
	fail bool
}

func (m *fakeMail) Send(_ context.Context, msg mail.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errors.New("smtp down")
	}
	m.sent = append(m.sent, msg)
	return nil
}

func (m *fakeMail) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sent)
}

func (m *fakeMail) last() mail.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sent[len(m.sent)-1]
}

// fakeUsage holds the counts the usage reads answer with: daily counts
// per key (a report over the last days is built from them) and hourly
// counts.
type fakeUsage struct {
	mu     sync.Mutex
	now    func() time.Time
	daily  []usage.Count
	hourly []usage.Count
	fail   bool
}

func (u *fakeUsage) Report(_ context.Context, prefix string, days int) (usage.Report, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fail {
		return usage.Report{}, errDown
	}
	today := u.now().UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -(days - 1))
	rep := usage.Report{KeyPrefix: prefix, Endpoints: map[string]int64{}, Days: make([]usage.Day, days)}
	for i := range rep.Days {
		rep.Days[i] = usage.Day{Date: from.AddDate(0, 0, i).Format(time.DateOnly), ByStatus: map[string]int64{}, ByEndpoint: map[string]int64{}}
	}
	for _, c := range u.daily {
		i := int(c.Start.Sub(from) / (24 * time.Hour))
		if c.KeyPrefix != prefix || c.Start.Before(from) || i >= days {
			continue
		}
		d := &rep.Days[i]
		d.Requests += c.Count
		d.ByStatus[c.StatusClass] += c.Count
		d.ByEndpoint[c.Endpoint] += c.Count
		rep.Endpoints[c.Endpoint] += c.Count
		rep.Total += c.Count
	}
	rep.Today = rep.Days[days-1]
	return rep, nil
}

func (u *fakeUsage) Hourly(_ context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fail {
		return nil, errDown
	}
	var out []usage.Count
	for _, c := range u.hourly {
		if c.KeyPrefix == prefix && !c.Start.Before(from) && c.Start.Before(to) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (u *fakeUsage) add(daily, hourly []usage.Count) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.daily = append(u.daily, daily...)
	u.hourly = append(u.hourly, hourly...)
}
