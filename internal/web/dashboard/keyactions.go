package dashboard

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// Audit actions on keys.
const (
	actKeyCreate  = "key.create"
	actKeyTier    = "key.tier"
	actKeyLimits  = "key.limits"
	actKeySuspend = "key.suspend"
	actKeyResume  = "key.resume"
	actKeyRevoke  = "key.revoke"
)

// record writes an admin's action to the audit log and reports true. The
// action is done already: when the log cannot take it, the admin is told
// (500; appendAudit put the entry in the server's log), and record
// reports false.
func (d *Dashboard) record(w http.ResponseWriter, r *http.Request, op operator, action, target, reason, detail string) bool {
	if err := d.appendAudit(r, op, action, target, reason, detail); err != nil {
		d.message(w, r, http.StatusInternalServerError, message{Heading: "Done, but not in the audit log",
			Text: "The change was made, but the audit log could not be written; the server's log holds the entry. Tell whoever runs the service."})
		return false
	}
	return true
}

// appendAudit writes an admin's action to the audit log; when the log
// cannot take it, the entry goes to the server's log in full.
func (d *Dashboard) appendAudit(r *http.Request, op operator, action, target, reason, detail string) error {
	e := admin.AuditEntry{At: d.now(), Actor: op.user.Email, IP: op.ip.String(), Action: action, Target: target, Reason: reason, Detail: detail}
	_, err := d.cfg.Admins.AppendAudit(r.Context(), e)
	if err != nil {
		d.log.ErrorContext(r.Context(), "admin: an action was done but not audited", "err", err,
			"actor", e.Actor, "ip", e.IP, "action", e.Action, "target", e.Target, "reason", e.Reason, "detail", e.Detail)
	}
	return err
}

// Bounds of what a key's form takes.
const (
	maxKeyName = 100
	maxLimit   = 1_000_000_000
)

// createKey is POST /admin/keys: a key made by an operator (no account),
// shown once.
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, op operator) {
	if !d.area.ReadForm(w, r) {
		return
	}
	pf := r.PostForm
	f := createForm{Name: strings.TrimSpace(pf.Get("name")), Email: strings.TrimSpace(pf.Get("email")), Tier: pf.Get("tier"),
		PerMinute: strings.TrimSpace(pf.Get("per_minute")), PerDay: strings.TrimSpace(pf.Get("per_day")), Origins: pf.Get("origins")}
	reason, problem := reasonOf(r)
	f.Reason = reason
	tier, err := apikey.ParseTier(f.Tier)
	if err != nil && problem == "" {
		problem = "Choose a tier."
	}
	perMinute, perDay, p := limitsOf(f.PerMinute, f.PerDay)
	problem = cmp.Or(problem, p)
	origins, err := apikey.ParseOrigins(strings.ReplaceAll(f.Origins, "\n", ","))
	if err != nil {
		problem = cmp.Or(problem, "Origins are scheme://host[:port], such as https://app.example.com, separated by commas or lines.")
	}
	email, err := account.NormalizeEmail(f.Email)
	if !utf8.ValidString(f.Name) || utf8.RuneCountInString(f.Name) > maxKeyName || f.Email != "" && err != nil {
		problem = cmp.Or(problem, fmt.Sprintf("Give a name of at most %d characters and an email address (or none).", maxKeyName))
	}
	if problem != "" {
		f.Name, f.Email, f.Origins = session.Typed(f.Name, 4*maxKeyName), session.Typed(f.Email, maxTyped), session.Typed(f.Origins, 4096)
		f.Error = problem
		d.renderKeys(w, r, op, http.StatusUnprocessableEntity, f)
		return
	}
	k, secret, err := apikey.Issue(r.Context(), d.cfg.Keys, apikey.NewKey{Name: f.Name, Email: email, Tier: tier,
		PerMinute: perMinute, PerDay: perDay, Origins: origins})
	switch {
	case errors.Is(err, catalog.ErrInvalid):
		f.Error = "The key could not be made as given: check the email address and the limits."
		d.renderKeys(w, r, op, http.StatusUnprocessableEntity, f)
		return
	case err != nil:
		d.unavailable(w, r, errorf("issue a key", err))
		return
	}
	d.keysChanged()
	detail := fmt.Sprintf("tier %s, limits %s", k.Tier, limitsText(k.PerMinute, k.PerDay))
	if len(k.Origins) > 0 {
		detail += ", origins " + strings.Join(k.Origins, " ")
	}
	if !d.record(w, r, op, actKeyCreate, k.Prefix, reason, detail) {
		return
	}
	d.render(w, r, op, http.StatusOK, view{name: "created", section: secKeys, title: "Key created",
		crumbs: []web.Crumb{{Name: "Keys", Path: "/admin/keys"}, {Name: k.Prefix, Path: keyPath(k.Prefix)}},
		body: struct {
			Key    apikey.Key
			Secret string
		}{k, secret}})
}

