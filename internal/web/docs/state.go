package docs

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/problem"
)

// The playground's request lives in its page's query string, so a request
// can be shared as a link: endpoint=<operationId> and each parameter by
// its own name (path, query and header parameters alike). The key never
// does.
const (
	// EndpointParam names the endpoint in the playground's query string.
	EndpointParam = "endpoint"
	// maxValue bounds each value (in characters): the API's longest input
	// is 1,000 characters.
	maxValue = 2000
)

// errUnknownEndpoint reports an endpoint the document does not have.
var errUnknownEndpoint = errors.New("unknown endpoint")

// State is one request of the playground: an endpoint and the values of
// its parameters (absent or empty: not sent).
type State struct {
	Endpoint *Endpoint
	Values   url.Values
}

// Endpoint returns the endpoint whose ID is id, nil when none.
func (d *Doc) Endpoint(id string) *Endpoint {
	for _, e := range d.Endpoints {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// ReadState reads the playground's query string: the endpoint (the
// document's first when absent) and the values of its parameters; other
// names are ignored. An unknown endpoint, or a value that is not UTF-8 or
// longer than maxValue characters, is an error the page shows (the state
// then holds the other values).
func (d *Doc) ReadState(q url.Values) (State, error) {
	s := State{Endpoint: d.Endpoints[0], Values: url.Values{}}
	if id := q.Get(EndpointParam); id != "" {
		if s.Endpoint = d.Endpoint(id); s.Endpoint == nil {
			return State{Endpoint: d.Endpoints[0], Values: url.Values{}},
				fmt.Errorf("%w %q: choose one of the endpoints below", errUnknownEndpoint, problem.Echo(id))
		}
	}
	var bad error
	for _, p := range s.Endpoint.Params {
		v := strings.TrimSpace(q.Get(p.Name))
		switch {
		case v == "":
			continue
		case !utf8.ValidString(v):
			bad = cmp.Or(bad, fmt.Errorf("the value of %s is not valid UTF-8", p.Name))
			continue
		case utf8.RuneCountInString(v) > maxValue:
			bad = cmp.Or(bad, fmt.Errorf("the value of %s has %d characters; the playground takes at most %d (the API's longest input is 1,000)",
				p.Name, utf8.RuneCountInString(v), maxValue))
			continue
		}
		s.Values.Set(p.Name, v)
	}
	return s, bad
}

// PlaygroundURL is the address of the playground with state s: the
// endpoint, then the values in the order of the endpoint's parameters.
func (s State) PlaygroundURL() string {
	var b strings.Builder
	b.WriteString(playgroundPath + "?" + EndpointParam + "=" + queryEscape(s.Endpoint.ID))
	for _, p := range s.Endpoint.Params {
		if v := s.Values.Get(p.Name); v != "" {
			b.WriteString("&" + queryEscape(p.Name) + "=" + queryEscape(v))
		}
	}
	return b.String()
}

// RequestURL is the API URL of s: the endpoint's path under base (paths
// under /img under imageBase, the image host's), its path parameters
// filled in ("{name}" kept for an empty one), its query parameters in
// their order.
func (s State) RequestURL(base, imageBase string) string {
	e := s.Endpoint
	path := e.Path
	if rest, ok := strings.CutPrefix(path, "/img/"); ok {
		path, base = "/"+rest, imageBase
	}
	for _, p := range e.Params {
		if v := s.Values.Get(p.Name); p.In == "path" && v != "" {
			path = strings.ReplaceAll(path, "{"+p.Name+"}", pathEscape(v))
		}
	}
	var q []string
	for _, p := range e.Params {
		if v := s.Values.Get(p.Name); p.In == "query" && v != "" {
			q = append(q, queryEscape(p.Name)+"="+queryEscape(v))
		}
	}
	if len(q) > 0 {
		return base + path + "?" + strings.Join(q, "&")
	}
	return base + path
}

// Missing lists the required parameters of s without a value.
func (s State) Missing() []string {
	var out []string
	for _, p := range s.Endpoint.Params {
		if p.Required && s.Values.Get(p.Name) == "" {
			out = append(out, p.Name)
		}
	}
	return out
}

// queryEscape escapes a query name or value as the playground's script
// does: encodeURIComponent's escaping with !'()* escaped too, a space as
// "+", and ":" and "," left as they are (accords=woody:40,vanilla).
func queryEscape(s string) string {
	return strings.NewReplacer("%3A", ":", "%2C", ",").Replace(url.QueryEscape(s))
}

// pathEscape escapes a path segment as the playground's script does:
// encodeURIComponent's escaping with !'()* escaped too.
func pathEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
