package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// signInData is what the sign-in form shows: what was typed (never the
// password) and what went wrong.
type signInData struct {
	Email, Next, Error string
}

// signInForm is GET /admin/signin: the form, or the dashboard for an
// admin signed in already.
func (d *Dashboard) signInForm(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if !safeNext(next) {
		next = ""
	}
	if _, ok, err := d.area.Lookup(r); err == nil && ok {
		session.SeeOther(w, r, cmp.Or(next, "/admin"))
		return
	}
	d.renderSignIn(w, r, http.StatusOK, signInData{Next: next})
}

func (d *Dashboard) renderSignIn(w http.ResponseWriter, r *http.Request, status int, data signInData) {
	d.pages.Render(w, r, status, "signin", web.Page{Title: d.area.Title("Sign in"), NoIndex: true, NoStore: true, NoCookieChoice: true, Data: data})
}

// badSignIn is the one answer to every failed sign-in: an unknown
// address, a wrong password, a missing or wrong code, a disabled admin.
const badSignIn = "The email, password or code is not right."

// maxPassword bounds the password checked (argon2id hashes all of it).
const maxPassword = 1024

// limitID is one counter of failed sign-ins and its limits.
type limitID struct {
	id     string
	limits apikey.Limits
}

// signIn is POST /admin/signin. Sign-ins are counted per account (the
// address typed, whether or not an admin has it) and per client IP before
// anything is checked, so sign-ins sent at once cannot all pass a limit
// that only the last of them would reach; past either limit the form is
// refused (429), nothing checked. An unknown address costs a password
// check too, and every failure gets the same answer, so the form tells
// nobody which addresses are admins'. At most Config.MaxPasswordChecks
// passwords are checked at once (each holds 64 MiB); a sign-in that gets
// no turn within Config.PasswordWait is told to try again (503).
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	if !d.area.ReadForm(w, r) {
		return
	}
	ip, ok := d.clientIP(r)
	if !ok { // behind gate this cannot be; fail closed all the same
		d.web.NotFoundPage(w, r)
		return
	}
	typed, pw := strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("password")
	code := strings.Join(strings.Fields(r.PostForm.Get("code")), "")
	next := r.PostForm.Get("next")
	if !safeNext(next) {
		next = "/admin"
	}
	email, emailErr := account.NormalizeEmail(typed)
	if emailErr != nil {
		email = typed
	}
	counters := []limitID{
		{"admin.signin.account:" + account.Hash(strings.ToLower(email)), d.cfg.SignInsPerAccount},
		{"admin.signin.ip:" + d.limitAddress(ip), d.cfg.SignInsPerIP},
	}
	for _, c := range counters {
		dec, err := d.limiter.Allow(r.Context(), c.id, c.limits)
		if err != nil {
			d.unavailable(w, r, errorf("count a sign-in", err))
			return
		}
		if !dec.Allowed {
			d.tooManySignIns(w, r, dec)
			return
		}
	}
	u, detail, ok, err := d.checkCredentials(r.Context(), email, emailErr == nil, pw, code)
	switch {
	case errors.Is(err, errBusy):
		d.busy(w, r)
		return
	case err != nil:
		d.unavailable(w, r, err)
		return
	case !ok:
		d.log.WarnContext(r.Context(), "admin: a sign-in failed", "client_ip", ip.String())
		d.renderSignIn(w, r, http.StatusUnauthorized, signInData{Email: session.Typed(typed, maxTyped), Next: next, Error: badSignIn})
		return
	}
	if err := d.startSession(w, r, u, ip, detail); err != nil {
		d.unavailable(w, r, err)
		return
	}
	session.SeeOther(w, r, next)
}

// checkCredentials checks a sign-in: ok when the address names an admin
// who is not disabled, the password is right, and, for an admin with a
// second factor, the code is right and not used before (a TOTP code of a
// later step than the last one used, or an unused recovery code): either
// is spent in the store, once. err reports a store that cannot answer, or
// errBusy. detail says how the second factor was met, for the audit log.
func (d *Dashboard) checkCredentials(ctx context.Context, email string, emailOK bool, pw, code string) (u admin.User, detail string, ok bool, err error) {
	cr := d.cfg.Credentials
	if !emailOK || pw == "" || len(pw) > maxPassword {
		return admin.User{}, "", false, ignoreWrong(d.checkPassword(ctx, "", pw[:min(len(pw), maxPassword)]))
	}
	u, err = d.cfg.Admins.AdminUserByEmail(ctx, email)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return admin.User{}, "", false, ignoreWrong(d.checkPassword(ctx, "", pw))
	case err != nil:
		return admin.User{}, "", false, errorf("read an admin", err)
	}
	if err := d.checkPassword(ctx, u.PasswordHash, pw); err != nil || u.Disabled {
		return admin.User{}, "", false, ignoreWrong(err)
	}
	switch {
	case u.TOTPSecret == "":
		return u, "password", true, nil
	case code == "":
		return admin.User{}, "", false, nil
	case isTOTPCode(code):
		step, ok := cr.MatchTOTP(u.TOTPSecret, code, d.now())
		if !ok {
			return admin.User{}, "", false, nil
		}
		if err := d.cfg.Admins.UseTOTPStep(ctx, u.ID, step); err != nil {
			return admin.User{}, "", false, ignoreWrong(notSpent(err, admin.ErrCodeUsed, "spend a second-factor code"))
		}
		return u, "password and code", true, nil
	}
	hash, ok := cr.MatchRecoveryCode(u.RecoveryHashes, code)
	if !ok {
		return admin.User{}, "", false, nil
	}
	left, err := d.cfg.Admins.SpendRecoveryCode(ctx, u.ID, hash)
	if err != nil {
		return admin.User{}, "", false, ignoreWrong(notSpent(err, catalog.ErrNotFound, "spend a recovery code"))
	}
	return u, fmt.Sprintf("password and a recovery code (%d left)", left), true, nil
}

