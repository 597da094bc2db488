package web

import (
	"html/template"
	"strconv"
	"strings"
)

// BarChart is a bar chart drawn as SVG on the server, the one chart of
// every area: readable without JavaScript, and HTML writes its numbers in
// a table beside it. The SVG is 150 units high; bars stand on y = 120 and
// a bar of value Top is 100 high.
type BarChart struct {
	// ID names the chart in the page (its title's id is ID + "-t").
	ID string
	// Title is the SVG's accessible title and the figure's caption.
	Title string
	// Heading and ValueHeading head the table's two columns.
	Heading, ValueHeading string
	Bars                  []Bar
	// Top is the value of a full-height bar; 0 means the largest of the
	// values and Limit (at least 1).
	Top float64
	// Limit, when positive, is drawn as a dashed line across the chart,
	// labelled LimitLabel.
	Limit      float64
	LimitLabel string
	// BarWidth and Gap are in SVG units; 0 means 56 and 24.
	BarWidth, Gap int
	// Values writes each bar's value above it (for charts of a few bars).
	Values bool
	// Fold, when set, folds the table in a details element whose summary
	// it is (a long table under a chart of many bars).
	Fold string
	// Axis draws the chart as wide as its column on a y axis of round
	// values, the table of its numbers beside it, last bar first (a key's
	// usage, the latest day first); the limit only when the bars reach a
	// quarter of it; bars of counts above 0 never thinner than 2 px.
	// BarWidth, Gap, Values and Top are not used then; Fold names the
	// table's region.
	Axis bool
	// Empty, when set, is said in the caption when no bar is above 0
	// (a fresh install's usage charts), so a flat line does not read as
	// a chart that failed to draw.
	Empty string
}

// Bar is one bar of a BarChart.
type Bar struct {
	// Label names the bar in the table; Axis is written under the bar
	// (empty: nothing, for dense charts that label every nth bar).
	Label, Axis string
	// Value sets the height (negative counts as 0, above Top as Top);
	// Text is how the value is written.
	Value float64
	Text  string
	Color string
}

// The chart's geometry in SVG units.
const (
	chartHeight = 150
	chartBase   = 120 // the baseline of the bars
	chartTop    = 100 // the height of a bar of value Top
)

// HTML is the chart as a figure: the SVG and a table of its numbers. It is
// written in Go rather than by a template (every bar is several
// attributes: it was a sixth of a perfume page's rendering); every text in
// it is escaped.
func (c BarChart) HTML() template.HTML {
	if c.Axis {
		return c.axisHTML()
	}
	esc := template.HTMLEscapeString
	bw, gap := c.BarWidth, c.Gap
	if bw <= 0 {
		bw = 56
	}
	if gap <= 0 {
		gap = 24
	}
	top := c.Top
	if top <= 0 {
		top = max(1, c.Limit)
		for _, r := range c.Bars {
			top = max(top, r.Value)
		}
	}
	width := len(c.Bars)*(bw+gap) + gap
	var b strings.Builder
	b.Grow(1024 + 300*len(c.Bars))
	w := strconv.Itoa(width)
	b.WriteString(`<figure class="chart">` + "\n" + `<svg viewBox="0 0 ` + w + ` 150" width="` + w + `" height="150" role="img" aria-labelledby="` +
		esc(c.ID) + `-t"><title id="` + esc(c.ID) + `-t">` + esc(c.Title) + "</title>\n")
	b.WriteString(`<line x1="0" y1="120" x2="` + w + `" y2="120" stroke="#8d8799"/>` + "\n")
	for i, r := range c.Bars {
		h := int(min(max(r.Value, 0), top)*chartTop/top + 0.5)
		x := gap + i*(bw+gap)
		lx := strconv.Itoa(x + bw/2)
		b.WriteString(`<rect x="` + strconv.Itoa(x) + `" y="` + strconv.Itoa(chartBase-h) + `" width="` + strconv.Itoa(bw) + `" height="` + strconv.Itoa(h) +
			`" rx="3" fill="` + esc(r.Color) + `"/>` + "\n")
		if c.Values {
			b.WriteString(`<text x="` + lx + `" y="` + strconv.Itoa(chartBase-h-6) + `" text-anchor="middle" font-size="13" fill="#1d1b22">` + esc(r.Text) + "</text>\n")
		}
		if r.Axis != "" {
			b.WriteString(`<text x="` + lx + `" y="140" text-anchor="middle" font-size="13" fill="#1d1b22">` + esc(r.Axis) + "</text>\n")
		}
	}
	if c.Limit > 0 {
		y := strconv.Itoa(chartBase - int(min(c.Limit, top)*chartTop/top+0.5))
		b.WriteString(`<line x1="0" y1="` + y + `" x2="` + w + `" y2="` + y + `" stroke="#c2410c" stroke-width="2" stroke-dasharray="6 4"/>` + "\n")
		b.WriteString(`<text x="` + strconv.Itoa(width-4) + `" y="` + y + `" dy="-5" text-anchor="end" font-size="13" fill="#9a3412">` + esc(c.LimitLabel) + "</text>\n")
	}
	b.WriteString("</svg>\n<figcaption class=\"muted\">" + esc(c.Title))
	if c.Empty != "" && c.allZero() {
		b.WriteString(`<br><strong class="chart-empty">` + esc(c.Empty) + "</strong>")
	}
	b.WriteString("</figcaption>\n")
	if c.Fold != "" {
		b.WriteString("<details>\n<summary>" + esc(c.Fold) + "</summary>\n")
	}
	b.WriteString("<table>\n<thead><tr><th scope=\"col\">" + esc(c.Heading) + "</th><th scope=\"col\">" + esc(c.ValueHeading) + "</th></tr></thead>\n<tbody>")
	for _, r := range c.Bars {
		b.WriteString(`<tr><th scope="row">` + esc(r.Label) + "</th><td>" + esc(r.Text) + "</td></tr>")
	}
	b.WriteString("</tbody>\n</table>\n")
	if c.Fold != "" {
		b.WriteString("</details>\n")
	}
	b.WriteString("</figure>")
	return template.HTML(b.String())
}

// allZero reports whether no bar is above 0.
func (c BarChart) allZero() bool {
	for _, r := range c.Bars {
		if r.Value > 0 {
			return false
		}
	}
	return true
}
