package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Doc is the OpenAPI document as the pages show it: its endpoints in the
// document's order, grouped by tag, the answers they share, and the
// document's own introduction.
type Doc struct {
	Title, Version, Summary string
	// Intro is the document's description (Markdown), as HTML.
	Intro template.HTML
	// IntroMarkdown is the document's description as written (Markdown),
	// for the Markdown docs.
	IntroMarkdown string
	// Endpoints are every operation, in the document's order.
	Endpoints []*Endpoint
	// Tags group the endpoints, in the order of the document's tags.
	Tags []Tag
	// Shared are the answers of components.responses, which operations
	// refer to (the errors most endpoints share).
	Shared []*Answer
}

// Tag is a group of endpoints.
type Tag struct {
	Name, Description string
	Endpoints         []*Endpoint
}

// Endpoint is one operation of the document.
type Endpoint struct {
	// ID is the operationId: the anchor of the reference and the
	// playground's endpoint parameter.
	ID                    string
	Method, Path, Summary string
	// Tag is the operation's first tag ("Other" when it has none).
	Tag         string
	Description template.HTML
	// DescriptionMarkdown is the description as written (Markdown).
	DescriptionMarkdown string
	// Keyless is true when the operation needs no key (an empty security
	// requirement).
	Keyless bool
	Params  []Param
	Answers []*Answer
	// Example is the request of the success answer's example, as the
	// playground's parameters (empty when the document gives none).
	Example url.Values
	// Body is what the success answer holds: "json", "text" or "binary".
	Body string
}

// Param is one parameter of an endpoint.
type Param struct {
	Name, In    string
	Description template.HTML
	// DescriptionMarkdown is the description as written (Markdown).
	DescriptionMarkdown string
	Required            bool
	// Type is the schema's type ("integer", "string"); Format its format.
	Type, Format string
	Enum         []string
	// Default, Min and Max are the schema's, "" when it has none.
	Default, Min, Max string
	// MaxLength is the schema's maxLength, 0 when it has none.
	MaxLength int
	// Example is the value of the parameter's first example.
	Example string
	// Picker is "perfume" when the value is a perfume's slug, which the
	// playground lets the visitor search for as they type.
	Picker string
}

// Integer reports whether the parameter takes a whole number.
func (p Param) Integer() bool { return p.Type == "integer" }

// Answer is one answer of an endpoint (or a shared one).
type Answer struct {
	// Status is the status code ("200"), or the shared answer's name in
	// Doc.Shared.
	Status      string
	Description template.HTML
	// DescriptionMarkdown is the description as written (Markdown).
	DescriptionMarkdown string
	// Ref is the name of the shared answer an endpoint's answer is ("" for
	// one of its own).
	Ref         string
	ContentType string
	Headers     []string
	// Codes are the problem codes the answer's schema allows.
	Codes    []string
	Examples []Example
}

// Example is one example of an answer's body, indented JSON.
type Example struct{ Name, Summary, JSON string }

// The raw shapes of the document, as far as the pages read it.
type (
	rawDoc struct {
		Info struct {
			Title, Version, Summary, Description string
		}
		Tags       []struct{ Name, Description string }
		Paths      json.RawMessage
		Components struct {
			Parameters map[string]rawParam
			Responses  json.RawMessage
		}
	}
	rawOp struct {
		OperationID string `json:"operationId"`
		Tags        []string
		Summary     string
		Description string
		Security    *[]json.RawMessage
		Parameters  []rawParam
		Responses   json.RawMessage
	}
	rawParam struct {
		Ref         string `json:"$ref"`
		Name, In    string
		Description string
		Required    bool
		Schema      rawSchema
		Example     json.RawMessage
		Examples    json.RawMessage
	}
	rawSchema struct {
		Type      any
		Format    string
		Enum      []any
		Default   any
		Minimum   *float64
		Maximum   *float64
		MaxLength *int
	}
	rawAnswer struct {
		Ref         string `json:"$ref"`
		Description string
		Headers     json.RawMessage
		Content     json.RawMessage
	}
	rawMedia struct {
		Schema struct {
			Properties struct {
				Code struct{ Enum []string }
			}
		}
		Examples json.RawMessage
		Example  json.RawMessage
	}
	rawExample struct {
		Summary string
		Value   json.RawMessage
	}
)

