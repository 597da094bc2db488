package docs

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/web"
)

// refData is the reference page's data.
type refData struct {
	Doc *Doc
	// Tags are the endpoints by tag.
	Tags []refTag
}

type refTag struct {
	Tag
	Items []refEndpoint
}

// refEndpoint is one endpoint as the reference shows it: with the curl
// command of its example request and the playground filled with it.
type refEndpoint struct {
	*Endpoint
	Curl, Try string
}

// referenceData is the reference's data: every endpoint of the document,
// by tag, each with its example request as curl and as a playground link.
func (d *Docs) referenceData() docsData {
	r := refData{Doc: d.doc}
	for _, t := range d.doc.Tags {
		rt := refTag{Tag: t}
		for _, e := range t.Endpoints {
			st := State{Endpoint: e, Values: exampleValues(e)}
			rt.Items = append(rt.Items, refEndpoint{Endpoint: e, Curl: st.Snippets(d.base, d.imageBase)[0].Code, Try: st.PlaygroundURL()})
		}
		r.Tags = append(r.Tags, rt)
	}
	return docsData{Nav: nav{referencePath}, Data: r}
}

// exampleValues are the values an endpoint's example request uses: the
// request of its success answer's example, else each parameter's own
// example for the path parameters (which a request cannot do without).
func exampleValues(e *Endpoint) url.Values {
	if e.Example != nil {
		return e.Example
	}
	v := url.Values{}
	for _, p := range e.Params {
		if p.Example != "" && p.Required {
			v.Set(p.Name, p.Example)
		}
	}
	return v
}

// Hint is the short line under a parameter: its type, default and
// limits ("integer · default 20 · from 1").
func (p Param) Hint() string {
	var parts []string
	switch {
	case p.Type == "integer":
		parts = append(parts, "whole number")
	case p.Type != "" && p.Type != "string":
		parts = append(parts, p.Type)
	}
	if p.Required {
		parts = append(parts, "required")
	}
	if p.Default != "" {
		parts = append(parts, "default "+p.Default)
	}
	lo, hi := number(p.Min), number(p.Max)
	switch {
	case lo != "" && hi != "":
		parts = append(parts, lo+" to "+hi)
	case lo != "":
		parts = append(parts, "from "+lo)
	case hi != "":
		parts = append(parts, "at most "+hi)
	}
	if p.MaxLength > 0 {
		parts = append(parts, "at most "+web.Thousands(p.MaxLength)+" characters")
	}
	if len(p.Enum) > 0 {
		parts = append(parts, "one of "+strings.Join(p.Enum, ", "))
	}
	h := strings.Join(parts, " · ")
	if h == "" {
		return ""
	}
	return strings.ToUpper(h[:1]) + h[1:]
}

// number writes a whole number of the schema with thousands separators
// (1000000 is "1,000,000"); any other text as it is.
func number(s string) string {
	if n, err := strconv.Atoi(s); err == nil {
		return web.Thousands(n)
	}
	return s
}
