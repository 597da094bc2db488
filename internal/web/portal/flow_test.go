package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestFlow: the whole way of a developer, from asking for a link to a
// key's page: the link mailed, the page the link opens (which does not use
// it), the session, the keys page, a key made and shown once, listed,
// rolled with a grace period, revoked after a confirmation, and its page
// with the chart and its numbers.
func TestFlow(t *testing.T) {
	e := newEnv(t, httpBase, nil)

	home := e.Do("GET", "/developer", nil, "")
	if home.Code != http.StatusOK {
		t.Fatalf("GET /developer = %d", home.Code)
	}
	areatest.MustContain(t, "/developer", home.Body.String(), "Sign in or create an account", `<label for="email">Email</label>`,
		"Send sign-in link", `action="/developer/signin/link"`, "X-API-Key", httpBase+"/api/perfumes")

	sent := e.Do("POST", "/developer/signin/link", url.Values{"email": {"  Dev@Example.COM "}}, "")
	if sent.Code != http.StatusOK {
		t.Fatalf("ask a link = %d\n%s", sent.Code, sent.Body)
	}
	areatest.MustContain(t, "the sent page", sent.Body.String(), "Check your email", "Dev@example.com")
	msg := e.mail.last()
	if msg.To != "Dev@example.com" {
		t.Errorf("mailed to %q", msg.To)
	}
	areatest.MustContain(t, "the mail", msg.Text, httpBase+"/developer/signin?token=", "works once, for 15 minutes", "ignore this message")
	token := tokenOf(t, msg.Text)

	// Opening the link (twice: a mail scanner, then the reader) uses nothing.
	for range 2 {
		confirm := e.Do("GET", "/developer/signin?token="+token, nil, "")
		if confirm.Code != http.StatusOK || len(confirm.Result().Cookies()) != 0 {
			t.Fatalf("GET the link = %d, cookies %v", confirm.Code, confirm.Result().Cookies())
		}
		areatest.MustContain(t, "the link's page", confirm.Body.String(), `action="/developer/signin"`, `name="token" value="`+token+`"`, ">Sign in</button>")
		if confirm.Header().Get("Cache-Control") != "no-store" || confirm.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("the link's page: Cache-Control %q, Referrer-Policy %q", confirm.Header().Get("Cache-Control"), confirm.Header().Get("Referrer-Policy"))
		}
	}
	signedIn := e.useLink(token)
	if signedIn.Code != http.StatusSeeOther || signedIn.Header().Get("Location") != "/developer/keys" {
		t.Fatalf("sign in = %d %q", signedIn.Code, signedIn.Header().Get("Location"))
	}
	session := areatest.CookieOf(signedIn, "session").Value

	keys := e.Do("GET", "/developer/keys", nil, session)
	if keys.Code != http.StatusOK {
		t.Fatalf("GET /developer/keys = %d", keys.Code)
	}
	areatest.MustContain(t, "the keys page", keys.Body.String(), "Signed in as <strong>Dev@example.com</strong>", "You have no key yet", "Create key")

	// A server key, shown once, on the page the form redirects to (303):
	// Back or a reload never sends the form again, and a second visit of
	// that page shows the key no more.
	posted := e.Do("POST", "/developer/keys", url.Values{"name": {"Shop backend"}, "kind": {"server"}}, session)
	if posted.Code != http.StatusSeeOther || areatest.SecretRE.MatchString(posted.Body.String()) || posted.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("create = %d (Cache-Control %q), want a redirect without the key\n%s", posted.Code, posted.Header().Get("Cache-Control"), posted.Body)
	}
	flash := areatest.CookieOf(posted, "newkey")
	if flash == nil || !flash.HttpOnly || flash.Path != "/developer/keys" || flash.MaxAge <= 0 || flash.MaxAge > 300 || areatest.SecretRE.MatchString(flash.Value) {
		t.Errorf("the new key's flash cookie %+v", flash)
	}
	created := e.follow(posted, session)
	secret := areatest.SecretRE.FindString(created.Body.String())
	if created.Code != http.StatusOK || secret == "" {
		t.Fatalf("create = %d\n%s", created.Code, created.Body)
	}
	if created.Header().Get("Cache-Control") != "no-store" || created.Header().Get("ETag") != "" {
		t.Errorf("the new key's page: Cache-Control %q, ETag %q", created.Header().Get("Cache-Control"), created.Header().Get("ETag"))
	}
	areatest.MustContain(t, "the new key's page", created.Body.String(), `href="/developer/playground#key=`+secret+`"`, `data-copy="new-key"`, "only time it is shown")
	if strings.Count(created.Body.String(), secret) != 2 { // the key shown and the playground link
		t.Errorf("the key is on its page %d times", strings.Count(created.Body.String(), secret))
	}
	server, _ := apikey.ParseKey(secret)
	if loc := posted.Header().Get("Location"); loc != "/developer/keys/"+server.Prefix+"/new" {
		t.Errorf("create redirects to %q", loc)
	}
	if c := areatest.CookieOf(created, "newkey"); c == nil || c.MaxAge >= 0 {
		t.Errorf("the page of the new key does not drop the flash: %+v", c)
	}
	again := e.Do("GET", posted.Header().Get("Location"), nil, session)
	if again.Code != http.StatusOK || areatest.SecretRE.MatchString(again.Body.String()) {
		t.Errorf("a reload of the new key's page = %d, shows the key again:\n%s", again.Code, again.Body)
	}
	areatest.MustContain(t, "the new key's page again", again.Body.String(), "This key was shown already", "<code>"+server.Prefix+"…</code>")
	// A flash does not open with another session: a stolen cookie alone
	// shows nothing.
	otherSession := e.signIn("other@example.com")
	stolen := e.Do("GET", posted.Header().Get("Location"), nil, "", "Cookie", "session="+otherSession+"; newkey="+flash.Value)
	if areatest.SecretRE.MatchString(stolen.Body.String()) {
		t.Error("the flash opened with another session")
	}
	if k := e.Key(server.Prefix); k.AccountID != 1 || k.Tier != apikey.Free || k.Name != "Shop backend" || len(k.Origins) != 0 || k.Email != "Dev@example.com" {
		t.Errorf("stored key %+v", k)
	}
	if e.changed.Load() != 1 {
		t.Errorf("KeysChanged called %d times after a key was made", e.changed.Load())
	}

	// A browser key with its origins.
	_, browser := e.createKey(session, url.Values{"name": {"Widget"}, "kind": {"browser"}, "origins": {"https://App.Example.com/\nhttp://localhost:8080, https://app.example.com"}})
	if got := e.Key(browser).Origins; strings.Join(got, " ") != "https://app.example.com http://localhost:8080" {
		t.Errorf("browser key origins %v", got)
	}

	// Listed, never shown again.
	list := e.Do("GET", "/developer/keys", nil, session).Body.String()
	areatest.MustContain(t, "the keys list", list, "<code>"+server.Prefix+"</code>", "<code>"+browser+"</code>", "Shop backend", "Widget",
		`<td data-label="Tier">free</td>`, `<td data-label="State">active</td>`, `<td data-label="Created">2026-03-10</td>`, "not in 30 days",
		`<table class="stack keys">`, `<div class="origins">`)
	if strings.Contains(list, secret) {
		t.Error("the keys list shows a key")
	}

	// Usage of the server key: two days of requests, refusals an hour ago.
	hour := start.Add(-time.Hour).Truncate(time.Hour)
	e.Record(usage.Batch{Hourly: []usage.Count{
		{KeyPrefix: server.Prefix, Endpoint: "perfumes.list", StatusClass: "2xx", Start: hour, Count: 700},
		{KeyPrefix: server.Prefix, Endpoint: "perfumes.list", StatusClass: usage.ClassRateLimited, Start: hour, Count: 9},
		{KeyPrefix: server.Prefix, Endpoint: "perfumes.detail", StatusClass: "2xx", Start: hour.AddDate(0, 0, -1), Count: 120},
	}})
	for range 5 {
		e.windows.Allow(context.Background(), server.Prefix, apikey.DefaultTiers().For(apikey.Key{Tier: apikey.Free}))
	}
	list = e.Do("GET", "/developer/keys", nil, session).Body.String()
	areatest.MustContain(t, "the keys list with usage", list, `<td data-label="Requests today" class="n">709</td>`)

	page := e.Do("GET", "/developer/keys/"+server.Prefix, nil, session)
	if page.Code != http.StatusOK {
		t.Fatalf("the key's page = %d", page.Code)
	}
	body := page.Body.String()
	areatest.MustContain(t, "the key's page", body,
		`<figure class="chart axis" id="usage">`, `aria-labelledby="usage-t"`, `stroke-dasharray="6 4"`, "daily limit 1,000",
		`fill="#54505e">250</text>`, `fill="#54505e">1,000</text>`, `role="region" aria-label="Requests per day"`,
		`<tr><th scope="row">2026-03-10</th><td>709</td></tr>`, `<tr><th scope="row">2026-03-09</th><td>120</td></tr>`,
		"<code>perfumes.list</code></th><td>709</td>", "<code>perfumes.detail</code></th><td>120</td>",
		"2xx: answered</th><td>820</td>", "429: refused by a limit</th><td>9</td>",
		"<td>2026-03-10 11:00 UTC</td><td><code>perfumes.list</code></td><td>9</td>",
		"This minute (the last 60 seconds)</th><td>60</td><td>55</td>", "Today (the last 24 hours)</th><td>1,000</td><td>995</td>",
		"free: 60 requests a minute, 1,000 a day", "Request tier", "Roll key", `href="/developer/keys/`+server.Prefix+`/revoke"`)
	if strings.Contains(body, secret) {
		t.Error("the key's page shows the key")
	}

	// Roll with a grace of one hour: a new key like the old; the old one
	// works until then.
	rolled := e.follow(e.Do("POST", "/developer/keys/"+server.Prefix+"/roll", url.Values{"grace": {"1h"}}, session), session)
	newSecret := areatest.SecretRE.FindString(rolled.Body.String())
	if rolled.Code != http.StatusOK || newSecret == "" || newSecret == secret || rolled.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("roll = %d\n%s", rolled.Code, rolled.Body)
	}
	areatest.MustContain(t, "the rolled key's page", rolled.Body.String(), "keeps working until 2026-03-10 13:0", "#key="+newSecret)
	successor, _ := apikey.ParseKey(newSecret)
	old, nk := e.Key(server.Prefix), e.Key(successor.Prefix)
	if !old.ExpiresAt.Equal(e.Clock.Now().Add(time.Hour)) || old.State != apikey.Active {
		t.Errorf("rolled key %+v", old)
	}
	if nk.Name != old.Name || nk.Tier != old.Tier || nk.AccountID != old.AccountID || len(nk.Origins) != 0 || !nk.ExpiresAt.IsZero() {
		t.Errorf("successor %+v of %+v", nk, old)
	}
	if e.changed.Load() != 3 {
		t.Errorf("KeysChanged called %d times after a roll", e.changed.Load())
	}
	areatest.MustContain(t, "the list after a roll", e.Do("GET", "/developer/keys", nil, session).Body.String(), "rolled: works until 2026-03-10 13:0")
	// A rolled key is not rolled again.
	if rec := e.Do("POST", "/developer/keys/"+server.Prefix+"/roll", url.Values{"grace": {"none"}}, session); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("rolling a rolled key = %d", rec.Code)
	}
	// Rolling a browser key at once revokes the old one.
	rolledBrowser := e.follow(e.Do("POST", "/developer/keys/"+browser+"/roll", url.Values{"grace": {"none"}}, session), session)
	areatest.MustContain(t, "the browser key rolled", rolledBrowser.Body.String(), "is revoked: it stopped working now", "browser key")
	if k := e.Key(browser); k.State != apikey.Revoked {
		t.Errorf("browser key rolled with no grace: %s", k.State)
	}
	bs, _ := apikey.ParseKey(areatest.SecretRE.FindString(rolledBrowser.Body.String()))
	if got := e.Key(bs.Prefix).Origins; len(got) != 2 {
		t.Errorf("the successor of a browser key has origins %v", got)
	}

	// Revoke, with a confirmation step that needs no script.
	confirm := e.Do("GET", "/developer/keys/"+successor.Prefix+"/revoke", nil, session)
	areatest.MustContain(t, "the revoke confirmation", confirm.Body.String(), `action="/developer/keys/`+successor.Prefix+`/revoke"`, "Revoke key</button>", "Cancel")
	if e.Key(successor.Prefix).State != apikey.Active {
		t.Fatal("the confirmation page revoked the key")
	}
	before := e.changed.Load()
	rec := e.Do("POST", "/developer/keys/"+successor.Prefix+"/revoke", url.Values{}, session)
	if rec.Code != http.StatusSeeOther || e.Key(successor.Prefix).State != apikey.Revoked || e.changed.Load() != before+1 {
		t.Errorf("revoke = %d, state %s, KeysChanged %d", rec.Code, e.Key(successor.Prefix).State, e.changed.Load()-before)
	}
	areatest.MustContain(t, "the revoked key's page", e.Do("GET", "/developer/keys/"+successor.Prefix, nil, session).Body.String(), "<dd>revoked</dd>", "The key no longer works.")

	// The old key stops after its grace period.
	e.Clock.Add(time.Hour)
	areatest.MustContain(t, "the list after the grace period", e.Do("GET", "/developer/keys", nil, session).Body.String(), "expired (rolled)")
}

