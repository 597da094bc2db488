package session

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
)

// Message is what an area's message page shows: a heading, a text, and
// where the visitor goes on.
type Message struct {
	Heading, Text string
	// Back is a path to go on to, named BackText; empty, the area's home
	// and its name.
	Back, BackText string
	// More is what the area's template shows instead of the link back
	// (the portal's form that sends a new sign-in link); nil: the link.
	More any
}

// Title is a page title of the area: parts, the area's name and the
// service's.
func (a *Area[V]) Title(parts ...string) string {
	return strings.Join(append(parts, a.cfg.Name, "Fragrance Data Service"), " · ")
}

// Message answers the area's message page with status: never indexed, out
// of caches and asking no cookie choice when the area says so
// (Config.NoStore, Config.NoCookieChoice).
func (a *Area[V]) Message(w http.ResponseWriter, r *http.Request, status int, m Message) {
	m.Back, m.BackText = cmp.Or(m.Back, a.cfg.Home), cmp.Or(m.BackText, a.cfg.HomeText)
	a.pages.Render(w, r, status, "message", web.Page{Title: a.Title(m.Heading), NoIndex: true, NoStore: a.cfg.NoStore,
		NoCookieChoice: a.cfg.NoCookieChoice, Data: m})
}

// Unavailable answers 503 when a store (or the mail, or a limiter) cannot
// answer: nothing was shown or done, nobody is signed in, try again. err
// goes to the log with the path.
func (a *Area[V]) Unavailable(w http.ResponseWriter, r *http.Request, err error) {
	a.log.ErrorContext(r.Context(), a.cfg.Log+": a store cannot answer", "err", err, "path", r.URL.Path)
	w.Header().Set("Retry-After", "5")
	a.Message(w, r, http.StatusServiceUnavailable, Message{Heading: "Try again in a moment",
		Text: "The " + a.cfg.Who + " cannot reach its records right now, so nothing was shown or done. Try again in a few seconds."})
}

// OwnForms puts h behind http.CrossOriginProtection: a form sent from
// another site does nothing and gets the refusal page (403).
func (a *Area[V]) OwnForms(h http.Handler) http.Handler { return a.xorigin.Handler(h) }

// refuseForm is the page of a form sent from another site.
func (a *Area[V]) refuseForm(w http.ResponseWriter, r *http.Request) {
	a.Message(w, r, http.StatusForbidden, Message{Heading: "Form refused",
		Text: "This form was sent from another site, so it was refused: the " + a.cfg.Who +
			" only takes its own forms. Open the page on this site and send it again."})
}

// maxForm bounds a form's body: room for the longest text an area takes, a
// tier request's use case of account.MaxUseCase characters of any script,
// percent-encoded (up to 12 bytes each).
const maxForm = 64 << 10

// ReadForm parses a POSTed form of at most maxForm bytes, or answers 400
// and reports false.
func (a *Area[V]) ReadForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		a.Message(w, r, http.StatusBadRequest, Message{Heading: "Form not read",
			Text: "The form could not be read (too long, or not a form). Go back and send it again."})
		return false
	}
	return true
}

// Typed is what a page repeats of a typed value: valid UTF-8 (each bad
// byte a U+FFFD), and nothing of a value over max bytes.
func Typed(s string, max int) string {
	if len(s) > max {
		return ""
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// SeeOther sends the browser to path (303), never kept by a cache: it ends
// a POST, so that a reload does not send the form again, and it leads to a
// sign-in form.
func SeeOther(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// errNotAPrefix reports a route's {prefix} that is not a key prefix in its
// normal form: it names no key.
var errNotAPrefix = fmt.Errorf("not a key prefix: %w", catalog.ErrNotFound)

// RouteKey reads the key named by the route's {prefix} from keys. A
// prefix not in its normal form names no key, as one the store does not
// hold: an error wrapping catalog.ErrNotFound, the store not asked. Any
// other error means the store cannot answer.
func RouteKey(r *http.Request, keys apikey.Store) (apikey.Key, error) {
	prefix := r.PathValue("prefix")
	if n, err := apikey.NormalizePrefix(prefix); err != nil || n != prefix {
		return apikey.Key{}, errNotAPrefix
	}
	k, err := keys.KeyByPrefix(r.Context(), prefix)
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return apikey.Key{}, fmt.Errorf("read key %s: %w", prefix, err)
	}
	return k, err
}
