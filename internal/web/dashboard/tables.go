package dashboard

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/web"
)

// table is one table of a page, and the same table as CSV: every figure
// the dashboard shows is in one, and its CSV link downloads exactly its
// rows (the page's filters kept).
type table struct {
	// ID names the table in the page and in its CSV address (?table=ID).
	ID, Caption string
	Head        []string
	Rows        [][]cell
	// Empty is shown when there are no rows.
	Empty string
	// Fold, when set, folds a long table in a details element whose
	// summary it is.
	Fold string
	// Grid marks a table of numbers read across and down (periods by
	// status class): on a narrow screen it scrolls sideways inside its
	// labelled region. Every other wide table (Cards) shows each row as a
	// card there, its cells named by their column.
	Grid bool
	// Forms, when set, adds an action column to the page (not the CSV):
	// one form for each row, nil for none.
	Forms []*rowForm
	// CSV is the address of the table as CSV (set by tablesOf).
	CSV string
}

// rowForm is a form in a row of a table: a POST to Action with a reason
// (prefilled) and a button.
type rowForm struct {
	Action, ID, Reason, Button string
}

// Cards reports whether the table shows a card a row on a narrow screen:
// a table of more than three columns, or of a form a row, that is not a
// Grid. A narrower table fits as it is.
func (t *table) Cards() bool { return !t.Grid && (len(t.Head) > 3 || t.Forms != nil) }

// head is a column's heading; Num aligns it to the right, over numbers.
type head struct {
	Text string
	Num  bool
}

// Heads are the table's headings, each of a column of numbers aligned as
// its numbers are.
func (t *table) Heads() []head {
	hs := make([]head, len(t.Head))
	for j, h := range t.Head {
		hs[j].Text = h
		for _, row := range t.Rows {
			if j < len(row) && row[j].Num {
				hs[j].Num = true
				break
			}
		}
	}
	return hs
}

// cell is one cell: Text as the page shows it, Raw as the CSV has it.
type cell struct {
	Text, Raw string
	// Href links the cell's text (on the page).
	Href string
	// Num aligns a number to the right.
	Num bool
}

// txt is a cell of text.
func txt(s string) cell { return cell{Text: s, Raw: s} }

// linked is a cell of text linking to href.
func linked(s, href string) cell { return cell{Text: s, Raw: s, Href: href} }

// num is a cell of a count: with thousands separators on the page, plain
// in the CSV.
func num(n int64) cell {
	return cell{Text: web.Thousands(int(n)), Raw: strconv.FormatInt(n, 10), Num: true}
}

// dec is a cell of a decimal number with at most digits decimals; "—"
// when ok is false (a rate of nothing).
func dec(f float64, digits int, ok bool) cell {
	if !ok {
		return cell{Text: "—", Raw: "", Num: true}
	}
	s := web.Decimal(f, digits)
	return cell{Text: s, Raw: s, Num: true}
}

// hourCell and dayCell write the start of an hour or a day, in UTC.
func hourCell(t time.Time) cell { return txt(t.UTC().Format("2006-01-02 15:00")) }
func dayCell(t time.Time) cell  { return txt(t.UTC().Format(time.DateOnly)) }

// tablesOf gives each table its CSV address: the page's own address with
// format=csv and table=ID.
func tablesOf(u *url.URL, ts ...*table) []*table {
	for _, t := range ts {
		q := u.Query()
		q.Set("format", "csv")
		q.Set("table", t.ID)
		t.CSV = u.Path + "?" + q.Encode()
	}
	return ts
}

// serveCSV answers the table a request asks for as CSV (?format=csv&
// table=ID) and reports true; false when the request asks for the page.
// An unknown table is a 404.
func (d *Dashboard) serveCSV(w http.ResponseWriter, r *http.Request, ts []*table) bool {
	q := r.URL.Query()
	if q.Get("format") != "csv" {
		return false
	}
	id := q.Get("table")
	for _, t := range ts {
		if t.ID == id {
			writeCSV(w, t)
			return true
		}
	}
	d.notFound(w, r)
	return true
}

// writeCSV writes t as CSV (RFC 4180): its head, then its rows' raw
// values. A text cell that a spreadsheet would take for a formula (a
// search someone typed, say) starts with an apostrophe.
func writeCSV(w http.ResponseWriter, t *table) {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="fragrance-admin-`+t.ID+`.csv"`)
	h.Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	cw.Write(t.Head)
	rec := make([]string, len(t.Head))
	for _, row := range t.Rows {
		for i := range rec {
			rec[i] = ""
			if i < len(row) {
				rec[i] = csvSafe(row[i])
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
}

// csvSafe is a cell's CSV value, defused when it could be read as a formula.
func csvSafe(c cell) string {
	if !c.Num && c.Raw != "" && strings.ContainsRune("=+-@\t\r", rune(c.Raw[0])) {
		return "'" + c.Raw
	}
	return c.Raw
}
