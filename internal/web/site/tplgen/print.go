package tplgen

import (
	"fmt"
	"html/template"
	"reflect"
	"strings"
	"text/template/parse"

	"github.com/fragrance-data/fragrance/internal/web/site/htmlwrite"
)

// context is where html/template writes a value, named by the escapers
// it appends to the value's pipeline.
type context int

const (
	inText    context = iota // HTML text
	inRCDATA                 // <title>, <textarea>
	inAttr                   // a quoted attribute, not a URL
	inURL                    // a URL attribute, from its start
	inURLPart                // a URL attribute after its start, before a query
	inQuery                  // a URL attribute's query or fragment
)

// contexts are the escaper chains the generator has writers for.
var contexts = map[string]context{
	"_html_template_htmlescaper":   inText,
	"_html_template_rcdataescaper": inRCDATA,
	"_html_template_attrescaper":   inAttr,
	"_html_template_urlfilter _html_template_urlnormalizer _html_template_attrescaper": inURL,
	"_html_template_urlnormalizer _html_template_attrescaper":                          inURLPart,
	"_html_template_urlescaper _html_template_attrescaper":                             inQuery,
}

// splitEscapers parts an action's commands into the template's own and
// the escapers html/template appended to them.
func splitEscapers(cmds []*parse.CommandNode) ([]*parse.CommandNode, []string) {
	i := len(cmds)
	for i > 1 {
		id, ok := cmds[i-1].Args[0].(*parse.IdentifierNode)
		if !ok || len(cmds[i-1].Args) > 1 || !strings.HasPrefix(id.Ident, "_html_template_") {
			break
		}
		i--
	}
	var names []string
	for _, c := range cmds[i:] {
		names = append(names, c.Args[0].(*parse.IdentifierNode).Ident)
	}
	return cmds[:i], names
}

// print writes v where html/template escapes it with escapers.
func (g *gen) print(n *parse.ActionNode, v *value, escapers []string, s *scope) error {
	chain := strings.Join(escapers, " ")
	ctx, ok := contexts[chain]
	if !ok {
		return g.errorf(n, "html/template escapes %s with %q, a context the generator has no writer for "+
			"(it writes HTML text, quoted attributes and URL attributes: quote the attribute, or build the value with a function)", n, chain)
	}
	v, err := g.materialize(n, v)
	if err != nil {
		return err
	}
	return g.write(n, v, ctx, s)
}

// write writes v in ctx. html/template looks through pointers for a
// string (or one of its typed strings); anything else is printed by fmt
// once pointers are followed to a value, or to a Stringer or error. A nil
// pointer is written "<nil>".
func (g *gen) write(n parse.Node, v *value, ctx context, s *scope) error {
	if v.typ.Kind() == reflect.Pointer && !v.ref && !printsItself(v.typ) {
		if !v.pure {
			v = g.bind(v)
		}
		if s.nonNil[v.expr] {
			return g.write(n, &value{expr: v.expr, typ: v.typ.Elem(), ref: true, pure: true}, ctx, s)
		}
		g.line("if %s == nil {", v.expr)
		g.line("%s(b, %q)", g.writer(writerOf(ctx, plain)), "<nil>")
		g.line("} else {")
		inner := s.child(s.dot)
		inner.nonNil[v.expr] = true
		if err := g.write(n, v, ctx, inner); err != nil {
			return err
		}
		g.line("}")
		return nil
	}
	str, kind := g.stringify(v)
	switch {
	case kind == digits || kind == typedHTML && ctx == inText:
		g.line("b.WriteString(%s)", str)
	case kind == typedHTML:
		return g.errorf(n, "a template.HTML value in an attribute or RCDATA, which html/template rewrites (strips or normalises): the generator has no writer for it")
	default:
		g.line("%s(b, %s)", g.writer(writerOf(ctx, kind)), str)
	}
	return nil
}

// strKind is what a value's string is to html/template.
type strKind int

const (
	plain     strKind = iota
	digits            // an integer or a boolean: no context escapes it
	typedHTML         // template.HTML: written as it is in text
	typedURL          // template.URL: not filtered, normalised in any URL part
)

// stringify is the expression of v's string, as html/template makes it.
func (g *gen) stringify(v *value) (string, strKind) {
	t, x := v.typ, val(v)
	switch {
	case t == reflect.TypeFor[template.HTML]():
		return "string(" + x + ")", typedHTML
	case t == reflect.TypeFor[template.URL]():
		return "string(" + x + ")", typedURL
	case contentType(t):
		return "string(" + x + ")", plain
	case printsItself(t) || t.Implements(reflect.TypeFor[fmt.Formatter]()):
		return g.qualify("fmt", "Sprint") + "(" + x + ")", plain
	case t == reflect.TypeFor[string]():
		return x, plain
	case t.Kind() == reflect.String:
		return "string(" + x + ")", plain
	case t == reflect.TypeFor[int]():
		return g.qualify("strconv", "Itoa") + "(" + x + ")", digits
	case isInt(t):
		return g.qualify("strconv", "FormatInt") + "(" + asType(t, "int64", x) + ", 10)", digits
	case isUint(t):
		return g.qualify("strconv", "FormatUint") + "(" + asType(t, "uint64", x) + ", 10)", digits
	case t == reflect.TypeFor[bool]():
		return g.qualify("strconv", "FormatBool") + "(" + x + ")", digits
	case t.Kind() == reflect.Bool:
		return g.qualify("strconv", "FormatBool") + "(bool(" + x + "))", digits
	}
	return g.qualify("fmt", "Sprint") + "(" + x + ")", plain
}

// asType is x converted to the type named to, unless it has that type.
func asType(t reflect.Type, to, x string) string {
	if t.String() == to {
		return x
	}
	return to + "(" + x + ")"
}

// printsItself reports whether fmt prints t by its own method.
func printsItself(t reflect.Type) bool {
	return t.Implements(reflect.TypeFor[fmt.Stringer]()) || t.Implements(reflect.TypeFor[error]())
}

// contentType reports whether t is one of html/template's typed strings
// other than HTML and URL, which the contexts the generator writes treat
// as plain text.
func contentType(t reflect.Type) bool {
	for _, c := range []reflect.Type{
		reflect.TypeFor[template.CSS](), reflect.TypeFor[template.HTMLAttr](), reflect.TypeFor[template.JS](),
		reflect.TypeFor[template.JSStr](), reflect.TypeFor[template.Srcset](),
	} {
		if t == c {
			return true
		}
	}
	return false
}

// writerOf is the writer of a string of kind in ctx.
func writerOf(ctx context, kind strKind) func(*strings.Builder, string) {
	switch {
	case kind == typedURL && (ctx == inURL || ctx == inURLPart || ctx == inQuery):
		return htmlwrite.URLPart // a typed URL is trusted: normalised, not filtered
	case ctx == inURL:
		return htmlwrite.URL
	case ctx == inURLPart:
		return htmlwrite.URLPart
	case ctx == inQuery:
		return htmlwrite.Query
	}
	return htmlwrite.Text
}

// writer is how the generated code calls fn, a writer of package
// htmlwrite.
func (g *gen) writer(fn func(*strings.Builder, string)) string {
	name, err := g.funcName(fn)
	if err != nil {
		panic(err) // htmlwrite's functions are named functions
	}
	return name
}
