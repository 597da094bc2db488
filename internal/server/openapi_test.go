package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The OpenAPI document is checked in two ways: as published (it must be a
// valid OpenAPI 3.1 document whose examples match their schemas), and in a
// strict copy whose object schemas reject undocumented members, against
// which real answers of the real handler are validated. kin-openapi
// validates 3.1 documents with a JSON Schema 2020-12 validator (type arrays
// such as ["integer","null"], const, examples), chosen from the document's
// openapi field.

// servedDoc fetches the document as the server serves it.
func servedDoc(t *testing.T) []byte {
	t.Helper()
	served.once.Do(func() {
		rec := servetest.Do(t, servetest.NewServer(t, nil), "GET", "/api/openapi.json")
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			served.err = fmt.Sprintf("GET /api/openapi.json = %d %q", rec.Code, rec.Header().Get("Content-Type"))
			return
		}
		served.doc = rec.Body.Bytes()
	})
	if served.doc == nil {
		t.Fatalf("%s (see the first test that asked)", served.err)
	}
	return bytes.Clone(served.doc)
}

// served is the document the default server serves, fetched once per
// test binary: composing a server (its templates, the developer docs)
// for each test that reads the document only repeated the same answer.
var served struct {
	once sync.Once
	doc  []byte
	err  string
}

// loadDoc parses a document and, when asked, validates it, examples
// included (the costly part, so only TestOpenAPIDocument asks).
func loadDoc(t *testing.T, data []byte, validate bool) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	if validate {
		if err := doc.Validate(context.Background()); err != nil {
			t.Fatalf("OpenAPI document is not valid: %v", err)
		}
	}
	return doc
}

// strictDoc returns a copy of the document in which every component object
// schema that lists properties, and does not say otherwise, rejects
// members it does not list: an answer with an undocumented field fails.
func strictDoc(t *testing.T, data []byte, validate bool) *openapi3.T {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	schemas := m["components"].(map[string]any)["schemas"].(map[string]any)
	for _, s := range schemas {
		closeObjects(s)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return loadDoc(t, out, validate)
}

func closeObjects(v any) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	if _, set := s["additionalProperties"]; set {
		return // deliberately open (or typed) maps stay as they are
	}
	if props, ok := s["properties"].(map[string]any); ok {
		s["additionalProperties"] = false
		for _, p := range props {
			closeObjects(p)
		}
	}
	closeObjects(s["items"])
}

// oasChecker validates real answers against a document.
type oasChecker struct {
	doc    *openapi3.T
	router routers.Router
}

func newChecker(t *testing.T) *oasChecker {
	t.Helper()
	doc := strictDoc(t, servedDoc(t), false)
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &oasChecker{doc: doc, router: r}
}

// oasCase is one request and the status its answer must have. validRequest
// marks requests that must themselves satisfy the document (not the ones
// that test refusals or clamping).
type oasCase struct {
	method, target string
	status         int
	validRequest   bool
}

// check sends c to h, with header pairs, and validates the answer against
// the operation of its path. A 405 to another method is checked against the
// GET operation, where the document lists it.
func (v *oasChecker) check(t *testing.T, h http.Handler, c oasCase, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	rec := servetest.Do(t, h, c.method, c.target, header...)
	if rec.Code != c.status {
		t.Errorf("%s %.90s = %d, want %d\n%.300s", c.method, c.target, rec.Code, c.status, rec.Body)
		return rec
	}
	req := httptest.NewRequest(http.MethodGet, c.target, nil)
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		t.Errorf("%s %.90s: no operation in the document: %v", c.method, c.target, err)
		return rec
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if c.validRequest {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s %.90s: request does not satisfy the document: %v", c.method, c.target, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %.90s = %d: answer does not match the document: %v\n%.500s", c.method, c.target, rec.Code, err, rec.Body)
	}
	return rec
}

