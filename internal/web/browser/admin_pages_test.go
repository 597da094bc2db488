package browser_test

import (
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/testbin"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// adminPages is every kind of dashboard page on a service of its own (a
// new database with the small catalogue, so the overview starts empty):
// the sign-in form, the overview empty and then with 90 days of requests,
// keys, a key, accounts, an account, tier requests, abuse signals, the
// audit log and the second factor. On each: no cookie banner (the
// dashboard's one cookie is strictly necessary), the dashboard's own
// header and not the site's perfume search, axe-core clean, and at 390
// and 1280 px nothing scrolls sideways and no table of cards is cut (a
// table of numbers scrolls inside its labelled region instead); each is
// photographed at both widths, its first screen and whole.
func adminPages(t *testing.T, svc *service) {
	db := filepath.Join(t.TempDir(), "admin.db")
	seed, err := filepath.Abs("../../../cmd/fragrance/testdata/catalogue-small.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := testbin.Serve(t, svc.bin, "--db", db, "--seed-file", seed, "--admin-allow", "127.0.0.1/32")
	const email, password = "ops@example.com", "a long enough password"
	createAdmin(t, svc.bin, db, email, password)
	look := adminPhotographer(t)
	ctx := browser(t)

	run(t, ctx, chromedp.Navigate(base+"/admin"), chromedp.WaitVisible(css(`#password`)))
	look(ctx, "sign-in", false)
	run(t, ctx, chromedp.SendKeys(css(`#email`), email), chromedp.SendKeys(css(`#password`), password))
	submit(t, ctx, `form[action="/admin/signin"] button`)
	if s := get(t, ctx, chromedp.Text(css(`header .who`))); !strings.Contains(s, email) || !strings.Contains(s, "Sign out") {
		t.Errorf("the header names %q", s)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".chart-empty")].filter(e => e.textContent.startsWith("No requests yet")).length`)); n != 2 {
		t.Errorf("the empty overview says %d times that no requests came yet, want 2", n)
	}
	look(ctx, "overview-empty", true)

	prefixes := seedDashboard(t, db, seed)
	run(t, ctx, chromedp.Reload(), chromedp.WaitReady(css(`footer`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("main figure.stack svg.bars rect:not(.hit)").length`)); n < 100 {
		t.Errorf("the overview with data draws %d segments", n)
	}
	tiles := get(t, ctx, chromedp.Text(css(`ul.tiles`)))
	for _, want := range []string{"Requests today", "Latency, p95", "Open abuse signals"} {
		if !strings.Contains(tiles, want) {
			t.Errorf("the tiles lack %q: %s", want, tiles)
		}
	}
	look(ctx, "overview", true)
	for _, p := range []struct{ name, path string }{
		{"keys", "/admin/keys"}, {"key", "/admin/keys/" + prefixes[0]}, {"accounts", "/admin/accounts"}, {"account", "/admin/accounts/1"},
		{"tier-requests", "/admin/tier-requests"}, {"abuse", "/admin/abuse"}, {"second-factor", "/admin/totp"},
	} {
		run(t, ctx, chromedp.Navigate(base+p.path), chromedp.WaitReady(css(`footer`)))
		look(ctx, p.name, true)
	}
	run(t, ctx, chromedp.Navigate(base+"/admin/keys/"+prefixes[1]), chromedp.WaitVisible(css(`#suspend-reason`)),
		chromedp.SendKeys(css(`#suspend-reason`), "Scraping the whole catalogue every hour, against the terms"))
	submit(t, ctx, `form[action$="/suspend"] button`)
	run(t, ctx, chromedp.Navigate(base+"/admin/audit"), chromedp.WaitVisible(css(`#audit-table`)))
	look(ctx, "audit", true)
}

// createAdmin makes an admin with the CLI, as an operator does.
func createAdmin(t *testing.T, bin, db, email, password string) {
	t.Helper()
	create := exec.Command(bin, "admin", "create-user", "--db", db, "--email", email, "--password-stdin")
	create.Stdin = strings.NewReader(password + "\n")
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("admin create-user: %v\n%s", err, out)
	}
}

