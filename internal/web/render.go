package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"

	"github.com/fragrance-data/fragrance/internal/problem"
	"strconv"
	"sync"
	"sync/atomic"
)

// Page is what a handler of any area hands to Render: the head of the page
// (title, description, canonical path, Open Graph, structured data), the
// breadcrumbs, and the data of its content template.
type Page struct {
	// Title is the whole <title>.
	Title       string
	Description string
	// Path is the canonical path of the page ("/perfumes/dior-sauvage");
	// the canonical link and og:url are the base URL and it. Empty: none.
	Path string
	// OGType is the Open Graph type ("website" when empty); OGImage an
	// absolute image URL.
	OGType, OGImage string
	// JSONLD holds structured-data blocks, each already JSON (see
	// MarshalJSONLD), written as application/ld+json scripts.
	JSONLD []template.JS
	// Crumbs is the breadcrumb trail shown above the content (the last is
	// the page itself).
	Crumbs []Crumb
	// NoIndex asks search engines not to index the page (search results,
	// error pages).
	NoIndex bool
	// HideSearch leaves the search box out of the header (the home page has
	// its own).
	HideSearch bool
	// NoStore marks an answer that holds a secret shown once (a new API
	// key, a sign-in token in a form): Cache-Control no-store and no ETag,
	// so no cache keeps it and no revalidation serves it again.
	NoStore bool
	// NoCookieChoice marks a page of an area whose one cookie is strictly
	// necessary (the dashboard's session): it asks no cookie choice (no
	// banner), and the operator's analytics snippet never runs on it,
	// whatever the visitor chose on the public site, so no visit tool
	// sees the area's addresses.
	NoCookieChoice bool
	// Markdown is the path of the page's Markdown twin ("/perfumes/x.md"),
	// linked as <link rel="alternate" type="text/markdown">. Empty: none.
	Markdown string
	// Data is what the content template reads as .Data.
	Data any
}

// Crumb is one step of a breadcrumb trail.
type Crumb struct{ Name, Path string }

// layoutData is what the layout template sees: the page, and what the
// ground adds to every page.
type layoutData struct {
	Page
	Base      string
	Nonce     string
	Consent   Consent
	Back      string        // the request's own path and query: where a consent form returns
	Analytics template.HTML // the operator's snippet, after consent to analytics
	// AnalyticsSet tells the banner's script that consent to analytics
	// changes the page (the snippet is then put in): it reloads it.
	AnalyticsSet bool
}

// Templates are the pages of one area, each parsed over the shared layout.
type Templates struct {
	site  *Ground
	pages map[string]*template.Template
}

// Templates parses the pages names of an area from fsys
// ("templates/<name>.html", each defining "content") over the shared
// layout, with the shared template functions and the area's own funcs.
// The area's partials ("templates/_*.html") are parsed with every page.
func (s *Ground) Templates(fsys fs.FS, funcs template.FuncMap, names ...string) (*Templates, error) {
	t := &Templates{site: s, pages: make(map[string]*template.Template, len(names))}
	partials, err := fs.Glob(fsys, "templates/_*.html")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		p, err := s.layout.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := p.Funcs(funcs).ParseFS(fsys, append([]string{"templates/" + name + ".html"}, partials...)...); err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		t.pages[name] = p
	}
	return t, nil
}

