package dashboard

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// Audit actions on accounts.
const (
	actAccountDisable = "account.disable"
	actAccountEnable  = "account.enable"
	actAccountRelease = "account.release"
)

// accountsPerPage is the length of a page of the account list.
const accountsPerPage = 50

// accountPath is the dashboard's page of an account.
func accountPath(id int64) string { return "/admin/accounts/" + strconv.FormatInt(id, 10) }

// accountTarget names an account in the audit log.
func accountTarget(id int64) string { return "account:" + strconv.FormatInt(id, 10) }

// accountState is an account's state for people.
func accountState(a account.Account) string {
	switch {
	case a.Deleted():
		return "deleted"
	case a.Disabled:
		return "disabled"
	}
	return "active"
}

// accountsData is what the account list shows.
type accountsData struct {
	Q     string
	Found int
	List  *table
	Pager web.Pager
	// Duplicates are the accounts that share an address with another,
	// made before addresses were folded; nil when there are none.
	Duplicates *table
}

// accounts is GET /admin/accounts?q=: the developer portal's accounts,
// newest first, found by a part of their email.
func (d *Dashboard) accounts(w http.ResponseWriter, r *http.Request, op operator) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	page, ok := web.PageParam(r.URL, maxPage)
	if !ok {
		d.message(w, r, http.StatusBadRequest, message{Heading: "No such page", Text: "The page number is not a whole number from 1 on.",
			Back: "/admin/accounts", BackText: "Back to the accounts"})
		return
	}
	all, err := d.cfg.Accounts.ListAccounts(r.Context())
	if err != nil {
		d.unavailable(w, r, errorf("list accounts", err))
		return
	}
	keys, err := d.cfg.Keys.ListKeys(r.Context())
	if err != nil {
		d.unavailable(w, r, errorf("list keys", err))
		return
	}
	count := map[int64]int64{}
	for _, k := range keys {
		if k.AccountID != 0 {
			count[k.AccountID]++
		}
	}
	var found []account.Account
	for _, a := range all {
		if strings.Contains(strings.ToLower(a.Email), strings.ToLower(q)) {
			found = append(found, a)
		}
	}
	slices.SortStableFunc(found, func(a, b account.Account) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	pages := max(1, (len(found)+accountsPerPage-1)/accountsPerPage)
	if page > pages {
		d.notFound(w, r)
		return
	}
	list := &table{ID: "accounts", Caption: "Accounts found", Head: []string{"Account", "Email", "Created (UTC)", "Keys", "State"},
		Empty: "No account matches the search."}
	for _, a := range found[(page-1)*accountsPerPage : min(len(found), page*accountsPerPage)] {
		list.Rows = append(list.Rows, []cell{linked(accountTarget(a.ID), accountPath(a.ID)), txt(cmp.Or(a.Email, "(deleted)")),
			txt(when(a.CreatedAt)), num(count[a.ID]), txt(accountState(a))})
	}
	dups, err := d.cfg.Accounts.DuplicateAccounts(r.Context())
	if err != nil {
		d.unavailable(w, r, errorf("duplicate accounts", err))
		return
	}
	data := accountsData{Q: session.Typed(q, maxTyped), Found: len(found), List: list, Pager: pagerOf(r.URL, page, pages)}
	tables := []*table{list}
	if len(dups) > 0 {
		data.Duplicates = duplicatesTable("duplicates", "Accounts that share an address", dups)
		tables = append(tables, data.Duplicates)
	}
	if d.serveCSV(w, r, tablesOf(r.URL, tables...)) {
		return
	}
	d.render(w, r, op, http.StatusOK, view{name: "accounts", section: secAccounts, title: "Accounts",
		crumbs: []web.Crumb{{Name: "Accounts", Path: "/admin/accounts"}}, body: data})
}

// duplicatesTable lists accounts that share their folded address, and
// the older account each is a duplicate of.
func duplicatesTable(id, caption string, as []account.Account) *table {
	t := &table{ID: id, Caption: caption, Head: []string{"Account", "Email", "Created (UTC)", "Duplicate of", "State"}}
	for _, a := range as {
		of := txt("—")
		if a.DuplicateOf != 0 {
			of = linked(accountTarget(a.DuplicateOf), accountPath(a.DuplicateOf))
		}
		t.Rows = append(t.Rows, []cell{linked(accountTarget(a.ID), accountPath(a.ID)), txt(a.Email), txt(when(a.CreatedAt)), of, txt(accountState(a))})
	}
	return t
}

