package portal

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/session"
)

// keyData is what a key's page shows.
type keyData struct {
	Email  string
	Key    apikey.Key
	Kind   string
	State  string
	Limits apikey.Limits
	// Windows is what is left now; WindowsNote says why it is not shown.
	Windows     []windowRow
	WindowsNote string
	Days        int
	Total       int64
	Chart       template.HTML
	Endpoints   []countRow
	Classes     []countRow
	LimitedDays int
	Limited     []usage.Count
	// The tier requests of the key, newest first, and the form.
	Requests              []account.TierRequest
	Pending               bool
	Higher                []apikey.Tier
	Ask                   tierForm
	MaxUseCase, MaxVolume int
	// Live: the key can be rolled (CanRoll) and revoked.
	Live, CanRoll bool
	Graces        []grace
	// Held says why the account may not roll keys; "" when it may.
	Held string
}

type windowRow struct {
	Name        string
	Limit, Left int64
	Reset       string
}

type countRow struct {
	Name string
	N    int64
}

// tierForm is the form that asks for a higher tier.
type tierForm struct{ Tier, UseCase, Volume, Error string }

// limitedDays is how far back a key's page lists its 429s.
const limitedDays = 7

// maxLimitedRows bounds that list.
const maxLimitedRows = 100

// key is GET /developer/keys/{prefix}: the key, what is left of its
// limits, its usage and its tier requests.
func (p *Portal) key(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	p.renderKey(w, r, v, k, http.StatusOK, tierForm{})
}

func (p *Portal) renderKey(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key, status int, ask tierForm) {
	ctx := r.Context()
	now := p.now()
	rep, err := p.cfg.Report(ctx, k.Prefix, keyDays)
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	hour := now.UTC().Truncate(time.Hour)
	hourly, err := p.cfg.Hourly(ctx, k.Prefix, hour.Add(-limitedDays*24*time.Hour), hour.Add(time.Hour))
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	reqs, err := p.cfg.Accounts.TierRequests(ctx, v.account.ID)
	if err != nil {
		p.unavailable(w, r, err)
		return
	}
	d := keyData{
		Email: v.account.Email, Key: k, Kind: kindOf(k), State: stateOf(k, now), Limits: p.tiers().For(k),
		Days: len(rep.Days), Total: rep.Total, LimitedDays: limitedDays, Ask: ask,
		MaxUseCase: account.MaxUseCase, MaxVolume: account.MaxVolume,
		Live: k.State != apikey.Revoked && !k.Expired(now), CanRoll: k.State == apikey.Active && k.ExpiresAt.IsZero(),
		Graces: graces,
	}
	if v.account.Held() {
		d.Held = p.heldText()
	}
	d.Windows, d.WindowsNote = p.windows(r, k)
	d.Chart = usageChart(rep, d.Limits.PerDay).HTML()
	d.Endpoints = sortedCounts(rep.Endpoints)
	d.Classes = classCounts(rep)
	d.Limited = usage.Refused(hourly)
	d.Limited = d.Limited[:min(len(d.Limited), maxLimitedRows)]
	for _, tr := range reqs {
		if tr.KeyPrefix == k.Prefix {
			d.Requests = append(d.Requests, tr)
			d.Pending = d.Pending || tr.State == account.Pending
		}
	}
	for _, t := range apikey.AllTiers {
		if tierRank(t) > tierRank(k.Tier) {
			d.Higher = append(d.Higher, t)
		}
	}
	p.pages.Render(w, r, status, "key", web.Page{Title: p.area.Title(k.Prefix), NoIndex: true,
		Crumbs: []web.Crumb{{Name: "Your keys", Path: "/developer/keys"}, {Name: k.Prefix, Path: keyPath(k)}}, Data: d})
}

// windows is what is left of k's windows now (Config.Windows), or a note
// saying why it is not shown.
func (p *Portal) windows(r *http.Request, k apikey.Key) ([]windowRow, string) {
	switch {
	case k.State == apikey.Revoked || k.Expired(p.now()):
		return nil, "The key no longer works."
	case p.cfg.Windows == nil:
		return nil, "Not shown here: ask /api/usage with the key."
	}
	dec, err := p.cfg.Windows(r.Context(), k)
	if err != nil {
		p.log.ErrorContext(r.Context(), "portal: a key's windows cannot be read", "err", err, "key", k.Prefix)
		return nil, "Not available right now: try again in a moment, or ask /api/usage with the key."
	}
	var out []windowRow
	for _, w := range dec.Windows() {
		name := "This minute (the last 60 seconds)"
		if w.Policy == ratelimit.PolicyDay {
			name = "Today (the last 24 hours)"
		}
		reset := "now"
		if s := ratelimit.CeilSeconds(w.Reset); s > 0 {
			reset = durationText(s)
		}
		out = append(out, windowRow{Name: name, Limit: w.Limit, Left: w.Remaining, Reset: reset})
	}
	return out, ""
}

// durationText writes seconds for people: "45 s", "12 min", "3 h 5 min".
func durationText(s int64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min", (s+59)/60)
	}
	m := (s + 59) / 60
	return fmt.Sprintf("%d h %d min", m/60, m%60)
}

