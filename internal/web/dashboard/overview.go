package dashboard

import (
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// The spans of the overview.
const (
	overviewHours = 48 // requests per hour
	overviewDays  = 90 // requests and clicks per day
	latencyHours  = 24 // latency per endpoint
	activeHours   = 24 // keys that made requests
	topKeyDays    = 7  // the top keys
	topDays       = 30 // the top perfumes and the empty searches
	topKeys       = 20
	topPerfumes   = 20
	emptySearches = 50
)

// overviewData is what the overview shows: the summary's tiles, a
// stacked chart a period, and the tables of their numbers and the rest.
type overviewData struct {
	// At is the moment of the figures.
	At                                   string
	Tiles                                []tile
	Summary                              *table
	HourlyChart, DailyChart, ClicksChart template.HTML
	Hourly, Daily, Rates                 *table
	Latency, Counts, Clicks              *table
	TopKeys, TopPerfumes                 *table
	Empty                                *table
}

// spans are the UTC hour and day boundaries of the overview at now.
type spans struct {
	hour, day    time.Time // the current hour and day
	hFrom, dFrom time.Time // the first hour and day shown
}

func spansAt(now time.Time) spans {
	now = now.UTC()
	s := spans{hour: now.Truncate(time.Hour), day: time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)}
	s.hFrom = s.hour.Add(-(overviewHours - 1) * time.Hour)
	s.dFrom = s.day.AddDate(0, 0, -(overviewDays - 1))
	return s
}

// overviewInput is everything the overview reads.
type overviewInput struct {
	hourly, daily []usage.Count
	latency       []usage.Latency
	clicks        []usage.Click
	top           []usage.PerfumeViews
	empty         []usage.Search
	keys          []apikey.Key
	accounts      []account.Account
}

// overview is GET /admin: the service at a glance.
func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, op operator) {
	now := d.now()
	s := spansAt(now)
	in, err := d.readOverview(r, s)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	b := d.barFor(r, op, secOverview)
	data := d.overviewOf(in, s, now, b)
	ts := tablesOf(r.URL, data.Summary, data.Hourly, data.Daily, data.Rates, data.Latency, data.Counts, data.Clicks, data.TopKeys, data.TopPerfumes, data.Empty)
	if d.serveCSV(w, r, ts) {
		return
	}
	d.render(w, r, op, http.StatusOK, view{name: "overview", section: secOverview, title: "Overview", body: data, bar: &b})
}

// readOverview reads the overview's figures from the stores.
func (d *Dashboard) readOverview(r *http.Request, s spans) (in overviewInput, err error) {
	ctx, u := r.Context(), d.cfg.Usage
	next := s.day.AddDate(0, 0, 1)
	topFrom := s.day.AddDate(0, 0, -(topDays - 1))
	if in.hourly, err = u.HourlyUsage(ctx, "", s.hFrom, s.hour.Add(time.Hour)); err != nil {
		return in, errorf("hourly usage", err)
	}
	if in.daily, err = u.DailyUsage(ctx, "", s.dFrom, next); err != nil {
		return in, errorf("daily usage", err)
	}
	if in.latency, err = u.HourlyLatency(ctx, s.hour.Add(-(latencyHours-1)*time.Hour), s.hour.Add(time.Hour)); err != nil {
		return in, errorf("latency", err)
	}
	if in.clicks, err = u.DailyClicks(ctx, s.dFrom, next); err != nil {
		return in, errorf("clicks", err)
	}
	if in.top, err = u.TopViewed(ctx, topFrom, next, topPerfumes); err != nil {
		return in, errorf("top perfumes", err)
	}
	if in.empty, err = u.EmptySearches(ctx, topFrom, next, emptySearches); err != nil {
		return in, errorf("empty searches", err)
	}
	if in.keys, err = d.cfg.Keys.ListKeys(ctx); err != nil {
		return in, errorf("keys", err)
	}
	if in.accounts, err = d.cfg.Accounts.ListAccounts(ctx); err != nil {
		return in, errorf("accounts", err)
	}
	return in, nil
}

// overviewOf computes the overview's tiles, charts and tables.
func (d *Dashboard) overviewOf(in overviewInput, s spans, now time.Time, b bar) overviewData {
	o := overviewData{At: when(now)}
	hours := periods(in.hourly, s.hFrom, overviewHours, time.Hour)
	days := periods(in.daily, s.dFrom, overviewDays, 24*time.Hour)
	t := tallyOf(in, s, now)
	o.Tiles = tilesOf(hours, in.latency, s, t, b)
	o.Summary = summaryTable(o.Tiles)
	hourLabel := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:00") }
	dayLabel := func(t time.Time) string { return t.UTC().Format(time.DateOnly) }
	o.HourlyChart = classChart("hourly-chart", fmt.Sprintf("Requests per hour, the last %d hours (UTC), by status", overviewHours),
		hours, hourLabel, func(t time.Time) string { return t.UTC().Format("15h") }, 12).HTML()
	o.DailyChart = classChart("daily-chart", fmt.Sprintf("Requests per day, the last %d days (UTC), by status", overviewDays),
		days, dayLabel, func(t time.Time) string { return t.UTC().Format("2 Jan") }, 30).HTML()
	o.Hourly = periodTable("hourly", fmt.Sprintf("Requests per hour, the last %d hours, by status", overviewHours), "Hour (UTC)", hours, hourCell)
	o.Daily = periodTable("daily", fmt.Sprintf("Requests per day, the last %d days, by status", overviewDays), "Day (UTC)", days, dayCell)
	o.Hourly.Fold, o.Daily.Fold = "The numbers per hour", "The numbers per day"
	o.Rates = &table{ID: "rates", Caption: "Errors (5xx) and refusals by a limit (429)",
		Head: []string{"Span", "Requests", "5xx", "5xx rate (%)", "429", "429 rate (%)"},
		Rows: [][]cell{
			rateRow("Last 24 hours", sumPeriods(hours[overviewHours-24:])),
			rateRow(fmt.Sprintf("Last %d hours", overviewHours), sumPeriods(hours)),
			rateRow(fmt.Sprintf("Last %d days", overviewDays), sumPeriods(days)),
		}}
	o.Latency = latencyTable(in.latency)
	o.Counts = countsTable(t)
	o.Clicks, o.ClicksChart = clicksOf(in.clicks, s)
	o.TopKeys = topKeysTable(in.daily, in.keys, s.day.AddDate(0, 0, -(topKeyDays-1)))
	o.TopPerfumes = d.topPerfumesTable(in.top)
	o.Empty = &table{ID: "empty", Caption: fmt.Sprintf("Searches that found nothing, the last %d days", topDays),
		Head: []string{"Search", "Times", "Last seen (UTC)"}, Empty: "None: every search found something."}
	for _, e := range in.empty {
		o.Empty.Rows = append(o.Empty.Rows, []cell{txt(e.Query), num(e.Count), dayCell(e.Day)})
	}
	return o
}

