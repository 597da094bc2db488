package web_test

import (
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/web"
)

// TestBarChart: bars scale to the largest of the values and the limit,
// the limit is a dashed line at its height, values beyond Top are clipped,
// every text is escaped, and the numbers are in a table (folded when
// asked).
func TestBarChart(t *testing.T) {
	c := web.BarChart{
		ID: "use", Title: "Requests <per> day", Heading: "Day", ValueHeading: "Requests",
		Limit: 1000, LimitLabel: "limit 1,000", BarWidth: 10, Gap: 5, Fold: "The numbers",
		Bars: []web.Bar{
			{Label: "d1", Axis: "1 Jan", Value: 500, Text: "500", Color: "#000"},
			{Label: "d2", Value: 250, Text: "250", Color: "#000"},
			{Label: "<d3>", Value: -4, Text: "0", Color: "#000"},
		},
	}
	got := string(c.HTML())
	for _, want := range []string{
		`<svg viewBox="0 0 50 150" width="50" height="150" role="img" aria-labelledby="use-t"><title id="use-t">Requests &lt;per&gt; day</title>`,
		`<rect x="5" y="70" width="10" height="50"`,  // 500 of 1,000: half of 100
		`<rect x="20" y="95" width="10" height="25"`, // 250
		`<rect x="35" y="120" width="10" height="0"`, // negative counts as 0
		`<text x="10" y="140" text-anchor="middle" font-size="13" fill="#1d1b22">1 Jan</text>`,
		`<line x1="0" y1="20" x2="50" y2="20" stroke="#c2410c" stroke-width="2" stroke-dasharray="6 4"/>`,
		`>limit 1,000</text>`,
		"<details>\n<summary>The numbers</summary>",
		`<tr><th scope="row">&lt;d3&gt;</th><td>0</td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the chart lacks %s\n%s", want, got)
		}
	}
	if strings.Count(got, "<text") != 2 {
		t.Errorf("want the axis label and the limit's only (no values above bars):\n%s", got)
	}
	// A value over the limit raises the top; a set Top clips.
	c.Bars[0].Value = 2000
	if got := string(c.HTML()); !strings.Contains(got, `<rect x="5" y="20" width="10" height="100"`) || !strings.Contains(got, `y1="70"`) {
		t.Errorf("a bar over the limit:\n%s", got)
	}
	c.Top = 1000
	if got := string(c.HTML()); !strings.Contains(got, `<rect x="5" y="20" width="10" height="100"`) || !strings.Contains(got, `y1="20"`) {
		t.Errorf("a bar over Top:\n%s", got)
	}
}

// TestBarChartEmpty: a chart whose bars are all 0 says its Empty text in
// the caption; one with a bar above 0, or without Empty, does not.
func TestBarChartEmpty(t *testing.T) {
	c := web.BarChart{ID: "e", Title: "Requests", Empty: "No requests <yet>.",
		Bars: []web.Bar{{Label: "d1", Value: 0, Text: "0"}, {Label: "d2", Value: -1, Text: "0"}}}
	want := `<figcaption class="muted">Requests<br><strong class="chart-empty">No requests &lt;yet&gt;.</strong></figcaption>`
	if got := string(c.HTML()); !strings.Contains(got, want) {
		t.Errorf("an empty chart lacks %s\n%s", want, got)
	}
	c.Bars[1].Value = 3
	if got := string(c.HTML()); strings.Contains(got, "chart-empty") {
		t.Errorf("a chart with a bar says it is empty\n%s", got)
	}
	c.Bars[1].Value, c.Empty = 0, ""
	if got := string(c.HTML()); strings.Contains(got, "chart-empty") {
		t.Errorf("a chart without Empty says it is empty\n%s", got)
	}
}

// A chart on its axis scales to round values; a few requests under a
// large limit stand tall on an axis of their own, the limit named in the
// caption instead of drawn; near the limit the line is drawn; a count of
// 1 beside thousands is still a visible bar; the table of the numbers is
// a region of its own.
func TestBarChartOnItsAxis(t *testing.T) {
	small := web.BarChart{ID: "use", Title: "Requests", Heading: "Day", ValueHeading: "Requests", Axis: true,
		Limit: 1000, LimitLabel: "daily limit 1,000", Fold: "Requests per day",
		Bars: []web.Bar{{Label: "d1", Axis: "1 Jan", Value: 3, Text: "3", Color: "#000"}, {Label: "d2", Value: 0, Text: "0", Color: "#000"}}}
	got := string(small.HTML())
	for _, want := range []string{
		`(daily limit 1,000: far above these counts)`,
		`fill="#54505e">4</text>`, // the axis's top: 3 on steps of 1
		`<rect x="7.500%" y="47.5" width="35.000%" height="112.5" fill="#000"><title>d1: 3</title></rect>`,
		`<div class="numbers" role="region" aria-label="Requests per day" tabindex="0">`,
		`<tr><th scope="row">d2</th><td>0</td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("small counts: no %s in\n%s", want, got)
		}
	}
	if strings.Index(got, `<th scope="row">d2</th>`) > strings.Index(got, `<th scope="row">d1</th>`) {
		t.Error("the table does not list the last bar first")
	}
	if strings.Contains(got, "stroke-dasharray") || strings.Count(got, "<rect") != 1 {
		t.Errorf("small counts: the limit drawn, or a bar of nothing:\n%s", got)
	}
	near := small
	near.Bars = []web.Bar{{Label: "d1", Value: 700, Text: "700", Color: "#000"}, {Label: "d2", Value: 1, Text: "1", Color: "#000"}}
	got = string(near.HTML())
	for _, want := range []string{`stroke-dasharray="6 4"`, `>daily limit 1,000</text>`, `fill="#54505e">1,000</text>`, `height="2.0" fill="#000"><title>d2: 1</title>`} {
		if !strings.Contains(got, want) {
			t.Errorf("near the limit: no %s in\n%s", want, got)
		}
	}
	for most, want := range map[int64][2]int64{0: {1, 4}, 9: {5, 20}, 1000: {250, 1000}, 1001: {500, 2000}, 36_000: {10_000, 40_000}} {
		if step, top := web.AxisOf(most); step != want[0] || top != want[1] {
			t.Errorf("AxisOf(%d) = %d, %d; want %v", most, step, top, want)
		}
	}
}

// TestCompact: axis values are written short past ten thousand.
func TestCompact(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 5000: "5,000", 20_000: "20k", 12_500: "12.5k", 1_500_000: "1.5M", 2_000_000: "2M"} {
		if got := web.Compact(n); got != want {
			t.Errorf("Compact(%d) = %q, want %q", n, got, want)
		}
	}
}
