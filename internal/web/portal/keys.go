package portal

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// keysData is what /developer/keys shows.
type keysData struct {
	Email     string
	Keys      []keyRow
	Live, Max int
	MaxName   int
	Form      createForm
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

// live reports whether k counts against MaxKeys: not revoked, and not
// rolled (a rolled key is on its way out, expiring).
func live(k apikey.Key) bool { return k.State != apikey.Revoked && k.ExpiresAt.IsZero() }

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

// keys is GET /developer/keys: the account's keys and the form that makes
// one.
func (p *Portal) keys(w http.ResponseWriter, r *http.Request, v visitor) {
	p.renderKeys(w, r, v, http.StatusOK, createForm{})
}

// renderKeys answers the keys page with status and the create form f.
func (p *Portal) renderKeys(w http.ResponseWriter, r *http.Request, v visitor, status int, f createForm) {
	ks, err := p.cfg.Accounts.AccountKeys(r.Context(), v.account.ID)
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	now := p.now()
	d := keysData{Email: v.account.Email, Max: p.cfg.MaxKeys, MaxName: maxKeyName, Form: f}
	// Live keys first, then the ended ones; newest first within each.
	slices.SortStableFunc(ks, func(a, b apikey.Key) int {
		if live(a) != live(b) {
			if live(a) {
				return -1
			}
			return 1
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	for _, k := range ks {
		if live(k) {
			d.Live++
		}
		rep, err := p.cfg.Report(r.Context(), k.Prefix, keyDays)
		if err != nil {
			p.unavailable(w, r, err)
			return
		}
		row := keyRow{Key: k, State: stateOf(k, now), LastUsed: fmt.Sprintf("not in %d days", keyDays), Today: rep.Today.Requests}
		for i := len(rep.Days) - 1; i >= 0; i-- {
			if rep.Days[i].Requests > 0 {
				row.LastUsed = rep.Days[i].Date
				break
			}
		}
		d.Keys = append(d.Keys, row)
	}
	p.pages.Render(w, r, status, "keys", web.Page{Title: p.area.Title("Your keys"), NoIndex: true,
		Crumbs: []web.Crumb{{Name: "Developers", Path: "/developer"}, {Name: "Your keys", Path: "/developer/keys"}}, Data: d})
}

// createKey is POST /developer/keys: a new free-tier key, shown once.
func (p *Portal) createKey(w http.ResponseWriter, r *http.Request, v visitor) {
	if !p.area.ReadForm(w, r) {
		return
	}
	f := createForm{Name: strings.TrimSpace(r.PostForm.Get("name")), Kind: r.PostForm.Get("kind"), Origins: r.PostForm.Get("origins")}
	origins, problem := checkKeyForm(f)
	if problem == "" {
		ks, err := p.cfg.Accounts.AccountKeys(r.Context(), v.account.ID)
		if err != nil {
			p.unavailable(w, r, err)
			return
		}
		if n := countLive(ks); n >= p.cfg.MaxKeys {
			problem = fmt.Sprintf("You have %d live keys, the most an account may hold. Revoke one to make another.", n)
		}
	}
	if problem != "" {
		if len(f.Name) > 4*maxKeyName {
			f.Name = ""
		}
		if len(f.Origins) > 4096 {
			f.Origins = ""
		}
		f.Error = problem
		p.renderKeys(w, r, v, http.StatusUnprocessableEntity, f)
		return
	}
	k, secret, err := apikey.Issue(r.Context(), p.cfg.Keys, apikey.NewKey{
		Name: f.Name, Email: v.account.Email, Tier: apikey.Free, Origins: origins, AccountID: v.account.ID,
	})
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	p.keysChanged()
	p.renderCreated(w, r, createdData{Key: k, Secret: secret})
}

func countLive(ks []apikey.Key) int {
	n := 0
	for _, k := range ks {
		if live(k) {
			n++
		}
	}
	return n
}

// checkKeyForm reads the key form: the origins of a browser key, or what
// is wrong, in words for the visitor.
func checkKeyForm(f createForm) (origins []string, problem string) {
	switch {
	case f.Name == "":
		return nil, "Name the key, such as the app that will use it."
	case len([]rune(f.Name)) > maxKeyName || strings.IndexFunc(f.Name, unicode.IsControl) >= 0:
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
			return nil, fmt.Sprintf("“%s” is not an origin: write scheme://host[:port], such as https://app.example.com, without a path.", o)
		}
		if !slices.Contains(origins, n[0]) {
			origins = append(origins, n[0])
		}
	}
	return origins, ""
}

// createdData is what the page of a new key shows, once.
type createdData struct {
	Key    apikey.Key
	Kind   string
	Secret string
	// Rolled is the key a roll replaced, which OldStops.
	Rolled   *apikey.Key
	OldStops string
	// Warning tells what went wrong after the key was made.
	Warning string
}

// renderCreated answers the page that shows a new key: the only answer
// that ever holds it, so no cache may keep it (no-store), and the
// playground gets it in the link's fragment, which no server sees.
func (p *Portal) renderCreated(w http.ResponseWriter, r *http.Request, d createdData) {
	d.Kind = kindOf(d.Key)
	p.pages.Render(w, r, http.StatusOK, "created", web.Page{Title: p.area.Title("Your new key"), NoIndex: true, NoStore: true,
		Crumbs: []web.Crumb{{Name: "Developers", Path: "/developer"}, {Name: "Your keys", Path: "/developer/keys"}}, Data: d})
}

// grace is a choice of how long a rolled key keeps working.
type grace struct {
	Value, Text string
	For         time.Duration
	Default     bool
}

// graces are the choices of the roll form; "none" revokes the old key.
var graces = []grace{
	{"none", "No longer: revoke it now", 0, false},
	{"1h", "1 hour", time.Hour, false},
	{"24h", "24 hours", 24 * time.Hour, true},
	{"7d", "7 days", 7 * 24 * time.Hour, false},
}

// roll is POST /developer/keys/{prefix}/roll: a new key with the same
// name, kind, origins, tier and limits, shown once; the old one works for
// the grace period chosen, then stops.
func (p *Portal) roll(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	if !p.area.ReadForm(w, r) {
		return
	}
	i := slices.IndexFunc(graces, func(g grace) bool { return g.Value == r.PostForm.Get("grace") })
	if i < 0 {
		p.message(w, r, http.StatusUnprocessableEntity, message{Heading: "Key not rolled",
			Text: "Choose how long the old key keeps working.", Back: keyPath(k), BackText: "Back to the key"})
		return
	}
	if k.State != apikey.Active || !k.ExpiresAt.IsZero() {
		p.message(w, r, http.StatusUnprocessableEntity, message{Heading: "Key not rolled",
			Text: "Only an active key that was not rolled yet can be rolled. Roll its successor, or make a new key.", Back: keyPath(k), BackText: "Back to the key"})
		return
	}
	nk, secret, err := apikey.Issue(r.Context(), p.cfg.Keys, apikey.NewKey{
		Name: k.Name, Email: v.account.Email, Tier: k.Tier, PerMinute: k.PerMinute, PerDay: k.PerDay, Origins: k.Origins, AccountID: v.account.ID,
	})
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	d := createdData{Key: nk, Secret: secret, Rolled: &k}
	// The new key exists: whatever happens to the old one, this answer
	// must show the new one, its only showing.
	if g := graces[i]; g.For == 0 {
		_, err = p.cfg.Keys.SetKeyState(r.Context(), k.Prefix, apikey.Revoked)
		d.OldStops = "is revoked: it stopped working now"
	} else {
		at := p.now().Add(g.For)
		_, err = p.cfg.Keys.SetKeyExpiry(r.Context(), k.Prefix, at)
		d.OldStops = "keeps working until " + when(at) + ", then stops"
	}
	if err != nil {
		p.log.ErrorContext(r.Context(), "portal: a rolled key could not be set to stop", "err", err, "key", k.Prefix)
		d.OldStops = "keeps working"
		d.Warning = "The old key could not be changed, so it keeps working: revoke it from its page once your apps use the new one."
	}
	p.keysChanged()
	p.renderCreated(w, r, d)
}

// keyPath is the path of a key's page.
func keyPath(k apikey.Key) string { return "/developer/keys/" + k.Prefix }

// confirmRevoke is GET /developer/keys/{prefix}/revoke: the confirmation
// step of a revocation, a page of its own so it works without JavaScript.
func (p *Portal) confirmRevoke(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	if k.State == apikey.Revoked {
		session.SeeOther(w, r, keyPath(k))
		return
	}
	p.pages.Render(w, r, http.StatusOK, "revoke", web.Page{Title: p.area.Title("Revoke " + k.Prefix), NoIndex: true,
		Crumbs: []web.Crumb{{Name: "Your keys", Path: "/developer/keys"}, {Name: k.Prefix, Path: keyPath(k)}, {Name: "Revoke", Path: keyPath(k) + "/revoke"}},
		Data:   k})
}

// revoke is POST /developer/keys/{prefix}/revoke: the key stops working,
// for good, and the Guard is told at once.
func (p *Portal) revoke(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	if k.State != apikey.Revoked {
		if _, err := p.cfg.Keys.SetKeyState(r.Context(), k.Prefix, apikey.Revoked); err != nil && !isRevoked(err) {
			p.unavailable(w, r, err)
			return
		}
		p.keysChanged()
	}
	session.SeeOther(w, r, "/developer/keys")
}
