package tplgen

import (
	"maps"
	"reflect"
	"text/template/parse"
)

// value is a template value as the generated code holds it.
type value struct {
	expr string       // the Go expression
	typ  reflect.Type // its type as the template sees it; nil for no value
	// ref: expr is a pointer to the typ value (a range element, not
	// copied); the template sees the value.
	ref bool
	// addr: the value is addressable (its pointer methods can be called).
	addr bool
	// pure: expr can be repeated (no call in it).
	pure bool
	// konst is an untyped constant (*parse.NumberNode, StringNode,
	// BoolNode, NilNode), typed by where it is used; expr is then empty.
	konst parse.Node
	// used is set when the value is read, for a bound name that must
	// not go unused.
	used *bool
	// mutable: the value is held by a template variable that is assigned
	// somewhere ({{$x = …}}), so it may change: nothing is known of it
	// for long, and dot holds a copy of it.
	mutable bool
}

// read marks v read and returns it.
func (v *value) read() *value {
	if v.used != nil {
		*v.used = true
	}
	return v
}

// variable is a template variable ($x) and its value.
type variable struct {
	name string
	val  *value
}

// scope is what a template's code sees at a point: dot, the variables,
// and the pointer expressions known not to be nil there.
type scope struct {
	dot    *value
	vars   []variable
	nonNil map[string]bool
	// declared are the names bound in this block that must be used.
	declared []*value
}

func newScope(dot *value) *scope {
	return &scope{dot: dot, vars: []variable{{"$", dot}}, nonNil: map[string]bool{}}
}

// child is the scope of a block inside s, with dot.
func (s *scope) child(dot *value) *scope {
	return &scope{dot: dot, vars: s.vars[:len(s.vars):len(s.vars)], nonNil: maps.Clone(s.nonNil)}
}

func (s *scope) lookup(name string) *value {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			return s.vars[i].val
		}
	}
	return nil
}

// template compiles the template name with scope s, inlined where
// node (nil at the root) calls it.
func (g *gen) template(node parse.Node, name string, s *scope) error {
	t := g.set.Lookup(name)
	if t == nil || t.Tree == nil {
		return g.errorf(node, "template %q is not defined, or is called where html/template escapes it for another context than HTML text (the generator compiles calls in HTML text only)", name)
	}
	for _, c := range g.calls {
		if c == name {
			return g.errorf(node, "template %q calls itself: the generator inlines template calls and cannot compile recursion", name)
		}
	}
	outer := g.tree
	g.tree, g.calls = t.Tree, append(g.calls, name)
	defer func() { g.tree, g.calls = outer, g.calls[:len(g.calls)-1] }()
	return g.block(t.Tree.Root, s)
}

// block compiles a list of nodes whose variables end with it.
func (g *gen) block(l *parse.ListNode, s *scope) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if err := g.node(n, s); err != nil {
			return err
		}
	}
	for _, v := range s.declared {
		if !*v.used {
			g.line("_ = %s", v.expr)
		}
	}
	return nil
}

// node compiles one node.
func (g *gen) node(n parse.Node, s *scope) error {
	switch n := n.(type) {
	case *parse.TextNode:
		g.text.Write(n.Text)
	case *parse.CommentNode:
	case *parse.ActionNode:
		return g.action(n, s)
	case *parse.IfNode:
		return g.ifNode(n, s)
	case *parse.WithNode:
		return g.with(n, s)
	case *parse.RangeNode:
		return g.rangeNode(n, s)
	case *parse.TemplateNode:
		return g.call(n, s)
	case *parse.BreakNode:
		g.line("break")
	case *parse.ContinueNode:
		g.line("continue")
	default:
		return g.errorf(n, "the generator does not compile %s", n)
	}
	return nil
}

// action compiles {{pipeline}}: a value written with the escapers
// html/template added, or a variable declared or assigned.
func (g *gen) action(n *parse.ActionNode, s *scope) error {
	p := n.Pipe
	if len(p.Decl) > 0 {
		v, err := g.pipe(p, s)
		if err != nil {
			return err
		}
		return g.assign(n, p, v, s)
	}
	cmds, escapers := splitEscapers(p.Cmds)
	v, err := g.commands(cmds, s)
	if err != nil {
		return err
	}
	return g.print(n, v, escapers, s)
}

// assign binds the variable p declares (or assigns) to v.
func (g *gen) assign(n parse.Node, p *parse.PipeNode, v *value, s *scope) error {
	name := p.Decl[0].Ident[0]
	if p.IsAssign {
		old := s.lookup(name)
		if old == nil || !old.mutable || old.typ != v.typ || old.ref != v.ref {
			return g.errorf(n, "%s is assigned a value of another type than it was declared with", name)
		}
		x, err := g.materialize(n, v)
		if err != nil {
			return err
		}
		g.line("%s = %s", old.expr, x.expr)
		return nil
	}
	x, err := g.materialize(n, v)
	if err != nil {
		return err
	}
	bound := &value{expr: g.fresh("v"), typ: x.typ, ref: x.ref, addr: x.addr || x.ref, pure: true, used: new(bool), mutable: g.assigned[name]}
	g.line("%s := %s", bound.expr, x.expr)
	s.vars = append(s.vars, variable{name, bound})
	s.declared = append(s.declared, bound)
	return nil
}

