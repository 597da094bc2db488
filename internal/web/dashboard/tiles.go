package dashboard

import (
	"fmt"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web"
)

// newAccountDays is the span of the overview's new accounts (UTC days,
// today included).
const newAccountDays = 7

// tile is one figure of the overview's summary, the first thing it shows:
// a name, a value in a unit, a note that says what it counts, and where
// the figure comes from (a section of the page or another page).
type tile struct {
	Name, Value, Unit, Note, Href string
	// Raw is the value in the CSV ("" for none); Alert marks a figure that
	// asks for the operator (server errors, unseen abuse signals).
	Raw   string
	Alert bool
}

// tally is the keys and accounts counted by state at now.
type tally struct {
	keysActive, keysSuspended, keysEnded int64
	// keysUsed made requests in the last activeHours.
	keysUsed                                    int64
	accounts, accountsDisabled, accountsDeleted int64
	// accountsNew were made in the last newAccountDays, accountsToday today.
	accountsNew, accountsToday int64
}

// tallyOf counts the overview's keys and accounts.
func tallyOf(in overviewInput, s spans, now time.Time) tally {
	var t tally
	for _, k := range in.keys {
		switch {
		case k.State == apikey.Revoked || k.Expired(now):
			t.keysEnded++
		case k.State == apikey.Suspended:
			t.keysSuspended++
		default:
			t.keysActive++
		}
	}
	used := map[string]bool{}
	since := s.hour.Add(-(activeHours - 1) * time.Hour)
	for _, c := range in.hourly {
		if c.KeyPrefix != "" && !c.Start.Before(since) && c.Count > 0 {
			used[c.KeyPrefix] = true
		}
	}
	t.keysUsed = int64(len(used))
	newFrom := s.day.AddDate(0, 0, -(newAccountDays - 1))
	for _, a := range in.accounts {
		switch {
		case a.Deleted():
			t.accountsDeleted++
		case a.Disabled:
			t.accountsDisabled++
		default:
			t.accounts++
		}
		if !a.CreatedAt.Before(newFrom) {
			t.accountsNew++
		}
		if !a.CreatedAt.Before(s.day) {
			t.accountsToday++
		}
	}
	return t
}

// tilesOf are the overview's summary tiles: the requests of this hour and
// of today, the rates of errors and refusals and the latency's p95 over
// the last 24 hours, the active keys, the new accounts, and the abuse
// signals the admin has not seen.
func tilesOf(hours []period, latency []usage.Latency, s spans, t tally, b bar) []tile {
	var thisHour, today int64
	for _, p := range hours {
		if !p.Start.Before(s.day) {
			today += p.Total
		}
		if p.Start.Equal(s.hour) {
			thisHour = p.Total
		}
	}
	day := sumPeriods(hours[len(hours)-24:])
	e, r := day.ByClass[classIndex("5xx")], day.ByClass[classIndex(usage.ClassRateLimited)]
	var all usage.Histogram
	for _, l := range latency {
		all.Add(l.Bucket, l.Count)
	}
	tiles := []tile{
		countTile("Requests this hour", thisHour, "since "+s.hour.Format("15:04")+" UTC", "#requests-h"),
		countTile("Requests today", today, "since 00:00 UTC", "#requests-h"),
		rateTile("Server errors (5xx)", e, day.Total, "#rates-h"),
		rateTile("Refused by a limit (429)", r, day.Total, "#rates-h"),
		p95Tile(&all),
		countTile("Active keys", t.keysActive, fmt.Sprintf("%s made requests in %d hours", web.Thousands(int(t.keysUsed)), activeHours), "/admin/keys?state=active"),
		countTile("New accounts", t.accountsNew, fmt.Sprintf("in %d days; %s today", newAccountDays, web.Thousands(int(t.accountsToday))), "/admin/accounts"),
		signalsTile(b),
	}
	tiles[2].Alert = e > 0
	return tiles
}

// countTile is a tile of a count.
func countTile(name string, n int64, note, href string) tile {
	return tile{Name: name, Value: web.Thousands(int(n)), Raw: strconv.FormatInt(n, 10), Note: note, Href: href}
}

// rateTile is a tile of part's share of the last 24 hours' requests, in
// percent; "—" when there were none.
func rateTile(name string, part, whole int64, href string) tile {
	t := tile{Name: name, Value: "—", Note: "no requests in 24 hours", Href: href}
	if f, ok := rate(part, whole); ok {
		t.Value, t.Unit, t.Raw = web.Decimal(f, 2), "%", web.Decimal(f, 2)
		t.Note = fmt.Sprintf("%s of %s requests in 24 hours", web.Thousands(int(part)), web.Thousands(int(whole)))
	}
	return t
}

// p95Tile is the tile of the latency's 95th percentile over every
// endpoint in the last latencyHours.
func p95Tile(h *usage.Histogram) tile {
	t := tile{Name: "Latency, p95", Value: "—", Note: fmt.Sprintf("no requests in %d hours", latencyHours), Href: "#latency-h"}
	if n := h.Total(); n > 0 {
		c := ms(h.Quantile(0.95))
		t.Value, t.Unit, t.Raw = c.Text, "ms", c.Raw
		t.Note = fmt.Sprintf("of %s requests in %d hours, every endpoint", web.Thousands(int(n)), latencyHours)
	}
	return t
}

// signalsTile is the tile of the abuse signals the admin has not marked
// seen, as the header counts them.
func signalsTile(b bar) tile {
	t := tile{Name: "Open abuse signals", Href: "/admin/abuse", Note: fmt.Sprintf("not seen by you, the last %d days", newSignalDays)}
	switch {
	case b.SignalsUnknown:
		t.Value, t.Note = "?", "cannot be counted right now"
	case b.MoreSignals:
		t.Value, t.Raw = web.Thousands(b.NewSignals)+"+", strconv.Itoa(b.NewSignals)
	default:
		t.Value, t.Raw = web.Thousands(b.NewSignals), strconv.Itoa(b.NewSignals)
	}
	t.Alert = b.NewSignals > 0
	return t
}

// summaryTable is the tiles as a table, for their CSV: a figure a row,
// named with its unit.
func summaryTable(tiles []tile) *table {
	t := &table{ID: "summary", Caption: "The summary", Head: []string{"Figure", "Value", "Detail"}}
	for _, tl := range tiles {
		name := tl.Name
		if tl.Unit != "" {
			name += " (" + tl.Unit + ")"
		}
		t.Rows = append(t.Rows, []cell{txt(name), {Text: tl.Value, Raw: tl.Raw, Num: true}, txt(tl.Note)})
	}
	return t
}
