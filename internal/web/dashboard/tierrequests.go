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
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// Audit actions on tier requests (their target is the key).
const (
	actApprove = "tier_request.approve"
	actDecline = "tier_request.decline"
)

// maxNote bounds the message to the developer.
const maxNote = 1000

// requestRow is one pending tier request as the page shows it, with its
// forms.
type requestRow struct {
	Req   account.TierRequest
	Email string
	// Current is the key's tier now, KeyState its state ("" when the key
	// is gone).
	Current  apikey.Tier
	KeyState string
	// The forms: the message typed (Approve prefilled), and what is wrong
	// with the one sent (Action names it).
	Approve, Decline, Action, Error string
}

// requestsData is what the tier requests page shows.
type requestsData struct {
	List *table
	Rows []requestRow
}

// requestForm is a decision sent with a problem, re-shown.
type requestForm struct {
	ID                  int64
	Action, Note, Error string
}

// tierRequests is GET /admin/tier-requests: the pending requests, oldest
// first, each with its Approve and Decline forms.
func (d *Dashboard) tierRequests(w http.ResponseWriter, r *http.Request, op operator) {
	d.renderRequests(w, r, op, http.StatusOK, requestForm{})
}

func (d *Dashboard) renderRequests(w http.ResponseWriter, r *http.Request, op operator, status int, form requestForm) {
	ctx := r.Context()
	reqs, err := d.cfg.Accounts.PendingTierRequests(ctx)
	if err != nil {
		d.unavailable(w, r, errorf("pending tier requests", err))
		return
	}
	data := requestsData{List: &table{ID: "requests", Caption: "Pending tier requests, oldest first",
		Head: []string{"Request", "Asked (UTC)", "Account", "Key", "Tier now", "Tier asked", "Volume"}, Empty: "None: no request is waiting."}}
	now := d.now()
	emails := map[int64]string{}
	for _, tr := range reqs {
		row := requestRow{Req: tr, Approve: fmt.Sprintf("Approved: the key is on the %s tier now.", tr.Tier)}
		if _, ok := emails[tr.AccountID]; !ok {
			a, err := d.cfg.Accounts.AccountByID(ctx, tr.AccountID)
			if err != nil && !errors.Is(err, catalog.ErrNotFound) {
				d.unavailable(w, r, errorf("account of a tier request", err))
				return
			}
			emails[tr.AccountID] = a.Email
		}
		row.Email = emails[tr.AccountID]
		k, err := d.cfg.Keys.KeyByPrefix(ctx, tr.KeyPrefix)
		switch {
		case err == nil:
			row.Current, row.KeyState = k.Tier, stateOf(k, now)
		case !errors.Is(err, catalog.ErrNotFound):
			d.unavailable(w, r, errorf("key of a tier request", err))
			return
		}
		if form.ID == tr.ID {
			row.Action, row.Error = form.Action, form.Error
			if form.Action == actApprove {
				row.Approve = form.Note
			} else {
				row.Decline = form.Note
			}
		}
		data.Rows = append(data.Rows, row)
		data.List.Rows = append(data.List.Rows, []cell{linked("#"+strconv.FormatInt(tr.ID, 10), "#request-"+strconv.FormatInt(tr.ID, 10)),
			txt(when(tr.CreatedAt)), linked(cmp.Or(row.Email, "(deleted)"), accountPath(tr.AccountID)), linked(tr.KeyPrefix, keyPath(tr.KeyPrefix)),
			txt(cmp.Or(string(row.Current), "(no key)")), txt(string(tr.Tier)), txt(tr.Volume)})
	}
	if ts := tablesOf(r.URL, data.List); r.Method == http.MethodGet && d.serveCSV(w, r, ts) {
		return
	}
	d.render(w, r, op, status, view{name: "tierrequests", section: secRequests, title: "Tier requests",
		crumbs: []web.Crumb{{Name: "Tier requests", Path: "/admin/tier-requests"}}, body: data})
}

