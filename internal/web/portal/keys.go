package portal

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// keysData is what /developer/keys shows.
type keysData struct {
	Email string
	// Keys are the live keys, newest first, then a page of the keys that
	// ended in the last endedDays, newest first; Older is the path of the
	// next page ("" at the end).
	Keys      []keyRow
	Older     string
	Live, Max int
	PerHour   int
	MaxName   int
	Form      createForm
	// Held says why the account may make no key, and how to appeal; ""
	// when it may.
	Held string
}

// keyRow is one line of the keys table.
type keyRow struct {
	apikey.Key
	State    string
	LastUsed string
	Today    int64
}

// createForm is the form that makes a key: what was typed and what is
// wrong with it.
type createForm struct{ Name, Kind, Origins, Error string }

// Bounds of the key form.
const (
	maxKeyName = 80
	maxOrigins = 20
)

// keyDays is how many days of usage the pages read.
const keyDays = 30

// The keys that stopped working stay on the keys page for endedDays (the
// audit log keeps them after), endedPerPage at a time.
const (
	endedDays    = 30
	endedPerPage = 20
)

// stateOf says a key's state for people.
func stateOf(k apikey.Key, now time.Time) string {
	switch {
	case k.State == apikey.Revoked:
		return "revoked"
	case k.Expired(now):
		return "expired (rolled)"
	case !k.ExpiresAt.IsZero():
		return "rolled: works until " + when(k.ExpiresAt)
	}
	return string(k.State)
}

// keys is GET /developer/keys[?before=ID]: the account's live keys, a
// page of the keys that ended lately (those below ID), and the form that
// makes one.
func (p *Portal) keys(w http.ResponseWriter, r *http.Request, v visitor) {
	p.renderKeys(w, r, v, http.StatusOK, createForm{})
}

// renderKeys answers the keys page with status and the create form f.
func (p *Portal) renderKeys(w http.ResponseWriter, r *http.Request, v visitor, status int, f createForm) {
	before, ok := beforeParam(r)
	if !ok {
		p.message(w, r, http.StatusBadRequest, message{Heading: "No such page",
			Text: "The list of keys starts below a key's number: a whole number from 1 on.", Back: "/developer/keys", BackText: "Your keys"})
		return
	}
	ctx, now := r.Context(), p.now()
	live, err := p.cfg.Accounts.LiveAccountKeys(ctx, v.account.ID, now)
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	ended, err := p.cfg.Accounts.EndedAccountKeys(ctx, v.account.ID, account.EndedKeys{
		Now: now, Since: now.Add(-endedDays * 24 * time.Hour), Before: before, Limit: endedPerPage + 1})
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	d := keysData{Email: v.account.Email, Live: len(live), Max: p.cfg.MaxKeys, PerHour: p.cfg.KeysPerHour, MaxName: maxKeyName, Form: f}
	if v.account.Held() {
		d.Held = p.heldText()
	}
	if len(ended) > endedPerPage {
		ended = ended[:endedPerPage]
		d.Older = "/developer/keys?before=" + strconv.FormatInt(ended[endedPerPage-1].ID, 10)
	}
	for _, k := range append(live, ended...) {
		row, err := p.keyRow(r, k, now)
		if err != nil {
			p.unavailable(w, r, err)
			return
		}
		d.Keys = append(d.Keys, row)
	}
	p.pages.Render(w, r, status, "keys", web.Page{Title: p.area.Title("Your keys"), NoIndex: true,
		Crumbs: []web.Crumb{{Name: "Developers", Path: "/developer"}, {Name: "Your keys", Path: "/developer/keys"}}, Data: d})
}