// Content renders only the content of page name, without the layout, for
// an area that keeps rendered content and serves it again through a page
// whose content template writes it as is. The content must not depend on
// the visitor (consent) or on the answer's nonce.
func (t *Templates) Content(name string, p Page) (template.HTML, error) {
	tpl, ok := t.pages[name]
	if !ok {
		return "", fmt.Errorf("web: no page template %q", name)
	}
	var b bytes.Buffer
	if err := tpl.ExecuteTemplate(&b, "content", layoutData{Page: p, Base: t.site.base}); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// bufPool recycles page buffers (getBuf, putBuf).
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// getBuf returns an empty buffer from the pool.
func getBuf() *bytes.Buffer {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

// putBuf gives buf back to the pool, unless an outsized page grew it.
func putBuf(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		bufPool.Put(buf)
	}
}

// Render writes page name of t with status. The page is rendered with a
// stand-in for the CSP nonce, its ETag is the hash of that rendering (so
// an unchanged page revalidates as 304 Not Modified whatever its nonce),
// and only then the fresh nonce of this answer replaces the stand-in.
// Pages vary with the visitor's cookie choice (the banner), so they are
// private to the browser and revalidated before reuse.
func (t *Templates) Render(w http.ResponseWriter, r *http.Request, status int, name string, p Page) {
	buf := getBuf()
	defer putBuf(buf)
	rd, ok := t.render(w, r, buf, status, name, p, t.site.visitorOf(r, p))
	if !ok {
		return
	}
	t.site.serve(w, r, status, rd, rd.body)
}

// Kept holds a page's rendering for the next visitor of the same kind
// (see RenderKept). The zero Kept holds none.
type Kept struct {
	rd atomic.Pointer[rendering]
}

// RenderKept is Render with status 200 for a page that stays the same as
// long as kept does (its caller keeps the two together): the rendering
// made for one visitor is kept and served again, with a fresh nonce, to
// the next visitor of the same kind (the same cookie choice and the same
// address), without the template. A visitor of another
// kind gets a rendering of its own, which is then the kept one.
func (t *Templates) RenderKept(w http.ResponseWriter, r *http.Request, name string, p Page, kept *Kept) {
	if p.NoStore {
		t.Render(w, r, http.StatusOK, name, p) // a secret is never served twice
		return
	}
	buf := getBuf()
	defer putBuf(buf)
	v := t.site.visitorOf(r, p)
	rd := kept.rd.Load()
	if rd == nil || rd.visitor.kind() != v.kind() {
		var ok bool
		if rd, ok = t.render(w, r, buf, http.StatusOK, name, p, v); !ok {
			return
		}
		keep := *rd
		keep.body = bytes.Clone(rd.body)
		kept.rd.Store(&keep)
	} else {
		buf.Write(rd.body) // the kept bytes keep their stand-ins
	}
	t.site.serve(w, r, http.StatusOK, rd, buf.Bytes())
}

// visitor is what of a request a page's layout depends on, besides the
// page: the cookie choice (the banner, the analytics snippet) and the
// address a consent form returns to.
type visitor struct {
	consent Consent
	back    string
}

// visitorOf is the visitor of r on page p. On a page that asks no cookie
// choice the visitor counts as having chosen nothing but the necessary.
func (s *Ground) visitorOf(r *http.Request, p Page) visitor {
	if p.NoCookieChoice {
		return visitor{consent: Consent{Decided: true}, back: backOf(r.URL)}
	}
	return visitor{consent: ReadConsent(r), back: backOf(r.URL)}
}

// kind is v without the date of its cookie choice: the layout does not
// show it (only /privacy does, which is never kept; TestPerfumePageKept
// checks it), so visitors who chose alike on different days share a kept
// rendering.
func (v visitor) kind() visitor {
	v.consent.Date = ""
	return v
}

// rendering is a page rendered for a visitor, with the nonce's stand-in:
// its bytes, where the stand-in is in them, and its ETag.
type rendering struct {
	body    []byte
	nonces  []int
	etag    string
	noStore bool
	visitor visitor
}

// render renders page name for visitor v into buf, which the rendering's
// body then is. On failure it has answered the error page and returns
// false.
func (t *Templates) render(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, status int, name string, p Page, v visitor) (*rendering, bool) {
	s := t.site
	tpl, ok := t.pages[name]
	if !ok {
		s.ServerError(w, r, fmt.Errorf("web: no page template %q", name))
		return nil, false
	}
	d := layoutData{Page: p, Base: s.base, Nonce: s.placeholder, Consent: v.consent, Back: v.back, Analytics: s.analyticsFor(v.consent),
		AnalyticsSet: s.analytics != ""}
	buf.Reset()
	if err := tpl.ExecuteTemplate(buf, "layout", d); err != nil {
		if name == "500" {
			s.log.ErrorContext(r.Context(), "the 500 page failed to render", "err", err)
			http.Error(w, "The page failed on our side.", http.StatusInternalServerError)
			return nil, false
		}
		s.ServerError(w, r, fmt.Errorf("render %s: %w", name, err))
		return nil, false
	}
	body := buf.Bytes()
	sum := sha256.Sum256(body)
	rd := &rendering{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, noStore: p.NoStore, visitor: v}
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(s.placeholder))
		if j < 0 {
			break
		}
		rd.nonces = append(rd.nonces, i+j)
		i += j + len(s.placeholder)
	}
	return rd, true
}

