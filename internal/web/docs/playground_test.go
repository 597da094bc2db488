package docs_test

import (
	"go/parser"
	"go/token"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/docs"
)

// code is the text of the code block of lang on a playground page.
func code(t *testing.T, body, lang string) string {
	t.Helper()
	m := regexp.MustCompile(`<code id="code-` + lang + `" data-lang="` + lang + `">([^<]*)</code>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s code on the page", lang)
	}
	return html.UnescapeString(m[1])
}

// TestPlaygroundStatePrefills: the page's address holds the request; the
// form of its endpoint is open and filled in with it, the code written
// for it; a key in the address never reaches the page.
func TestPlaygroundStatePrefills(t *testing.T) {
	h := newServer(t, docs.Config{})
	const secret = "fds_ThisIsASecretKeyThatMustNotBeEchoed000000000"
	rec := get(t, h, "/developer/playground?endpoint=matchPerfumes&accords=woody:40,vanilla&notes=Tonka+Bean&gender=feminine&limit=5&api_key="+secret+"&unknown=x")
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("= %d", rec.Code)
	}
	if strings.Contains(body, secret) || strings.Contains(body, "ThisIsASecret") {
		t.Fatal("the page repeats the key of its address")
	}
	form := section(t, body, `<details class="pg-ep" id="ep-matchPerfumes" open>`, "</details>\n<details")
	for _, want := range []string{
		`id="f-matchPerfumes-accords" name="accords" data-in="query" value="woody:40,vanilla"`,
		`id="f-matchPerfumes-notes" name="notes" data-in="query" value="Tonka Bean"`,
		`<option selected>feminine</option>`,
		`id="f-matchPerfumes-limit" name="limit" data-in="query" value="5"`,
		`id="pg-out"`,
	} {
		if !strings.Contains(form, want) {
			t.Errorf("the open form lacks %s", want)
		}
	}
	if n := strings.Count(body, `class="pg-ep" id="ep-`) - strings.Count(body, `" open>`); n < 10 {
		t.Errorf("only %d endpoints closed", n)
	}
	want := `curl -sS -i -H "X-API-Key: $FRAGRANCE_API_KEY" 'https://fragrance.example/api/perfumes/match?accords=woody:40,vanilla&notes=Tonka+Bean&gender=feminine&limit=5'`
	if got := code(t, body, "curl"); got != want {
		t.Errorf("curl:\n got %s\nwant %s", got, want)
	}
	// Values the document would refuse are kept, with a warning: the
	// API's answer to them is worth seeing.
	body = get(t, h, "/developer/playground?endpoint=matchPerfumes&gender=Nobody&limit=abc&season=winter").Body.String()
	for _, want := range []string{`<option selected>Nobody</option>`, "Not one of masculine, feminine, unisex", "Not a whole number", `<option selected>winter</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("a value outside the schema: the page lacks %s", want)
		}
	}
	// Path parameters fill the path; a missing one is named.
	body = get(t, h, "/developer/playground?endpoint=similarPerfumes&slug=dior-sauvage&limit=3").Body.String()
	if got := code(t, body, "curl"); !strings.HasSuffix(got, `'https://fragrance.example/api/perfumes/dior-sauvage/similar?limit=3'`) {
		t.Errorf("similar: %s", got)
	}
	body = get(t, h, "/developer/playground?endpoint=getPerfume").Body.String()
	if !strings.Contains(body, "Required: <code>slug</code>") || !strings.HasSuffix(code(t, body, "curl"), "/api/perfumes/{slug}'") {
		t.Errorf("getPerfume without a slug: %s", code(t, body, "curl"))
	}
}