// adminPhotographer returns look: it checks the dashboard page shown in
// ctx (the sign-in form's header names nobody, so signedIn is false
// there), runs axe-core on it, and saves it at 390 and 1280 px, the first
// screen and the whole page; the tab is left at 1280 px.
func adminPhotographer(t *testing.T) func(ctx context.Context, name string, signedIn bool) {
	axe := axeSource(t)
	shots := screenshotDir(t)
	step := 0
	return func(ctx context.Context, name string, signedIn bool) {
		t.Helper()
		step++
		axeCheck(t, ctx, axe, "admin "+name)
		for _, width := range []int64{390, 1280} {
			viewport := chromedp.EmulateViewport(width, 844)
			if width < 600 {
				viewport = chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait)
			}
			run(t, ctx, viewport)
			checkAdminPage(t, ctx, fmt.Sprintf("%s at %d px", name, width), signedIn)
			for suffix, shot := range map[string]chromedp.Action[[]byte]{"-screen": chromedp.CaptureScreenshot(), "": chromedp.FullScreenshot(100)} {
				file := filepath.Join(shots, fmt.Sprintf("admin-pages-%02d-%s-%d%s.png", step, name, width, suffix))
				if err := os.WriteFile(file, get(t, ctx, shot), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		run(t, ctx, chromedp.EmulateViewport(1280, 900))
	}
}

// adminLayout is what checkAdminPage reads of a page in the browser.
type adminLayout struct {
	Banner, SiteSearch, Header, Sections, SignOut bool
	Sideways                                      int64
	// Cut are the tables of cards wider than their box, Squeezed those
	// whose caption is squeezed to less than half of it; Unlabelled the
	// boxes that scroll without being a labelled, focusable region.
	Cut, Squeezed, Unlabelled []string
}

// adminLayoutJS reads an adminLayout, with every folded table unfolded
// for the reading (and folded again).
const adminLayoutJS = `(() => {
	const folds = [...document.querySelectorAll("details.fold:not([open])")];
	folds.forEach(d => d.open = true);
	const layout = JSON.stringify({
	banner: !!document.querySelector("section.consent"),
	siteSearch: !!document.querySelector("#top-q"),
	header: !!document.querySelector("header.adminhead"),
	sections: !!document.querySelector("header.adminhead nav.adminbar a[href='/admin/keys']"),
	signOut: !!document.querySelector("header.adminhead form[action='/admin/signout'] button"),
	sideways: document.documentElement.scrollWidth - window.innerWidth,
	cut: [...document.querySelectorAll(".tablebox.cards")].filter(b => b.scrollWidth > b.clientWidth + 1 && b.offsetParent).map(b => b.querySelector("table").id),
	squeezed: [...document.querySelectorAll(".tablebox")].filter(b => b.offsetParent && b.querySelector("caption").offsetWidth < b.clientWidth / 2)
		.map(b => b.querySelector("table").id),
	unlabelled: [...document.querySelectorAll(".tablebox")].filter(b => b.scrollWidth > b.clientWidth + 1 &&
		!(b.getAttribute("role") === "region" && b.tabIndex === 0 && document.getElementById(b.getAttribute("aria-labelledby") || "")?.textContent.trim()))
		.map(b => b.querySelector("table").id),
	});
	folds.forEach(d => d.open = false);
	return layout;
})()`

// checkAdminPage holds the page shown in ctx to the dashboard's frame.
func checkAdminPage(t *testing.T, ctx context.Context, what string, signedIn bool) {
	t.Helper()
	var l adminLayout
	if err := json.Unmarshal([]byte(get(t, ctx, chromedp.Evaluate[string](adminLayoutJS))), &l); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if l.Banner {
		t.Errorf("%s: a cookie banner", what)
	}
	if l.SiteSearch || !l.Header || l.Sections != signedIn || l.SignOut != signedIn {
		t.Errorf("%s: not the dashboard's header (%+v)", what, l)
	}
	if l.Sideways > 0 {
		t.Errorf("%s: scrolls sideways by %d px", what, l.Sideways)
	}
	if len(l.Cut) > 0 || len(l.Squeezed) > 0 || len(l.Unlabelled) > 0 {
		t.Errorf("%s: tables cut %v, with a squeezed caption %v, scrolling without a labelled region %v", what, l.Cut, l.Squeezed, l.Unlabelled)
	}
}

// seedDashboard writes what an operator's dashboard shows after a few
// months into the service's database, beside the running service (SQLite
// in WAL mode takes both): accounts, keys, a tier request, abuse signals,
// 90 days of requests by key, endpoint and status, a day of latency, and
// clicks, views and searches that found nothing. It returns the keys'
// prefixes, the busiest first.
func seedDashboard(t *testing.T, path, catalogue string) []string {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	accounts := seedAccounts(t, db, now)
	var prefixes []string
	for _, k := range []apikey.Key{
		{Prefix: "fds_Shop0001", Name: "Shop search", Email: "dev@shop.example", Tier: apikey.Pro, AccountID: accounts[0].ID},
		{Prefix: "fds_Trak0002", Name: "Price tracker", Email: "prices@tracker.example", Tier: apikey.Free, AccountID: accounts[2].ID},
		{Prefix: "fds_Blog0003", Name: "Blog widget", Email: "blog@example.org", Tier: apikey.Free, AccountID: accounts[1].ID,
			Origins: []string{"https://blog.example.org"}},
		{Prefix: "fds_Ops00004", Name: "Nightly export", Tier: apikey.Basic},
		{Prefix: "fds_Old00005", Name: "Old integration", Email: "dev@shop.example", Tier: apikey.Free, State: apikey.Revoked, AccountID: accounts[0].ID},
	} {
		k.Hash, k.State = "seed hash of "+k.Prefix, cmp.Or(k.State, apikey.Active)
		if _, err := db.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		prefixes = append(prefixes, k.Prefix)
	}
	if _, err := db.CreateTierRequest(ctx, account.TierRequest{AccountID: accounts[1].ID, KeyPrefix: "fds_Blog0003", Tier: apikey.Basic,
		UseCase: "A widget of similar perfumes under each review on a perfume blog.", Volume: "about 3,000 requests a day", CreatedAt: now.Add(-5 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordSignals(ctx, []usage.Signal{
		{Kind: usage.SignalLimitHits, KeyPrefix: "fds_Trak0002", Count: 412, Window: time.Hour, Detail: "412 requests refused by the daily limit", At: now.Add(-3 * time.Hour)},
		{Kind: usage.SignalManyIPs, KeyPrefix: "fds_Blog0003", Count: 64, Window: time.Hour, Detail: "64 client IPs in an hour", At: now.Add(-26 * time.Hour)},
		{Kind: usage.SignalFailedChecks, ClientIP: "203.0.113.77", Count: 150, Window: 10 * time.Minute, Detail: "150 unknown keys in 10 minutes", At: now.Add(-50 * time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordUsage(ctx, seedUsage(now, perfumeIDs(t, catalogue, 9))); err != nil {
		t.Fatal(err)
	}
	return prefixes
}

// seedAccounts makes four accounts as their first sign-in links do, the
// newest two hours old.
func seedAccounts(t *testing.T, db *sqlite.DB, now time.Time) []account.Account {
	t.Helper()
	ctx := context.Background()
	var out []account.Account
	for i, email := range []string{"dev@shop.example", "blog@example.org", "prices@tracker.example", "new@startup.example"} {
		made := now.Add(-time.Duration([]int{60 * 24, 20 * 24, 9 * 24, 2}[i]) * time.Hour)
		hash := fmt.Sprintf("seed-link-%d", i)
		if err := db.CreateSignInLink(ctx, hash, email, made.Add(account.LinkTTL)); err != nil {
			t.Fatal(err)
		}
		a, err := db.UseSignInLink(ctx, hash, made)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// perfumeIDs are the ids of the first n perfumes of a catalogue file
// (gzipped JSON Lines).
func perfumeIDs(t *testing.T, path string, n int) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	dec := json.NewDecoder(zr)
	for len(ids) < n {
		var p struct {
			ID int64 `json:"fragranticaId"`
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ids = append(ids, p.ID)
	}
	return ids
}

// seedUsage is 90 days of a service that grows: its requests, a day of
// latency, and the clicks, views and searches of the pages.
func seedUsage(now time.Time, perfumes []int64) usage.Batch {
	hour := now.Truncate(time.Hour)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	b := usage.Batch{Hourly: seedRequests(hour, day)}
	for h := range 24 {
		at := hour.Add(-time.Duration(h) * time.Hour)
		b.Latency = append(b.Latency, usage.Latency{Endpoint: "/api/search", Hour: at, Bucket: 4, Count: 700},
			usage.Latency{Endpoint: "/api/search", Hour: at, Bucket: 6, Count: 60},
			usage.Latency{Endpoint: "/api/perfumes/{id}", Hour: at, Bucket: 2, Count: 500},
			usage.Latency{Endpoint: "/api/perfumes/{id}/similar", Hour: at, Bucket: 5, Count: 120})
	}
	for d := range 90 {
		at := day.AddDate(0, 0, -d)
		b.Clicks = append(b.Clicks, usage.Click{PerfumeID: perfumes[d%7], Day: at, Count: int64(3 + (d*7)%11)})
		if d < 30 {
			b.Views = append(b.Views, usage.View{PerfumeID: perfumes[d%9], Kind: usage.ViewDetail, Day: at, Count: int64(40 - d)},
				usage.View{PerfumeID: perfumes[d%9], Kind: usage.ViewSimilar, Day: at, Count: int64(10 + d%5)})
		}
	}
	b.EmptySearches = []usage.Search{{Query: "baccarat rouge 540 extrait", Day: day, Count: 14}, {Query: "oud wood intense", Day: day.AddDate(0, 0, -2), Count: 6},
		{Query: "=HYPERLINK(\"x\")", Day: day.AddDate(0, 0, -3), Count: 1}}
	return b
}

// seedRequests are the requests of every hour of the last 48 and of noon
// of each day before, back to 90 days, by key, endpoint and status class,
// with the daily rhythm of people: the price tracker refused at its
// limit every sixth hour, a burst of server errors a day and a half ago.
func seedRequests(hour, day time.Time) []usage.Count {
	load := []struct {
		prefix, endpoint string
		perHour          float64
	}{{"fds_Shop0001", "/api/search", 900}, {"fds_Shop0001", "/api/perfumes/{id}", 400}, {"fds_Trak0002", "/api/perfumes", 160},
		{"fds_Blog0003", "/api/perfumes/{id}/similar", 120}, {"fds_Ops00004", "/api/changes", 12}, {"", "/api/search", 60}}
	var out []usage.Count
	add := func(at time.Time, scale float64) {
		rhythm := 1 + 0.6*math.Sin(float64(at.Hour()-9)/24*2*math.Pi)
		burst := at.Equal(hour.Add(-30*time.Hour)) || at.Equal(hour.Add(-29*time.Hour))
		for i, l := range load {
			n := l.perHour * scale * rhythm
			shares := map[string]float64{"2xx": 0.955, "3xx": 0.01, "4xx": 0.03}
			if i == 2 && at.Hour()%6 == 0 {
				shares[usage.ClassRateLimited] = 0.4
			}
			if burst {
				shares["5xx"] = 0.08
			}
			for class, share := range shares {
				if c := int64(n * share); c > 0 {
					out = append(out, usage.Count{KeyPrefix: l.prefix, Endpoint: l.endpoint, StatusClass: class, Start: at, Count: c})
				}
			}
		}
	}
	for h := range 48 {
		add(hour.Add(-time.Duration(h)*time.Hour), 1)
	}
	for d := 2; d < 90; d++ {
		add(day.AddDate(0, 0, -d).Add(12*time.Hour), 24*(1-float64(d)/120))
	}
	return out
}