// TestKeysForThePlayground: Keys lists the signed-in visitor's live keys
// the playground can use (a browser key only when it allows the site's
// own origin), and nothing for anyone else.
func TestKeysForThePlayground(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.signIn("a@example.com")
	_, p1 := e.createKey(session, url.Values{"name": {"One"}, "kind": {"server"}})
	e.createKey(session, url.Values{"name": {"Two"}, "kind": {"browser"}, "origins": {"https://a.example"}})
	_, p3 := e.createKey(session, url.Values{"name": {"Three"}, "kind": {"server"}})
	e.Do("POST", "/developer/keys/"+p3+"/revoke", url.Values{}, session)
	_, p4 := e.createKey(session, url.Values{"name": {"Four"}, "kind": {"browser"}, "origins": {"https://a.example, " + httpBase}})
	other := e.signIn("b@example.com")
	e.createKey(other, url.Values{"name": {"Theirs"}, "kind": {"server"}})

	r := httpRequest(e.Cookie, session)
	got := e.portal.Keys(r)
	want := []string{"One " + p1 + " server", "Four " + p4 + " browser"}
	if len(got) != len(want) {
		t.Fatalf("Keys = %+v", got)
	}
	for i, k := range got {
		if k.Name+" "+k.Prefix+" "+k.Kind != want[i] {
			t.Errorf("Keys[%d] = %+v, want %s", i, k, want[i])
		}
	}
	if got := e.portal.Keys(httpRequest(e.Cookie, "")); got != nil {
		t.Errorf("Keys without a session = %+v", got)
	}
	e.Faults.Fail("TouchSession")
	if got := e.portal.Keys(r); got != nil {
		t.Errorf("Keys while the store fails = %+v", got)
	}
}