// approve is POST /admin/tier-requests/{id}/approve: the key gets the
// tier asked for, and the developer the message.
func (d *Dashboard) approve(w http.ResponseWriter, r *http.Request, op operator) {
	d.decide(w, r, op, account.Approved)
}

// decline is POST /admin/tier-requests/{id}/decline: the developer gets
// the message; the key stays as it is.
func (d *Dashboard) decline(w http.ResponseWriter, r *http.Request, op operator) {
	d.decide(w, r, op, account.Declined)
}

func (d *Dashboard) decide(w http.ResponseWriter, r *http.Request, op operator, state account.RequestState) {
	if !d.area.ReadForm(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		d.notFound(w, r)
		return
	}
	ctx := r.Context()
	reqs, err := d.cfg.Accounts.PendingTierRequests(ctx)
	if err != nil {
		d.unavailable(w, r, errorf("pending tier requests", err))
		return
	}
	var tr account.TierRequest
	for _, p := range reqs {
		if p.ID == id {
			tr = p
		}
	}
	if tr.ID == 0 {
		d.notPending(w, r, id)
		return
	}
	action := actDecline
	if state == account.Approved {
		action = actApprove
	}
	f := requestForm{ID: id, Action: action, Note: strings.TrimSpace(r.PostForm.Get("note"))}
	switch {
	case f.Note == "":
		f.Error = "Write a message to the developer: the portal shows it with the answer."
	case !utf8.ValidString(f.Note) || utf8.RuneCountInString(f.Note) > maxNote:
		f.Note, f.Error = session.Typed(f.Note, 4*maxNote), fmt.Sprintf("Write a message of at most %d characters.", maxNote)
	}
	var k apikey.Key
	if f.Error == "" && state == account.Approved {
		k, err = d.cfg.Keys.KeyByPrefix(ctx, tr.KeyPrefix)
		switch {
		case errors.Is(err, catalog.ErrNotFound):
			f.Error = "The key no longer exists: decline the request instead."
		case err != nil:
			d.unavailable(w, r, errorf("read a key", err))
			return
		case k.State == apikey.Revoked || k.Expired(d.now()):
			f.Error = "The key no longer works: decline the request instead."
		}
	}
	if f.Error != "" {
		d.renderRequests(w, r, op, http.StatusUnprocessableEntity, f)
		return
	}
	detail := fmt.Sprintf("request #%d for the %s tier declined", id, tr.Tier)
	if state == account.Approved {
		detail = fmt.Sprintf("request #%d approved: %s → %s", id, k.Tier, tr.Tier)
		if k.Tier != tr.Tier {
			if _, err := d.cfg.Keys.SetKeyTier(ctx, k.Prefix, tr.Tier); err != nil {
				d.unavailable(w, r, errorf("change a key's tier", err))
				return
			}
			d.keysChanged()
		}
	}
	_, err = d.cfg.Accounts.DecideTierRequest(ctx, id, state, f.Note, d.now())
	switch {
	case errors.Is(err, catalog.ErrInvalid) || errors.Is(err, catalog.ErrNotFound):
		if state == account.Approved && k.Tier != tr.Tier { // the tier changed all the same: that is audited
			d.appendAudit(r, op, actKeyTier, k.Prefix, f.Note, fmt.Sprintf("%s → %s, approving request #%d, which another admin decided meanwhile", k.Tier, tr.Tier, id))
		}
		d.notPending(w, r, id)
		return
	case err != nil:
		d.unavailable(w, r, errorf("decide a tier request", err))
		return
	}
	if d.record(w, r, op, action, tr.KeyPrefix, f.Note, detail) {
		session.SeeOther(w, r, "/admin/tier-requests")
	}
}

// notPending answers a decision on a request that is not pending (any
// more).
func (d *Dashboard) notPending(w http.ResponseWriter, r *http.Request, id int64) {
	d.message(w, r, http.StatusConflict, message{Heading: "Not pending",
		Text: fmt.Sprintf("Request #%d is not waiting for an answer: it was decided already, or it does not exist.", id),
		Back: "/admin/tier-requests", BackText: "Back to the tier requests"})
}