// beforeParam reads ?before=, the ID a page of ended keys starts below:
// 0 when absent, ok false when it is not a whole number from 1 on.
func beforeParam(r *http.Request) (int64, bool) {
	s := r.URL.Query().Get("before")
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// keyRow is k as the keys table shows it, with its usage.
func (p *Portal) keyRow(r *http.Request, k apikey.Key, now time.Time) (keyRow, error) {
	rep, err := p.cfg.Report(r.Context(), k.Prefix, keyDays)
	if err != nil {
		return keyRow{}, err
	}
	row := keyRow{Key: k, State: stateOf(k, now), LastUsed: fmt.Sprintf("not in %d days", keyDays), Today: rep.Today.Requests}
	for i := len(rep.Days) - 1; i >= 0; i-- {
		if rep.Days[i].Requests > 0 {
			row.LastUsed = rep.Days[i].Date
			break
		}
	}
	return row, nil
}

// createKey is POST /developer/keys: a new free-tier key, shown once,
// made within the account's rules (keyRules).
func (p *Portal) createKey(w http.ResponseWriter, r *http.Request, v visitor) {
	if !p.area.ReadForm(w, r) {
		return
	}
	ctx := r.Context()
	f := createForm{Name: strings.TrimSpace(r.PostForm.Get("name")), Kind: r.PostForm.Get("kind"), Origins: r.PostForm.Get("origins")}
	origins, problem := checkKeyForm(f)
	if problem == "" && v.account.Held() {
		problem = p.heldText()
	}
	var k apikey.Key
	var secret string
	if problem == "" {
		var err error
		k, secret, err = apikey.IssueWith(ctx, apikey.NewKey{
			Name: f.Name, Email: v.account.Email, Tier: apikey.Free, Origins: origins, AccountID: v.account.ID,
		}, func(k apikey.Key) (apikey.Key, error) { return p.cfg.Accounts.CreateAccountKey(ctx, k, p.keyRules()) })
		if problem, err = p.refusal(err, false); err != nil {
			p.keyFailed(w, r, err)
			return
		}
	}
	if problem != "" {
		f.Name, f.Origins, f.Error = session.Typed(f.Name, 4*maxKeyName), session.Typed(f.Origins, 4096), problem
		p.renderKeys(w, r, v, http.StatusUnprocessableEntity, f)
		return
	}
	p.keysChanged()
	p.showOnce(w, r, k, flash{Prefix: k.Prefix, Secret: secret})
}

// keyRules are the rules the account's keys are made and rolled under,
// now.
func (p *Portal) keyRules() account.KeyRules {
	return account.KeyRules{Max: p.cfg.MaxKeys, PerHour: p.cfg.KeysPerHour, Now: p.now()}
}

// checkKeyForm reads the key form: the origins of a browser key, or what
// is wrong, in words for the visitor.
func checkKeyForm(f createForm) (origins []string, problem string) {
	switch {
	case f.Name == "":
		return nil, "Name the key, such as the app that will use it."
	case !utf8.ValidString(f.Name) || len([]rune(f.Name)) > maxKeyName || strings.IndexFunc(f.Name, unicode.IsControl) >= 0:
		return nil, fmt.Sprintf("A key's name is at most %d characters on one line.", maxKeyName)
	case f.Kind == serverKey:
		return nil, ""
	case f.Kind != browserKey:
		return nil, "Choose a server key or a browser key."
	}
	var list []string
	for _, o := range strings.FieldsFunc(f.Origins, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if o = strings.TrimSpace(o); o != "" {
			list = append(list, o)
		}
	}
	if len(list) == 0 {
		return nil, "A browser key lists the origins allowed to use it, such as https://app.example.com."
	}
	if len(list) > maxOrigins {
		return nil, fmt.Sprintf("A browser key lists at most %d origins.", maxOrigins)
	}
	for _, o := range list {
		n, err := apikey.ParseOrigins(o)
		if err != nil || len(n) != 1 || !(strings.HasPrefix(n[0], "https://") || strings.HasPrefix(n[0], "http://")) {
			if len(o) > 100 {
				o = o[:100] + "…"
			}
			return nil, fmt.Sprintf("“%s” is not an origin: write scheme://host[:port], such as https://app.example.com, without a path.", session.Typed(o, len(o)))
		}
		if !slices.Contains(origins, n[0]) {
			origins = append(origins, n[0])
		}
	}
	return origins, ""
}
