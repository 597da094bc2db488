package dashboard_test

import (
	"context"
	"encoding/csv"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// The keys of the known load.
const (
	keyA = "fds_Aaaa1111"
	keyB = "fds_Bbbb2222"
)

// knownLoad fills the store with a known mix of requests, by key,
// endpoint, status and time, with rows just outside every span that must
// not be counted. The hourly and daily counts are written apart, as rows:
// the store adds each count it records to its hour and to its day, and
// these tables are read apart.
func knownLoad(e *env) {
	hour := start.Truncate(time.Hour) // 2026-03-10 12:00
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	h := func(prefix, ep, class string, at time.Time, n int64) usage.Count {
		return usage.Count{KeyPrefix: prefix, Endpoint: ep, StatusClass: class, Start: at, Count: n}
	}
	e.usageRows("usage_hourly", "hour", []usage.Count{
		h(keyA, "/api/perfumes", "2xx", hour, 40),
		h(keyA, "/api/perfumes", usage.ClassRateLimited, hour, 5),
		h(keyA, "/api/perfumes", "5xx", hour.Add(-time.Hour), 2),
		h(keyB, "/api/search", "2xx", hour.Add(-time.Hour), 10),
		h(keyB, "/api/search", "4xx", hour.Add(-time.Hour), 3),
		h(keyA, "/api/perfumes", "2xx", hour.Add(-48*time.Hour), 1000), // just before the 48 hours
	})
	e.usageRows("usage_daily", "day", []usage.Count{
		h(keyA, "/api/perfumes", "2xx", day, 40),
		h(keyA, "/api/perfumes", usage.ClassRateLimited, day, 5),
		h("", "/api/search", "2xx", day, 6),
		h(keyA, "/api/perfumes", "5xx", day.AddDate(0, 0, -1), 2),
		h(keyA, "/api/perfumes", "2xx", day.AddDate(0, 0, -1), 100),
		h(keyB, "/api/search", "2xx", day.AddDate(0, 0, -1), 10),
		h(keyB, "/api/search", "4xx", day.AddDate(0, 0, -1), 3),
		h(keyA, "/api/perfumes", "2xx", day.AddDate(0, 0, -89), 7),
		h(keyA, "/api/perfumes", "2xx", day.AddDate(0, 0, -90), 500), // just before the 90 days
	})
	e.Record(usage.Batch{
		Latency: []usage.Latency{
			{Endpoint: "/api/perfumes", Hour: hour, Bucket: 4, Count: 60}, // 2–4 ms
			{Endpoint: "/api/perfumes", Hour: hour.Add(-time.Hour), Bucket: 4, Count: 40},
			{Endpoint: "/api/search", Hour: hour, Bucket: 0, Count: 10},                       // under 0.25 ms
			{Endpoint: "/api/search", Hour: hour.Add(-24 * time.Hour), Bucket: 15, Count: 99}, // before the 24 hours
		},
		Clicks: []usage.Click{
			{PerfumeID: 1, Day: day, Count: 2}, {PerfumeID: 2, Day: day, Count: 1},
			{PerfumeID: 1, Day: day.AddDate(0, 0, -1), Count: 4},
			{PerfumeID: 1, Day: day.AddDate(0, 0, -90), Count: 9},
		},
		Views: []usage.View{
			{PerfumeID: 1, Kind: usage.ViewDetail, Day: day, Count: 10}, {PerfumeID: 1, Kind: usage.ViewSimilar, Day: day, Count: 2},
			{PerfumeID: 1, Kind: usage.ViewDupes, Day: day, Count: 1}, {PerfumeID: 404, Kind: usage.ViewDetail, Day: day, Count: 1},
		},
		EmptySearches: []usage.Search{{Query: "=cmd", Day: day, Count: 4}, {Query: "oud rose", Day: day.AddDate(0, 0, -1), Count: 2}},
	})
	for _, k := range []apikey.Key{
		{Prefix: keyA, Name: "Shop", Email: "a@example.com", Tier: apikey.Pro, State: apikey.Active},
		{Prefix: keyB, Name: "Blog", Tier: apikey.Free, State: apikey.Suspended},
		{Prefix: "fds_Cccc3333", Tier: apikey.Free, State: apikey.Revoked},
		{Prefix: "fds_Dddd4444", Tier: apikey.Free, State: apikey.Active, ExpiresAt: start.Add(-time.Minute)},
	} {
		e.addKey(k)
	}
	a, b, c := e.addAccount("a@example.com"), e.addAccount("b@example.com"), e.addAccount("c@example.com")
	_, err := e.Store.SetAccountDisabled(context.Background(), b.ID, true)
	e.ok(err)
	e.ok(e.Store.DeleteAccount(context.Background(), c.ID, start))
	if a.ID != 1 || b.ID != 2 || c.ID != 3 {
		e.T.Fatalf("accounts %d, %d, %d: want 1, 2, 3", a.ID, b.ID, c.ID)
	}
}

// TestOverviewCounts: the overview's tables show exactly the counts of the
// known load, and each CSV download holds exactly its table.
func TestOverviewCounts(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	knownLoad(e)
	session := e.admin()
	rec := e.get("/admin", session)
	if rec.Code != http.StatusOK {
		t.Fatalf("overview: %d\n%s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	nonZero := func(rows [][]string) [][]string {
		var out [][]string
		for _, r := range rows {
			if r[len(r)-1] != "0" {
				out = append(out, r)
			}
		}
		return out
	}
	want := map[string][][]string{
		"hourly": {
			{"2026-03-10 11:00", "10", "0", "3", "0", "2", "15"},
			{"2026-03-10 12:00", "40", "0", "0", "5", "0", "45"},
		},
		"daily": {
			{"2025-12-11", "7", "0", "0", "0", "0", "7"},
			{"2026-03-09", "110", "0", "3", "0", "2", "115"},
			{"2026-03-10", "46", "0", "0", "5", "0", "51"},
		},
		"rates": {
			{"Last 24 hours", "60", "2", "3.33", "5", "8.33"},
			{"Last 48 hours", "60", "2", "3.33", "5", "8.33"},
			{"Last 90 days", "173", "2", "1.16", "5", "2.89"},
		},
		"latency": {
			{"/api/perfumes", "100", "3", "3.9", "4"},
			{"/api/search", "10", "0.1", "0.2", "0.2"},
		},
		"counts": {
			{"Keys, active", "1"}, {"Keys, suspended", "1"}, {"Keys, revoked or expired", "2"},
			{"Keys that made requests in the last 24 hours", "2"},
			{"Accounts", "1"}, {"Accounts, disabled", "1"}, {"Accounts, deleted", "1"},
		},
		"clicks": {{"2026-03-09", "4"}, {"2026-03-10", "3"}},
		"topkeys": {
			{keyA, "Shop", "a@example.com", "147", "5", "2"},
			{keyB, "Blog", "", "13", "0", "0"},
			{"(no key)", "", "", "6", "0", "0"},
		},
		"topperfumes": {{"Perfume 1", "10", "2", "1", "13"}, {"#404", "1", "0", "0", "1"}},
		"empty":       {{"=cmd", "4", "2026-03-10"}, {"oud rose", "2", "2026-03-09"}},
	}
	for id, rows := range want {
		got := tableRows(t, body, id)
		if id == "hourly" || id == "daily" || id == "clicks" {
			if n := map[string]int{"hourly": 48, "daily": 90, "clicks": 90}[id]; len(got) != n {
				t.Errorf("table %s: %d rows, want %d", id, len(got), n)
			}
			got = nonZero(got)
		}
		if !slices.EqualFunc(got, rows, slices.Equal) {
			t.Errorf("table %s:\n got %q\nwant %q", id, got, rows)
		}
		csvRec := e.get("/admin?format=csv&table="+id, session)
		if csvRec.Code != http.StatusOK || !strings.HasPrefix(csvRec.Header().Get("Content-Type"), "text/csv") {
			t.Errorf("CSV %s: %d %q", id, csvRec.Code, csvRec.Header().Get("Content-Type"))
			continue
		}
		assertCSVMatches(t, id, csvRec.Body.String(), tableRows(t, body, id))
	}
	if !strings.Contains(e.get("/admin?format=csv&table=empty", session).Body.String(), "'=cmd") {
		t.Error("a search that looks like a formula is not defused in the CSV")
	}
	if rec := e.get("/admin?format=csv&table=nope", session); rec.Code != http.StatusNotFound {
		t.Errorf("CSV of an unknown table: %d", rec.Code)
	}
	// Every table links its CSV; every chart is SVG with its numbers.
	for id := range want {
		areatest.MustContain(t, "overview", body, `href="/admin?format=csv&amp;table=`+id+`"`)
	}
	if n, plots := strings.Count(body, `<figure class="stack"`), strings.Count(body, `<svg class="bars"`); n != 3 || plots != 3 {
		t.Errorf("%d charts with %d plots, want 3 (a stacked chart a period, and the clicks)", n, plots)
	}
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tagRE  = regexp.MustCompile(`<[^>]+>`)
)

// tableRows reads the body rows of the table id of a page, each cell's text.
func tableRows(t *testing.T, body, id string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `<table id="`+id+`-table">`)
	if !ok {
		t.Fatalf("no table %s", id)
	}
	rest, _, _ = strings.Cut(rest, "</table>")
	_, tbody, _ := strings.Cut(rest, "<tbody>")
	var out [][]string
	for _, r := range rowRE.FindAllStringSubmatch(tbody, -1) {
		var row []string
		for _, c := range cellRE.FindAllStringSubmatch(r[1], -1) {
			row = append(row, html.UnescapeString(strings.TrimSpace(tagRE.ReplaceAllString(c[1], ""))))
		}
		if len(row) == 1 && strings.Contains(r[1], "colspan") {
			continue // the table's "none" row
		}
		out = append(out, row)
	}
	return out
}

// assertCSVMatches: a CSV holds the table's rows (numbers without their
// separators, a defused formula with its apostrophe).
func assertCSVMatches(t *testing.T, what, data string, rows [][]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("CSV %s: %v", what, err)
	}
	norm := func(s string) string {
		if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@", rune(s[1])) {
			s = s[1:]
		}
		if s == "—" {
			return ""
		}
		return strings.ReplaceAll(s, ",", "")
	}
	body := recs[1:]
	if len(body) != len(rows) {
		t.Fatalf("CSV %s: %d rows, the table %d", what, len(body), len(rows))
	}
	for i := range rows {
		for j := range rows[i] {
			if j >= len(body[i]) || norm(body[i][j]) != norm(rows[i][j]) {
				t.Errorf("CSV %s row %d: %q, the table %q", what, i, body[i], rows[i])
				break
			}
		}
	}
}