// withAccount serves h with the account named by the route's {id}.
func (d *Dashboard) withAccount(h func(http.ResponseWriter, *http.Request, operator, account.Account)) func(http.ResponseWriter, *http.Request, operator) {
	return func(w http.ResponseWriter, r *http.Request, op operator) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id < 1 || strconv.FormatInt(id, 10) != r.PathValue("id") {
			d.notFound(w, r)
			return
		}
		a, err := d.cfg.Accounts.AccountByID(r.Context(), id)
		switch {
		case errors.Is(err, catalog.ErrNotFound):
			d.notFound(w, r)
		case err != nil:
			d.unavailable(w, r, errorf("read an account", err))
		default:
			h(w, r, op, a)
		}
	}
}

// accountForm is the disable or enable form sent, re-shown with what is
// wrong with it.
type accountForm struct{ Action, Reason, Error string }

// accountData is what an account's page shows.
type accountData struct {
	Account               account.Account
	State                 string
	Keys, Requests        *table
	Audit                 *table
	Form                  accountForm
	CanDisable, CanEnable bool
	// Duplicates are the live accounts of the same folded address, this
	// one included; nil when it has none.
	Duplicates *table
}

// account is GET /admin/accounts/{id}: the account, its keys, its tier
// requests, what admins did to it, and the disable or enable form.
func (d *Dashboard) account(w http.ResponseWriter, r *http.Request, op operator, a account.Account) {
	d.renderAccount(w, r, op, a, http.StatusOK, accountForm{})
}

func (d *Dashboard) renderAccount(w http.ResponseWriter, r *http.Request, op operator, a account.Account, status int, form accountForm) {
	ctx := r.Context()
	keys, err := d.cfg.Accounts.AccountKeys(ctx, a.ID)
	if err != nil {
		d.unavailable(w, r, errorf("keys of an account", err))
		return
	}
	reqs, err := d.cfg.Accounts.TierRequests(ctx, a.ID)
	if err != nil {
		d.unavailable(w, r, errorf("tier requests of an account", err))
		return
	}
	entries, err := d.cfg.Admins.Audit(ctx, 0, keyAuditRows, accountTarget(a.ID))
	if err != nil {
		d.unavailable(w, r, errorf("audit of an account", err))
		return
	}
	now := d.now()
	data := accountData{Account: a, State: accountState(a), Form: form,
		CanDisable: !a.Deleted() && !a.Disabled, CanEnable: !a.Deleted() && a.Disabled}
	data.Keys = &table{ID: "keys", Caption: "The account's keys", Head: []string{"Key", "Name", "Tier", "State", "Created (UTC)"}, Empty: "No keys."}
	for _, k := range keys {
		data.Keys.Rows = append(data.Keys.Rows, []cell{linked(k.Prefix, keyPath(k.Prefix)), txt(k.Name), txt(string(k.Tier)),
			txt(stateOf(k, now)), txt(when(k.CreatedAt))})
	}
	data.Requests = &table{ID: "requests", Caption: "Tier requests, newest first",
		Head: []string{"Asked (UTC)", "Key", "Tier", "State", "Use case", "Volume", "Answer"}, Empty: "No tier requests."}
	for _, tr := range reqs {
		data.Requests.Rows = append(data.Requests.Rows, []cell{txt(when(tr.CreatedAt)), linked(tr.KeyPrefix, keyPath(tr.KeyPrefix)),
			txt(string(tr.Tier)), txt(string(tr.State)), txt(tr.UseCase), txt(tr.Volume), txt(tr.Note)})
	}
	data.Audit = auditTable("audit", "What admins did to this account, newest first", entries)
	if data.Duplicates, err = d.duplicatesOf(r, a); err != nil {
		d.unavailable(w, r, errorf("duplicate accounts", err))
		return
	}
	if ts := tablesOf(r.URL, data.Keys, data.Requests, data.Audit); r.Method == http.MethodGet && d.serveCSV(w, r, ts) {
		return
	}
	d.render(w, r, op, status, view{name: "account", section: secAccounts, title: accountTarget(a.ID),
		crumbs: []web.Crumb{{Name: "Accounts", Path: "/admin/accounts"}, {Name: accountTarget(a.ID), Path: accountPath(a.ID)}}, body: data})
}

