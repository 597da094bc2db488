package dashboard

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// keysPerPage is the length of a page of the key list.
const keysPerPage = 50

// maxPage bounds the page parameter of the lists.
const maxPage = 100_000

// keyFilter is the search of the key list, as its query has it.
type keyFilter struct{ Prefix, Email, Name, Tier, State string }

// keyStates are the states the key list filters by; "expired" is a
// rolled key past its grace.
var keyStates = []string{string(apikey.Active), string(apikey.Suspended), string(apikey.Revoked), "expired"}

// stateOf is a key's state at now, "expired" for an expired key.
func stateOf(k apikey.Key, now time.Time) string {
	if k.State != apikey.Revoked && k.Expired(now) {
		return "expired"
	}
	return string(k.State)
}

// matches reports whether k is found by f.
func (f keyFilter) matches(k apikey.Key, now time.Time) bool {
	return strings.HasPrefix(k.Prefix, f.Prefix) &&
		strings.Contains(strings.ToLower(k.Email), strings.ToLower(f.Email)) &&
		strings.Contains(strings.ToLower(k.Name), strings.ToLower(f.Name)) &&
		(f.Tier == "" || string(k.Tier) == f.Tier) &&
		(f.State == "" || stateOf(k, now) == f.State)
}

// createForm is the form that creates a key: what was typed and what is
// wrong with it.
type createForm struct {
	Name, Email, Tier, PerMinute, PerDay, Origins, Reason, Error string
}

// keysData is what the key list shows.
type keysData struct {
	Filter keyFilter
	Tiers  []apikey.Tier
	States []string
	Found  int
	List   *table
	Pager  web.Pager
	Create createForm
}

// keys is GET /admin/keys: the keys found by the search, newest first,
// and the form that creates one.
func (d *Dashboard) keys(w http.ResponseWriter, r *http.Request, op operator) {
	d.renderKeys(w, r, op, http.StatusOK, createForm{Tier: string(apikey.Free)})
}

func (d *Dashboard) renderKeys(w http.ResponseWriter, r *http.Request, op operator, status int, form createForm) {
	q := r.URL.Query()
	f := keyFilter{Prefix: strings.TrimSpace(q.Get("prefix")), Email: strings.TrimSpace(q.Get("email")),
		Name: strings.TrimSpace(q.Get("name")), Tier: q.Get("tier"), State: q.Get("state")}
	page, ok := web.PageParam(r.URL, maxPage)
	if !ok {
		d.message(w, r, http.StatusBadRequest, message{Heading: "No such page", Text: "The page number is not a whole number from 1 on.",
			Back: "/admin/keys", BackText: "Back to the keys"})
		return
	}
	all, err := d.cfg.Keys.ListKeys(r.Context())
	if err != nil {
		d.unavailable(w, r, errorf("list keys", err))
		return
	}
	now := d.now()
	var found []apikey.Key
	for _, k := range all {
		if f.matches(k, now) {
			found = append(found, k)
		}
	}
	slices.SortStableFunc(found, func(a, b apikey.Key) int { return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID)) })
	pages := max(1, (len(found)+keysPerPage-1)/keysPerPage)
	if page > pages {
		d.notFound(w, r)
		return
	}
	list := &table{ID: "keys", Caption: "Keys found", Head: []string{"Key", "Name", "Email", "Tier", "State", "Account", "Created (UTC)"},
		Empty: "No key matches the search."}
	for _, k := range found[(page-1)*keysPerPage : min(len(found), page*keysPerPage)] {
		acct := txt("—")
		if k.AccountID != 0 {
			acct = linked(accountTarget(k.AccountID), accountPath(k.AccountID))
		}
		list.Rows = append(list.Rows, []cell{linked(k.Prefix, keyPath(k.Prefix)), txt(k.Name), txt(k.Email), txt(string(k.Tier)),
			txt(stateOf(k, now)), acct, txt(when(k.CreatedAt))})
	}
	if ts := tablesOf(r.URL, list); r.Method == http.MethodGet && d.serveCSV(w, r, ts) {
		return
	}
	d.render(w, r, op, status, view{name: "keys", section: secKeys, title: "Keys", crumbs: []web.Crumb{{Name: "Keys", Path: "/admin/keys"}},
		body: keysData{Filter: f, Tiers: apikey.AllTiers[:], States: keyStates, Found: len(found), List: list,
			Pager: pagerOf(r.URL, page, pages), Create: form}})
}