// TestOverviewSummary: the overview starts with the summary's tiles, each
// figure of the known load, and the same figures download as CSV; with
// server errors and unseen signals their tiles ask for attention.
func TestOverviewSummary(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	knownLoad(e)
	e.signals([]usage.Signal{{Kind: usage.SignalLimitHits, KeyPrefix: keyA, Count: 50, Window: time.Hour, At: start.Add(-time.Hour)}})
	session := e.admin()
	body := e.get("/admin", session).Body.String()
	at, chart := strings.Index(body, `<ul class="tiles">`), strings.Index(body, `<figure class="stack"`)
	if at < 0 || chart < at {
		t.Fatal("the overview does not start with its tiles")
	}
	tiles, _, _ := strings.Cut(body[at:], "</ul>")
	want := [][]string{
		{"Requests this hour", "45", "since 12:00 UTC"},
		{"Requests today", "60", "since 00:00 UTC"},
		{"Server errors (5xx) (%)", "3.33", "2 of 60 requests in 24 hours"},
		{"Refused by a limit (429) (%)", "8.33", "5 of 60 requests in 24 hours"},
		{"Latency, p95 (ms)", "3.9", "of 110 requests in 24 hours, every endpoint"},
		{"Active keys", "1", "2 made requests in 24 hours"},
		{"New accounts", "3", "in 7 days; 3 today"},
		{"Open abuse signals", "1", "not seen by you, the last 7 days"},
	}
	recs, err := csv.NewReader(strings.NewReader(e.get("/admin?format=csv&table=summary", session).Body.String())).ReadAll()
	if err != nil || len(recs) == 0 || !slices.Equal(recs[0], []string{"Figure", "Value", "Detail"}) || !slices.EqualFunc(recs[1:], want, slices.Equal) {
		t.Errorf("the summary's CSV (%v):\n got %q\nwant %q", err, recs, want)
	}
	for _, w := range want {
		name, _, _ := strings.Cut(w[0], " (%)")
		name, _, _ = strings.Cut(name, " (ms)")
		areatest.MustContain(t, "the tiles", tiles, `<span class="name">`+html.EscapeString(name)+`</span>`, html.EscapeString(w[2]))
	}
	areatest.MustContain(t, "the tiles", tiles, `<span class="value">3.33<small> %</small></span>`, `<span class="value">3.9<small> ms</small></span>`,
		`<li class="alert"><a href="#rates-h"><span class="name">Server errors (5xx)`, `<li class="alert"><a href="/admin/abuse">`,
		`<li><a href="/admin/keys?state=active">`)
	if n := strings.Count(tiles, `class="alert"`); n != 2 {
		t.Errorf("%d tiles ask for attention, want 2", n)
	}
}

// TestOverviewEmpty: on a new service the tiles count nothing, the rates
// and the latency are "—", and every chart says that nothing came yet.
func TestOverviewEmpty(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	body := e.get("/admin", session).Body.String()
	areatest.MustContain(t, "an empty overview", body,
		`<span class="name">Requests today</span>`+"\n"+`<span class="value">0</span>`,
		`<span class="name">Latency, p95</span>`+"\n"+`<span class="value">—</span>`, "no requests in 24 hours",
		`<span class="chart-empty vh">No requests yet in this period.</span>`,
		`<span class="chart-empty vh">No buy-link clicks in these days yet.</span>`)
	if strings.Contains(body, `class="alert"`) {
		t.Error("an empty overview asks for attention")
	}
}