// TestOpenAPIDocument checks the document as published.
func TestOpenAPIDocument(t *testing.T) {
	served := servedDoc(t)
	onDisk, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(served, onDisk) {
		t.Error("/api/openapi.json does not serve internal/api/openapi.json")
	}
	doc := loadDoc(t, served, true)
	strictDoc(t, served, true) // the examples have no undocumented members either
	if !doc.IsOpenAPI31OrLater() || doc.Info.Version != servetest.Version {
		t.Errorf("openapi %q, info.version %q", doc.OpenAPI, doc.Info.Version)
	}
	if len(doc.Security) != 3 {
		t.Errorf("want the three key schemes as the default security, have %v", doc.Security)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			// The image host answers methods its own way; every other
			// path refuses all but GET, HEAD and OPTIONS with a 405.
			if op.OperationID == "" || op.Responses.Status(http.StatusMethodNotAllowed) == nil && !strings.HasPrefix(path, "/img/") {
				t.Errorf("%s %s: needs an operationId and the 405 answer", method, path)
			}
			keyed := path == "/mcp" || strings.HasPrefix(path, "/api/") && path != "/api/openapi.json" && path != "/api/search"
			if open := op.Security != nil && len(*op.Security) == 0; open == keyed {
				t.Errorf("%s %s: key required = %v, want %v", method, path, !open, keyed)
			}
			if keyed {
				for _, status := range []int{401, 403, 429, 503} {
					if op.Responses.Status(status) == nil {
						t.Errorf("%s %s: no %d answer", method, path, status)
					}
				}
			}
		}
	}
}

// TestOpenAPIResponses validates real answers of every endpoint, success
// and each error reachable without a key, against the document.
func TestOpenAPIResponses(t *testing.T) {
	v := newChecker(t)
	h := servetest.NewServer(t, func(c *servetest.Config) {
		reg := prometheus.NewRegistry()
		c.Registry = reg
		c.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	})
	long := strings.Repeat("a", 201)
	cases := []oasCase{
		{"GET", "/api/perfumes", 200, true},
		{"GET", "/api/perfumes?q=sauvage+dior&limit=2", 200, true},
		{"GET", "/api/perfumes?brand=dior&page=2&limit=5", 200, true},
		{"GET", "/api/perfumes?q=zzzzqqqxx", 200, true},
		{"GET", "/api/perfumes?page=999999", 200, true},
		{"GET", "/api/perfumes?limit=1000", 200, false},
		{"GET", "/api/perfumes/match?accords=woody:40,vanilla&notes=Tonka+Bean&gender=masculine&season=winter&time=night&limit=3", 200, true},
		{"GET", "/api/perfumes/match?gender=feminine&season=summer&time=day&limit=3", 200, true},
		{"GET", "/api/perfumes/match?notes=Rose,Oud&page=2", 200, true},
		{"GET", "/api/perfumes/match", 400, false},
		{"GET", "/api/perfumes/match?q=vanilla+tobacco+for+winter,+no+oud,+by+tom+ford,+zzz&limit=3", 200, true},
		{"GET", "/api/perfumes/match?q=zzz", 200, true},
		{"GET", "/api/perfumes/match?notes=rose,-oud&accords=-sweet&sort=popular&limit=3", 200, true},
		{"GET", "/api/perfumes/match?q=" + long, 400, false},
		{"GET", "/api/perfumes/match?notes=rose&sort=cheapest", 400, false},
		{"GET", "/api/perfumes/recommend?liked=creed-aventus,dior-sauvage&disliked=chanel-bleu-de-chanel&avoid=oud&gender=masculine&limit=3", 200, true},
		{"GET", "/api/perfumes/recommend?liked=dior-sauvage&page=9999", 200, true},
		{"GET", "/api/perfumes/recommend", 400, false},
		{"GET", "/api/perfumes/recommend?liked=dior-sauvage&avoid=vanillla", 400, false},
		{"GET", "/api/perfumes/recommend?liked=no-such-perfume", 404, false},
		{"GET", "/api/perfumes/changes?limit=2", 200, true},
		{"GET", "/api/perfumes/changes?since=djE6Mg&limit=3", 200, true},
		{"GET", "/api/perfumes/changes?since=not-a-cursor", 400, false},
		{"GET", "/api/perfumes/changes?limit=0", 400, false},
		{"GET", "/api/perfumes/dior-sauvage", 200, true},
		{"GET", "/api/perfumes/creed-aventus", 200, true},
		{"GET", "/api/perfumes/dior-sauvage/similar", 200, true},
		{"GET", "/api/perfumes/creed-aventus/dupes?limit=50", 200, true},
		{"GET", "/api/brands", 200, true},
		{"GET", "/api/brands?q=hermes", 200, true},
		{"GET", "/api/notes", 200, true},
		{"GET", "/api/notes?limit=3", 200, true},
		{"GET", "/api/perfumers", 200, true},
		{"GET", "/api/perfumers/dominique-ropion?page=2&limit=5", 200, true},
		{"GET", "/api/accords", 200, true},
		{"GET", "/api/accords?search=wood&limit=3", 200, true},
		{"GET", "/api/openapi.json", 200, true},
		{"GET", "/healthz", 200, true},
		{"GET", "/metrics", 200, true},
		{"GET", "/goto/dior-sauvage", 302, true},
		{"GET", "/api/search?q=sauvage+dior&limit=2", 200, true},
		{"GET", "/api/search?q=tobacco+van", 200, true},
		{"GET", "/api/search?limit=50&q=rose", 200, true},
		{"GET", "/api/search", 200, true},
		{"GET", "/api/search?q=zzzzqqqxx", 200, true},

		{"GET", "/api/perfumes?page=0&limit=ten", 400, false},
		{"GET", "/api/perfumes?q=" + long, 400, false},
		{"GET", "/api/perfumes?limit=5&limit=10", 400, false},
		{"GET", "/api/perfumes/match?accords=woddy&gender=other&season=monsoon&time=noon", 400, false},
		{"GET", "/api/perfumes/match?accords=woody:101", 400, false},
		{"GET", "/api/perfumes/dior-sauvage/similar?limit=0", 400, false},
		{"GET", "/api/perfumes/dior-sauvage/dupes?limit=x", 400, false},
		{"GET", "/api/brands?q=" + long, 400, false},
		{"GET", "/api/notes?limit=-1", 400, false},
		{"GET", "/api/perfumers?%zz", 400, false},
		{"GET", "/api/perfumers/dominique-ropion?page=0", 400, false},
		{"GET", "/api/accords?search=" + long, 400, false},
		{"GET", "/api/search?q=" + long, 400, false},
		{"GET", "/api/search?limit=0", 400, false},

		{"GET", "/api/perfumes/no-such-perfume", 404, true},
		{"GET", "/api/perfumes/no-such-perfume/similar", 404, true},
		{"GET", "/api/perfumes/no-such-perfume/dupes", 404, true},
		{"GET", "/api/perfumers/no-such-perfumer", 404, true},
		{"GET", "/goto/no-such-perfume", 404, true},
	}
	// 405 on every path of the document, with its example values. The
	// image host is not mounted here (its answers are its package's to test).
	for _, p := range docPaths(t, v.doc) {
		if !strings.HasPrefix(p.path, "/img/") {
			cases = append(cases, oasCase{"POST", p.target, 405, false}, oasCase{"DELETE", p.target, 405, false})
		}
	}
	for _, c := range cases {
		v.check(t, h, c)
	}
	v.checkUnknownPath(t, h)
}

