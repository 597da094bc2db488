package docs_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/docs"
)

const base = "https://fragrance.example"

// newServer serves the ground and the docs over cfg (Web and OpenAPI are
// filled in: the real document).
func newServer(t *testing.T, cfg docs.Config) http.Handler {
	t.Helper()
	ground, err := web.New(web.Config{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Web = ground
	if cfg.OpenAPI == nil {
		cfg.OpenAPI = api.OpenAPIDocument()
	}
	d, err := docs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	server.Join(ground, d).Register(func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) })
	return mux
}

// get answers one GET of target, with header names and values in pairs.
func get(t *testing.T, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// operation is one operation of the document, read here with encoding/json
// alone (independently of the package's reading of it).
type operation struct {
	ID, Method, Path string
	Params           []parameter
	// Answers are the status codes; Refs the shared answers by status.
	Answers  []string
	Refs     map[string]string
	Examples []string // the summaries (else names) of the operation's own examples
}

type parameter struct {
	Name, In string
	Enum     []string
	Default  string
}

// operations iterates the real document: every operation of every path,
// its parameters ($refs resolved) and answers.
func operations(t *testing.T) (ops []operation, shared map[string][]string) {
	t.Helper()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Parameters map[string]json.RawMessage
			Responses  map[string]struct {
				Content map[string]struct {
					Examples map[string]struct{ Summary string }
				}
			}
		}
	}
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	shared = map[string][]string{}
	for name, r := range doc.Components.Responses {
		for _, c := range r.Content {
			for ex := range c.Examples {
				shared[name] = append(shared[name], ex)
			}
		}
	}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
				Parameters  []map[string]any
				Responses   map[string]struct {
					Ref     string `json:"$ref"`
					Content map[string]struct {
						Examples map[string]struct{ Summary string }
					}
				}
			}
			if method == "parameters" {
				t.Fatalf("path %s has path-level parameters; extend the test", path)
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			o := operation{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Refs: map[string]string{}}
			for _, p := range op.Parameters {
				if ref, ok := p["$ref"].(string); ok {
					var r map[string]any
					json.Unmarshal(doc.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")], &r)
					p = r
				}
				prm := parameter{Name: p["name"].(string), In: p["in"].(string)}
				if s, ok := p["schema"].(map[string]any); ok {
					enum, _ := s["enum"].([]any)
					for _, e := range enum {
						prm.Enum = append(prm.Enum, e.(string))
					}
					if d, ok := s["default"].(float64); ok {
						prm.Default = strconv.FormatFloat(d, 'f', -1, 64)
					}
				}
				o.Params = append(o.Params, prm)
			}
			for status, r := range op.Responses {
				o.Answers = append(o.Answers, status)
				if r.Ref != "" {
					o.Refs[status] = strings.TrimPrefix(r.Ref, "#/components/responses/")
				}
				for _, c := range r.Content {
					for name, ex := range c.Examples {
						if ex.Summary != "" {
							name = ex.Summary
						}
						o.Examples = append(o.Examples, name)
					}
				}
			}
			ops = append(ops, o)
		}
	}
	if len(ops) < 15 {
		t.Fatalf("the document has %d operations", len(ops))
	}
	return ops, shared
}

// section is the part of body from the element with id to the end of its
// article, details or section.
func section(t *testing.T, body, start, end string) string {
	t.Helper()
	i := strings.Index(body, start)
	if i < 0 {
		t.Fatalf("the page has no %s", start)
	}
	j := strings.Index(body[i:], end)
	if j < 0 {
		t.Fatalf("%s does not end with %s", start, end)
	}
	return body[i : i+j]
}

