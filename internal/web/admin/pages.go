package admin

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/web"
)

// frame is what every signed-in page's template reads as .Data: the
// dashboard's bar and the page's own data.
type frame struct {
	Bar  bar
	Body any
}

// bar is the head of every signed-in page: who is signed in, the sections,
// and the count of abuse signals this admin has not seen yet.
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
}

// render writes a signed-in page with status: never kept by a cache, never
// indexed, with the bar on top.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, op operator, status int, v view) {
	b := bar{Email: op.user.Email, Section: v.section}
	b.NewSignals, b.MoreSignals, b.SignalsUnknown = d.newSignals(r, op)
	crumbs := append([]web.Crumb{{Name: "Admin", Path: "/admin"}}, v.crumbs...)
	d.pages.Render(w, r, status, v.name, web.Page{Title: title(v.title), NoIndex: true, NoStore: true,
		Crumbs: crumbs, Data: frame{Bar: b, Body: v.body}})
}

// message is what the message page shows: a heading, a text, and where
// to go on.
type message struct {
	Heading, Text string
	// Back is a path to go on to, named BackText.
	Back, BackText string
}

// message answers the message page with status: a page without the bar,
// for anyone behind the allow-list, signed in or not.
func (d *Dashboard) message(w http.ResponseWriter, r *http.Request, status int, m message) {
	if m.Back == "" {
		m.Back, m.BackText = "/admin", "Back to the dashboard"
	}
	d.pages.Render(w, r, status, "message", web.Page{Title: title(m.Heading), NoIndex: true, NoStore: true, Data: m})
}

// unavailable answers 503 when a store (or the limiter) cannot answer:
// nothing was done, nobody is signed in, try again.
func (d *Dashboard) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	d.log.ErrorContext(r.Context(), "admin: a store cannot answer", "err", err, "path", r.URL.Path)
	w.Header().Set("Retry-After", "5")
	d.message(w, r, http.StatusServiceUnavailable, message{Heading: "Try again in a moment",
		Text: "The dashboard cannot reach its records right now, so nothing was shown or done. Try again in a few seconds."})
}

// notFound answers the 404 page of a key, an account or a request that
// does not exist.
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) { d.web.NotFoundPage(w, r) }

// maxForm bounds a form's body.
const maxForm = 64 << 10

// readForm parses a POSTed form, or answers 400 and reports false.
func (d *Dashboard) readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		d.message(w, r, http.StatusBadRequest, message{Heading: "Form not read",
			Text: "The form could not be read (too long, or not a form). Go back and send it again."})
		return false
	}
	return true
}

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
		return reason, "Give a reason of at most 500 characters."
	}
	return reason, ""
}