// checkUnknownPath: an unknown path under /api has no operation, so its
// answer is validated against the Problem schema itself.
func (v *oasChecker) checkUnknownPath(t *testing.T, h http.Handler) {
	rec := servetest.Do(t, h, "GET", "/api/no-such-endpoint")
	var body any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusNotFound {
		t.Fatalf("unknown path = %d: %v", rec.Code, err)
	}
	if err := v.doc.Components.Schemas["Problem"].Value.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("unknown path: %v", err)
	}
}

// TestOpenAPICatalogueSample validates lists and details spread over the
// catalogue, from the most rated perfumes to the least (whose fields are
// the likeliest to be unknown), including dupes of a source without a tier.
func TestOpenAPICatalogueSample(t *testing.T) {
	v := newChecker(t)
	h := servetest.NewServer(t, nil)
	pages := int(servetest.Decode(t, servetest.Do(t, h, "GET", "/api/perfumes?limit=100"))["pages"].(float64))
	noTier := ""
	for _, page := range []int{1, pages / 2, pages} {
		target := "/api/perfumes?limit=100&page=" + strconv.Itoa(page)
		v.check(t, h, oasCase{"GET", target, 200, true})
		for i, it := range servetest.Decode(t, servetest.Do(t, h, "GET", target))["data"].([]any) {
			item := it.(map[string]any)
			slug := url.PathEscape(item["id"].(string))
			if item["priceTier"] == nil && noTier == "" {
				noTier = slug
			}
			if i%4 == 0 {
				v.check(t, h, oasCase{"GET", "/api/perfumes/" + slug, 200, true})
			}
		}
	}
	if noTier == "" {
		t.Fatal("no perfume without a price tier in the sample")
	}
	v.check(t, h, oasCase{"GET", "/api/perfumes/" + noTier + "/dupes", 200, true})
}