// TestReferenceCoversTheDocument: the reference has every operation of
// the real document, each with its path, every parameter, every answer
// (its own examples in full, shared ones linked to their section, which
// shows their examples) and a playground link with its example filled in.
func TestReferenceCoversTheDocument(t *testing.T) {
	h := newServer(t, docs.Config{})
	rec := get(t, h, "/docs/reference")
	if rec.Code != 200 {
		t.Fatalf("GET /docs/reference = %d", rec.Code)
	}
	body := rec.Body.String()
	ops, shared := operations(t)
	for _, op := range ops {
		sec := section(t, body, `<article class="ep" id="`+op.ID+`"`, "</article>")
		if !strings.Contains(sec, "<code>"+op.Path+"</code>") || !strings.Contains(sec, `<span class="method">`+op.Method+`</span>`) {
			t.Errorf("%s: the reference does not show %s %s", op.ID, op.Method, op.Path)
		}
		for _, p := range op.Params {
			if !strings.Contains(sec, "<dt><code>"+p.Name+"</code> <span class=\"muted\">in "+p.In+"</span></dt>") {
				t.Errorf("%s: parameter %s (%s) is missing", op.ID, p.Name, p.In)
			}
			if p.Default != "" && !strings.Contains(sec, "default "+p.Default) {
				t.Errorf("%s: parameter %s: default %s not shown", op.ID, p.Name, p.Default)
			}
			for _, e := range p.Enum {
				if !strings.Contains(sec, e) {
					t.Errorf("%s: parameter %s: choice %s not shown", op.ID, p.Name, e)
				}
			}
		}
		for _, status := range op.Answers {
			if !strings.Contains(sec, `<span class="status">`+status+`</span>`) {
				t.Errorf("%s: answer %s is missing", op.ID, status)
			}
			if ref := op.Refs[status]; ref != "" && !strings.Contains(sec, `href="#answer-`+ref+`"`) {
				t.Errorf("%s: answer %s does not link the shared answer %s", op.ID, status, ref)
			}
		}
		for _, ex := range op.Examples {
			if !strings.Contains(html.UnescapeString(sec), "Example: "+ex+"</summary>") {
				t.Errorf("%s: example %q is missing", op.ID, ex)
			}
		}
		try := regexp.MustCompile(`href="(/developer/playground\?endpoint=` + op.ID + `[^"]*)"`).FindStringSubmatch(sec)
		if try == nil {
			t.Errorf("%s: no playground link", op.ID)
			continue
		}
		// The link opens the playground on this endpoint, its example
		// filled in.
		pg := get(t, h, html.UnescapeString(try[1]))
		if pg.Code != 200 || !strings.Contains(pg.Body.String(), `id="ep-`+op.ID+`" open`) {
			t.Errorf("%s: %s = %d, the endpoint not open", op.ID, try[1], pg.Code)
		}
	}
	for name, examples := range shared {
		sec := section(t, body, `id="answer-`+name+`"`, "</article>")
		if len(examples) == 0 || strings.Count(sec, `<details class="example">`) != len(examples) {
			t.Errorf("shared answer %s: %d examples shown, the document has %d", name, strings.Count(sec, `<details class="example">`), len(examples))
		}
	}
	// The document's introduction, with its tables.
	for _, want := range []string{`id="intro-authentication"`, `id="intro-limits"`, `<th scope="col">status</th>`, "<code>invalid_parameter</code>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the conventions lack %s", want)
		}
	}
	// A page that depends only on the document is rendered once, and
	// answered with an ETag.
	if again := get(t, h, "/docs/reference", "If-None-Match", rec.Header().Get("ETag")); again.Code != 304 {
		t.Errorf("revalidated reference = %d", again.Code)
	}
}

// TestPlaygroundListsEveryEndpoint: the playground has a form for every
// operation of the real document, each parameter a labelled field named
// as the address holds it, enums as choices, defaults shown.
func TestPlaygroundListsEveryEndpoint(t *testing.T) {
	h := newServer(t, docs.Config{})
	body := get(t, h, "/developer/playground").Body.String()
	ops, _ := operations(t)
	for _, op := range ops {
		form := section(t, body, `<details class="pg-ep" id="ep-`+op.ID+`"`, "</form>")
		if !strings.Contains(form, `action="/developer/playground"`) || !strings.Contains(form, `name="endpoint" value="`+op.ID+`"`) ||
			!strings.Contains(form, `data-path="`+op.Path+`"`) {
			t.Errorf("%s: the form does not submit the endpoint to the playground", op.ID)
		}
		for _, p := range op.Params {
			id := "f-" + op.ID + "-" + p.Name
			if !strings.Contains(form, `<label for="`+id+`">`) {
				t.Errorf("%s: parameter %s has no label", op.ID, p.Name)
			}
			field := regexp.MustCompile(`<(input|select) id="` + regexp.QuoteMeta(id) + `" name="` + regexp.QuoteMeta(p.Name) + `" data-in="` + p.In + `"`).FindString(form)
			if field == "" {
				t.Errorf("%s: parameter %s has no field named %s", op.ID, p.Name, p.Name)
			}
			for _, e := range p.Enum {
				if !strings.Contains(form, "<option>"+e+"</option>") {
					t.Errorf("%s: %s lacks the choice %s", op.ID, p.Name, e)
				}
			}
			if p.Default != "" && !strings.Contains(form, `placeholder="default: `+p.Default+`"`) {
				t.Errorf("%s: %s does not show its default %s", op.ID, p.Name, p.Default)
			}
			if p.In == "path" && !strings.Contains(form, `(path, required)`) {
				t.Errorf("%s: path parameter %s not marked required", op.ID, p.Name)
			}
		}
	}
	if n := strings.Count(body, `<form class="pg-form"`); n != len(ops) {
		t.Errorf("%d forms for %d operations", n, len(ops))
	}
	// The perfume slug fields search as the visitor types.
	for _, id := range []string{"f-getPerfume-slug", "f-similarPerfumes-slug", "f-dupePerfumes-slug", "f-gotoShop-slug"} {
		if !strings.Contains(body, `id="`+id+`"`) || !regexp.MustCompile(`id="`+id+`"[^>]*data-picker="perfume" list="`+id+`-list"`).MatchString(body) ||
			!strings.Contains(body, `<datalist id="`+id+`-list">`) {
			t.Errorf("%s: no slug picker", id)
		}
	}
	if strings.Contains(body, `id="f-getPerfumer-slug"[^>]*data-picker`) {
		t.Error("the perfumer's slug has the perfume picker")
	}
}

