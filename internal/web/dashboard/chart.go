package dashboard

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/web"
)

// stackChart is the dashboard's chart, drawn as SVG on the server: a bar a
// period, its segments the series (the status classes of its requests)
// stacked bottom up in their order, on a y axis of round values, with a
// legend. It takes the width of its column without scaling its text: the
// bars are placed in percent of the plot's width, and the y axis's values
// are an SVG of their own beside the plot. Its numbers are in the table
// the page writes under it, which downloads as CSV.
type stackChart struct {
	// ID names the chart in the page (its title's id is ID + "-t").
	ID string
	// Title is the figure's caption and the plot's accessible name.
	Title  string
	Series []series
	Bars   []stack
	// Limit, when positive, is drawn as a dashed line named LimitLabel
	// (a key's daily limit) when the bars reach a quarter of it; far
	// above them, it would flatten them, and the caption says it instead.
	Limit      int64
	LimitLabel string
	// Empty is said over the plot and in the caption when every bar is 0,
	// so that a flat chart does not read as one that failed to draw.
	Empty string
}

// series is one kind of segment: its name (legend, tooltips) and colour.
type series struct{ Name, Color string }

// stack is one bar: Label names it in its tooltip, Axis is written under
// it (empty: nothing, as dense charts name every nth bar), Values are its
// segments, one for each series.
type stack struct {
	Label, Axis string
	Values      []int64
}

// The chart's geometry in CSS pixels: the plot is plotHeight high, its
// bars stand on plotBase and a bar of the axis's top value is plotSpan
// high; the y axis's values are yAxisWidth wide.
const (
	plotHeight = 200
	plotBase   = 170
	plotSpan   = 160
	yAxisWidth = 52
	minSegment = 2 // a segment of a count above 0 is never thinner
)

// pct writes a share of the plot's width as an SVG length.
func pct(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) + "%" }

// HTML is the chart as a figure: caption, legend (of a chart of
// something), the y axis and the plot. Every text in it is escaped.
func (c stackChart) HTML() template.HTML {
	esc := template.HTMLEscapeString
	totals, most := c.totals()
	limitShown := c.Limit > 0 && most*web.AxisSteps >= c.Limit
	step, top := web.AxisOf(most)
	if limitShown {
		step, top = web.AxisOf(max(most, c.Limit))
	}
	var b strings.Builder
	b.Grow(2048 + 400*len(c.Bars))
	b.WriteString(`<figure class="stack" id="` + esc(c.ID) + `">` + "\n<figcaption>" + esc(c.Title))
	if c.Limit > 0 && !limitShown {
		b.WriteString(` <span class="muted">(` + esc(c.LimitLabel) + `: far above these counts)</span>`)
	}
	if most == 0 && c.Empty != "" {
		// Said over the plot too, which is an image to assistive technology.
		b.WriteString(` <span class="chart-empty vh">` + esc(c.Empty) + "</span>")
	}
	b.WriteString("</figcaption>\n")
	if most > 0 {
		c.writeLegend(&b)
	}
	b.WriteString(`<div class="plot">` + "\n")
	c.writeAxis(&b, step, most == 0)
	b.WriteString(`<svg class="bars" width="100%" height="` + strconv.Itoa(plotHeight) + `" role="img" aria-labelledby="` + esc(c.ID) + `-t">` +
		`<title id="` + esc(c.ID) + `-t">` + esc(c.Title) + "</title>\n")
	writeGrid(&b, most == 0)
	slot := 100 / float64(max(len(c.Bars), 1))
	for i, bar := range c.Bars {
		c.writeBar(&b, bar, totals[i], float64(i)*slot, slot, top)
	}
	if limitShown {
		c.writeLimit(&b, top)
	}
	if most == 0 && c.Empty != "" {
		b.WriteString(`<text x="50%" y="` + strconv.Itoa(plotBase-plotSpan/2) + `" text-anchor="middle" font-size="15" fill="#54505e">` + esc(c.Empty) + "</text>\n")
	}
	b.WriteString("</svg>\n</div>\n</figure>")
	return template.HTML(b.String())
}

// writeLimit draws the limit as a dashed line across the plot, named at
// its right end, on an axis whose top value is top.
func (c stackChart) writeLimit(b *strings.Builder, top int64) {
	y := strconv.Itoa(plotBase - int(float64(c.Limit)*plotSpan/float64(top)+0.5))
	b.WriteString(`<line x1="0" x2="100%" y1="` + y + `" y2="` + y + `" stroke="#c2410c" stroke-width="2" stroke-dasharray="6 4"/>` + "\n")
	b.WriteString(`<text x="99%" y="` + y + `" dy="-5" text-anchor="end" font-size="12" fill="#9a3412" stroke="#fff" stroke-width="3" paint-order="stroke">` +
		template.HTMLEscapeString(c.LimitLabel) + "</text>\n")
}