// limitsOf reads two limit overrides as typed (empty: 0, the tier's).
func limitsOf(perMinute, perDay string) (m, d int64, problem string) {
	read := func(s string) (int64, bool) {
		if s == "" {
			return 0, true
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		return n, err == nil && n >= 0 && n <= maxLimit
	}
	m, ok1 := read(perMinute)
	d, ok2 := read(perDay)
	if !ok1 || !ok2 {
		return 0, 0, "Limits are whole numbers from 0 (the tier's) to 1,000,000,000."
	}
	return m, d, ""
}

// limitsText writes a key's overrides for the audit log.
func limitsText(perMinute, perDay int64) string {
	one := func(n int64) string {
		if n == 0 {
			return "tier's"
		}
		return strconv.FormatInt(n, 10)
	}
	return one(perMinute) + "/min " + one(perDay) + "/day"
}

// setTier is POST /admin/keys/{prefix}/tier.
func (d *Dashboard) setTier(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key) {
	if !d.area.ReadForm(w, r) {
		return
	}
	f := keyForm{Action: actKeyTier, Tier: r.PostForm.Get("tier")}
	reason, problem := reasonOf(r)
	f.Reason = reason
	tier, err := apikey.ParseTier(f.Tier)
	switch {
	case err != nil:
		problem = cmp.Or(problem, "Choose a tier.")
	case tier == k.Tier:
		problem = cmp.Or(problem, fmt.Sprintf("The key is on the %s tier already.", tier))
	}
	if problem != "" {
		f.Error = problem
		d.renderKey(w, r, op, k, http.StatusUnprocessableEntity, f)
		return
	}
	if _, err := d.cfg.Keys.SetKeyTier(r.Context(), k.Prefix, tier); d.changeFailed(w, r, op, k, f, err) {
		return
	}
	d.keysChanged()
	if d.record(w, r, op, actKeyTier, k.Prefix, reason, fmt.Sprintf("%s → %s", k.Tier, tier)) {
		session.SeeOther(w, r, keyPath(k.Prefix))
	}
}

// setLimits is POST /admin/keys/{prefix}/limits: the key's own limits (0:
// the tier's).
func (d *Dashboard) setLimits(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key) {
	if !d.area.ReadForm(w, r) {
		return
	}
	f := keyForm{Action: actKeyLimits, PerMinute: strings.TrimSpace(r.PostForm.Get("per_minute")), PerDay: strings.TrimSpace(r.PostForm.Get("per_day"))}
	reason, problem := reasonOf(r)
	f.Reason = reason
	m, dd, p := limitsOf(f.PerMinute, f.PerDay)
	if problem = cmp.Or(problem, p); problem != "" {
		f.Error = problem
		d.renderKey(w, r, op, k, http.StatusUnprocessableEntity, f)
		return
	}
	if _, err := d.cfg.Keys.SetKeyLimits(r.Context(), k.Prefix, m, dd); d.changeFailed(w, r, op, k, f, err) {
		return
	}
	d.keysChanged()
	if d.record(w, r, op, actKeyLimits, k.Prefix, reason, limitsText(k.PerMinute, k.PerDay)+" → "+limitsText(m, dd)) {
		session.SeeOther(w, r, keyPath(k.Prefix))
	}
}

// suspend is POST /admin/keys/{prefix}/suspend: the API answers the key
// with 403 suspended_api_key until it is resumed.
func (d *Dashboard) suspend(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key) {
	d.setState(w, r, op, k, apikey.Suspended, actKeySuspend)
}

// resume is POST /admin/keys/{prefix}/resume.
func (d *Dashboard) resume(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key) {
	d.setState(w, r, op, k, apikey.Active, actKeyResume)
}

// revoke is POST /admin/keys/{prefix}/revoke: final.
func (d *Dashboard) revoke(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key) {
	d.setState(w, r, op, k, apikey.Revoked, actKeyRevoke)
}

// setState changes a key's state, with a reason, audited as action.
func (d *Dashboard) setState(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key, to apikey.State, action string) {
	if !d.area.ReadForm(w, r) {
		return
	}
	f := keyForm{Action: action}
	reason, problem := reasonOf(r)
	f.Reason = reason
	if k.State == to {
		problem = fmt.Sprintf("The key is %s already.", to)
	}
	if problem == "" && to == apikey.Active && k.AccountID != 0 {
		a, err := d.cfg.Accounts.AccountByID(r.Context(), k.AccountID)
		switch {
		case err == nil && a.Disabled:
			problem = "The key's account is disabled: enable the account, which resumes its keys."
		case err != nil && !errors.Is(err, catalog.ErrNotFound):
			d.unavailable(w, r, errorf("read a key's account", err))
			return
		}
	}
	if problem != "" {
		f.Error = problem
		d.renderKey(w, r, op, k, http.StatusUnprocessableEntity, f)
		return
	}
	if _, err := d.cfg.Keys.SetKeyState(r.Context(), k.Prefix, to); d.changeFailed(w, r, op, k, f, err) {
		return
	}
	d.keysChanged()
	if d.record(w, r, op, action, k.Prefix, reason, fmt.Sprintf("%s → %s", k.State, to)) {
		session.SeeOther(w, r, keyPath(k.Prefix))
	}
}

// changeFailed answers a change of a key the store refused or could not
// make, and reports true; false when err is nil.
func (d *Dashboard) changeFailed(w http.ResponseWriter, r *http.Request, op operator, k apikey.Key, f keyForm, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, apikey.ErrRevoked):
		f.Error = "The key is revoked, which is final: nothing can change it."
		d.renderKey(w, r, op, k, http.StatusUnprocessableEntity, f)
	case errors.Is(err, catalog.ErrNotFound):
		d.notFound(w, r)
	case errors.Is(err, catalog.ErrInvalid):
		f.Error = "The store refused the change as given."
		d.renderKey(w, r, op, k, http.StatusUnprocessableEntity, f)
	default:
		d.unavailable(w, r, errorf("change a key", err))
	}
	return true
}
