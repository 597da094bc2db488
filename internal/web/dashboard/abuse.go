package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// The spans of the abuse signals.
const (
	abuseDays = 30 // the abuse page lists the signals of the last days
	// newSignalDays: the bar counts the unseen signals of the last days.
	newSignalDays = 7
)

// actSignalsSeen is the audit action that marks the signals an admin has
// seen: its target is the admin's (seenTarget) and its detail names the
// newest signal seen. Being in the store, the mark holds on every replica.
const actSignalsSeen = "signals.seen"

// seenTarget is the audit target of an admin's marks.
func seenTarget(userID int64) string { return userTarget(userID) + ":signals" }

// seenDetail writes and parses the mark's detail.
const seenDetail = "signals up to #%d seen"

// lastSeen is the newest signal id the admin marked seen; 0 for none.
func (d *Dashboard) lastSeen(ctx context.Context, userID int64) (int64, error) {
	es, err := d.cfg.Admins.Audit(ctx, 0, 1, seenTarget(userID))
	if err != nil || len(es) == 0 {
		return 0, err
	}
	var id int64
	if _, err := fmt.Sscanf(es[0].Detail, seenDetail, &id); err != nil {
		return 0, nil
	}
	return id, nil
}

// newSignals counts the signals of the last newSignalDays the admin has
// not marked seen, for the bar; more when there are more than it could
// read, unknown when the stores cannot tell (the page is shown anyway).
func (d *Dashboard) newSignals(r *http.Request, op operator) (n int, more, unknown bool) {
	ctx := r.Context()
	last, err := d.lastSeen(ctx, op.user.ID)
	if err != nil {
		d.log.WarnContext(ctx, "admin: the signals seen cannot be read", "err", err)
		return 0, false, true
	}
	sigs, err := d.cfg.Usage.Signals(ctx, d.now().AddDate(0, 0, -newSignalDays), maxSignals)
	if err != nil {
		d.log.WarnContext(ctx, "admin: the signals cannot be read", "err", err)
		return 0, false, true
	}
	for _, s := range sigs {
		if s.ID > last {
			n++
		}
	}
	return n, len(sigs) == maxSignals && n == len(sigs), false
}

// knownKinds are the signal kinds the access layer raises; others found
// in the store are offered too.
var knownKinds = []string{usage.SignalLimitHits, usage.SignalManyIPs, usage.SignalFailedChecks}

// abuseData is what the abuse page shows.
type abuseData struct {
	Kind  string
	Kinds []string
	List  *table
	// New counts the unseen signals shown; Newest is the id of the newest
	// shown, which the Mark as seen form sends.
	New    int
	Newest int64
}

// abuse is GET /admin/abuse?kind=: the signals of the last days, newest
// first, each linking to its key with a Suspend form.
func (d *Dashboard) abuse(w http.ResponseWriter, r *http.Request, op operator) {
	ctx := r.Context()
	kind := r.URL.Query().Get("kind")
	sigs, err := d.cfg.Usage.Signals(ctx, d.now().AddDate(0, 0, -abuseDays), maxSignals)
	if err != nil {
		d.unavailable(w, r, errorf("signals", err))
		return
	}
	last, err := d.lastSeen(ctx, op.user.ID)
	if err != nil {
		d.unavailable(w, r, errorf("signals seen", err))
		return
	}
	data := abuseData{Kind: kind, Kinds: slices.Clone(knownKinds)}
	var shown []usage.Signal
	for _, s := range sigs {
		if !slices.Contains(data.Kinds, s.Kind) {
			data.Kinds = append(data.Kinds, s.Kind)
		}
		if kind == "" || s.Kind == kind {
			shown = append(shown, s)
			data.Newest = max(data.Newest, s.ID)
			if s.ID > last {
				data.New++
			}
		}
	}
	caption := fmt.Sprintf("Signals of the last %d days, newest first", abuseDays)
	if kind != "" {
		caption = fmt.Sprintf("Signals %s of the last %d days, newest first", kind, abuseDays)
	}
	data.List = signalsTable("signals", caption, shown, last, true)
	if d.serveCSV(w, r, tablesOf(r.URL, data.List)) {
		return
	}
	d.render(w, r, op, http.StatusOK, view{name: "abuse", section: secAbuse, title: "Abuse",
		crumbs: []web.Crumb{{Name: "Abuse", Path: "/admin/abuse"}}, body: data})
}

// signalsTable lists signals; those newer than last are marked new; with
// forms, each signal of a key offers Suspend with its reason filled in.
func signalsTable(id, caption string, sigs []usage.Signal, last int64, forms bool) *table {
	t := &table{ID: id, Caption: caption, Head: []string{"When (UTC)", "Signal", "Kind", "Key", "Client IP", "Count", "Window", "Detail", "New"},
		Empty: "No signals."}
	for _, s := range sigs {
		key := txt("")
		if s.KeyPrefix != "" {
			key = linked(s.KeyPrefix, keyPath(s.KeyPrefix))
		}
		isNew := ""
		if last >= 0 && s.ID > last {
			isNew = "new"
		}
		t.Rows = append(t.Rows, []cell{txt(when(s.At)), txt("#" + strconv.FormatInt(s.ID, 10)), txt(s.Kind), key, txt(s.ClientIP),
			num(s.Count), txt(s.Window.String()), txt(s.Detail), txt(isNew)})
		if forms {
			var f *rowForm
			if s.KeyPrefix != "" {
				f = &rowForm{Action: keyPath(s.KeyPrefix) + "/suspend", ID: "suspend-" + strconv.FormatInt(s.ID, 10), Button: "Suspend",
					Reason: fmt.Sprintf("Abuse signal #%d: %s, %d in %s", s.ID, s.Kind, s.Count, s.Window)}
			}
			t.Forms = append(t.Forms, f)
		}
	}
	return t
}

// signalsSeen is POST /admin/abuse/seen: the signals up to the newest the
// page showed are seen by this admin (those that came since stay new).
func (d *Dashboard) signalsSeen(w http.ResponseWriter, r *http.Request, op operator) {
	if !d.area.ReadForm(w, r) {
		return
	}
	upto, err := strconv.ParseInt(r.PostForm.Get("upto"), 10, 64)
	if err != nil || upto < 1 {
		d.message(w, r, http.StatusBadRequest, message{Heading: "Form not read", Text: "The form lost the signals it marks: open the abuse page again.",
			Back: "/admin/abuse", BackText: "Back to the signals"})
		return
	}
	last, err := d.lastSeen(r.Context(), op.user.ID)
	if err != nil {
		d.unavailable(w, r, errorf("signals seen", err))
		return
	}
	if upto > last && !d.record(w, r, op, actSignalsSeen, seenTarget(op.user.ID), "", fmt.Sprintf(seenDetail, upto)) {
		return
	}
	session.SeeOther(w, r, "/admin/abuse")
}