// duplicatesOf is the table of the live accounts that share a's folded
// address, a included; nil when none does.
func (d *Dashboard) duplicatesOf(r *http.Request, a account.Account) (*table, error) {
	same, err := d.sameAddress(r, a)
	if err != nil || len(same) < 2 {
		return nil, err
	}
	return duplicatesTable("duplicates", "Accounts of the same address (disabled and enabled together)", same), nil
}

// sameAddress is the live accounts that share a's folded address (made
// before addresses were folded), a included; none when a is alone.
func (d *Dashboard) sameAddress(r *http.Request, a account.Account) ([]account.Account, error) {
	dups, err := d.cfg.Accounts.DuplicateAccounts(r.Context())
	if err != nil {
		return nil, err
	}
	root := cmp.Or(a.DuplicateOf, a.ID)
	var same []account.Account
	for _, o := range dups {
		if o.ID == root || o.DuplicateOf == root {
			same = append(same, o)
		}
	}
	return same, nil
}

// disableAccount is POST /admin/accounts/{id}/disable: the account's keys
// are suspended, its sessions end, it may not sign in.
func (d *Dashboard) disableAccount(w http.ResponseWriter, r *http.Request, op operator, a account.Account) {
	d.setDisabled(w, r, op, a, true)
}

// enableAccount is POST /admin/accounts/{id}/enable: the keys disabling
// suspended are resumed.
func (d *Dashboard) enableAccount(w http.ResponseWriter, r *http.Request, op operator, a account.Account) {
	d.setDisabled(w, r, op, a, false)
}

func (d *Dashboard) setDisabled(w http.ResponseWriter, r *http.Request, op operator, a account.Account, disabled bool) {
	if !d.area.ReadForm(w, r) {
		return
	}
	action := actAccountEnable
	if disabled {
		action = actAccountDisable
	}
	f := accountForm{Action: action}
	reason, problem := reasonOf(r)
	f.Reason = reason
	switch {
	case a.Deleted():
		problem = "The account was deleted by its developer: nothing can change it."
	case a.Disabled == disabled:
		problem = fmt.Sprintf("The account is %s already.", accountState(a))
	}
	if problem != "" {
		f.Error = problem
		d.renderAccount(w, r, op, a, http.StatusUnprocessableEntity, f)
		return
	}
	same, err := d.sameAddress(r, a)
	if err != nil {
		d.unavailable(w, r, errorf("duplicate accounts", err))
		return
	}
	if _, err := d.cfg.Accounts.SetAccountDisabled(r.Context(), a.ID, disabled); err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			d.notFound(w, r)
			return
		}
		d.unavailable(w, r, errorf("disable or enable an account", err))
		return
	}
	d.keysChanged()
	detail := "enabled; the keys disabling suspended are resumed"
	if disabled {
		detail = "disabled; its live keys suspended, its sessions ended"
	}
	var others []string
	for _, o := range same {
		if o.ID != a.ID {
			others = append(others, accountTarget(o.ID))
		}
	}
	if len(others) > 0 {
		detail += "; with it, of the same address, " + strings.Join(others, ", ")
	}
	if d.record(w, r, op, action, accountTarget(a.ID), reason, detail) {
		session.SeeOther(w, r, accountPath(a.ID))
	}
}

// releaseHold is POST /admin/accounts/{id}/release: the hold a suspended
// key put on the account ends, and it may make and roll keys again (an
// appeal heard). The suspended key itself stays as it is.
func (d *Dashboard) releaseHold(w http.ResponseWriter, r *http.Request, op operator, a account.Account) {
	if !d.area.ReadForm(w, r) {
		return
	}
	reason, problem := reasonOf(r)
	f := accountForm{Action: actAccountRelease, Reason: reason}
	if problem == "" && !a.Held() {
		problem = "The account is not held: it may make keys."
	}
	if problem != "" {
		f.Error = problem
		d.renderAccount(w, r, op, a, http.StatusUnprocessableEntity, f)
		return
	}
	if _, err := d.cfg.Accounts.ReleaseKeyHold(r.Context(), a.ID); err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			d.notFound(w, r)
			return
		}
		d.unavailable(w, r, errorf("release the hold of an account", err))
		return
	}
	detail := fmt.Sprintf("the hold of a suspended key, since %s, released: the account may make and roll keys again", when(a.HeldSince))
	if d.record(w, r, op, actAccountRelease, accountTarget(a.ID), reason, detail) {
		session.SeeOther(w, r, accountPath(a.ID))
	}
}
