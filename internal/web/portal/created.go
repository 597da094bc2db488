package portal

import (
	"encoding/json"
	"net/http"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// A new key's secret is shown once, on the page the form's POST redirects
// to (303): Back and a reload never send the form again. The secret
// crosses the redirect in a session flash (session.Area.SetFlash), a
// cookie sealed for this browser's session that the server does not keep;
// the page drops it as it shows the key, so a reload says the key was
// shown already.

// flashName and flashPath are the flash cookie's name and where the
// browser sends it back.
const (
	flashName = "newkey"
	flashPath = "/developer/keys"
)

// flash is what the redirect carries to the page of a new key.
type flash struct {
	Prefix string `json:"p"`
	Secret string `json:"s"`
	// Rolled is the prefix of the key a roll replaced, which OldStops.
	Rolled   string `json:"r,omitempty"`
	OldStops string `json:"o,omitempty"`
}

// createdData is what the page of a new key shows, once.
type createdData struct {
	Key    apikey.Key
	Kind   string
	Secret string
	// Rolled is the prefix of the key a roll replaced, which OldStops.
	Rolled   string
	OldStops string
	// Shown is true on a second visit: the secret is gone.
	Shown bool
}

// newKeyPath is the page that shows k's secret once.
func newKeyPath(k apikey.Key) string { return keyPath(k) + "/new" }

// showOnce ends the POST that made k: the secret goes into the flash and
// the browser to k's page of a new key. When the flash cannot be set (the
// value too long, which a key never is), the key is shown in the POST's
// answer rather than lost.
func (p *Portal) showOnce(w http.ResponseWriter, r *http.Request, k apikey.Key, f flash) {
	b, err := json.Marshal(f)
	if err == nil {
		err = p.area.SetFlash(w, r, flashName, flashPath, b)
	}
	if err != nil {
		p.log.ErrorContext(r.Context(), "portal: a new key's flash cannot be set: it is shown in the form's answer", "err", err, "key", k.Prefix)
		p.renderCreated(w, r, createdData{Key: k, Secret: f.Secret, Rolled: f.Rolled, OldStops: f.OldStops})
		return
	}
	session.SeeOther(w, r, newKeyPath(k))
}

// newKey is GET /developer/keys/{prefix}/new: the secret of the key just
// made, from the flash, which it drops; without one (a reload, Back, a
// flash of another key), the page says the key was shown already.
func (p *Portal) newKey(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	var f flash
	b, ok := p.area.TakeFlash(w, r, flashName, flashPath)
	if ok && json.Unmarshal(b, &f) == nil && f.Prefix == k.Prefix && f.Secret != "" {
		p.renderCreated(w, r, createdData{Key: k, Secret: f.Secret, Rolled: f.Rolled, OldStops: f.OldStops})
		return
	}
	if ok && f.Prefix != k.Prefix {
		// Another key's flash (this page opened after a later key was
		// made) stays for that key's page.
		if err := p.area.SetFlash(w, r, flashName, flashPath, b); err != nil {
			p.log.WarnContext(r.Context(), "portal: another key's flash cannot be kept", "err", err)
		}
	}
	p.renderCreated(w, r, createdData{Key: k, Shown: true})
}

// renderCreated answers the page that shows a new key: the only answer
// that ever holds it, so no cache may keep it (no-store), and the
// playground gets it in the link's fragment, which no server sees.
func (p *Portal) renderCreated(w http.ResponseWriter, r *http.Request, d createdData) {
	d.Kind = kindOf(d.Key)
	title := "Your new key"
	if d.Shown {
		title = "Key shown already"
	}
	p.pages.Render(w, r, http.StatusOK, "created", web.Page{Title: p.area.Title(title), NoIndex: true, NoStore: true,
		Crumbs: []web.Crumb{{Name: "Developers", Path: "/developer"}, {Name: "Your keys", Path: "/developer/keys"}}, Data: d})
}
