package portal

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// homeData is what /developer shows.
type homeData struct {
	// Email is the signed-in visitor's address; empty when nobody is.
	Email string
	Form  signInForm
	// Notice tells why the page is shown (a page that needs a session).
	Notice string
	Base   string
	Free   apikey.Limits
}

// signInForm is the form that sends a sign-in link: what was typed and
// what is wrong with it.
type signInForm struct{ Email, Error string }

// home is GET /developer: the API in one screen, and the sign-in form.
func (p *Portal) home(w http.ResponseWriter, r *http.Request) {
	v, ok, err := p.area.Lookup(r)
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	d := homeData{}
	if ok {
		d.Email = v.account.Email
	} else {
		p.area.ForgetStale(w, r)
	}
	p.renderHome(w, r, http.StatusOK, d)
}

func (p *Portal) renderHome(w http.ResponseWriter, r *http.Request, status int, d homeData) {
	d.Base, d.Free = p.base, p.tiers().For(apikey.Key{Tier: apikey.Free})
	p.pages.Render(w, r, status, "developer", web.Page{
		Title:       p.area.Title("API keys"),
		Description: "Get a free API key for the Fragrance Data Service: sign in with your email address, no password.",
		Path:        "/developer",
		NoIndex:     status != http.StatusOK,
		Crumbs:      []web.Crumb{{Name: "Home", Path: "/"}, {Name: "Developers", Path: "/developer"}},
		Data:        d,
	})
}

// maxTyped bounds what a page repeats of a typed value.
const maxTyped = 254

// sendLink is POST /developer/signin/link: a single-use sign-in link to
// the address typed. The answer is the same whether or not an account has
// the address (the account is made when the link is used), so the form
// tells nobody who has one. Links are limited per address, however its
// case is spelled (and per client IP around it: perIP).
func (p *Portal) sendLink(w http.ResponseWriter, r *http.Request) {
	if !p.area.ReadForm(w, r) {
		return
	}
	typed := r.PostForm.Get("email")
	email, err := account.NormalizeEmail(typed)
	if err != nil {
		p.renderHome(w, r, http.StatusUnprocessableEntity, homeData{Form: signInForm{Email: session.Typed(typed, maxTyped),
			Error: "Type one email address, such as dev@example.com."}})
		return
	}
	folded, _ := account.FoldEmail(email) // the address is one NormalizeEmail took
	wait, err := p.addressWindows(r, folded)
	if err != nil {
		p.unavailable(w, r, fmt.Errorf("sign-in limit: %w", err))
		return
	}
	if wait > 0 {
		secs := ratelimit.CeilSeconds(wait)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		l := p.cfg.SignInPerAddress
		p.message(w, r, http.StatusTooManyRequests, message{Heading: "Too many sign-in links",
			Text: fmt.Sprintf("Too many sign-in links were asked for this address (at most %d a minute and %d an hour). "+
				"Use the newest link you received, or ask again in %s.", l.PerMinute, l.PerHour, web.WaitText(secs)),
			Back: "/developer"})
		return
	}
	secret, hash := account.NewSecret()
	if err := p.cfg.Accounts.CreateSignInLink(r.Context(), hash, email, p.now().Add(account.LinkTTL)); err != nil {
		p.unavailable(w, r, err)
		return
	}
	if err := p.cfg.Mail.Send(r.Context(), signInMessage(p.base, email, secret)); err != nil {
		p.unavailable(w, r, fmt.Errorf("send a sign-in link: %w", err))
		return
	}
	p.pages.Render(w, r, http.StatusOK, "sent", web.Page{Title: p.area.Title("Check your email"), NoIndex: true,
		Data: struct{ Email string }{email}})
}

// addressWindows counts a link to the folded address in its windows
// (Config.SignInPerAddress) and returns 0, or how long to wait when one is
// full. The minute's is the limiter's minute window; the hour's is its
// day window under an id of the clock hour, which no request counts in
// once the hour ends. A link the minute refuses is not counted in the
// hour, so asking again at once spends nothing of it.
func (p *Portal) addressWindows(r *http.Request, folded string) (time.Duration, error) {
	l, id := p.cfg.SignInPerAddress, "signin:"+account.Hash(folded)
	if l.PerMinute > 0 {
		d, err := p.limiter.Allow(r.Context(), id, apikey.Limits{PerMinute: l.PerMinute})
		if err != nil || !d.Allowed {
			return d.RetryAfter(), err
		}
	}
	if l.PerHour > 0 {
		now := p.now()
		hour := now.UTC().Truncate(time.Hour)
		d, err := p.limiter.Allow(r.Context(), id+":"+strconv.FormatInt(hour.Unix(), 10), apikey.Limits{PerDay: l.PerHour})
		if err != nil || !d.Allowed {
			return hour.Add(time.Hour).Sub(now), err
		}
	}
	return 0, nil
}

