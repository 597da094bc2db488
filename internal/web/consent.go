package web

import (
	"net/http"
	"strings"
	"time"
)

// ConsentCookie is the name of the cookie that records a visitor's cookie
// choice. It holds the categories consented to and the date, nothing else:
// "necessary.analytics:2026-11-23".
const ConsentCookie = "consent"

// consentLifetime is how long a choice is kept before the banner asks
// again (six months, as data-protection authorities recommend).
const consentLifetime = 182 * 24 * time.Hour

// Cookie categories. Necessary cookies need no consent; the others are set
// only after the visitor agreed to their category.
const (
	Necessary   = "necessary"
	Preferences = "preferences"
	Analytics   = "analytics"
)

// Cookie is one cookie the service can set, as /privacy lists it.
type Cookie struct {
	Name, Category, Purpose, Lifetime string
}

// Cookies lists every cookie the service can set. A new cookie is added
// here first: /privacy shows this list and the tests check that nothing
// else is ever set.
var Cookies = []Cookie{
	{ConsentCookie, Necessary, "Records your cookie choice: the categories you agreed to and the date, nothing else.", "6 months"},
	{"__Host-session", Necessary, "Keeps you signed in to the developer portal: a random value whose hash is the only copy the server keeps; " +
		"set only when you sign in. Named “session” when the service runs without HTTPS (on a developer's machine).",
		"until you sign out; it ends after 7 days unused and 30 days after sign-in"},
	{"__Host-newkey", Necessary, "Carries a new API key from the form that made it to the one page that shows it, sealed so that only your " +
		"portal session opens it; the server keeps no copy, and the page drops the cookie as it shows the key. " +
		"Named “newkey” when the service runs without HTTPS.",
		"until the key is shown; at most 5 minutes"},
	{"__Host-admin", Necessary, "Keeps an operator signed in to the admin dashboard (only reachable from the operator's own network): " +
		"a random value whose hash is the only copy the server keeps. Named “admin” when the service runs without HTTPS.",
		"until sign-out; it ends after 30 minutes unused and 12 hours after sign-in"},
}

// Consent is a visitor's cookie choice.
type Consent struct {
	// Decided is false until the visitor chose (the banner shows until then).
	Decided                bool
	Preferences, Analytics bool
	// Date is the day of the choice (YYYY-MM-DD).
	Date string
}

// Pending reports whether the banner should ask.
func (c Consent) Pending() bool { return !c.Decided }

// Allows reports whether the visitor consented to cookies of category.
func (c Consent) Allows(category string) bool {
	switch category {
	case Necessary:
		return true
	case Preferences:
		return c.Preferences
	case Analytics:
		return c.Analytics
	}
	return false
}

// value is the cookie value of c.
func (c Consent) value() string {
	cats := []string{Necessary}
	if c.Preferences {
		cats = append(cats, Preferences)
	}
	if c.Analytics {
		cats = append(cats, Analytics)
	}
	return strings.Join(cats, ".") + ":" + c.Date
}

// ReadConsent reads the visitor's choice from the request; a missing or
// malformed cookie is no choice.
func ReadConsent(r *http.Request) Consent {
	ck, err := r.Cookie(ConsentCookie)
	if err != nil {
		return Consent{}
	}
	return parseConsent(ck.Value)
}

func parseConsent(v string) Consent {
	cats, date, ok := strings.Cut(v, ":")
	if !ok {
		return Consent{}
	}
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return Consent{}
	}
	c := Consent{Decided: true, Date: date}
	necessary := false
	for _, cat := range strings.Split(cats, ".") {
		switch cat {
		case Necessary:
			necessary = true
		case Preferences:
			c.Preferences = true
		case Analytics:
			c.Analytics = true
		default:
			return Consent{}
		}
	}
	if !necessary {
		return Consent{}
	}
	return c
}

// saveConsent is POST /consent: the banner's and the settings' form.
// choice=accept accepts every category, choice=reject only the necessary
// one, choice=save the categories checked (preferences=on, analytics=on).
// It answers 303 to back (a path of this site; "/" otherwise), so it works
// without JavaScript. Cross-origin posts are refused before it runs
// (http.CrossOriginProtection).
func (s *Ground) saveConsent(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		s.renderStatus(w, r, http.StatusBadRequest, "The cookie choice could not be read.")
		return
	}
	c := Consent{Decided: true, Date: s.now().UTC().Format(time.DateOnly)}
	switch r.PostForm.Get("choice") {
	case "accept":
		c.Preferences, c.Analytics = true, true
	case "reject":
	case "save":
		c.Preferences = r.PostForm.Get(Preferences) != ""
		c.Analytics = r.PostForm.Get(Analytics) != ""
	default:
		s.renderStatus(w, r, http.StatusBadRequest, "Choose “Accept all”, “Reject all” or “Save my choice”.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     ConsentCookie,
		Value:    c.value(),
		Path:     "/",
		MaxAge:   int(consentLifetime / time.Second),
		HttpOnly: true,
		Secure:   s.secureCookies || r.TLS != nil,
		SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, localPath(r.PostForm.Get("back")), http.StatusSeeOther)
}

// localPath is back when it is a path of this site, "/" otherwise: the
// redirect after a choice never leaves the site.
func localPath(back string) string {
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.HasPrefix(back, "/\\") ||
		strings.ContainsAny(back, "\r\n\t\\") || len(back) > 2000 {
		return "/"
	}
	return back
}