// TestPlaygroundWithoutJavaScript: the forms submit to the page, and the
// page writes the code of what they submit: the form's field names are the
// address's, so a submitted form is a state (checked for every endpoint
// with its example values, as a browser submits a form: every field, the
// empty ones too).
func TestPlaygroundWithoutJavaScript(t *testing.T) {
	h := newServer(t, docs.Config{})
	d, err := docs.ParseDoc(api.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Endpoints {
		q := url.Values{"endpoint": {e.ID}}
		for _, p := range e.Params {
			q.Set(p.Name, e.Example.Get(p.Name))
		}
		rec := get(t, h, "/developer/playground?"+q.Encode())
		body := rec.Body.String()
		if rec.Code != 200 {
			t.Errorf("%s: = %d", e.ID, rec.Code)
			continue
		}
		st, err := d.ReadState(q)
		if err != nil {
			t.Fatal(err)
		}
		u := st.RequestURL(base, base+"/img")
		curl := code(t, body, "curl")
		if !strings.HasSuffix(curl, " '"+u+"'") || strings.Contains(curl, "X-API-Key") == e.Keyless {
			t.Errorf("%s: curl %s, want the URL %s and a key header unless keyless", e.ID, curl, u)
		}
		if e.Example != nil && !strings.Contains(html.UnescapeString(body), u) {
			t.Errorf("%s: the page does not show the request %s", e.ID, u)
		}
	}
	// Quoting in each language.
	body := get(t, h, "/developer/playground?endpoint=siteSearch&q=rose+%26+oud's+%22x%22").Body.String()
	for lang, want := range map[string]string{
		"curl":   `curl -sS -i 'https://fragrance.example/api/search?q=rose+%26+oud%27s+%22x%22'`,
		"js":     "const res = await fetch(\"https://fragrance.example/api/search?q=rose+%26+oud%27s+%22x%22\");\nconsole.log(res.status, await res.json());",
		"python": "import requests\n\nres = requests.get(\n    \"https://fragrance.example/api/search?q=rose+%26+oud%27s+%22x%22\",\n    timeout=30,\n)\nprint(res.status_code, res.json())",
	} {
		if got := code(t, body, lang); got != want {
			t.Errorf("%s:\n got %q\nwant %q", lang, got, want)
		}
	}
	body = get(t, h, `/developer/playground?endpoint=getImage&id=31861&If-None-Match=%22it's%22`).Body.String()
	if got, want := code(t, body, "curl"), `curl -sS -i -H 'If-None-Match: "it'\''s"' 'https://fragrance.example/img/perfume/31861.jpg'`; got != want {
		t.Errorf("image curl:\n got %s\nwant %s", got, want)
	}
	if got := code(t, body, "go"); !strings.Contains(got, `req.Header.Set("If-None-Match", "\"it's\"")`) || strings.Contains(got, `"os"`) ||
		!strings.Contains(got, `len(body), "bytes"`) {
		t.Errorf("image go:\n%s", got)
	}
}

// TestSnippetsCompile: the Go code parses, imports os exactly when it
// reads the key, and no language writes a key, only the variable.
func TestSnippetsCompile(t *testing.T) {
	d, err := docs.ParseDoc(api.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Endpoints {
		st := docs.State{Endpoint: e, Values: e.Example}
		for _, s := range st.Snippets("https://x.example", "https://img.example") {
			if s.Lang == "pyclient" || s.Lang == "tsclient" {
				continue // the clients read the key themselves (TestClientSnippetsNameTheClients)
			}
			if s.Lang == "go" {
				f, err := parser.ParseFile(token.NewFileSet(), "main.go", s.Code, parser.ImportsOnly)
				if err != nil {
					t.Fatalf("%s: the Go code does not parse: %v\n%s", e.ID, err, s.Code)
				}
				if _, err := parser.ParseFile(token.NewFileSet(), "main.go", s.Code, 0); err != nil {
					t.Fatalf("%s: %v", e.ID, err)
				}
				importsOS := false
				for _, imp := range f.Imports {
					importsOS = importsOS || imp.Path.Value == `"os"`
				}
				if importsOS != strings.Contains(s.Code, "os.Getenv") {
					t.Errorf("%s: os imported %v, used %v", e.ID, importsOS, !importsOS)
				}
			}
			if e.Keyless == strings.Contains(s.Code, docs.KeyEnv) {
				t.Errorf("%s %s: keyless %v, but the code reads the key: %v", e.ID, s.Lang, e.Keyless, !e.Keyless)
			}
			if strings.HasPrefix(e.Path, "/img/") && !strings.Contains(s.Code, "https://img.example/perfume") {
				t.Errorf("%s %s: not at the image host: %s", e.ID, s.Lang, s.Code)
			}
		}
	}
}

// TestPlaygroundBadAddress: an unknown endpoint or a value the playground
// cannot hold answers a clear error with the whole page (the other values
// kept).
func TestPlaygroundBadAddress(t *testing.T) {
	h := newServer(t, docs.Config{})
	for target, want := range map[string]struct {
		status int
		msg    string
	}{
		"/developer/playground?endpoint=noSuchThing%3Cb%3E":                                     {404, "unknown endpoint &#34;noSuchThing&lt;b&gt;&#34;"},
		"/developer/playground?endpoint=listPerfumes&brand=dior&q=" + strings.Repeat("a", 2001): {400, "the value of q has 2001 characters"},
		"/developer/playground?endpoint=listPerfumes&q=%ff":                                     {400, "the value of q is not valid UTF-8"},
	} {
		rec := get(t, h, target)
		body := rec.Body.String()
		if rec.Code != want.status || !strings.Contains(body, `role="alert">`) || !strings.Contains(body, want.msg) {
			t.Errorf("%.80s = %d, want %d with %q", target, rec.Code, want.status, want.msg)
		}
		if !strings.Contains(body, `<form class="pg-form"`) {
			t.Errorf("%.80s: the forms are not shown", target)
		}
	}
	body := get(t, h, "/developer/playground?endpoint=listPerfumes&brand=dior&q="+strings.Repeat("a", 2001)).Body.String()
	if !strings.Contains(body, `value="dior"`) {
		t.Error("a bad value lost the good ones")
	}
}

// TestPlaygroundKeys: the signed-in developer's keys are offered by name
// and prefix (never a secret); a visitor who allowed preferences has keys
// kept in localStorage, any other only for the tab.
func TestPlaygroundKeys(t *testing.T) {
	var asked *http.Request
	h := newServer(t, docs.Config{Keys: func(r *http.Request) []web.KeyChoice {
		asked = r
		return []web.KeyChoice{{Name: "Shop <site>", Prefix: "fds_AbC12345", Kind: "pro"}, {Name: "CLI", Prefix: "fds_ZyX98765", Kind: "free"}}
	}})
	body := get(t, h, "/developer/playground", "Cookie", "consent=necessary.preferences:2026-01-01").Body.String()
	if asked == nil {
		t.Fatal("Keys was not asked")
	}
	for _, want := range []string{`<select id="pg-key-choice">`, `<option value="fds_AbC12345">Shop &lt;site&gt; · fds_AbC12345… · pro</option>`,
		`<option value="fds_ZyX98765">CLI · fds_ZyX98765… · free</option>`, `data-remember="local"`, `<input id="pg-key" type="password"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the key choice lacks %s", want)
		}
	}
	for _, cookie := range []string{"", "consent=necessary:2026-01-01", "consent=necessary.analytics:2026-01-01"} {
		if body := get(t, h, "/developer/playground", "Cookie", cookie).Body.String(); !strings.Contains(body, `data-remember="session"`) {
			t.Errorf("cookie %q: keys would be remembered", cookie)
		}
	}
	// Nobody signed in (no Keys): a pasted key only, and a way to sign in.
	body = get(t, newServer(t, docs.Config{}), "/developer/playground").Body.String()
	if strings.Contains(body, "pg-key-choice") || !strings.Contains(body, `<a href="/developer">Sign in</a>`) {
		t.Error("without Keys the page offers keys, or no sign-in")
	}
}

// TestClientSnippetsNameTheClients: the client snippets call each JSON
// endpoint under /api by the Python client's generated method and the
// TypeScript client's path, with the request's values typed.
func TestClientSnippetsNameTheClients(t *testing.T) {
	d, err := docs.ParseDoc(api.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	generated, err := os.ReadFile(filepath.Join("..", "..", "..", "clients", "python", "src", "fragrance_client", "_generated.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Endpoints {
		st := docs.State{Endpoint: e, Values: url.Values{}}
		for _, p := range e.Params {
			if p.In == "path" {
				st.Values.Set(p.Name, "dior-sauvage")
			}
			if p.Name == "limit" {
				st.Values.Set("limit", "5")
			}
		}
		snips := map[string]string{}
		for _, s := range st.Snippets("https://x.example", "https://img.example") {
			snips[s.Lang] = s.Code
		}
		py, ts := snips["pyclient"], snips["tsclient"]
		if e.Method != "GET" || e.Body != "json" || !strings.HasPrefix(e.Path, "/api/") || e.Path == "/api/openapi.json" {
			if !strings.HasPrefix(py, "#") || !strings.HasPrefix(ts, "//") {
				t.Errorf("%s: client snippets for an endpoint the clients do not call:\n%s\n%s", e.ID, py, ts)
			}
			continue
		}
		call := regexp.MustCompile(`c\.([a-z_]+)\(`).FindStringSubmatch(py)
		if call == nil || !strings.Contains(string(generated), "    def "+call[1]+"(") {
			t.Errorf("%s: the Python client has no method %v:\n%s", e.ID, call, py)
		}
		if !strings.Contains(ts, `c.api.GET("`+e.Path+`"`) {
			t.Errorf("%s: the TypeScript snippet does not GET its path:\n%s", e.ID, ts)
		}
		if st.Values.Get("limit") != "" && (!strings.Contains(py, "limit=5") || !strings.Contains(ts, `"limit": 5`)) {
			t.Errorf("%s: limit is not a number in\n%s\n%s", e.ID, py, ts)
		}
	}
}
