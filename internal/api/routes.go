package api

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/problem"
)

// Register hands each route of the API to handle: its ServeMux pattern,
// the name logs and metrics know it by, and its handler (method check,
// readiness and the Guard included). This is the API's whole route table.
func (a *API) Register(handle func(pattern, name string, h http.Handler)) {
	// Every keyed route is GET/HEAD only (checked before the key, so a
	// wrong method is a 405 whatever the key) and behind the access Guard.
	keyed := func(pattern, name string, h func(http.ResponseWriter, *http.Request) error) {
		a.keyed(handle, pattern, name, a.handle(h))
	}
	keyed("/api/perfumes", "perfumes.list", a.listPerfumes)
	keyed("/api/perfumes/match", "perfumes.match", a.matchPerfumes)
	keyed("/api/perfumes/recommend", "perfumes.recommend", a.recommendPerfumes)
	if a.cfg.Changes != nil {
		// Charged by size: a page counts one request per 100 records.
		handle("/api/perfumes/changes", "perfumes.changes", a.sized("perfumes.changes", changesCost, a.handle(a.perfumeChanges)))
	}
	keyed("/api/perfumes/{slug}", "perfumes.detail", a.getPerfume)
	keyed("/api/perfumes/{slug}/similar", "perfumes.similar", a.similarPerfumes)
	keyed("/api/perfumes/{slug}/dupes", "perfumes.dupes", a.dupePerfumes)
	keyed("/api/brands", "brands.list", a.listBrands)
	keyed("/api/notes", "notes.list", a.listNotes)
	keyed("/api/perfumers", "perfumers.list", a.listPerfumers)
	keyed("/api/perfumers/{slug}", "perfumers.detail", a.getPerfumer)
	keyed("/api/accords", "accords.list", a.listAccords)
	if a.cfg.Caller != nil && a.cfg.Usage != nil {
		// On a budget of its own, apart from the key's windows (WrapUsage).
		handle("/api/usage", "usage", a.guarded("usage", a.handle(a.getUsage), true))
	}
	// Unknown paths under /api answer 404 problems, after the key check.
	keyed("/api/", "unknown", a.notFound)

	// Without a key.
	handle("/api/openapi.json", "openapi", problem.GetOnly(http.HandlerFunc(a.openAPI)))
	var siteSearch http.Handler = a.handle(a.siteSearch)
	if a.cfg.SiteSearch != nil {
		siteSearch = a.cfg.SiteSearch(siteSearch)
	}
	handle("/api/search", "search.site", problem.GetOnly(a.ready(siteSearch)))
}

// keyed registers a keyed route: method check, readiness, then the Guard
// (when configured), then the handler.
func (a *API) keyed(handle func(pattern, name string, h http.Handler), pattern, name string, h http.Handler) {
	handle(pattern, name, a.guarded(name, h, false))
}

// guarded is the stack of a keyed route named name around h; usageBudget
// puts h behind the Guard's WrapUsage instead of Wrap.
func (a *API) guarded(name string, h http.Handler, usageBudget bool) http.Handler {
	switch {
	case a.cfg.Guard == nil:
	case usageBudget:
		h = a.cfg.Guard.WrapUsage(name, h)
	default:
		h = a.cfg.Guard.Wrap(name, h)
	}
	return keyedAnswer(problem.GetOnly(a.ready(h)), usageBudget)
}

// sized is the stack of a keyed route named name whose calls count as
// cost(r) requests against the key's windows (Guard.WrapSized).
func (a *API) sized(name string, cost func(*http.Request) int64, h http.Handler) http.Handler {
	if a.cfg.Guard != nil {
		h = a.cfg.Guard.WrapSized(name, cost, h)
	}
	return keyedAnswer(problem.GetOnly(a.ready(h)), false)
}

// ready answers 503 until the catalogue is loaded.
func (a *API) ready(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.cfg.Catalogue.Load() == nil {
			w.Header().Set("Retry-After", "5")
			problem.Write(w, r, problem.Of(problem.Unavailable,
				"the catalogue is still loading; try again in a few seconds"))
			return
		}
		h.ServeHTTP(w, r)
	})
}
