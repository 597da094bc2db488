package dashboard

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// classes are the status classes the meter counts, in the order the
// tables show them.
var classes = [...]string{"2xx", "3xx", "4xx", usage.ClassRateLimited, "5xx"}

// classHeads head the classes' columns.
var classHeads = [...]string{"2xx", "3xx", "4xx", "429", "5xx"}

// classColors draw the classes' segments: success green, redirects slate,
// the client's mistakes amber, refusals by a limit violet, server errors
// red; each at least 3:1 against the page.
var classColors = [...]string{"#2f7d4f", "#5b6b8c", "#b7791f", "#7e3fa8", "#b91c1c"}

// classIndex is the column of a status class; -1 for one the dashboard
// does not know (counted in the total only).
func classIndex(c string) int { return slices.Index(classes[:], c) }

// period is one hour or one day of requests, split by status class.
type period struct {
	Start   time.Time
	ByClass [len(classes)]int64
	Total   int64
}

// periods sums counts into n periods of length step from from (UTC
// hours or days): one period for each, empty ones included, oldest first.
// Counts outside the span are left out.
func periods(counts []usage.Count, from time.Time, n int, step time.Duration) []period {
	out := make([]period, n)
	for i := range out {
		out[i].Start = from.Add(time.Duration(i) * step)
	}
	for _, c := range counts {
		d := c.Start.Sub(from)
		if d < 0 {
			continue
		}
		i := int(d / step)
		if i >= n {
			continue
		}
		if j := classIndex(c.StatusClass); j >= 0 {
			out[i].ByClass[j] += c.Count
		}
		out[i].Total += c.Count
	}
	return out
}

// sumPeriods adds up periods.
func sumPeriods(ps []period) period {
	var s period
	for _, p := range ps {
		for j, n := range p.ByClass {
			s.ByClass[j] += n
		}
		s.Total += p.Total
	}
	return s
}

// periodTable is the table of periods: a row each, a column per class.
func periodTable(id, caption, first string, ps []period, at func(time.Time) cell) *table {
	t := &table{ID: id, Caption: caption, Head: append(append([]string{first}, classHeads[:]...), "All"), Grid: true}
	for _, p := range ps {
		row := []cell{at(p.Start)}
		for _, n := range p.ByClass {
			row = append(row, num(n))
		}
		t.Rows = append(t.Rows, append(row, num(p.Total)))
	}
	return t
}

// classChart draws periods as stacked bars, a segment a status class,
// each bar labelled as label writes its start; every axisEvery-th bar is
// named under it by axis.
func classChart(id, title string, ps []period, label, axis func(time.Time) string, axisEvery int) stackChart {
	c := stackChart{ID: id, Title: title, Empty: "No requests yet in this period."}
	for j, class := range classHeads {
		c.Series = append(c.Series, series{Name: class, Color: classColors[j]})
	}
	for i, p := range ps {
		b := stack{Label: label(p.Start), Values: p.ByClass[:]}
		if (len(ps)-1-i)%axisEvery == axisEvery/2 { // not at the edges, where a name would be cut
			b.Axis = axis(p.Start)
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}

// rate is part of whole in percent; ok is false for a whole of nothing.
func rate(part, whole int64) (float64, bool) {
	if whole == 0 {
		return 0, false
	}
	return 100 * float64(part) / float64(whole), true
}

// rateRow is a row of the rates table: a span's requests, its errors
// (5xx) and its refusals by a limit (429), and their rates.
func rateRow(name string, p period) []cell {
	e, r := p.ByClass[classIndex("5xx")], p.ByClass[classIndex(usage.ClassRateLimited)]
	er, ok := rate(e, p.Total)
	rr, _ := rate(r, p.Total)
	return []cell{txt(name), num(p.Total), num(e), dec(er, 2, ok), num(r), dec(rr, 2, ok)}
}

// latencyRow is one endpoint's latency histogram summed over hours.
type latencyRow struct {
	Endpoint string
	Hist     usage.Histogram
}

// latencies sums latency buckets per endpoint, the busiest first (ties:
// by name).
func latencies(ls []usage.Latency) []latencyRow {
	by := map[string]*usage.Histogram{}
	for _, l := range ls {
		h := by[l.Endpoint]
		if h == nil {
			h = new(usage.Histogram)
			by[l.Endpoint] = h
		}
		h.Add(l.Bucket, l.Count)
	}
	out := make([]latencyRow, 0, len(by))
	for _, e := range slices.Sorted(maps.Keys(by)) {
		out = append(out, latencyRow{Endpoint: e, Hist: *by[e]})
	}
	slices.SortStableFunc(out, func(a, b latencyRow) int { return cmp.Compare(b.Hist.Total(), a.Hist.Total()) })
	return out
}

// ms writes a duration in milliseconds, one decimal.
func ms(d time.Duration) cell { return dec(float64(d)/float64(time.Millisecond), 1, true) }

// keyTotal is one key's requests over a span.
type keyTotal struct {
	Prefix            string
	Total, Limited, E int64
}

// keyTotals sums counts per key, the busiest first (ties: by prefix), at
// most limit.
func keyTotals(counts []usage.Count, since time.Time, limit int) []keyTotal {
	by := map[string]*keyTotal{}
	for _, c := range counts {
		if c.Start.Before(since) {
			continue
		}
		k := by[c.KeyPrefix]
		if k == nil {
			k = &keyTotal{Prefix: c.KeyPrefix}
			by[c.KeyPrefix] = k
		}
		k.Total += c.Count
		switch c.StatusClass {
		case usage.ClassRateLimited:
			k.Limited += c.Count
		case "5xx":
			k.E += c.Count
		}
	}
	out := make([]keyTotal, 0, len(by))
	for _, p := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[p])
	}
	slices.SortStableFunc(out, func(a, b keyTotal) int { return cmp.Compare(b.Total, a.Total) })
	return out[:min(len(out), limit)]
}

// nameCount is a count of something named.
type nameCount struct {
	Name string
	N    int64
}

// endpointTotals sums counts per endpoint, the busiest first (ties: by name).
func endpointTotals(counts []usage.Count) []nameCount {
	by := map[string]int64{}
	for _, c := range counts {
		by[c.Endpoint] += c.Count
	}
	out := make([]nameCount, 0, len(by))
	for _, e := range slices.Sorted(maps.Keys(by)) {
		out = append(out, nameCount{e, by[e]})
	}
	slices.SortStableFunc(out, func(a, b nameCount) int { return cmp.Compare(b.N, a.N) })
	return out
}

// dailyClicks sums clicks per day over n days from from, oldest first.
func dailyClicks(cs []usage.Click, from time.Time, n int) []int64 {
	out := make([]int64, n)
	for _, c := range cs {
		if i := int(c.Day.Sub(from) / (24 * time.Hour)); c.Day.Sub(from) >= 0 && i < n {
			out[i] += c.Count
		}
	}
	return out
}
