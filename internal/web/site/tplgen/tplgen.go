// Package tplgen compiles a page's html/template into a Go function that
// writes the same bytes for the same data, without the reflection
// html/template spends most of a render on. The template stays the
// page's one source: a person edits it and runs go generate.
//
// html/template decides how every value is escaped: Generate lets it
// escape the template first, reads the escapers it added to each action
// and writes a call to the matching writer of package htmlwrite (a
// context it has none for is an error that names it). The types of the
// data and of the template functions come from reflection, so the
// generator runs inside the package whose page it compiles: a test that
// go generate runs (see the site's perfume page).
//
// The generated function takes a non-nil pointer or value as its dot and
// returns an error where html/template's execution would fail (a nil
// pointer dereferenced, a function's error). It supports what pages
// need: text, if/else, with/else, range over slices and arrays (with
// else, break, continue, $i and $e), variables, template calls (inlined;
// not recursive), fields, methods, the template functions and the
// builtins and, or, not, len, eq, ne, lt, le, gt, ge, print, printf and
// println. Anything else is an error at generation, never a different
// page.
package tplgen

//go:generate go test -tags tplgen -run ^TestSampleWriterIsGenerated$ -update

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"html/template"
	"io/fs"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"
)

// Config says what to compile and into what.
type Config struct {
	// Package is the generated file's package name and PkgPath its import
	// path: its own types and functions are written unqualified.
	Package, PkgPath string
	// Func is the generated function's name; its signature is
	// func Func(b *strings.Builder, dot Data) error.
	Func string
	// FS and Files are the template files, parsed as the page parses
	// them (html/template's ParseFS); Files[0] is the page's own, named
	// in the generated file's header.
	FS    fs.FS
	Files []string
	// Template is the template to compile and Data the type of its dot.
	Template string
	Data     reflect.Type
	// Funcs are the template functions, as the page parses them with.
	// Each must be a named function (not a closure or method value): the
	// generated code calls it by its name.
	Funcs template.FuncMap
	// Command regenerates the file; the header names it.
	Command string
}

// Generate returns the Go source of the writer cfg describes, gofmt'ed.
func Generate(cfg Config) ([]byte, error) {
	if len(cfg.Files) == 0 || cfg.Data == nil || cfg.Func == "" || cfg.Package == "" {
		return nil, errors.New("tplgen: Config needs Files, Data, Func and Package")
	}
	set, err := template.New(cfg.Template).Funcs(cfg.Funcs).ParseFS(cfg.FS, cfg.Files...)
	if err != nil {
		return nil, fmt.Errorf("tplgen: parse: %w", err)
	}
	if err := escape(set, cfg.Template); err != nil {
		return nil, err
	}
	g := &gen{cfg: cfg, set: set, imports: map[string]string{}, assigned: assignedVars(set)}
	body, err := g.root()
	if err != nil {
		return nil, err
	}
	src := g.file(body)
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("tplgen: the generated code does not parse (a bug of the generator): %w\n%s", err, src)
	}
	return out, nil
}

// escape has html/template escape the template and those it calls, which
// adds the escapers to their actions' pipelines. Escaping happens when a
// template is first executed; this execution stops at its first write or
// its first use of the nil data, and only an escaping error is one.
func escape(set *template.Template, name string) error {
	if set.Lookup(name) == nil {
		return fmt.Errorf("tplgen: no template %q", name)
	}
	err := set.Option("missingkey=error").ExecuteTemplate(failWriter{}, name, nil)
	var escErr *template.Error
	if errors.As(err, &escErr) {
		return fmt.Errorf("tplgen: %w", escErr)
	}
	return nil
}

// assignedVars are the names of the variables the templates of set
// assign.
func assignedVars(set *template.Template) map[string]bool {
	out := map[string]bool{}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.ActionNode:
			if n.Pipe.IsAssign {
				out[n.Pipe.Decl[0].Ident[0]] = true
			}
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	for _, t := range set.Templates() {
		if t.Tree != nil {
			walk(t.Tree.Root)
		}
	}
	return out
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("escaped") }

// gen is one generation: the statements written so far, the constant
// text not yet written, the imports the code needs.
type gen struct {
	cfg     Config
	set     *template.Template
	tree    *parse.Tree // the tree being compiled, for positions
	calls   []string    // the templates being inlined, outermost first
	imports map[string]string
	// assigned are the variables some template assigns ({{$x = …}}).
	assigned map[string]bool
	buf      *bytes.Buffer
	text     strings.Builder
	names    int
}