func httpRequest(cookie, session string) *http.Request {
	r, _ := http.NewRequest("GET", "/developer/playground", nil)
	if session != "" {
		r.AddCookie(&http.Cookie{Name: cookie, Value: session})
	}
	return r
}

// A key's page of a new key opened while the flash holds a later key's
// secret leaves that flash for the later key's page.
func TestNewKeyPageKeepsAnotherKeysFlash(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.signIn("a@example.com")
	_, first := e.createKey(session, url.Values{"name": {"One"}, "kind": {"server"}})
	posted := e.Do("POST", "/developer/keys", url.Values{"name": {"Two"}, "kind": {"server"}}, session)
	flash := areatest.CookieOf(posted, "newkey")
	if posted.Code != http.StatusSeeOther || flash == nil {
		t.Fatalf("create = %d, flash %v", posted.Code, flash)
	}
	old := e.Do("GET", "/developer/keys/"+first+"/new", nil, "", "Cookie", "session="+session+"; newkey="+flash.Value)
	var kept *http.Cookie // the browser keeps the last of the cookies set
	for _, c := range old.Result().Cookies() {
		if c.Name == "newkey" {
			kept = c
		}
	}
	if areatest.SecretRE.MatchString(old.Body.String()) || kept == nil || kept.MaxAge <= 0 {
		t.Fatalf("the first key's page: the flash %+v, a key shown: %v", kept, areatest.SecretRE.MatchString(old.Body.String()))
	}
	second := e.Do("GET", posted.Header().Get("Location"), nil, "", "Cookie", "session="+session+"; newkey="+kept.Value)
	if secret := areatest.SecretRE.FindString(second.Body.String()); secret == "" || !strings.HasPrefix(secret, strings.Split(posted.Header().Get("Location"), "/")[3]) {
		t.Errorf("the second key's page after the first's shows %q", secret)
	}
}
