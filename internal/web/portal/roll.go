package portal

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

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
// the grace period chosen, then stops. Both in one change of the store,
// within the account's rules: a rolled key counts until it stops, and a
// key whose predecessor still works is not rolled.
func (p *Portal) roll(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	if !p.area.ReadForm(w, r) {
		return
	}
	ctx := r.Context()
	i := slices.IndexFunc(graces, func(g grace) bool { return g.Value == r.PostForm.Get("grace") })
	if i < 0 {
		p.notRolled(w, r, k, "Choose how long the old key keeps working.")
		return
	}
	var stopAt time.Time
	if g := graces[i]; g.For > 0 {
		stopAt = p.now().Add(g.For)
	}
	var old apikey.Key
	nk, secret, err := apikey.IssueWith(ctx, apikey.NewKey{
		Name: k.Name, Email: v.account.Email, Tier: k.Tier, PerMinute: k.PerMinute, PerDay: k.PerDay, Origins: k.Origins, AccountID: v.account.ID,
	}, func(nk apikey.Key) (apikey.Key, error) {
		var made apikey.Key
		var err error
		old, made, err = p.cfg.Accounts.RollAccountKey(ctx, k.Prefix, nk, stopAt, p.keyRules())
		return made, err
	})
	problem, err := p.refusal(err, true)
	switch {
	case err != nil:
		p.keyFailed(w, r, err)
		return
	case problem != "":
		p.notRolled(w, r, k, problem)
		return
	}
	f := flash{Prefix: nk.Prefix, Secret: secret, Rolled: old.Prefix, OldStops: "is revoked: it stopped working now"}
	if !stopAt.IsZero() {
		f.OldStops = "keeps working until " + when(old.ExpiresAt) + ", then stops"
	}
	p.keysChanged()
	p.showOnce(w, r, nk, f)
}

// notRolled answers a roll refused for problem (422).
func (p *Portal) notRolled(w http.ResponseWriter, r *http.Request, k apikey.Key, problem string) {
	p.message(w, r, http.StatusUnprocessableEntity, message{Heading: "Key not rolled", Text: problem, Back: keyPath(k), BackText: "Back to the key"})
}

// refusal is the visitor's words for a key the account's rules refused
// (rolling: a roll's), or err itself when it is not such a refusal; both
// empty when err is nil.
func (p *Portal) refusal(err error, rolling bool) (string, error) {
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, account.ErrKeysHeld):
		return p.heldText(), nil
	case errors.Is(err, account.ErrKeyRate):
		return fmt.Sprintf("An account makes at most %d keys an hour, rolled ones included: try again later.", p.cfg.KeysPerHour), nil
	case errors.Is(err, account.ErrTooManyKeys) && rolling:
		return fmt.Sprintf("You have %d live keys, the most an account may hold, and a rolled key counts until it stops: "+
			"roll it without a grace period (the old key stops now), or revoke another key first.", p.cfg.MaxKeys), nil
	case errors.Is(err, account.ErrTooManyKeys):
		return fmt.Sprintf("You have %d live keys, the most an account may hold (a rolled key counts until it stops). "+
			"Revoke one to make another.", p.cfg.MaxKeys), nil
	case errors.Is(err, account.ErrNotRollable):
		return "Only an active key that was not rolled yet can be rolled. Roll its successor, or make a new key.", nil
	case errors.Is(err, account.ErrRollPending):
		return "The key this one replaced still works: revoke it, or wait until it stops, before rolling this one.", nil
	}
	return "", err
}

// keyFailed answers a key the store did not make: an account that is gone
// or disabled meanwhile signs nobody in; anything else is a store that
// cannot answer.
func (p *Portal) keyFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, catalog.ErrNotFound) {
		p.area.Forget(w)
		p.signInFirst(w, r)
		return
	}
	p.unavailable(w, r, err)
}

// heldText says why an account an operator suspended a key of may not
// make or roll keys, and how to appeal.
func (p *Portal) heldText() string {
	text := "The operator suspended a key of this account, so it can neither make nor roll keys, even once that key is revoked. " +
		"To appeal, say what you use the keys for in a tier request on the page of one of your keys"
	if p.cfg.Contact != "" {
		text += ", or write to " + p.cfg.Contact
	}
	return text + "."
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
// for good, and the Guard is told at once. Revoking a key an operator
// suspended does not end the account's hold.
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