// TestPricingReflectsTiers: the pricing page shows the limits in force
// (a changed configuration changes the page), the operator's prices, "Ask"
// without one, and the contact address.
func TestPricingReflectsTiers(t *testing.T) {
	tiers := apikey.DefaultTiers()
	prices, err := docs.ParsePrices("basic=19 EUR/month, enterprise = <b>on request</b>")
	if err != nil {
		t.Fatal(err)
	}
	h := newServer(t, docs.Config{Tiers: func() apikey.Tiers { return tiers }, Prices: prices, ContactEmail: "sales@example.com"})
	row := func(body, tier string) string {
		return section(t, body, `<section class="plan" id="tier-`+tier+`"`, "</section>")
	}
	body := get(t, h, "/pricing").Body.String()
	for tier, want := range map[string][]string{
		"free":       {`<h2 id="free">Free</h2>`, ">60<", ">1,000<", `<p class="price">No charge</p>`, `<a class="btn" href="/developer">Get a free key</a>`},
		"basic":      {">300<", ">25,000<", `<p class="price">19 EUR/month</p>`, `href="/developer/keys">Request Basic in the portal</a>`, `href="mailto:sales@example.com"`},
		"pro":        {">1,000<", ">250,000<", `<p class="price">Price on request</p>`, `Request Pro in the portal`, `href="mailto:sales@example.com"`},
		"enterprise": {">5,000<", ">5,000,000<", "&lt;b&gt;on request&lt;/b&gt;", `Request Enterprise in the portal`},
	} {
		r := row(body, tier)
		for _, w := range want {
			if !strings.Contains(r, w) {
				t.Errorf("%s card %q lacks %s", tier, r, w)
			}
		}
	}
	for _, want := range []string{`</strong> requests a minute</li>`, `</strong> requests a day</li>`, `ask for the tier on the key's page`} {
		if !strings.Contains(body, want) {
			t.Errorf("the pricing page lacks %s", want)
		}
	}
	// No paragraph is said twice.
	seen := map[string]bool{}
	for _, p := range regexp.MustCompile(`(?s)<p[ >].*?</p>`).FindAllString(body, -1) {
		if seen[p] {
			t.Errorf("the pricing page repeats %s", p)
		}
		seen[p] = true
	}
	tiers = apikey.Tiers{apikey.Pro: {PerMinute: 1234, PerDay: 98765}}.Complete(tiers)
	body = get(t, h, "/pricing").Body.String()
	if r := row(body, "pro"); !strings.Contains(r, ">1,234<") || !strings.Contains(r, ">98,765<") {
		t.Errorf("after a change of the pro tier: %s", r)
	}
	if guide := get(t, h, "/docs").Body.String(); !strings.Contains(guide, ">1,234<") {
		t.Error("the guide's limits do not follow the tiers")
	}
	// Without prices or a contact: on request, and no mailto.
	body = get(t, newServer(t, docs.Config{}), "/pricing").Body.String()
	if strings.Contains(body, "mailto:") || strings.Count(body, ">Price on request</p>") != 3 {
		t.Errorf("pricing without prices or contact: %d on request", strings.Count(body, ">Price on request</p>"))
	}
}