// analyticsFor is the operator's snippet for a visitor of cookie choice
// c: none without consent to analytics.
func (s *Ground) analyticsFor(c Consent) template.HTML {
	if c.Analytics {
		return s.analytics
	}
	return ""
}

// serve answers rd with status; body is rd's bytes (or a copy), in which
// the stand-ins are replaced by this answer's nonce.
func (s *Ground) serve(w http.ResponseWriter, r *http.Request, status int, rd *rendering, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Vary", "Cookie")
	if rd.noStore {
		h.Set("Cache-Control", "no-store")
	} else if status == http.StatusOK {
		h.Set("ETag", rd.etag)
		if r.Header.Get("If-None-Match") == rd.etag {
			// The browser keeps the policy of the page it has (with that
			// page's nonce): a new one here would replace it.
			h.Del("Content-Security-Policy")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	nonce := newNonce()
	for _, at := range rd.nonces {
		copy(body[at:], nonce)
	}
	// With the operator's snippet in the page, the CSP lets it load scripts.
	h.Set("Content-Security-Policy", s.csp(nonce, s.analyticsFor(rd.visitor.consent) != ""))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// MarkdownType is the content type of the Markdown twins of the pages.
const MarkdownType = "text/markdown; charset=utf-8"

// Text answers body, a text of the pages that is not HTML (a Markdown
// twin, llms.txt), with ctype and status. Such a text is the same for
// every visitor: it is public, and its ETag (the hash of the body) lets a
// client revalidate it as 304 Not Modified, like a page.
func (s *Ground) Text(w http.ResponseWriter, r *http.Request, status int, ctype, body string) {
	sum := sha256.Sum256([]byte(body))
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "public, no-cache")
	if status == http.StatusOK {
		h.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		io.WriteString(w, body)
	}
}

// NotFoundPage answers the 404 page.
func (s *Ground) NotFoundPage(w http.ResponseWriter, r *http.Request) {
	s.own.Render(w, r, http.StatusNotFound, "404", Page{
		Title: "Page not found · Fragrance Data Service", NoIndex: true, Data: problem.Echo(r.URL.Path),
		HideSearch: true, // the page has its own
	})
}

// ServerError logs err (when not nil) with the request, and answers the
// 500 page, which shows no internals.
func (s *Ground) ServerError(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		s.log.ErrorContext(r.Context(), "page failed", "err", err, "path", r.URL.Path)
	}
	s.own.Render(w, r, http.StatusInternalServerError, "500", Page{
		Title: "Something went wrong · Fragrance Data Service", NoIndex: true,
	})
}

// renderStatus answers a short page with a status and a message (a bad
// form, a catalogue still loading).
func (s *Ground) renderStatus(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.own.Render(w, r, status, "message", Page{
		Title: http.StatusText(status) + " · Fragrance Data Service", NoIndex: true,
		Data: struct{ Heading, Message string }{http.StatusText(status), msg},
	})
}

// StatusPage answers the short page of status with msg: a refusal an area
// or the command draws as a page (a per-IP limit's 429, whose headers the
// caller has set).
func (s *Ground) StatusPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.renderStatus(w, r, status, msg)
}

// Unavailable answers 503 while the catalogue is loading.
func (s *Ground) Unavailable(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", "5")
	s.renderStatus(w, r, http.StatusServiceUnavailable, "The catalogue is still loading. Try again in a few seconds.")
}

// maxBack bounds the address a consent form returns to.
const maxBack = 512

// backOf is where a consent form on the page returns: the page's own path
// and query, without any api_key (a page must never repeat a key it was
// sent), the query dropped when that would be too long, "/" when the path
// itself is.
func backOf(u *url.URL) string {
	path := u.EscapedPath()
	if len(path) > maxBack {
		return "/"
	}
	if u.RawQuery == "" {
		return path // most pages: no query to parse
	}
	q := u.Query()
	if len(q) == 0 {
		return path
	}
	q.Del("api_key")
	back := path
	if enc := q.Encode(); enc != "" {
		back += "?" + enc
	}
	if len(back) > maxBack {
		return path
	}
	return back
}

// KeyChoice is one API key of the developer signed in, as the pages offer
// it (the playground's key picker): never the secret, which only the
// developer holds.
type KeyChoice struct {
	// Name is the key's name, Prefix its display prefix ("fds_AbC12345").
	Name, Prefix string
	// Kind is "server" or "browser" (a key that lists its origins).
	Kind string
}