// TestOpenAPIBeforeLoad validates the answers of a server whose catalogue
// has not loaded yet: 503 on every keyed endpoint.
func TestOpenAPIBeforeLoad(t *testing.T) {
	v := newChecker(t)
	h := servetest.NewServer(t, func(c *servetest.Config) { c.Catalogue = index.NewHolder(nil) })
	for _, p := range docPaths(t, v.doc) {
		switch {
		case p.path == "/api/openapi.json":
			v.check(t, h, oasCase{"GET", p.target, 200, true})
		case strings.HasPrefix(p.path, "/api/"), p.path == "/healthz", p.path == "/goto/{slug}":
			v.check(t, h, oasCase{"GET", p.target, 503, true})
		}
	}
}

// docPath is a path of the document and a request target for it, made
// from the examples of its path parameters.
type docPath struct{ path, target string }

func docPaths(t *testing.T, doc *openapi3.T) []docPath {
	t.Helper()
	var out []docPath
	for _, path := range doc.Paths.InMatchingOrder() {
		op := doc.Paths.Value(path).Get
		if op == nil && doc.Paths.Value(path).Post != nil {
			continue // POST /mcp: postPaths
		}
		if op == nil {
			t.Fatalf("%s has no GET", path)
		}
		target := path
		for _, p := range op.Parameters {
			if p.Value.In != openapi3.ParameterInPath {
				continue
			}
			if len(p.Value.Examples) == 0 {
				t.Fatalf("%s: path parameter %s has no example", path, p.Value.Name)
			}
			for _, ex := range p.Value.Examples {
				target = strings.ReplaceAll(target, "{"+p.Value.Name+"}", fmt.Sprint(ex.Value.Value))
				break
			}
		}
		sep := "?"
		for _, p := range op.Parameters { // a required query parameter takes its example too
			if p.Value.In != openapi3.ParameterInQuery || !p.Value.Required {
				continue
			}
			for _, ex := range p.Value.Examples {
				target += sep + p.Value.Name + "=" + url.QueryEscape(fmt.Sprint(ex.Value.Value))
				sep = "&"
				break
			}
		}
		out = append(out, docPath{path, target})
	}
	return out
}

// postPaths are the document's paths served by POST alone (/mcp).
func postPaths(doc *openapi3.T) []string {
	var out []string
	for _, path := range doc.Paths.InMatchingOrder() {
		if item := doc.Paths.Value(path); item.Get == nil && item.Post != nil {
			out = append(out, path)
		}
	}
	return out
}

// TestOpenAPIRouteTable checks that the document and the route tables
// (routeTables) list the same endpoints: every path of the document reaches
// its own route of the server, with every optional feature on, and every
// route of routes.go but the catch-alls is reached by a path of the
// document and written there with the same pattern.
func TestOpenAPIRouteTable(t *testing.T) {
	doc := loadDoc(t, servedDoc(t), false)
	names, patterns := routeTable(t)
	reached := map[string]string{}
	for _, p := range docPaths(t, doc) {
		route := routeOf(t, p.target)
		switch {
		case route == "unknown" || route == "pages" || route == "unmatched" || !slices.Contains(names, route):
			t.Errorf("document path %s (%s) reaches no endpoint of the route table (route %q)", p.path, p.target, route)
		case reached[route] != "" && route != "images":
			t.Errorf("document paths %s and %s reach the same route %q", reached[route], p.path, route)
		}
		reached[route] = p.path
	}
	for _, path := range postPaths(doc) {
		route := routeOf(t, path)
		if route == "unknown" || route == "pages" || route == "unmatched" || !slices.Contains(names, route) {
			t.Errorf("document path %s reaches no endpoint of the route table (route %q)", path, route)
		}
		reached[route] = path
	}
	for _, name := range names {
		if _, ok := reached[name]; !ok && name != "unknown" && name != "pages" && !pagesOutsideDocument[name] {
			t.Errorf("route %q of the route tables is not in the document", name)
		}
	}
	for _, pattern := range patterns {
		if pattern != "/api/" && pattern != "/" && !pagesOutsideDocument[pattern] && doc.Paths.Value(pattern) == nil {
			t.Errorf("pattern %s of the route tables is not a path of the document", pattern)
		}
	}
}

