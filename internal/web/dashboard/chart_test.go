package dashboard

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	rectRE   = regexp.MustCompile(`<rect x="([0-9.]+)%" y="([0-9.]+)" width="([0-9.]+)%" height="([0-9.]+)" fill="([^"]+)"/>`)
	yLabelRE = regexp.MustCompile(`text-anchor="end" font-size="12" fill="#54505e">([^<]+)</text>`)
)

func classSeries() []series {
	return []series{{"2xx", "#111111"}, {"5xx", "#222222"}}
}

// TestStackChart: segments stack bottom up in their series' order, each in
// its bar's slot; a small count beside a large one stays visible; the y
// axis names its steps; tooltips name the period and its counts; every
// text is escaped.
func TestStackChart(t *testing.T) {
	c := stackChart{ID: "c", Title: "Requests <per> hour", Series: classSeries(), Bars: []stack{
		{Label: "h0", Values: []int64{30, 10}},
		{Label: "h1 <b>", Axis: "1h", Values: []int64{0, 1}},
		{Label: "h2", Values: []int64{0, 0}},
		{Label: "h3", Values: []int64{1000, 0}},
	}}
	html := string(c.HTML())
	rects := rectRE.FindAllStringSubmatch(html, -1)
	if len(rects) != 4 {
		t.Fatalf("%d segments, want 4:\n%s", len(rects), html)
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	// h0: 2xx at the base, 5xx on it, in the first quarter of the width.
	if rects[0][5] != "#111111" || rects[1][5] != "#222222" || f(rects[0][2])+f(rects[0][4]) != plotBase ||
		f(rects[1][2])+f(rects[1][4]) != f(rects[0][2]) || f(rects[0][1]) >= 25 || f(rects[0][1])+f(rects[0][3]) > 25 {
		t.Errorf("the first bar: %q", rects[:2])
	}
	// h1: one request against a top of 1,000 is still drawn, in the second quarter.
	if h := f(rects[2][4]); h < minSegment || f(rects[2][1]) < 25 || f(rects[2][1]) >= 50 {
		t.Errorf("a count of 1 beside 1,000: %q", rects[2])
	}
	// h3: the largest bar reaches the top (1,000 on an axis of 250s).
	if f(rects[3][2]) != plotBase-plotSpan || f(rects[3][4]) != plotSpan {
		t.Errorf("the largest bar: %q", rects[3])
	}
	var labels []string
	for _, m := range yLabelRE.FindAllStringSubmatch(html, -1) {
		labels = append(labels, m[1])
	}
	if strings.Join(labels, " ") != "0 250 500 750 1,000" {
		t.Errorf("y axis %q", labels)
	}
	for _, want := range []string{"<title>h0: 40 (2xx 30, 5xx 10)</title>", "<title>h1 &lt;b&gt;: 1 (5xx 1)</title>", ">1h</text>",
		"<figcaption>Requests &lt;per&gt; hour</figcaption>", `aria-labelledby="c-t"`, `<ul class="legend">`} {
		if !strings.Contains(html, want) {
			t.Errorf("the chart lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, "h2:") {
		t.Error("a bar of nothing has a tooltip")
	}
}

// TestStackChartEmpty: a chart of nothing says so over the plot and in its
// caption, with only the base line and 0 on its axis.
func TestStackChartEmpty(t *testing.T) {
	c := stackChart{ID: "c", Title: "Requests", Series: classSeries(), Empty: "No requests yet.",
		Bars: []stack{{Label: "a", Values: []int64{0, 0}}, {Label: "b", Values: []int64{0, 0}}}}
	html := string(c.HTML())
	if strings.Count(html, "No requests yet.") != 2 || strings.Count(html, "<line ") != 1 || len(rectRE.FindAllString(html, -1)) != 0 {
		t.Errorf("an empty chart:\n%s", html)
	}
	if m := yLabelRE.FindAllStringSubmatch(html, -1); len(m) != 1 || m[0][1] != "0" {
		t.Errorf("an empty chart's axis: %q", m)
	}
}

// TestStackChartLimit: a limit the bars come near is drawn as a line
// within the axis; one far above them is said in the caption, and the
// axis stays on the bars.
func TestStackChartLimit(t *testing.T) {
	near := stackChart{ID: "c", Title: "Per day", Series: classSeries()[:1], Limit: 1000, LimitLabel: "daily limit 1,000",
		Bars: []stack{{Label: "d", Values: []int64{300}}}}
	html := string(near.HTML())
	if !strings.Contains(html, `stroke-dasharray="6 4"`) || !strings.Contains(html, ">daily limit 1,000</text>") || strings.Contains(html, "far above") {
		t.Errorf("a limit near the bars:\n%s", html)
	}
	if strings.Contains(html, `<ul class="legend">`) {
		t.Error("a legend for one series")
	}
	far := near
	far.Bars = []stack{{Label: "d", Values: []int64{30}}}
	html = string(far.HTML())
	if strings.Contains(html, `stroke-dasharray`) || !strings.Contains(html, "(daily limit 1,000: far above these counts)") {
		t.Errorf("a limit far above the bars:\n%s", html)
	}
	if m := yLabelRE.FindAllStringSubmatch(html, -1); m[len(m)-1][1] != "40" {
		t.Errorf("the axis over 30 with a far limit tops at %q", m[len(m)-1][1])
	}
}

// BenchmarkStackChart draws the overview's daily chart: 90 bars of five
// status classes.
func BenchmarkStackChart(b *testing.B) {
	c := stackChart{ID: "daily-chart", Title: "Requests per day", Empty: "No requests yet."}
	for _, n := range []string{"2xx", "3xx", "4xx", "429", "5xx"} {
		c.Series = append(c.Series, series{Name: n, Color: "#2f7d4f"})
	}
	for i := range 90 {
		v := int64(1000 + 37*i)
		c.Bars = append(c.Bars, stack{Label: "2026-03-10", Axis: "10 Mar", Values: []int64{v, v / 50, v / 20, int64(i % 7), int64(i % 3)}})
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.HTML()
	}
}