// usageChart is the chart of a report's requests per day on its y axis,
// the daily limit drawn in once the bars come near it (else named in the
// caption, so that a day of 3 requests does not vanish under a limit of
// 1,000), the numbers in a table beside it; every seventh day is named
// under its bar.
func usageChart(rep usage.Report, perDay int64) web.BarChart {
	c := web.BarChart{
		ID:      "usage",
		Title:   fmt.Sprintf("Requests per day over the last %d days (UTC)", len(rep.Days)),
		Heading: "Day (UTC)", ValueHeading: "Requests",
		Limit: float64(perDay), LimitLabel: "daily limit " + web.Thousands(int(perDay)),
		Axis: true, Fold: "Requests per day",
		Empty: "No requests with this key in these days yet.",
	}
	for i, d := range rep.Days {
		b := web.Bar{Label: d.Date, Value: float64(d.Requests), Text: web.Thousands(int(d.Requests)), Color: "#5b2a86"}
		if (len(rep.Days)-1-i)%7 == 3 {
			if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
				b.Axis = t.Format("2 Jan")
			}
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}

// sortedCounts lists counts by name, most first.
func sortedCounts(m map[string]int64) []countRow {
	out := make([]countRow, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, countRow{name, m[name]})
	}
	slices.SortStableFunc(out, func(a, b countRow) int { return cmp.Compare(b.N, a.N) })
	return out
}

// classNames say the status classes for people.
var classNames = map[string]string{
	"2xx":                  "2xx: answered",
	"3xx":                  "3xx: redirected",
	"4xx":                  "4xx: refused as asked (bad parameters, key, origin)",
	usage.ClassRateLimited: "429: refused by a limit",
	"5xx":                  "5xx: failed on our side",
}

// classCounts sums a report's requests per status class, in class order.
func classCounts(rep usage.Report) []countRow {
	sum := map[string]int64{}
	for _, d := range rep.Days {
		for c, n := range d.ByStatus {
			sum[c] += n
		}
	}
	var out []countRow
	for _, c := range slices.Sorted(maps.Keys(sum)) {
		out = append(out, countRow{cmp.Or(classNames[c], c), sum[c]})
	}
	return out
}

// tierRank orders the tiers, smallest first; an unknown tier ranks as free.
func tierRank(t apikey.Tier) int { return max(slices.Index(apikey.AllTiers[:], t), 0) }

// requestTier is POST /developer/keys/{prefix}/tier: a request for a
// higher tier, queued for the operator; its state shows on the key's page.
func (p *Portal) requestTier(w http.ResponseWriter, r *http.Request, v visitor, k apikey.Key) {
	if !p.area.ReadForm(w, r) {
		return
	}
	f := tierForm{Tier: r.PostForm.Get("tier"), UseCase: strings.TrimSpace(r.PostForm.Get("use_case")), Volume: strings.TrimSpace(r.PostForm.Get("volume"))}
	t, err := apikey.ParseTier(f.Tier)
	switch {
	case k.State == apikey.Revoked || k.Expired(p.now()):
		f.Error = "This key no longer works: ask for a higher tier for a live key."
	case err != nil || tierRank(t) <= tierRank(k.Tier):
		f.Error = fmt.Sprintf("Choose a tier above the key's own (%s).", k.Tier)
	}
	if f.Error == "" {
		reqs, err := p.cfg.Accounts.TierRequests(r.Context(), v.account.ID)
		if err != nil {
			p.unavailable(w, r, err)
			return
		}
		if slices.ContainsFunc(reqs, func(tr account.TierRequest) bool { return tr.KeyPrefix == k.Prefix && tr.State == account.Pending }) {
			f.Error = "A request for this key is waiting for an answer already."
		}
	}
	tr := account.TierRequest{AccountID: v.account.ID, KeyPrefix: k.Prefix, Tier: t, UseCase: f.UseCase, Volume: f.Volume}
	if f.Error == "" && tr.Check() != nil {
		f.Error = fmt.Sprintf("Say what you will use the data for (at most %s characters), and the volume you expect (at most %d).",
			web.Thousands(account.MaxUseCase), account.MaxVolume)
	}
	if f.Error == "" {
		_, err = p.cfg.Accounts.CreateTierRequest(r.Context(), tr)
		switch {
		case errors.Is(err, catalog.ErrInvalid):
			f.Error = "The request could not be taken as it is: check the use case and the volume."
		case err != nil:
			p.unavailable(w, r, err)
			return
		}
	}
	if f.Error != "" {
		f.UseCase, f.Volume = session.Typed(f.UseCase, 4*account.MaxUseCase), session.Typed(f.Volume, 4*account.MaxVolume)
		p.renderKey(w, r, v, k, http.StatusUnprocessableEntity, f)
		return
	}
	session.SeeOther(w, r, keyPath(k)+"#tier")
}

// isRevoked reports a change refused because the key is revoked already.
func isRevoked(err error) bool { return errors.Is(err, apikey.ErrRevoked) }