// ifNode compiles {{if}}: a pointer the condition tests is known not nil
// in its list.
func (g *gen) ifNode(n *parse.IfNode, s *scope) error {
	both := s.child(s.dot) // sees a variable the condition declares
	cond, known, err := g.condition(n, n.Pipe, both)
	if err != nil {
		return err
	}
	inner := both.child(both.dot)
	if known != "" {
		inner.nonNil[known] = true
	}
	return g.branches(cond, n.List, n.ElseList, inner, both.child(both.dot))
}

// with compiles {{with}}: its list sees the value as dot.
func (g *gen) with(n *parse.WithNode, s *scope) error {
	v, err := g.pipe(n.Pipe, s)
	if err != nil {
		return err
	}
	if v, err = g.materialize(n, v); err != nil {
		return err
	}
	v = g.bind(v)
	inner := s.child(v)
	if v.typ.Kind() == reflect.Pointer && !v.ref {
		inner.nonNil[v.expr] = true
	}
	if len(n.Pipe.Decl) > 0 {
		g.declare(n.Pipe.Decl[0].Ident[0], v, inner)
	}
	return g.branches(g.truth(v), n.List, n.ElseList, inner, s.child(s.dot))
}

// branches writes if cond { list } else { elseList }.
func (g *gen) branches(cond string, list, elseList *parse.ListNode, inner, other *scope) error {
	g.line("if %s {", cond)
	if err := g.block(list, inner); err != nil {
		return err
	}
	if elseList != nil {
		g.line("} else {")
		if err := g.block(elseList, other); err != nil {
			return err
		}
	}
	g.line("}")
	return nil
}

// bind is v held in a new local name when its expression must not be
// repeated, or may change.
func (g *gen) bind(v *value) *value {
	if v.konst != nil || v.pure && !v.mutable {
		return v
	}
	b := *v
	b.expr, b.pure, b.mutable = g.fresh("v"), true, false
	g.line("%s := %s", b.expr, v.expr)
	return &b
}

// declare makes the variable name hold v in s. A variable the template
// assigns gets a name of its own, so that its assignment changes neither
// dot nor the data.
func (g *gen) declare(name string, v *value, s *scope) {
	if g.assigned[name] {
		v.read()
		c := *v
		c.expr, c.pure, c.mutable, c.used = g.fresh("v"), true, true, nil
		g.line("%s := %s", c.expr, v.expr)
		g.line("_ = %s", c.expr)
		v = &c
	}
	s.vars = append(s.vars, variable{name, v})
}

// call compiles {{template "name" pipeline}}, inlined: the called
// template sees the pipeline's value as dot and as $.
func (g *gen) call(n *parse.TemplateNode, s *scope) error {
	dot := &value{}
	if n.Pipe != nil {
		v, err := g.pipe(n.Pipe, s)
		if err != nil {
			return err
		}
		if v, err = g.materialize(n, v); err != nil {
			return err
		}
		dot = g.bind(v)
	}
	inner := newScope(dot)
	inner.nonNil = maps.Clone(s.nonNil)
	g.line("// %s", n)
	return g.template(n, n.Name, inner)
}

// rangeNode compiles {{range}} over a slice or an array.
func (g *gen) rangeNode(n *parse.RangeNode, s *scope) error {
	v, err := g.pipe(n.Pipe, s)
	if err != nil {
		return err
	}
	if v, err = g.deref(n, v, s); err != nil {
		return err
	}
	if k := v.typ.Kind(); k != reflect.Slice && k != reflect.Array {
		return g.errorf(n, "range over %s: the generator ranges over slices and arrays only", v.typ)
	}
	v = g.bind(v)
	idx, elem := g.rangeVars(v)
	inner := s.child(elem)
	body, err := g.capture(func() error {
		switch d := n.Pipe.Decl; len(d) {
		case 1:
			g.declare(d[0].Ident[0], elem, inner)
		case 2:
			g.declare(d[0].Ident[0], idx, inner)
			g.declare(d[1].Ident[0], elem, inner)
		}
		return g.block(n.List, inner)
	})
	if err != nil {
		return err
	}
	if n.ElseList != nil {
		g.line("if len(%s) == 0 {", v.expr)
		if err := g.block(n.ElseList, s.child(s.dot)); err != nil {
			return err
		}
		g.line("} else {")
	}
	g.rangeLoop(v, idx, elem, body)
	if n.ElseList != nil {
		g.line("}")
	}
	return nil
}

// rangeVars are the index and the element of a range over v: a struct
// element is held by its pointer, not copied.
func (g *gen) rangeVars(v *value) (idx, elem *value) {
	idx = &value{expr: g.fresh("i"), typ: reflect.TypeFor[int](), pure: true, used: new(bool)}
	et := v.typ.Elem()
	elem = &value{expr: g.fresh("v"), typ: et, ref: et.Kind() == reflect.Struct, addr: true, pure: true, used: new(bool)}
	return idx, elem
}

// rangeLoop writes the loop of a range, naming only what body uses.
func (g *gen) rangeLoop(v, idx, elem *value, body string) {
	switch {
	case *elem.used && elem.ref:
		g.line("for %s := range %s {", idx.expr, v.expr)
		g.line("%s := &%s[%s]", elem.expr, v.expr, idx.expr)
	case *elem.used && *idx.used:
		g.line("for %s, %s := range %s {", idx.expr, elem.expr, v.expr)
	case *elem.used:
		g.line("for _, %s := range %s {", elem.expr, v.expr)
	case *idx.used:
		g.line("for %s := range %s {", idx.expr, v.expr)
	default:
		g.line("for range %s {", v.expr)
	}
	g.buf.WriteString(body)
	g.line("}")
}