// pagerOf is the paging of a list at u: every parameter of its search is
// kept in the links, the page set (none for page 1).
func pagerOf(u *url.URL, page, pages int) web.Pager {
	p := web.Pager{Page: page, Pages: pages}
	link := func(n int) string {
		q := u.Query()
		q.Del("page")
		q.Del("format")
		q.Del("table")
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		if enc := q.Encode(); enc != "" {
			return u.Path + "?" + enc
		}
		return u.Path
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if page < pages {
		p.Next = link(page + 1)
	}
	for n := max(1, page-2); n <= min(pages, page+2) && pages > 1; n++ {
		p.Links = append(p.Links, web.PageLink{N: n, URL: link(n), Current: n == page})
	}
	return p
}

// withKey serves h with the key named by the route's {prefix}; a prefix
// that is not one, or names no key, is a 404.
func (d *Dashboard) withKey(h func(http.ResponseWriter, *http.Request, operator, apikey.Key)) func(http.ResponseWriter, *http.Request, operator) {
	return func(w http.ResponseWriter, r *http.Request, op operator) {
		k, err := session.RouteKey(r, d.cfg.Keys)
		switch {
		case errors.Is(err, catalog.ErrNotFound):
			d.notFound(w, r)
		case err != nil:
			d.unavailable(w, r, errorf("read a key", err))
		default:
			h(w, r, op, k)
		}
	}
}

// The spans of a key's page.
const (
	keyDays      = 30 // requests per day
	keyHours     = 48 // requests per hour
	refusalDays  = 7  // hours with 429s
	signalDays   = 30 // the key's signals
	maxSignals   = 1000
	keyAuditRows = 20
)

// keyForm is the action form sent, re-shown with what is wrong with it.
type keyForm struct {
	Action, Error, Reason, Tier, PerMinute, PerDay string
}

// keyData is what a key's page shows.
type keyData struct {
	Key                     apikey.Key
	State                   string
	Limits, TierLimits      apikey.Limits
	Account                 *account.Account
	DailyChart, HourlyChart template.HTML
	Daily, Hourly           *table
	Endpoints, Refusals     *table
	Signals, Audit          *table
	Tiers                   []apikey.Tier
	Form                    keyForm
	// Live is false for a revoked key: nothing can change it any more.
	Live bool
}

// key is GET /admin/keys/{prefix}: the key, its usage, signals, refusals
// and audit entries, and its actions.
func (d *Dashboard) key(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key) {
	d.renderKey(w, r, op, k, http.StatusOK, keyForm{})
}

func (d *Dashboard) renderKey(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key, status int, form keyForm) {
	ctx := r.Context()
	now := d.now()
	s := spansAt(now)
	dFrom := s.day.AddDate(0, 0, -(keyDays - 1))
	rFrom := s.hour.Add(-(refusalDays*24 - 1) * time.Hour)
	daily, err := d.cfg.Usage.DailyUsage(ctx, k.Prefix, dFrom, s.day.AddDate(0, 0, 1))
	if err != nil {
		d.unavailable(w, r, errorf("daily usage of a key", err))
		return
	}
	hourly, err := d.cfg.Usage.HourlyUsage(ctx, k.Prefix, rFrom, s.hour.Add(time.Hour))
	if err != nil {
		d.unavailable(w, r, errorf("hourly usage of a key", err))
		return
	}
	sigs, err := d.cfg.Usage.Signals(ctx, now.AddDate(0, 0, -signalDays), maxSignals)
	if err != nil {
		d.unavailable(w, r, errorf("signals", err))
		return
	}
	entries, err := d.cfg.Admins.Audit(ctx, 0, keyAuditRows, k.Prefix)
	if err != nil {
		d.unavailable(w, r, errorf("audit of a key", err))
		return
	}
	data := keyData{Key: k, State: stateOf(k, now), Limits: d.tiers().For(k), TierLimits: d.tiers().For(apikey.Key{Tier: k.Tier}),
		Tiers: apikey.AllTiers[:], Form: form, Live: k.State != apikey.Revoked}
	if k.AccountID != 0 {
		a, err := d.cfg.Accounts.AccountByID(ctx, k.AccountID)
		switch {
		case err == nil:
			data.Account = &a
		case !errors.Is(err, catalog.ErrNotFound):
			d.unavailable(w, r, errorf("account of a key", err))
			return
		}
	}
	days := periods(daily, dFrom, keyDays, 24*time.Hour)
	hours := periods(hourly, s.hFrom, keyHours, time.Hour)
	daysChart := classChart("key-daily", fmt.Sprintf("Requests per day, the last %d days (UTC), by status", keyDays), days,
		func(t time.Time) string { return t.Format(time.DateOnly) }, func(t time.Time) string { return t.Format("2 Jan") }, 7)
	daysChart.Limit, daysChart.LimitLabel = data.Limits.PerDay, "daily limit "+web.Thousands(int(data.Limits.PerDay))
	data.DailyChart = daysChart.HTML()
	data.HourlyChart = classChart("key-hourly", fmt.Sprintf("Requests per hour, the last %d hours (UTC), by status", keyHours), hours,
		func(t time.Time) string { return t.Format("2006-01-02 15:00") }, func(t time.Time) string { return t.Format("15h") }, 12).HTML()
	data.Daily = periodTable("daily", fmt.Sprintf("Requests per day, the last %d days, by status", keyDays), "Day (UTC)", days, dayCell)
	data.Hourly = periodTable("hourly", fmt.Sprintf("Requests per hour, the last %d hours, by status", keyHours), "Hour (UTC)", hours, hourCell)
	data.Daily.Fold, data.Hourly.Fold = "The numbers per day", "The numbers per hour"
	data.Endpoints = &table{ID: "endpoints", Caption: fmt.Sprintf("Requests per endpoint, the last %d days", keyDays),
		Head: []string{"Endpoint", "Requests"}, Empty: "No requests."}
	for _, e := range endpointTotals(daily) {
		data.Endpoints.Rows = append(data.Endpoints.Rows, []cell{txt(e.Name), num(e.N)})
	}
	data.Refusals = refusalsTable(hourly)
	data.Signals = signalsTable("signals", fmt.Sprintf("Signals of this key, the last %d days", signalDays), keySignals(sigs, k.Prefix), -1, false)
	data.Audit = auditTable("audit", "What admins did to this key, newest first", entries)
	ts := tablesOf(r.URL, data.Daily, data.Hourly, data.Endpoints, data.Refusals, data.Signals, data.Audit)
	if r.Method == http.MethodGet && d.serveCSV(w, r, ts) {
		return
	}
	d.render(w, r, op, status, view{name: "key", section: secKeys, title: k.Prefix,
		crumbs: []web.Crumb{{Name: "Keys", Path: "/admin/keys"}, {Name: k.Prefix, Path: keyPath(k.Prefix)}}, body: data})
}

// refusalsTable lists the hours with requests a limit refused (429),
// newest first.
func refusalsTable(hourly []usage.Count) *table {
	t := &table{ID: "refusals", Caption: fmt.Sprintf("Refused by a limit (429), the last %d days", refusalDays),
		Head: []string{"Hour (UTC)", "Endpoint", "Refused"}, Empty: "None: no request of this key was refused by a limit."}
	for _, c := range usage.Refused(hourly) {
		t.Rows = append(t.Rows, []cell{hourCell(c.Start), txt(c.Endpoint), num(c.Count)})
	}
	return t
}

// keySignals are the signals of one key.
func keySignals(sigs []usage.Signal, prefix string) []usage.Signal {
	var out []usage.Signal
	for _, s := range sigs {
		if s.KeyPrefix == prefix {
			out = append(out, s)
		}
	}
	return out
}
