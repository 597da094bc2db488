package site

import (
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/web"
)

// shareChart is a chart of vote shares (0–100) drawn by the ground's
// BarChart. The tallest bar takes the chart's height: shares of a few
// dozen percent would otherwise be slivers. The numbers say the shares,
// above the bars and in a table folded under the chart.
func shareChart(id, title, heading string, labels, colors []string, values []float64) web.BarChart {
	c := web.BarChart{ID: id, Title: title, Heading: heading, ValueHeading: "Share of votes (%)", Values: true, Fold: "The numbers"}
	for i, v := range values {
		v = min(max(v, 0), 100)
		c.Bars = append(c.Bars, web.Bar{Label: labels[i], Axis: labels[i], Value: v, Text: web.Decimal(v, 1), Color: colors[i]})
	}
	return c
}

func seasonChart(s catalog.Seasons) web.BarChart {
	return shareChart("seasons", "When to wear it: share of votes per season", "Season",
		[]string{"Winter", "Spring", "Summer", "Fall"},
		[]string{"#3b6ea5", "#4c9a2a", "#d98c00", "#a0522d"},
		[]float64{s.Winter, s.Spring, s.Summer, s.Fall})
}

func dayNightChart(d catalog.DayNight) web.BarChart {
	return shareChart("daynight", "Day or night: share of votes", "Time",
		[]string{"Day", "Night"}, []string{"#e0a800", "#2c3e70"}, []float64{d.Day, d.Night})
}
