package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/web"
)

// auditPerPage is the length of a page of the audit log.
const auditPerPage = 50

// maxTarget bounds the target filter.
const maxTarget = 200

// auditData is what the audit log shows.
type auditData struct {
	Target string
	List   *table
	// Older continues the log past this page; Newest goes back to its start.
	Older, Newest string
}

// audit is GET /admin/audit?target=&before=: the audit log, newest first,
// a page at a time, optionally of one target. Nothing here changes it.
func (d *Dashboard) audit(w http.ResponseWriter, r *http.Request, op operator) {
	q := r.URL.Query()
	target := strings.TrimSpace(q.Get("target"))
	var before int64
	if b := q.Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 1 {
			d.message(w, r, http.StatusBadRequest, message{Heading: "Not a place in the log", Text: "The before parameter is not an entry number.",
				Back: "/admin/audit", BackText: "Back to the audit log"})
			return
		}
		before = n
	}
	if len(target) > maxTarget {
		d.message(w, r, http.StatusBadRequest, message{Heading: "Target too long", Text: fmt.Sprintf("A target is at most %d characters.", maxTarget),
			Back: "/admin/audit", BackText: "Back to the audit log"})
		return
	}
	entries, err := d.cfg.Admins.Audit(r.Context(), before, auditPerPage+1, target)
	if err != nil {
		d.unavailable(w, r, errorf("audit log", err))
		return
	}
	data := auditData{Target: target}
	if len(entries) > auditPerPage {
		entries = entries[:auditPerPage]
		v := url.Values{"before": {strconv.FormatInt(entries[len(entries)-1].ID, 10)}}
		if target != "" {
			v.Set("target", target)
		}
		data.Older = "/admin/audit?" + v.Encode()
	}
	if before != 0 {
		data.Newest = "/admin/audit"
		if target != "" {
			data.Newest += "?" + url.Values{"target": {target}}.Encode()
		}
	}
	caption := "The audit log, newest first"
	if target != "" {
		caption = "The audit log of " + target + ", newest first"
	}
	data.List = auditTable("audit", caption, entries)
	if d.serveCSV(w, r, tablesOf(r.URL, data.List)) {
		return
	}
	d.render(w, r, op, http.StatusOK, view{name: "audit", section: secAudit, title: "Audit log",
		crumbs: []web.Crumb{{Name: "Audit log", Path: "/admin/audit"}}, body: data})
}

// auditTable lists audit entries; a target that is a key or an account
// links to its page.
func auditTable(id, caption string, es []admin.AuditEntry) *table {
	t := &table{ID: id, Caption: caption, Head: []string{"When (UTC)", "Entry", "Admin", "Client IP", "Action", "Target", "Reason", "Detail"},
		Empty: "No entries."}
	for _, e := range es {
		t.Rows = append(t.Rows, []cell{txt(when(e.At)), txt("#" + strconv.FormatInt(e.ID, 10)), txt(e.Actor), txt(e.IP), txt(e.Action),
			targetCell(e.Target), txt(e.Reason), txt(e.Detail)})
	}
	return t
}

// targetCell is an audit target, linked to its page when it has one.
func targetCell(target string) cell {
	if strings.HasPrefix(target, "fds_") {
		return linked(target, keyPath(target))
	}
	if rest, ok := strings.CutPrefix(target, "account:"); ok {
		if id, err := strconv.ParseInt(rest, 10, 64); err == nil && id > 0 {
			return linked(target, accountPath(id))
		}
	}
	return txt(target)
}