// latencyTable is the latency of each endpoint over the last hours.
func latencyTable(ls []usage.Latency) *table {
	t := &table{ID: "latency", Caption: fmt.Sprintf("Latency per endpoint, the last %d hours (every replica)", latencyHours),
		Head: []string{"Endpoint", "Requests", "p50 (ms)", "p95 (ms)", "p99 (ms)"}, Empty: "No requests."}
	for _, l := range latencies(ls) {
		t.Rows = append(t.Rows, []cell{txt(l.Endpoint), num(l.Hist.Total()),
			ms(l.Hist.Quantile(0.50)), ms(l.Hist.Quantile(0.95)), ms(l.Hist.Quantile(0.99))})
	}
	return t
}

// countsTable is the keys and accounts by state.
func countsTable(t tally) *table {
	return &table{ID: "counts", Caption: "Keys and accounts by state", Head: []string{"What", "Number"}, Rows: [][]cell{
		{txt("Keys, active"), num(t.keysActive)},
		{txt("Keys, suspended"), num(t.keysSuspended)},
		{txt("Keys, revoked or expired"), num(t.keysEnded)},
		{txt(fmt.Sprintf("Keys that made requests in the last %d hours", activeHours)), num(t.keysUsed)},
		{txt("Accounts"), num(t.accounts)},
		{txt("Accounts, disabled"), num(t.accountsDisabled)},
		{txt("Accounts, deleted"), num(t.accountsDeleted)},
	}}
}

// clicksOf is the table and the chart of buy-link clicks per day.
func clicksOf(cs []usage.Click, s spans) (*table, template.HTML) {
	per := dailyClicks(cs, s.dFrom, overviewDays)
	t := &table{ID: "clicks", Caption: fmt.Sprintf("Buy-link clicks per day, the last %d days", overviewDays), Head: []string{"Day (UTC)", "Clicks"},
		Fold: "The numbers per day"}
	c := stackChart{ID: "clicks-chart", Title: t.Caption, Series: []series{{Name: "Clicks", Color: "#5b2a86"}},
		Empty: "No buy-link clicks in these days yet."}
	for i, n := range per {
		day := s.dFrom.AddDate(0, 0, i)
		t.Rows = append(t.Rows, []cell{dayCell(day), num(n)})
		b := stack{Label: day.Format(time.DateOnly), Values: []int64{n}}
		if (overviewDays-1-i)%30 == 15 { // not at the edges, where a name would be cut
			b.Axis = day.Format("2 Jan")
		}
		c.Bars = append(c.Bars, b)
	}
	return t, c.HTML()
}

// topKeysTable is the keys that made the most requests since since.
func topKeysTable(daily []usage.Count, keys []apikey.Key, since time.Time) *table {
	byPrefix := make(map[string]apikey.Key, len(keys))
	for _, k := range keys {
		byPrefix[k.Prefix] = k
	}
	t := &table{ID: "topkeys", Caption: fmt.Sprintf("Top keys, the last %d days", topKeyDays),
		Head: []string{"Key", "Name", "Email", "Requests", "429", "5xx"}, Empty: "No requests."}
	for _, kt := range keyTotals(daily, since, topKeys) {
		k := byPrefix[kt.Prefix]
		first := linked(kt.Prefix, keyPath(kt.Prefix))
		if kt.Prefix == "" {
			first = txt("(no key)")
		}
		t.Rows = append(t.Rows, []cell{first, txt(k.Name), txt(k.Email), num(kt.Total), num(kt.Limited), num(kt.E)})
	}
	return t
}

// topPerfumesTable is the perfumes viewed most.
func (d *Dashboard) topPerfumesTable(top []usage.PerfumeViews) *table {
	t := &table{ID: "topperfumes", Caption: fmt.Sprintf("Top perfumes, the last %d days", topDays),
		Head: []string{"Perfume", "Detail", "Similar", "Dupes", "Views"}, Empty: "No views."}
	for _, v := range top {
		name := txt("#" + strconv.FormatInt(v.PerfumeID, 10))
		if d.cfg.Perfume != nil {
			if n, path, ok := d.cfg.Perfume(v.PerfumeID); ok {
				name = linked(n, path)
			}
		}
		t.Rows = append(t.Rows, []cell{name, num(v.Detail), num(v.Similar), num(v.Dupes), num(v.Total())})
	}
	return t
}

// keyPath is the dashboard's page of a key.
func keyPath(prefix string) string { return "/admin/keys/" + prefix }