// signInMessage is the mail that carries a sign-in link.
func signInMessage(base, email, secret string) mail.Message {
	return mail.Message{
		To:      email,
		Subject: "Your sign-in link for the Fragrance Data Service",
		Text: "Hello,\n\nto sign in to the developer portal of the Fragrance Data Service, open this link:\n\n" +
			base + "/developer/signin?token=" + secret + "\n\n" +
			"It works once, for " + strconv.Itoa(linkMinutes) + " minutes. If you did not ask to sign in, you can ignore this message:\n" +
			"nothing happens without the link.\n",
	}
}

// linkGone is the page of a link that does not work: malformed (400), or
// unknown, used or expired (410), with the form that sends a new one.
func (p *Portal) linkGone(w http.ResponseWriter, r *http.Request, status int) {
	text := fmt.Sprintf("This sign-in link does not work any more: a link works once, for %d minutes. Ask for a new one.", linkMinutes)
	if status == http.StatusBadRequest {
		text = "This sign-in link is incomplete: it may have been cut when it was copied. Ask for a new one."
	}
	p.message(w, r, status, message{Heading: "This link does not work", Text: text, More: signInForm{}})
}

// confirmSignIn is GET /developer/signin?token=: the page the mailed link
// opens. It names the address the link signs into (a link someone else
// sent signs into their account) and shows a Sign in button that posts
// the token: a GET never uses the link, since mail scanners open links
// before the reader does.
func (p *Portal) confirmSignIn(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if !account.ValidSecret(token) {
		p.linkGone(w, r, http.StatusBadRequest)
		return
	}
	email, err := p.cfg.Accounts.SignInLinkEmail(r.Context(), account.Hash(token), p.now())
	if errors.Is(err, catalog.ErrNotFound) {
		p.linkGone(w, r, http.StatusGone)
		return
	}
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	// The address holds the token: no page it leads to learns it.
	w.Header().Set("Referrer-Policy", "no-referrer")
	p.pages.Render(w, r, http.StatusOK, "signin", web.Page{Title: p.area.Title("Sign in"), NoIndex: true, NoStore: true,
		Data: struct{ Token, Email string }{token, email}})
}

// signIn is POST /developer/signin: the link is used (once), the account
// made on first use, a session begins and the browser goes to its keys.
// A disabled account gets a page saying so (403), and no session.
func (p *Portal) signIn(w http.ResponseWriter, r *http.Request) {
	if !p.area.ReadForm(w, r) {
		return
	}
	token := r.PostForm.Get("token")
	if !account.ValidSecret(token) {
		p.linkGone(w, r, http.StatusBadRequest)
		return
	}
	now := p.now()
	a, err := p.cfg.Accounts.UseSignInLink(r.Context(), account.Hash(token), now)
	if errors.Is(err, catalog.ErrNotFound) {
		p.linkGone(w, r, http.StatusGone)
		return
	}
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	if a.Disabled {
		p.message(w, r, http.StatusForbidden, message{Heading: "This account is disabled",
			Text: "The operator of the service disabled this account: you cannot sign in, and its keys are suspended. " +
				"If you think this is a mistake, write to the operator.", Back: "/developer"})
		return
	}
	// A session this browser had before (another account, say) ends.
	err = p.area.Start(w, r, func(hash string) error {
		return p.cfg.Accounts.CreateSession(r.Context(), account.Session{Hash: hash, AccountID: a.ID, CreatedAt: now})
	})
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	session.SeeOther(w, r, "/developer/keys")
}

// perIP puts h behind Config.LimitPerIP: an admitted request is answered
// by h with its address's rate-limit headers; a refused one gets a page
// with the refusal's status and headers (Retry-After, the rate-limit
// ones), not the API's problem JSON.
func (p *Portal) perIP(h http.HandlerFunc) http.HandlerFunc {
	if p.cfg.LimitPerIP == nil {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		a, f := p.cfg.LimitPerIP(r)
		if f == nil {
			a.SetHeaders(w.Header())
			h(w, r)
			return
		}
		f.SetHeaders(w.Header())
		if !f.Limited() {
			p.unavailable(w, r, fmt.Errorf("the per-IP limit refused with %d: %s", f.Status(), f.Problem.Detail))
			return
		}
		p.message(w, r, f.Status(), message{Heading: "Too many sign-in requests",
			Text: "Too many sign-in links were asked for from your network in the last minute. Wait a minute, then ask again.",
			Back: "/developer"})
	}
}

// linkMinutes is how long a sign-in link works, in the pages' and the
// mail's words.
const linkMinutes = int(account.LinkTTL / time.Minute)