// checkPassword checks pw against the PHC hash ("" costs a check of a
// password nobody knows, and matches nothing) in a turn of the password
// checks: nil when it matches, errWrong when not, errBusy when no turn
// came within PasswordWait.
func (d *Dashboard) checkPassword(ctx context.Context, hash, pw string) error {
	select {
	case d.turns <- struct{}{}:
	default:
		t := time.NewTimer(d.cfg.PasswordWait)
		defer t.Stop()
		select {
		case d.turns <- struct{}{}:
		case <-t.C:
			return errBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-d.turns }()
	cr := d.cfg.Credentials
	if hash == "" {
		cr.DummyCheckPassword(pw)
		return errWrong
	}
	if !cr.CheckPassword(hash, pw) {
		return errWrong
	}
	return nil
}

// errBusy reports a sign-in that got no turn to check its password within
// PasswordWait.
var errBusy = errors.New("admin: every turn to check a password is taken")

// busy answers a sign-in that got no turn to check its password: try
// again in a moment (503), nothing checked.
func (d *Dashboard) busy(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", "5")
	d.message(w, r, http.StatusServiceUnavailable, message{Heading: "Try again in a moment",
		Text: "Too many sign-ins are being checked right now, so yours was not. Try again in a few seconds.",
		Back: signInPath, BackText: "Back to the sign-in form"})
}

// errWrong is a credential that does not match: the sign-in fails, as a
// wrong password does.
var errWrong = errors.New("admin: the credentials do not match")

// ignoreWrong is err, but nil for errWrong.
func ignoreWrong(err error) error {
	if errors.Is(err, errWrong) {
		return nil
	}
	return err
}

// notSpent is errWrong when the store refused to spend a code because it
// was spent already (spent), else the store's error, saying what.
func notSpent(err, spent error, what string) error {
	if errors.Is(err, spent) {
		return errWrong
	}
	return errorf(what, err)
}

// isTOTPCode reports whether code has the shape of a TOTP code: six digits.
func isTOTPCode(code string) bool {
	if len(code) != 6 {
		return false
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// startSession begins a session of u on this browser: stored, its cookie
// set, the browser's previous admin session ended, the sign-in audited.
func (d *Dashboard) startSession(w http.ResponseWriter, r *http.Request, u admin.User, ip netip.Addr, detail string) error {
	ctx := r.Context()
	now := d.now()
	err := d.area.Start(w, r, func(hash string) error {
		return d.cfg.Admins.CreateAdminSession(ctx, admin.Session{Hash: hash, UserID: u.ID, IP: ip.String(), CreatedAt: now, LastSeen: now})
	})
	if err != nil {
		return errorf("create an admin session", err)
	}
	e := admin.AuditEntry{At: now, Actor: u.Email, IP: ip.String(), Action: "signin", Target: userTarget(u.ID), Detail: "with " + detail}
	if _, err := d.cfg.Admins.AppendAudit(ctx, e); err != nil {
		d.log.ErrorContext(ctx, "admin: a sign-in could not be audited", "err", err, "actor", e.Actor, "ip", e.IP)
	}
	return nil
}

// tooManySignIns answers a sign-in refused by the limits of failures.
func (d *Dashboard) tooManySignIns(w http.ResponseWriter, r *http.Request, dec ratelimit.Decision) {
	wait := ratelimit.CeilSeconds(dec.RetryAfter())
	w.Header().Set("Retry-After", strconv.FormatInt(wait, 10))
	d.message(w, r, http.StatusTooManyRequests, message{Heading: "Too many failed sign-ins",
		Text: fmt.Sprintf("Too many sign-ins failed for this account or from your network. Try again in %s.", web.WaitText(wait)),
		Back: signInPath, BackText: "Back to the sign-in form"})
}

// signOut is POST /admin/signout: this browser's session ends.
func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request, op operator) {
	if err := d.area.End(w, r); err != nil {
		d.unavailable(w, r, errorf("end an admin session", err))
		return
	}
	session.SeeOther(w, r, signInPath)
}

// userTarget names an admin user in the audit log.
func userTarget(id int64) string { return "user:" + strconv.FormatInt(id, 10) }

// maxTyped bounds what a page repeats of a typed address.
const maxTyped = 254

// limitAddress is the id the per-IP sign-in limit counts ip under.
func (d *Dashboard) limitAddress(ip netip.Addr) string {
	if d.cfg.LimitAddress == nil {
		return ip.String()
	}
	return d.cfg.LimitAddress(ip)
}
