package dashboard_test

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestTableLayout: a column of numbers is aligned to the right with its
// heading; a table of periods by status scrolls inside its labelled
// region on a phone, a wide list shows a card a row there (its cells
// named by their column), and a narrow table stays as it is.
func TestTableLayout(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	knownLoad(e)
	session := e.admin()
	overview := e.get("/admin", session).Body.String()
	areatest.MustContain(t, "the overview", overview,
		`<thead><tr><th scope="col">Span</th><th scope="col" class="num">Requests</th><th scope="col" class="num">5xx</th>`,
		`<td class="num" data-label="Requests">60</td>`,
		`<div class="tablebox grid" role="region" aria-labelledby="hourly-cap" tabindex="0">`,
		`<div class="tablebox cards" role="region" aria-labelledby="topkeys-cap" tabindex="0">`,
		`<div class="tablebox" role="region" aria-labelledby="counts-cap" tabindex="0">`,
		`<td data-label="Email">a@example.com</td>`)
	keys := e.get("/admin/keys", session).Body.String()
	areatest.MustContain(t, "the keys", keys, `<div class="tablebox cards" role="region" aria-labelledby="keys-cap" tabindex="0">`,
		`<th scope="col">Name</th>`)
}