// TestParsePrices: --tier-prices, and its errors, which name the item.
func TestParsePrices(t *testing.T) {
	got, err := docs.ParsePrices(" basic=19 EUR/month , Pro=99 EUR/month,,enterprise=from 500 EUR/month ")
	want := docs.Prices{apikey.Basic: "19 EUR/month", apikey.Pro: "99 EUR/month", apikey.Enterprise: "from 500 EUR/month"}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParsePrices = %v, %v", got, err)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if p, err := docs.ParsePrices(""); err != nil || len(p) != 0 {
		t.Errorf("empty = %v, %v", p, err)
	}
	for spec, wantErr := range map[string]string{
		"basic 19":                       `"basic 19" is not TIER=PRICE`,
		"gold=10 EUR":                    `unknown tier "gold"`,
		"basic=":                         `"basic=": no price`,
		"basic=  ":                       `no price`,
		"basic=1,basic=2":                "basic is priced twice",
		"pro=" + strings.Repeat("9", 41): "at most 40 characters",
		"pro=9\x07 EUR":                  "control characters",
		"pro=\xff":                       "not valid UTF-8",
	} {
		_, err := docs.ParsePrices(spec)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ParsePrices(%q) = %v, want an error with %q", spec, err, wantErr)
		}
	}
}

var (
	nonceRE   = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`)
	scriptRE  = regexp.MustCompile(`<script[^>]*>`)
	handlerRE = regexp.MustCompile(`(?i)<[^>]+\son[a-z]+\s*=`)
	idRE      = regexp.MustCompile(`\sid="([^"]+)"`)
	fieldRE   = regexp.MustCompile(`<(?:input|select|textarea)\b[^>]*>`)
)

// TestPagesPassTheGroundsChecks: each page has the ground's security
// headers and CSP, every script the answer's nonce, no inline handler or
// style, one h1, unique ids, a label for every field, the docs'
// sub-navigation with the page marked, and fits the ground's layout.
func TestPagesPassTheGroundsChecks(t *testing.T) {
	h := newServer(t, docs.Config{Keys: func(*http.Request) []web.KeyChoice {
		return []web.KeyChoice{{Name: "My app <b>", Prefix: "fds_AbC12345", Kind: "free"}}
	}})
	for path, current := range map[string]string{
		"/docs": "/docs", "/docs/reference": "/docs/reference", "/pricing": "/pricing",
		"/developer/playground": "/developer/playground",
		"/developer/playground?endpoint=matchPerfumes&accords=woody&gender=nobody": "/developer/playground",
	} {
		rec := get(t, h, path, "Cookie", "consent=necessary:2026-01-01")
		body := rec.Body.String()
		csp := rec.Header().Get("Content-Security-Policy")
		m := nonceRE.FindStringSubmatch(csp)
		if rec.Code != 200 || m == nil || strings.Contains(csp, "unsafe-inline") || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s = %d, CSP %q", path, rec.Code, csp)
		}
		for _, s := range scriptRE.FindAllString(body, -1) {
			if !strings.Contains(s, `nonce="`+m[1]+`"`) {
				t.Errorf("%s: a script without the nonce: %s", path, s)
			}
		}
		if x := handlerRE.FindString(body); x != "" {
			t.Errorf("%s: an inline event handler: %s", path, x)
		}
		if strings.Contains(body, " style=") || strings.Contains(body, "<style") {
			t.Errorf("%s: inline style", path)
		}
		if n := strings.Count(body, "<h1"); n != 1 {
			t.Errorf("%s: %d h1", path, n)
		}
		seen := map[string]bool{}
		for _, id := range idRE.FindAllStringSubmatch(body, -1) {
			if seen[id[1]] {
				t.Errorf("%s: id %q twice", path, id[1])
			}
			seen[id[1]] = true
		}
		for _, f := range fieldRE.FindAllString(body, -1) {
			if strings.Contains(f, `type="hidden"`) || strings.Contains(f, "disabled") {
				continue
			}
			id := regexp.MustCompile(`id="([^"]+)"`).FindStringSubmatch(f)
			if id == nil || !strings.Contains(body, `<label for="`+id[1]+`"`) {
				t.Errorf("%s: a field without a label: %s", path, f)
			}
		}
		if !strings.Contains(body, `<nav class="docsnav" aria-label="Developer documentation">`) ||
			!strings.Contains(body, `<a href="`+current+`" aria-current="page">`) {
			t.Errorf("%s: no docs navigation with the page marked", path)
		}
		for _, link := range []string{"/docs", "/docs/reference", "/docs/errors", "/changelog", "/developer/playground", "/pricing"} {
			if !strings.Contains(body, `<li><a href="`+link+`"`) {
				t.Errorf("%s: the docs navigation lacks %s", path, link)
			}
		}
		if !strings.Contains(body, `<link rel="canonical" href="`+base+current+`">`) {
			t.Errorf("%s: canonical link", path)
		}
		// Assets the pages name are served.
		for _, a := range regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllStringSubmatch(body, -1) {
			if get(t, h, a[1]).Code != 200 {
				t.Errorf("%s: asset %s is not served", path, a[1])
			}
		}
	}
}

