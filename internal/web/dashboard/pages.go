package dashboard

import (
	"html/template"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// funcs are the template functions of the dashboard's pages.
func funcs() template.FuncMap {
	return template.FuncMap{
		"when":  when,
		"n64":   func(n int64) string { return web.Thousands(int(n)) },
		"barOf": barOf,
	}
}

// barOf is the bar of a signed-in page's data, for the dashboard's
// header; nil on a page without one (the sign-in form, a message), whose
// header names nobody.
func barOf(data any) *bar {
	if f, ok := data.(frame); ok {
		return &f.Bar
	}
	return nil
}

// when writes a moment for people, in UTC to the second.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// frame is what every signed-in page's template reads as .Data: the
// dashboard's bar (which its header shows) and the page's own data.
type frame struct {
	Bar  bar
	Body any
}

// bar is what the header of every signed-in page shows: who is signed
// in, the sections, and the count of abuse signals this admin has not
// seen yet.
type bar struct {
	Email   string
	Section string
	// NewSignals is the count of unseen signals, MoreSignals that there
	// are more than it; SignalsUnknown that the count cannot be read now.
	NewSignals     int
	MoreSignals    bool
	SignalsUnknown bool
}

// Sections of the bar, as pages name the one they belong to.
const (
	secOverview = "overview"
	secKeys     = "keys"
	secAccounts = "accounts"
	secRequests = "requests"
	secAbuse    = "abuse"
	secAudit    = "audit"
	secTOTP     = "totp"
)

// view is one signed-in page to render.
type view struct {
	name    string // the template
	section string
	title   string
	crumbs  []web.Crumb
	body    any
	// bar, when set, is the page's bar read already (the overview shows
	// its count of new signals); nil: render reads it.
	bar *bar
}

// barFor reads the bar of a page of section for the admin signed in.
func (d *Dashboard) barFor(r *http.Request, op operator, section string) bar {
	b := bar{Email: op.user.Email, Section: section}
	b.NewSignals, b.MoreSignals, b.SignalsUnknown = d.newSignals(r, op)
	return b
}

// render writes a signed-in page with status: never kept by a cache, never
// indexed, asking no cookie choice (the dashboard's one cookie is strictly
// necessary), with the bar in the dashboard's header.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, op operator, status int, v view) {
	b := v.bar
	if b == nil {
		fresh := d.barFor(r, op, v.section)
		b = &fresh
	}
	var crumbs []web.Crumb // none on the overview, the dashboard's home
	if len(v.crumbs) > 0 {
		crumbs = append([]web.Crumb{{Name: "Admin", Path: "/admin"}}, v.crumbs...)
	}
	d.pages.Render(w, r, status, v.name, web.Page{Title: d.area.Title(v.title), NoIndex: true, NoStore: true, NoCookieChoice: true,
		Crumbs: crumbs, Data: frame{Bar: *b, Body: v.body}})
}

// message is what the message page shows: a heading, a text, and where
// to go on (the dashboard when not said).
type message = session.Message

// message answers the message page with status: a page without the bar,
// for anyone behind the allow-list, signed in or not.
func (d *Dashboard) message(w http.ResponseWriter, r *http.Request, status int, m message) {
	d.area.Message(w, r, status, m)
}

// unavailable answers 503 when a store (or the limiter) cannot answer:
// nothing was shown or done, nobody is signed in, try again.
func (d *Dashboard) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	d.area.Unavailable(w, r, err)
}

// notFound answers the 404 page of a key, an account or a request that
// does not exist.
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) { d.web.NotFoundPage(w, r) }

// MaxReason bounds the reason an admin gives for an action.
const MaxReason = 500

// reasonOf reads the form's reason: trimmed, required, at most MaxReason
// characters; problem says what is wrong with it.
func reasonOf(r *http.Request) (reason, problem string) {
	reason = strings.TrimSpace(r.PostForm.Get("reason"))
	switch {
	case reason == "":
		return reason, "Give a reason: it goes into the audit log."
	case !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxReason:
		return session.Typed(reason, 4*MaxReason), "Give a reason of at most 500 characters."
	}
	return reason, ""
}
