package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed assets
var assetFS embed.FS

// asset is one embedded file, served under a name that carries a hash of
// its content ("style.3f9a1c2b7d.css"): a new build with a changed file
// gets a new URL, so the old one can be cached for ever.
type asset struct {
	url   string // /assets/<hashed name>
	body  []byte
	ctype string
	etag  string
}

// assets are the embedded files by plain name ("style.css").
type assets struct {
	byName map[string]*asset
	byURL  map[string]*asset
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]*asset{}, byURL: map[string]*asset{}}
	entries, err := fs.ReadDir(assetFS, "assets")
	if err != nil {
		return nil, fmt.Errorf("web: assets: %w", err)
	}
	for _, e := range entries {
		body, err := assetFS.ReadFile("assets/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("web: asset %s: %w", e.Name(), err)
		}
		a.add(e.Name(), body)
	}
	// The icon is drawn from the shapes that also make /favicon.ico.
	a.add("favicon.svg", iconSVG())
	return a, nil
}

// add serves body as the asset name, under its hashed name.
func (a *assets) add(name string, body []byte) {
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:5])
	ext := path.Ext(name)
	ctype := mime.TypeByExtension(ext)
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	as := &asset{
		url:   "/assets/" + strings.TrimSuffix(name, ext) + "." + hash + ext,
		body:  body,
		ctype: ctype,
		etag:  `"` + hash + `"`,
	}
	a.byName[name] = as
	a.byURL[as.url] = as
}

// URL is the hashed address of the asset name; templates call it as
// {{asset "style.css"}}. An unknown name is a programming error, caught
// by the tests that render every page.
func (a *assets) URL(name string) (string, error) {
	if as, ok := a.byName[name]; ok {
		return as.url, nil
	}
	return "", fmt.Errorf("web: no asset %q", name)
}

// serve is GET /assets/{file}: the asset whose hashed name it is, cached
// for a year and immutable; any other name (an old hash) is a 404.
func (a *assets) serve(s *Ground) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		as, ok := a.byURL[r.URL.Path]
		if !ok {
			s.NotFoundPage(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", as.ctype)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", as.etag)
		if r.Header.Get("If-None-Match") == as.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(as.body)))
		w.Write(as.body)
	})
}
