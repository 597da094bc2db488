package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// DefaultShopURL is the buy-link template used when the operator sets none:
// a web search for the perfume.
const DefaultShopURL = "https://duckduckgo.com/?q={brand}+{name}+perfume"

// shopURL fills the operator's template with query-escaped values.
func shopURL(tmpl, brand, name, slug string, id int64) string {
	return strings.NewReplacer(
		"{brand}", url.QueryEscape(brand),
		"{name}", url.QueryEscape(name),
		"{slug}", url.PathEscape(slug),
		"{id}", strconv.FormatInt(id, 10),
	).Replace(tmpl)
}

// gotoShop is GET /goto/{slug}: a 302 to the shop, counting the click.
func (s *Ground) gotoShop(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	ix := s.cfg.Catalogue.Load()
	if ix == nil {
		http.Error(w, "the catalogue is still loading", http.StatusServiceUnavailable)
		return
	}
	e, err := ix.Perfume(slug)
	if err != nil {
		s.NotFoundPage(w, r)
		return
	}
	if s.cfg.Click != nil && r.Method == http.MethodGet {
		s.cfg.Click(r, e.ID)
	}
	tmpl := s.cfg.ShopURL
	if tmpl == "" {
		tmpl = DefaultShopURL
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer-when-downgrade")
	http.Redirect(w, r, shopURL(tmpl, e.Brand(), e.Name(), e.Slug(), e.ID), http.StatusFound)
}