// totals are the bars' totals (negative values count as 0) and the
// largest of them.
func (c stackChart) totals() (totals []int64, most int64) {
	totals = make([]int64, len(c.Bars))
	for i, b := range c.Bars {
		for _, v := range b.Values {
			totals[i] += max(v, 0)
		}
		most = max(most, totals[i])
	}
	return totals, most
}

// writeGrid draws the grid lines across the plot, the base darker; only
// the base for a chart of nothing.
func writeGrid(b *strings.Builder, empty bool) {
	for i := 0; i <= web.AxisSteps; i++ {
		if i > 0 && empty {
			return
		}
		y := strconv.Itoa(plotBase - i*plotSpan/web.AxisSteps)
		color := "#e6e3eb"
		if i == 0 {
			color = "#8d8799"
		}
		b.WriteString(`<line x1="0" x2="100%" y1="` + y + `" y2="` + y + `" stroke="` + color + `"/>` + "\n")
	}
}

// writeLegend names the series and their colours (none for one series:
// the caption names it).
func (c stackChart) writeLegend(b *strings.Builder) {
	if len(c.Series) < 2 {
		return
	}
	b.WriteString(`<ul class="legend">`)
	for _, s := range c.Series {
		b.WriteString(`<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="` +
			template.HTMLEscapeString(s.Color) + `"/></svg>` + template.HTMLEscapeString(s.Name) + "</li>")
	}
	b.WriteString("</ul>\n")
}

// writeAxis writes the y axis's values beside the plot, each at the height
// of its grid line; only 0 for a chart of nothing.
func (c stackChart) writeAxis(b *strings.Builder, step int64, empty bool) {
	w := strconv.Itoa(yAxisWidth)
	b.WriteString(`<svg class="yaxis" width="` + w + `" height="` + strconv.Itoa(plotHeight) + `" aria-hidden="true">` + "\n")
	for i := 0; i <= web.AxisSteps; i++ {
		if i > 0 && empty {
			break
		}
		y := strconv.Itoa(plotBase - i*plotSpan/web.AxisSteps + 4)
		b.WriteString(`<text x="` + strconv.Itoa(yAxisWidth-6) + `" y="` + y + `" text-anchor="end" font-size="12" fill="#54505e">` +
			web.Compact(int64(i)*step) + "</text>\n")
	}
	b.WriteString("</svg>\n")
}

// writeBar writes one bar in its slot (x and width in percent of the
// plot): a group whose tooltip names the period and its counts, with a
// band the pointer can hover over the whole slot's height. A bar of
// nothing is left out; its name under the axis is not.
func (c stackChart) writeBar(b *strings.Builder, bar stack, total int64, x, slot float64, top int64) {
	esc := template.HTMLEscapeString
	mid := pct(x + slot/2)
	if bar.Axis != "" {
		b.WriteString(`<text x="` + mid + `" y="` + strconv.Itoa(plotBase+20) + `" text-anchor="middle" font-size="12" fill="#54505e">` + esc(bar.Axis) + "</text>\n")
	}
	if total <= 0 {
		return
	}
	bx, bw := pct(x+slot*0.14), pct(slot*0.72)
	b.WriteString(`<g><title>` + esc(c.tip(bar, total)) + `</title><rect class="hit" x="` + pct(x) + `" y="` + strconv.Itoa(plotBase-plotSpan) +
		`" width="` + pct(slot) + `" height="` + strconv.Itoa(plotSpan) + `" fill="transparent"/>`)
	low := float64(plotBase) // the top of the segments drawn so far
	for j, v := range bar.Values {
		if v <= 0 || j >= len(c.Series) {
			continue
		}
		h := max(float64(v)*plotSpan/float64(top), minSegment)
		y := max(low-h, plotBase-plotSpan)
		if low-y <= 0 {
			break // the bar is at the top already
		}
		b.WriteString(`<rect x="` + bx + `" y="` + strconv.FormatFloat(y, 'f', 1, 64) + `" width="` + bw + `" height="` +
			strconv.FormatFloat(low-y, 'f', 1, 64) + `" fill="` + esc(c.Series[j].Color) + `"/>`)
		low = y
	}
	b.WriteString("</g>\n")
}

// tip is a bar's tooltip: its period, its total and, for several series,
// the counts of each above 0.
func (c stackChart) tip(bar stack, total int64) string {
	s := bar.Label + ": " + web.Thousands(int(total))
	if len(c.Series) < 2 {
		return s
	}
	var parts []string
	for j, v := range bar.Values {
		if v > 0 && j < len(c.Series) {
			parts = append(parts, c.Series[j].Name+" "+web.Thousands(int(v)))
		}
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}