// routeOf serves one GET of target with every optional route mounted and
// returns the name of the route that answered, read from the latency
// metric's route label.
func routeOf(t *testing.T, target string) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	stub := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Registry = reg
		c.Metrics = stub
		c.Caller, c.Usage = noCaller{}, noUsage{}
		c.ImageHost = stub
		c.ImagePath = "/img"
		c.MCP = func(*index.Holder, view.Builder) http.Handler { return stub }
	})
	servetest.Do(t, h, "GET", target)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "route" {
					return l.GetValue()
				}
			}
		}
	}
	t.Fatalf("GET %s: no route recorded", target)
	return ""
}

// pagesOutsideDocument are the routes of pages for people, by name and
// pattern, which the OpenAPI document of the API and its machinery leaves
// out.
var pagesOutsideDocument = map[string]bool{
	"docs.errors": true, "/docs/errors": true,
	"changelog": true, "/changelog": true,
	"changelog.json": true, "/changelog.json": true,
	"privacy": true, "/privacy": true,
	"assets": true, "/assets/{file}": true,
	"consent": true, "/consent": true,
	// The public website (web/site).
	"site.home": true, "/{$}": true,
	"site.search": true, "/search": true,
	"site.perfume": true, "/perfumes/{slug}": true,
	"site.brands": true, "/brands": true,
	"site.brand": true, "/brands/{slug}": true,
	"site.perfumers": true, "/perfumers": true,
	"site.perfumer": true, "/perfumers/{slug}": true,
	"site.notes": true, "/notes": true,
	"site.note": true, "/notes/{name}": true,
	"site.accords": true, "/accords": true,
	"site.accord": true, "/accords/{name}": true,
	"site.sitemap": true, "/sitemap.xml": true,
	"site.sitemap.part": true, "/sitemaps/{part}": true,
	"site.robots": true, "/robots.txt": true,
	// The developer docs (web/docs).
	"docs.guide": true, "/docs": true,
	"docs.reference": true, "/docs/reference": true,
	"docs.playground": true, "/developer/playground": true,
	"docs.pricing": true, "/pricing": true,
	"docs.markdown": true, "/docs.md": true,
	"docs.llms": true, "/llms.txt": true,
	// The developer portal (web/portal).
	"portal.home": true, "/developer": true,
	"portal.signin.link": true, "/developer/signin/link": true,
	"portal.signin": true, "portal.signin.use": true, "/developer/signin": true,
	"portal.signout": true, "/developer/signout": true,
	"portal.signout.everywhere": true, "/developer/signout/everywhere": true,
	"portal.account": true, "/developer/account": true,
	"portal.account.delete": true, "/developer/account/delete": true,
	"portal.keys": true, "portal.keys.create": true, "/developer/keys": true,
	"portal.key": true, "/developer/keys/{prefix}": true,
	"portal.key.roll": true, "/developer/keys/{prefix}/roll": true,
	"portal.key.revoke.confirm": true, "portal.key.revoke": true, "/developer/keys/{prefix}/revoke": true,
	"portal.key.tier": true, "/developer/keys/{prefix}/tier": true,
}

// routeTables are the files that register routes: the API's, the
// server's own, the pages' ground, the public website's and the docs'.
var routeTables = []string{"../api/routes.go", "routes.go", "../web/web.go", "../web/site/site.go", "../web/docs/docs.go"}

// routeTable reads the route tables and returns the route names and the
// literal path patterns they register: calls of keyed and handle with a
// pattern, a name and a handler. A pattern's method ("GET /x") is dropped.
func routeTable(t *testing.T) (names, patterns []string) {
	t.Helper()
	lit := func(e ast.Expr) (string, bool) {
		bl, ok := e.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(bl.Value)
		return s, err == nil
	}
	for _, file := range routeTables {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 3 {
				return true
			}
			fn, ok := call.Fun.(*ast.Ident)
			if !ok || (fn.Name != "keyed" && fn.Name != "handle") {
				return true
			}
			if p, ok := lit(call.Args[0]); ok {
				if _, path, found := strings.Cut(p, " "); found {
					p = path
				}
				patterns = append(patterns, p)
			}
			if name, ok := lit(call.Args[1]); ok {
				names = append(names, name)
			}
			return true
		})
	}
	if len(names) < 10 {
		t.Fatalf("route tables: found only routes %v; have they moved?", names)
	}
	return names, patterns
}