// TestMarkdownEscapes: the document's descriptions are text; only the
// tags the renderer writes are HTML.
func TestMarkdownEscapes(t *testing.T) {
	evil := `{"openapi":"3.1.0","info":{"title":"t","version":"1","description":"# <img src=x onerror=alert(1)>\n\n- a ` + "`<b>`" + ` **<i>**\n\n| <th> | b |\n|---|---|\n| <script> | ` + "`x`" + ` |"},` +
		`"paths":{"/x/{id}":{"get":{"operationId":"getX","summary":"<script>s</script>","description":"**bold** and <em>","parameters":[{"name":"id","in":"path","description":"<u>id</u>","schema":{"type":"string"}}],` +
		`"responses":{"200":{"description":"<i>ok</i>","content":{"application/json":{"examples":{"e":{"summary":"GET /x/<b>","value":{"a":"</pre><script>"}}}}}}}}}}}`
	h := newServer(t, docs.Config{OpenAPI: []byte(evil)})
	for _, path := range []string{"/docs/reference", "/developer/playground?endpoint=getX&id=%3Cscript%3E"} {
		body := get(t, h, path).Body.String()
		for _, bad := range []string{"<img src=x", "<script>", "<b>", "<i>", "<em>", "<u>", "<th>", "</pre><script>"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: %s reached the page unescaped", path, bad)
			}
		}
	}
	body := get(t, h, "/docs/reference").Body.String()
	for _, want := range []string{"<strong>bold</strong>", "<code>&lt;b&gt;</code>", "<strong>&lt;i&gt;</strong>", `<th scope="col">&lt;th&gt;</th>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the reference lacks %s", want)
		}
	}
}

// TestParseDocErrors: a document the pages cannot show is refused at
// start-up, with the reason.
func TestParseDocErrors(t *testing.T) {
	for doc, want := range map[string]string{
		`not json`:     "OpenAPI document",
		`{"paths":{}}`: "no operations",
		`{"paths":{"/a":{"get":{"operationId":"a","responses":{}}},"/b":{"get":{"operationId":"a","responses":{}}}}}`: "used twice",
		`{"paths":{"/a":{"get":{"parameters":[{"$ref":"#/components/parameters/Nope"}],"responses":{}}}}}`:            "unknown parameter",
		`{"paths":{"/a":{"get":{"responses":{"400":{"$ref":"#/components/responses/Nope"}}}}}}`:                       "unknown answer",
		`{"paths":{"/a":{"get":{"parameters":[{"name":"endpoint","in":"query"}],"responses":{}}}}}`:                   `parameter named "endpoint"`,
	} {
		ground, err := web.New(web.Config{BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := docs.New(docs.Config{Web: ground, OpenAPI: []byte(doc)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%.60s) = %v, want an error with %q", doc, err, want)
		}
	}
	if _, err := docs.New(docs.Config{}); err == nil {
		t.Error("New without the ground and the document was accepted")
	}
}

// TestOperationsKeepTheirOrder: the reference lists the operations in the
// document's order (encoding/json's maps would not).
func TestOperationsKeepTheirOrder(t *testing.T) {
	d, err := docs.ParseDoc(api.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range d.Endpoints {
		if !slices.Contains(paths, e.Path) {
			paths = append(paths, e.Path)
		}
	}
	want := regexp.MustCompile(`\n    "(/[^"]*)": \{`).FindAllStringSubmatch(string(api.OpenAPIDocument()), -1)
	if len(want) != len(paths) {
		t.Fatalf("%d paths, the document has %d", len(paths), len(want))
	}
	for i := range want {
		if want[i][1] != paths[i] {
			t.Errorf("path %d = %s, the document's is %s", i, paths[i], want[i][1])
		}
	}
}
