package web

import (
	"cmp"
	"html/template"
	"slices"
	"strconv"
	"strings"
)

// The geometry of a chart drawn on its y axis (BarChart.Axis), in CSS
// pixels: the plot is axisPlotHeight high, its bars stand on axisBase and
// a bar of the axis's top value is axisSpan high; the axis's values are
// axisWidth wide. A bar of a count above 0 is never thinner than
// axisMinBar, so one request shows beside a thousand.
const (
	axisPlotHeight = 190
	axisBase       = 160
	axisSpan       = 150
	axisWidth      = 48
	axisMinBar     = 2
)

// AxisSteps is how many steps a y axis is cut into (AxisOf), here and in
// the dashboard's charts.
const AxisSteps = 4

// AxisOf is a y axis over values up to most: AxisSteps steps of a round
// size (1, 2, 2.5 or 5 times a power of ten, 2.5 only from 10 on, so that
// every value on it is whole), its top at least most.
func AxisOf(most int64) (step, top int64) {
	for p := int64(1); ; p *= 10 {
		steps := []int64{p, 2 * p, 5 * p}
		if p >= 10 {
			steps = []int64{p, 2 * p, p / 2 * 5, 5 * p}
		}
		for _, s := range steps {
			if s*AxisSteps >= most {
				return s, s * AxisSteps
			}
		}
	}
}

// Compact writes an axis value short: 950, 5,000, 20k, 1.5M.
func Compact(n int64) string {
	switch {
	case n < 10_000:
		return Thousands(int(n))
	case n < 1_000_000:
		return Decimal(float64(n)/1e3, 1) + "k"
	}
	return Decimal(float64(n)/1e6, 1) + "M"
}

// axisHTML is the chart as wide as its column, on a y axis of round
// values, with the table of its numbers beside it from 64rem (under it on
// a phone), in a region of its own that scrolls, the last bar first (the
// latest period of a chart over time, in view without scrolling). The limit is drawn when
// the bars reach a quarter of it; far above them it would flatten them,
// and the caption says it instead. Bar values are whole numbers.
func (c BarChart) axisHTML() template.HTML {
	esc := template.HTMLEscapeString
	var most int64
	for _, r := range c.Bars {
		most = max(most, int64(r.Value))
	}
	limit := int64(c.Limit)
	limitShown := limit > 0 && most*AxisSteps >= limit
	step, top := AxisOf(most)
	if limitShown {
		step, top = AxisOf(max(most, limit))
	}
	empty := most == 0
	var b strings.Builder
	b.Grow(2048 + 400*len(c.Bars))
	b.WriteString(`<figure class="chart axis" id="` + esc(c.ID) + `">` + "\n<figcaption>" + esc(c.Title))
	if limit > 0 && !limitShown {
		b.WriteString(` <span class="muted">(` + esc(c.LimitLabel) + `: far above these counts)</span>`)
	}
	if empty && c.Empty != "" {
		b.WriteString(`<br><strong class="chart-empty">` + esc(c.Empty) + "</strong>")
	}
	b.WriteString("</figcaption>\n<div class=\"plot\">\n")
	// The axis's values, beside the plot.
	w := strconv.Itoa(axisWidth)
	b.WriteString(`<svg class="yaxis" width="` + w + `" height="` + strconv.Itoa(axisPlotHeight) + `" aria-hidden="true">` + "\n")
	for i := 0; i <= AxisSteps && !(i > 0 && empty); i++ {
		y := strconv.Itoa(axisBase - i*axisSpan/AxisSteps + 4)
		b.WriteString(`<text x="` + strconv.Itoa(axisWidth-6) + `" y="` + y + `" text-anchor="end" font-size="12" fill="#54505e">` +
			Compact(int64(i)*step) + "</text>\n")
	}
	b.WriteString("</svg>\n")
	b.WriteString(`<svg class="bars" width="100%" height="` + strconv.Itoa(axisPlotHeight) + `" role="img" aria-labelledby="` + esc(c.ID) + `-t">` +
		`<title id="` + esc(c.ID) + `-t">` + esc(c.Title) + "</title>\n")
	for i := 0; i <= AxisSteps && !(i > 0 && empty); i++ {
		y := strconv.Itoa(axisBase - i*axisSpan/AxisSteps)
		color := "#e6e3eb"
		if i == 0 {
			color = "#8d8799"
		}
		b.WriteString(`<line x1="0" x2="100%" y1="` + y + `" y2="` + y + `" stroke="` + color + `"/>` + "\n")
	}
	slot := 100 / float64(max(len(c.Bars), 1))
	for i, r := range c.Bars {
		x := float64(i) * slot
		if r.Axis != "" {
			b.WriteString(`<text x="` + pct(x+slot/2) + `" y="` + strconv.Itoa(axisBase+20) + `" text-anchor="middle" font-size="12" fill="#54505e">` + esc(r.Axis) + "</text>\n")
		}
		v := int64(r.Value)
		if v <= 0 {
			continue
		}
		h := min(max(float64(v)*axisSpan/float64(top), axisMinBar), axisSpan)
		b.WriteString(`<rect x="` + pct(x+slot*0.15) + `" y="` + strconv.FormatFloat(axisBase-h, 'f', 1, 64) + `" width="` + pct(slot*0.7) +
			`" height="` + strconv.FormatFloat(h, 'f', 1, 64) + `" fill="` + esc(r.Color) + `"><title>` + esc(r.Label+": "+r.Text) + "</title></rect>\n")
	}
	if limitShown {
		y := strconv.Itoa(axisBase - int(float64(limit)*axisSpan/float64(top)+0.5))
		b.WriteString(`<line x1="0" x2="100%" y1="` + y + `" y2="` + y + `" stroke="#c2410c" stroke-width="2" stroke-dasharray="6 4"/>` + "\n")
		b.WriteString(`<text x="99%" y="` + y + `" dy="-5" text-anchor="end" font-size="12" fill="#9a3412" stroke="#fff" stroke-width="3" paint-order="stroke">` +
			esc(c.LimitLabel) + "</text>\n")
	}
	b.WriteString("</svg>\n</div>\n")
	b.WriteString(`<div class="numbers" role="region" aria-label="` + esc(cmp.Or(c.Fold, c.Title)) + `" tabindex="0">` + "\n")
	b.WriteString("<table>\n<thead><tr><th scope=\"col\">" + esc(c.Heading) + "</th><th scope=\"col\">" + esc(c.ValueHeading) + "</th></tr></thead>\n<tbody>")
	for _, r := range slices.Backward(c.Bars) {
		b.WriteString(`<tr><th scope="row">` + esc(r.Label) + "</th><td>" + esc(r.Text) + "</td></tr>")
	}
	b.WriteString("</tbody>\n</table>\n</div>\n</figure>")
	return template.HTML(b.String())
}

// pct writes a share of the plot's width as an SVG length.
func pct(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) + "%" }
