package site

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
)

// chart is a bar chart drawn as SVG on the server: readable without
// JavaScript, and its numbers are also in a table beside it.
type chart struct {
	ID, Title, Heading string
	Width              int
	Bars               []bar
}

// bar is one bar of a chart, in SVG user units (the chart is 150 high;
// bars stand on y = 120, the tallest 100 high).
type bar struct {
	Label, Value, Color string
	X, Y, W, H          int
	LabelX, ValueY      int
}

const (
	chartBase = 120 // the baseline of the bars
	chartTop  = 100 // the height of a bar of 100%
	barWidth  = 56
	barGap    = 24
)

// newChart lays out bars of values 0–100.
func newChart(id, title, heading string, labels, colors []string, values []float64) chart {
	c := chart{ID: id, Title: title, Heading: heading, Width: len(values)*(barWidth+barGap) + barGap}
	// The tallest bar takes the chart's height: shares of a few dozen
	// percent would otherwise be slivers. The numbers say the shares.
	top := 1.0
	for _, v := range values {
		top = max(top, min(v, 100))
	}
	for i, v := range values {
		v = min(max(v, 0), 100)
		h := int(v*chartTop/top + 0.5)
		x := barGap + i*(barWidth+barGap)
		c.Bars = append(c.Bars, bar{
			Label: labels[i], Value: web.Decimal(v, 1), Color: colors[i],
			X: x, Y: chartBase - h, W: barWidth, H: h,
			LabelX: x + barWidth/2, ValueY: chartBase - h - 6,
		})
	}
	return c
}

func seasonChart(s catalog.Seasons) chart {
	return newChart("seasons", "When to wear it: share of votes per season", "Season",
		[]string{"Winter", "Spring", "Summer", "Fall"},
		[]string{"#3b6ea5", "#4c9a2a", "#d98c00", "#a0522d"},
		[]float64{s.Winter, s.Spring, s.Summer, s.Fall})
}

func dayNightChart(d catalog.DayNight) chart {
	return newChart("daynight", "Day or night: share of votes", "Time",
		[]string{"Day", "Night"}, []string{"#e0a800", "#2c3e70"}, []float64{d.Day, d.Night})
}

// HTML is the chart as a figure: the SVG and a table of its numbers. It is
// written in Go rather than by the template (every bar is several
// attributes: it was a sixth of a page's rendering); every text in it is
// escaped.
func (c chart) HTML() template.HTML {
	esc := template.HTMLEscapeString
	var b strings.Builder
	b.Grow(2048)
	w := strconv.Itoa(c.Width)
	b.WriteString(`<figure class="chart">` + "\n" + `<svg viewBox="0 0 ` + w + ` 150" width="` + w + `" height="150" role="img" aria-labelledby="` +
		esc(c.ID) + `-t"><title id="` + esc(c.ID) + `-t">` + esc(c.Title) + "</title>\n")
	b.WriteString(`<line x1="0" y1="120" x2="` + w + `" y2="120" stroke="#8d8799"/>` + "\n")
	for _, r := range c.Bars {
		x, lx := strconv.Itoa(r.X), strconv.Itoa(r.LabelX)
		b.WriteString(`<rect x="` + x + `" y="` + strconv.Itoa(r.Y) + `" width="` + strconv.Itoa(r.W) + `" height="` + strconv.Itoa(r.H) +
			`" rx="3" fill="` + esc(r.Color) + `"/>` + "\n")
		b.WriteString(`<text x="` + lx + `" y="` + strconv.Itoa(r.ValueY) + `" text-anchor="middle" font-size="13" fill="#1d1b22">` + esc(r.Value) + "</text>\n")
		b.WriteString(`<text x="` + lx + `" y="140" text-anchor="middle" font-size="13" fill="#1d1b22">` + esc(r.Label) + "</text>\n")
	}
	b.WriteString("</svg>\n<figcaption class=\"muted\">" + esc(c.Title) + "</figcaption>\n<table>\n<thead><tr><th scope=\"col\">" +
		esc(c.Heading) + "</th><th scope=\"col\">Share of votes (%)</th></tr></thead>\n<tbody>")
	for _, r := range c.Bars {
		b.WriteString(`<tr><th scope="row">` + esc(r.Label) + "</th><td>" + esc(r.Value) + "</td></tr>")
	}
	b.WriteString("</tbody>\n</table>\n</figure>")
	return template.HTML(b.String())
}