// noCaller and noUsage mount /api/usage for the route table test.
type noCaller struct{}

func (noCaller) Caller(context.Context) (apikey.Key, ratelimit.Decision, apikey.Limits, bool) {
	return apikey.Key{}, ratelimit.Decision{}, apikey.Limits{}, false
}

type noUsage struct{}

func (noUsage) Report(context.Context, string, int) (usage.Report, error) { return usage.Report{}, nil }
func (noUsage) View(int64, usage.ViewKind)                                {}
func (noUsage) EmptySearch(string)                                        {}

// TestOpenAPIAccess validates the answers of the real access layer over a
// real SQLite key store: 200 with the rate-limit headers, /api/usage, each
// 401, 403 and 429, and the 503 of an unreachable key store. All requests
// come from one client IP, so the failed key checks are ordered: two while
// the store works, then the 503, then two more and the refusal they cause,
// which refuses the IP's failures but not its (cached) valid key.
func TestOpenAPIAccess(t *testing.T) {
	v := newChecker(t)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	tiers := apikey.DefaultTiers()
	tiers[apikey.Free] = apikey.Limits{PerMinute: 3, PerDay: 1000}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) // a still clock: no window slides during the test
	m := servetest.Meter(t, db, func() time.Time { return now })
	g, err := access.NewGuard(db, m, nil, access.Config{Tiers: tiers, FailedChecks: apikey.Limits{PerMinute: 4},
		UsageBudget: apikey.Limits{PerMinute: 2}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(ctx); db.Close() })
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Guard, c.Caller, c.Usage = g, g, m
		c.SiteSearch = func(h http.Handler) http.Handler { return g.LimitPerIP("search.site", 2, h) }
	})
	newKey := func(k apikey.Key, state apikey.State) string {
		secret, err := apikey.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		pk, _ := apikey.ParseKey(secret)
		k.Prefix, k.Hash, k.Name = pk.Prefix, pk.Hash, "openapi test"
		if _, err := db.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		if state != apikey.Active {
			if _, err := db.SetKeyState(ctx, pk.Prefix, state); err != nil {
				t.Fatal(err)
			}
		}
		return secret
	}
	free := newKey(apikey.Key{Tier: apikey.Free}, apikey.Active)
	pro := newKey(apikey.Key{Tier: apikey.Pro}, apikey.Active)
	daily := newKey(apikey.Key{Tier: apikey.Basic, PerDay: 2}, apikey.Active)
	browser := newKey(apikey.Key{Tier: apikey.Basic, Origins: []string{"https://app.example"}}, apikey.Active)
	revoked := newKey(apikey.Key{Tier: apikey.Free}, apikey.Revoked)
	suspended := newKey(apikey.Key{Tier: apikey.Free}, apikey.Suspended)
	unknown, _ := apikey.GenerateKey()

	// Authenticated answers carry the rate-limit headers.
	limited := func(rec *httptest.ResponseRecorder) {
		t.Helper()
		for _, name := range []string{"RateLimit", "RateLimit-Policy", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
			if rec.Header().Get(name) == "" {
				t.Errorf("%d answer without %s", rec.Code, name)
			}
		}
	}
	limited(v.check(t, h, oasCase{"GET", "/api/perfumes?limit=1", 200, true}, "X-API-Key", free))
	// The keyless site search: limited per client IP, the API's 429.
	limited(v.check(t, h, oasCase{"GET", "/api/search?q=sauvage", 200, true}))
	limited(v.check(t, h, oasCase{"GET", "/api/search?q=aventus", 200, true}))
	limited(v.check(t, h, oasCase{"GET", "/api/search?q=bleu", 429, true}))
	limited(v.check(t, h, oasCase{"GET", "/api/usage?days=2", 200, true}, "Authorization", "Bearer "+free))
	limited(v.check(t, h, oasCase{"GET", "/api/perfumes/dior-sauvage?api_key=" + free, 200, true}))
	limited(v.check(t, h, oasCase{"GET", "/api/perfumes?limit=1", 200, true}, "X-API-Key", free)) // /api/usage took none
	limited(v.check(t, h, oasCase{"GET", "/api/perfumes?limit=1", 429, true}, "X-API-Key", free))
	limited(v.check(t, h, oasCase{"GET", "/api/usage", 200, true}, "X-API-Key", free)) // answers while limited
	limited(v.check(t, h, oasCase{"GET", "/api/usage", 429, true}, "X-API-Key", free)) // its own budget spent
	limited(v.check(t, h, oasCase{"GET", "/api/usage?days=0", 400, false}, "X-API-Key", pro))
	limited(v.check(t, h, oasCase{"GET", "/api/perfumes?limit=0", 400, false}, "X-API-Key", pro))
	limited(v.check(t, h, oasCase{"GET", "/api/perfumers/no-such-perfumer", 404, true}, "X-API-Key", pro))
	for range 2 {
		v.check(t, h, oasCase{"GET", "/api/brands?q=dior", 200, true}, "X-API-Key", daily)
	}
	limited(v.check(t, h, oasCase{"GET", "/api/brands?q=dior", 429, true}, "X-API-Key", daily))
	v.check(t, h, oasCase{"GET", "/api/accords", 200, true}, "X-API-Key", browser, "Origin", "https://app.example")
	v.check(t, h, oasCase{"GET", "/api/accords", 403, true}, "X-API-Key", browser, "Origin", "https://evil.example")
	v.check(t, h, oasCase{"GET", "/api/notes", 401, true})
	v.check(t, h, oasCase{"GET", "/api/notes", 401, true}, "X-API-Key", revoked)
	v.check(t, h, oasCase{"GET", "/api/notes", 403, true}, "X-API-Key", suspended)
	v.check(t, h, oasCase{"GET", "/api/notes", 401, true}, "X-API-Key", "fds_not-a-key")   // failed check 1
	v.check(t, h, oasCase{"GET", "/api/notes?api_key=" + unknown, 401, true})              // failed check 2
	db.Close()                                                                             // the key store is gone:
	v.check(t, h, oasCase{"GET", "/api/perfumes", 503, true}, "X-API-Key", newUnstored(t)) // fail closed
	v.check(t, h, oasCase{"GET", "/api/notes", 401, true}, "X-API-Key", "fds_not-a-key")   // failed check 3
	v.check(t, h, oasCase{"GET", "/api/notes", 401, true}, "X-API-Key", "fds_not-a-key")   // failed check 4
	v.check(t, h, oasCase{"GET", "/api/notes", 429, true}, "X-API-Key", "fds_not-a-key")   // this IP's failures are refused
	v.check(t, h, oasCase{"GET", "/api/notes", 200, true}, "X-API-Key", pro)               // but not its valid keys
}