// methods are the operations a path item may hold, in the order shown.
var methods = []string{"get", "head", "post", "put", "patch", "delete", "options"}

// ParseDoc reads an OpenAPI 3.x document: its paths and operations in
// the document's order, their parameters and answers with $refs to
// components resolved.
func ParseDoc(b []byte) (*Doc, error) {
	var raw rawDoc
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("docs: the OpenAPI document: %w", err)
	}
	d := &Doc{Title: raw.Info.Title, Version: raw.Info.Version, Summary: raw.Info.Summary, Intro: markdown(raw.Info.Description, "intro-"),
		IntroMarkdown: strings.TrimSpace(raw.Info.Description)}
	shared := map[string]*Answer{}
	err := eachMember(raw.Components.Responses, func(name string, v json.RawMessage) error {
		a, err := parseAnswer(name, v)
		if err != nil {
			return err
		}
		shared[name] = a
		d.Shared = append(d.Shared, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = eachMember(raw.Paths, func(path string, item json.RawMessage) error {
		var ops map[string]json.RawMessage
		if err := json.Unmarshal(item, &ops); err != nil {
			return fmt.Errorf("docs: path %s: %w", path, err)
		}
		var common []rawParam
		if p, ok := ops["parameters"]; ok {
			if err := json.Unmarshal(p, &common); err != nil {
				return fmt.Errorf("docs: path %s: parameters: %w", path, err)
			}
		}
		for _, m := range methods {
			v, ok := ops[m]
			if !ok {
				continue
			}
			e, err := parseOp(strings.ToUpper(m), path, v, common, raw.Components.Parameters, shared)
			if err != nil {
				return err
			}
			if seen[e.ID] {
				return fmt.Errorf("docs: operation id %q used twice", e.ID)
			}
			seen[e.ID] = true
			d.Endpoints = append(d.Endpoints, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Endpoints) == 0 {
		return nil, fmt.Errorf("docs: the OpenAPI document has no operations")
	}
	// The document's tags in its order, then any other in the order of
	// their first operation.
	var names []string
	described := map[string]string{}
	for _, t := range raw.Tags {
		names = append(names, t.Name)
		described[t.Name] = t.Description
	}
	for _, e := range d.Endpoints {
		if !slices.Contains(names, e.Tag) {
			names = append(names, e.Tag)
		}
	}
	for _, name := range names {
		t := Tag{Name: name, Description: described[name]}
		for _, e := range d.Endpoints {
			if e.Tag == name {
				t.Endpoints = append(t.Endpoints, e)
			}
		}
		if len(t.Endpoints) > 0 {
			d.Tags = append(d.Tags, t)
		}
	}
	return d, nil
}

// parseOp reads one operation.
func parseOp(method, path string, v json.RawMessage, common []rawParam, params map[string]rawParam, shared map[string]*Answer) (*Endpoint, error) {
	var op rawOp
	if err := json.Unmarshal(v, &op); err != nil {
		return nil, fmt.Errorf("docs: %s %s: %w", method, path, err)
	}
	e := &Endpoint{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary,
		Description: markdown(op.Description, ""), DescriptionMarkdown: strings.TrimSpace(op.Description), Keyless: op.Security != nil && len(*op.Security) == 0}
	if e.ID == "" {
		e.ID = strings.ToLower(method) + strings.NewReplacer("/", "-", "{", "", "}", "", ".", "-").Replace(path)
	}
	for _, rp := range append(slices.Clone(common), op.Parameters...) {
		if rp.Ref != "" {
			name, ok := strings.CutPrefix(rp.Ref, "#/components/parameters/")
			ref, found := params[name]
			if !ok || !found {
				return nil, fmt.Errorf("docs: %s %s: unknown parameter %s", method, path, rp.Ref)
			}
			rp = ref
		}
		p, err := parseParam(path, rp)
		if err != nil {
			return nil, fmt.Errorf("docs: %s %s: %w", method, path, err)
		}
		if i := slices.IndexFunc(e.Params, func(q Param) bool { return q.Name == p.Name && q.In == p.In }); i >= 0 {
			e.Params[i] = p // an operation's parameter overrides the path's
			continue
		}
		e.Params = append(e.Params, p)
	}
	err := eachMember(op.Responses, func(status string, v json.RawMessage) error {
		a, err := parseAnswer(status, v)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		if a.Ref != "" {
			s, ok := shared[a.Ref]
			if !ok {
				return fmt.Errorf("docs: %s %s: unknown answer %s", method, path, a.Ref)
			}
			ref := *s
			ref.Status, ref.Ref = status, a.Ref
			a = &ref
		}
		e.Answers = append(e.Answers, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.Body, e.Example = successOf(e)
	e.Tag = "Other"
	if len(op.Tags) > 0 {
		e.Tag = op.Tags[0]
	}
	return e, nil
}

// parseParam reads one parameter.
func parseParam(path string, rp rawParam) (Param, error) {
	if rp.Name == "" || rp.In == "" {
		return Param{}, fmt.Errorf("a parameter without name or in")
	}
	p := Param{Name: rp.Name, In: rp.In, Description: markdown(rp.Description, ""), DescriptionMarkdown: strings.TrimSpace(rp.Description), Required: rp.Required || rp.In == "path",
		Format: rp.Schema.Format, Default: scalar(rp.Schema.Default)}
	switch t := rp.Schema.Type.(type) {
	case string:
		p.Type = t
	case []any: // 3.1: ["string", "null"]
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				p.Type = s
				break
			}
		}
	}
	for _, v := range rp.Schema.Enum {
		p.Enum = append(p.Enum, scalar(v))
	}
	if rp.Schema.Minimum != nil {
		p.Min = strconv.FormatFloat(*rp.Schema.Minimum, 'f', -1, 64)
	}
	if rp.Schema.Maximum != nil {
		p.Max = strconv.FormatFloat(*rp.Schema.Maximum, 'f', -1, 64)
	}
	if rp.Schema.MaxLength != nil {
		p.MaxLength = *rp.Schema.MaxLength
	}
	if len(rp.Example) > 0 {
		var v any
		if json.Unmarshal(rp.Example, &v) == nil {
			p.Example = scalar(v)
		}
	}
	if p.Example == "" {
		eachMember(rp.Examples, func(_ string, v json.RawMessage) error {
			var ex struct{ Value any }
			if p.Example == "" && json.Unmarshal(v, &ex) == nil {
				p.Example = scalar(ex.Value)
			}
			return nil
		})
	}
	if p.In == "path" && p.Name == "slug" && (strings.HasPrefix(path, "/api/perfumes/") || strings.HasPrefix(path, "/goto/")) {
		p.Picker = "perfume"
	}
	return p, nil
}

// parseAnswer reads one answer (an endpoint's or a shared one).
func parseAnswer(status string, v json.RawMessage) (*Answer, error) {
	var ra rawAnswer
	if err := json.Unmarshal(v, &ra); err != nil {
		return nil, fmt.Errorf("docs: answer %s: %w", status, err)
	}
	if ra.Ref != "" {
		name, ok := strings.CutPrefix(ra.Ref, "#/components/responses/")
		if !ok {
			return nil, fmt.Errorf("docs: answer %s: unknown reference %s", status, ra.Ref)
		}
		return &Answer{Status: status, Ref: name}, nil
	}
	a := &Answer{Status: status, Description: markdown(ra.Description, ""), DescriptionMarkdown: strings.TrimSpace(ra.Description)}
	eachMember(ra.Headers, func(name string, _ json.RawMessage) error {
		a.Headers = append(a.Headers, name)
		return nil
	})
	err := eachMember(ra.Content, func(ctype string, v json.RawMessage) error {
		if a.ContentType != "" {
			return nil // the first content type is the one shown
		}
		a.ContentType = ctype
		var m rawMedia
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("docs: answer %s: %w", status, err)
		}
		a.Codes = m.Schema.Properties.Code.Enum
		if len(m.Example) > 0 {
			a.Examples = append(a.Examples, Example{Name: "example", JSON: indent(m.Example)})
		}
		return eachMember(m.Examples, func(name string, v json.RawMessage) error {
			var ex rawExample
			if err := json.Unmarshal(v, &ex); err != nil {
				return fmt.Errorf("docs: answer %s: example %s: %w", status, name, err)
			}
			if len(ex.Value) > 0 {
				a.Examples = append(a.Examples, Example{Name: name, Summary: ex.Summary, JSON: indent(ex.Value)})
			}
			return nil
		})
	})
	return a, err
}

// successOf is what an endpoint's first 2xx or 3xx answer holds, and the
// request of its example, when the example's summary gives one
// ("GET /api/perfumes?q=sauvage+dior&limit=2") for this endpoint.
func successOf(e *Endpoint) (body string, example url.Values) {
	body = "json"
	for _, a := range e.Answers {
		if a.Status < "200" || a.Status >= "400" {
			continue
		}
		switch ct := a.ContentType; {
		case strings.Contains(ct, "json"):
		case strings.HasPrefix(ct, "text/"):
			body = "text"
		case ct != "":
			body = "binary"
		}
		for _, ex := range a.Examples {
			if v, ok := e.stateOf(ex.Summary); ok {
				return body, v
			}
		}
		break
	}
	return body, nil
}

// stateOf reads a request line such as "GET /api/perfumes/dior-sauvage?limit=2
// (first items)" as the endpoint's parameters: its path parameters from
// the path, its query parameters from the query. ok is false when the
// line is not a request of this endpoint.
func (e *Endpoint) stateOf(line string) (url.Values, bool) {
	rest, ok := strings.CutPrefix(line, e.Method+" ")
	if !ok {
		return nil, false
	}
	target, _, _ := strings.Cut(rest, " ")
	u, err := url.Parse(target)
	if err != nil {
		return nil, false
	}
	v := url.Values{}
	if !matchPath(e.Path, u.Path, v) {
		return nil, false
	}
	for name, vals := range u.Query() {
		if e.param(name, "query") != nil && len(vals) > 0 {
			v.Set(name, vals[0])
		}
	}
	return v, true
}

// matchPath matches a path against a pattern with {name} segments (a
// segment may have a suffix: {id}.jpg), setting each name in v.
func matchPath(pattern, path string, v url.Values) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		open, close := strings.IndexByte(p, '{'), strings.IndexByte(p, '}')
		if open < 0 || close < open {
			if p != xs[i] {
				return false
			}
			continue
		}
		prefix, suffix := p[:open], p[close+1:]
		x := xs[i]
		if !strings.HasPrefix(x, prefix) || !strings.HasSuffix(x, suffix) || len(x) <= len(prefix)+len(suffix) {
			return false
		}
		val, err := url.PathUnescape(x[len(prefix) : len(x)-len(suffix)])
		if err != nil {
			return false
		}
		v.Set(p[open+1:close], val)
	}
	return true
}

// param returns the endpoint's parameter name in in, nil when none.
func (e *Endpoint) param(name, in string) *Param {
	for i := range e.Params {
		if e.Params[i].Name == name && e.Params[i].In == in {
			return &e.Params[i]
		}
	}
	return nil
}

// eachMember calls f with each member of a JSON object, in the order of
// the document (encoding/json's maps lose it). An empty raw is no members.
func eachMember(raw json.RawMessage, f func(name string, v json.RawMessage) error) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("docs: want a JSON object, have %.40s", raw)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("docs: %w", err)
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("docs: member %s: %w", name, err)
		}
		if err := f(name, v); err != nil {
			return err
		}
	}
	return nil
}

// scalar writes a JSON scalar as the text of a field ("" for null or an
// object).
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// indent is a JSON value indented by two spaces, as the reference shows
// examples.
func indent(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