// root compiles the configured template with dot as its data and
// returns the function's body.
func (g *gen) root() (string, error) {
	dot := &value{expr: "dot", typ: g.cfg.Data, pure: true, addr: true}
	s := newScope(dot)
	return g.capture(func() error {
		if g.cfg.Data.Kind() == reflect.Pointer {
			g.line("if dot == nil {")
			g.line("return %s(%s)", g.qualify("errors", "New"), strconv.Quote(g.cfg.Template+": nil data"))
			g.line("}")
			s.nonNil["dot"] = true
		}
		if err := g.template(nil, g.cfg.Template, s); err != nil {
			return err
		}
		g.line("return nil")
		return nil
	})
}

// file is the generated file around body.
func (g *gen) file(body string) []byte {
	var src bytes.Buffer
	fmt.Fprintf(&src, "// Code generated by tplgen from %s; DO NOT EDIT.\n", g.cfg.Files[0])
	fmt.Fprintf(&src, "// To change the page, edit the template and run: %s\n\n", g.cfg.Command)
	src.WriteString("//go:build !tplgen\n\n")
	fmt.Fprintf(&src, "package %s\n\nimport (\n", g.cfg.Package)
	g.imports["strings"] = "strings"
	var std, others []string
	for p := range g.imports {
		if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			others = append(others, p)
		} else {
			std = append(std, p)
		}
	}
	slices.Sort(std)
	slices.Sort(others)
	for i, group := range [][]string{std, others} {
		if i > 0 && len(group) > 0 {
			src.WriteByte('\n')
		}
		for _, p := range group {
			fmt.Fprintf(&src, "\t%q\n", p)
		}
	}
	fmt.Fprintf(&src, ")\n\n// %s writes template %q of %s for dot, as html/template writes it.\n",
		g.cfg.Func, g.cfg.Template, g.cfg.Files[0])
	fmt.Fprintf(&src, "func %s(b *strings.Builder, dot %s) error {\n%s}\n", g.cfg.Func, g.typeExpr(g.cfg.Data), body)
	return src.Bytes()
}

// line writes a statement, after the constant text before it.
func (g *gen) line(format string, args ...any) {
	g.flush()
	fmt.Fprintf(g.buf, format, args...)
	g.buf.WriteByte('\n')
}

// flush writes the constant text not yet written, one literal a line of
// the template.
func (g *gen) flush() {
	if g.text.Len() == 0 {
		return
	}
	text := g.text.String()
	g.text.Reset()
	g.buf.WriteString("b.WriteString(")
	for i, part := range strings.SplitAfter(text, "\n") {
		if part == "" {
			continue
		}
		if i > 0 {
			g.buf.WriteString(" +\n")
		}
		g.buf.WriteString(strconv.Quote(part))
	}
	g.buf.WriteString(")\n")
}

// capture returns the statements f writes, instead of writing them.
func (g *gen) capture(f func() error) (string, error) {
	g.flush()
	outer := g.buf
	g.buf = new(bytes.Buffer)
	defer func() { g.buf = outer }()
	err := f()
	g.flush()
	return g.buf.String(), err
}

// fresh is a new local name.
func (g *gen) fresh(prefix string) string {
	g.names++
	return prefix + strconv.Itoa(g.names)
}

// qualify is name of the package at path as the generated file writes
// it: unqualified in its own package, else with the import added.
func (g *gen) qualify(path, name string) string {
	if path == g.cfg.PkgPath {
		return name
	}
	pkg := path[strings.LastIndexByte(path, '/')+1:]
	g.imports[path] = pkg
	return pkg + "." + name
}

// funcName is how the generated code calls fn, a named function.
func (g *gen) funcName(fn any) (string, error) {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return "", errors.New("not a function")
	}
	full := f.Name()
	slash := strings.LastIndexByte(full, '/')
	dot := strings.IndexByte(full[slash+1:], '.')
	if dot < 0 {
		return "", fmt.Errorf("%s has no package", full)
	}
	path, name := full[:slash+1+dot], full[slash+1+dot+1:]
	if strings.ContainsAny(name, ".-[") {
		return "", fmt.Errorf("%s is a closure, a method value or generic; give the template a named function", full)
	}
	return g.qualify(path, name), nil
}

// typeExpr is t as the generated file writes it.
func (g *gen) typeExpr(t reflect.Type) string {
	switch {
	case t.Name() != "" && t.PkgPath() != "":
		return g.qualify(t.PkgPath(), t.Name())
	case t.Name() != "":
		return t.Name()
	case t.Kind() == reflect.Pointer:
		return "*" + g.typeExpr(t.Elem())
	case t.Kind() == reflect.Slice:
		return "[]" + g.typeExpr(t.Elem())
	}
	return t.String()
}

// errorf is an error at node of the template being compiled.
func (g *gen) errorf(node parse.Node, format string, args ...any) error {
	loc := g.cfg.Files[0]
	if node != nil && g.tree != nil {
		loc, _ = g.tree.ErrorContext(node)
	}
	return fmt.Errorf("tplgen: %s: %s", loc, fmt.Sprintf(format, args...))
}