// newUnstored returns a well-formed key that no store holds.
func newUnstored(t *testing.T) string {
	k, err := apikey.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestOpenAPIProblemCodes: the document's problem codes are the table's
// (problem.Codes), each under the answer of its status.
func TestOpenAPIProblemCodes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas   map[string]json.RawMessage `json:"schemas"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Properties struct {
							Code   struct{ Enum []string } `json:"code"`
							Status struct{ Const int }     `json:"status"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(servedDoc(t), &doc); err != nil {
		t.Fatal(err)
	}
	var problemSchema struct {
		Properties struct {
			Code struct{ Enum []string } `json:"code"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["Problem"], &problemSchema); err != nil {
		t.Fatal(err)
	}
	byStatus := map[int][]string{}
	for _, r := range doc.Components.Responses {
		s := r.Content["application/problem+json"].Schema.Properties
		byStatus[s.Status.Const] = append(byStatus[s.Status.Const], s.Code.Enum...)
	}
	var table []string
	for _, c := range problem.Codes {
		table = append(table, c.Code)
		if !slices.Contains(byStatus[c.Status], c.Code) {
			t.Errorf("code %s: no %d answer of the document lists it", c.Code, c.Status)
		}
	}
	got := slices.Clone(problemSchema.Properties.Code.Enum)
	slices.Sort(got)
	slices.Sort(table)
	if !slices.Equal(got, table) {
		t.Errorf("the document's codes %v are not the table's %v", got, table)
	}
}

// The service has one version: the changelog's newest, which says what is
// in it, is the OpenAPI document's info.version and what X-API-Version
// carries.
func TestVersionIsTheChangelogsNewest(t *testing.T) {
	site, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	newest := site.Changelog()[0]
	doc := loadDoc(t, servedDoc(t), true)
	if doc.Info.Version != newest.Version || servetest.Version != newest.Version {
		t.Errorf("info.version %s, X-API-Version %s; the changelog's newest is %s", doc.Info.Version, servetest.Version, newest.Version)
	}
}
