package tplgen

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template/parse"
)

// pipe evaluates a pipeline's commands (its declarations are the
// caller's).
func (g *gen) pipe(p *parse.PipeNode, s *scope) (*value, error) {
	return g.commands(p.Cmds, s)
}

// commands evaluates commands in turn, each value passed to the next as
// its last argument.
func (g *gen) commands(cmds []*parse.CommandNode, s *scope) (*value, error) {
	var v *value
	for _, c := range cmds {
		var err error
		if v, err = g.command(c, s, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// command evaluates one command; final, if not nil, is its last argument.
func (g *gen) command(c *parse.CommandNode, s *scope, final *value) (*value, error) {
	args := c.Args[1:]
	switch n := c.Args[0].(type) {
	case *parse.FieldNode:
		return g.fields(n, s.dot.read(), n.Ident, args, final, s)
	case *parse.ChainNode:
		base, err := g.arg(n.Node, s)
		if err != nil {
			return nil, err
		}
		return g.fields(n, base, n.Field, args, final, s)
	case *parse.VariableNode:
		if len(n.Ident) > 1 {
			v, err := g.variable(n, s)
			if err != nil {
				return nil, err
			}
			return g.fields(n, v, n.Ident[1:], args, final, s)
		}
	case *parse.IdentifierNode:
		return g.function(n, args, final, s)
	}
	if len(args) > 0 || final != nil {
		return nil, g.errorf(c, "%s is not a function but is given arguments", c.Args[0])
	}
	v, err := g.arg(c.Args[0], s)
	if err != nil {
		return nil, err
	}
	return g.materialize(c, v)
}

// arg evaluates an argument of a command. A constant stays untyped until
// its use types it.
func (g *gen) arg(n parse.Node, s *scope) (*value, error) {
	switch n := n.(type) {
	case *parse.DotNode:
		return s.dot.read(), nil
	case *parse.FieldNode:
		return g.fields(n, s.dot.read(), n.Ident, nil, nil, s)
	case *parse.VariableNode:
		v, err := g.variable(n, s)
		if err != nil || len(n.Ident) == 1 {
			return v, err
		}
		return g.fields(n, v, n.Ident[1:], nil, nil, s)
	case *parse.ChainNode:
		base, err := g.arg(n.Node, s)
		if err != nil {
			return nil, err
		}
		return g.fields(n, base, n.Field, nil, nil, s)
	case *parse.PipeNode:
		if len(n.Decl) > 0 {
			return nil, g.errorf(n, "a variable declared inside parentheses is not supported")
		}
		return g.pipe(n, s)
	case *parse.IdentifierNode:
		return g.function(n, nil, nil, s)
	case *parse.NumberNode, *parse.StringNode, *parse.BoolNode, *parse.NilNode:
		return &value{konst: n}, nil
	}
	return nil, g.errorf(n, "the generator does not evaluate %s", n)
}

// variable is the value of $x.
func (g *gen) variable(n *parse.VariableNode, s *scope) (*value, error) {
	v := s.lookup(n.Ident[0])
	if v == nil {
		return nil, g.errorf(n, "undefined variable %s", n.Ident[0])
	}
	return v.read(), nil
}

// materialize gives an untyped constant the type text/template gives it
// as a value: int, float64, string or bool.
func (g *gen) materialize(n parse.Node, v *value) (*value, error) {
	switch k := v.konst.(type) {
	case nil:
		if v.typ == nil {
			return nil, g.errorf(n, "no value here (a template called without one?)")
		}
		return v, nil
	case *parse.NumberNode:
		if floatConst(k) {
			return &value{expr: "float64(" + floatLit(k.Float64) + ")", typ: reflect.TypeFor[float64](), pure: true}, nil
		}
		if k.IsInt {
			return &value{expr: strconv.FormatInt(k.Int64, 10), typ: reflect.TypeFor[int](), pure: true}, nil
		}
	case *parse.StringNode:
		return &value{expr: strconv.Quote(k.Text), typ: reflect.TypeFor[string](), pure: true}, nil
	case *parse.BoolNode:
		return &value{expr: strconv.FormatBool(k.True), typ: reflect.TypeFor[bool](), pure: true}, nil
	}
	return nil, g.errorf(n, "%s is not a value the generator can use here", v.konst)
}

// floatConst reports whether text/template takes the number for a
// float64 rather than an int.
func floatConst(k *parse.NumberNode) bool {
	if !k.IsFloat {
		return false
	}
	hex := strings.HasPrefix(strings.ToLower(strings.TrimLeft(k.Text, "+-")), "0x")
	return !k.IsInt || strings.ContainsAny(k.Text, ".eE") && !hex && !strings.HasPrefix(k.Text, "'")
}

func floatLit(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// fields evaluates a chain of fields and methods from recv; the last is
// given args and final.
func (g *gen) fields(n parse.Node, recv *value, idents []string, args []parse.Node, final *value, s *scope) (*value, error) {
	v, err := g.materialize(n, recv)
	if err != nil {
		return nil, err
	}
	for i, name := range idents {
		var a []parse.Node
		var f *value
		if i == len(idents)-1 {
			a, f = args, final
		}
		if v, err = g.field(n, v, name, a, f, s); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// field evaluates .name of recv: a method first, as text/template looks
// them up, else a struct field through pointers.
func (g *gen) field(n parse.Node, recv *value, name string, args []parse.Node, final *value, s *scope) (*value, error) {
	if m, ok := methodOf(recv, name); ok {
		return g.method(n, recv, m, args, final, s)
	}
	v := recv
	for v.typ.Kind() == reflect.Pointer && !v.ref {
		var err error
		if v, err = g.deref(n, v, s); err != nil {
			return nil, err
		}
	}
	if v.typ.Kind() != reflect.Struct {
		return nil, g.errorf(n, "can't evaluate field %s in type %s", name, v.typ)
	}
	f, ok := v.typ.FieldByName(name)
	if !ok || !f.IsExported() {
		return nil, g.errorf(n, "can't evaluate field %s in type %s", name, v.typ)
	}
	for j := 1; j < len(f.Index); j++ {
		if v.typ.FieldByIndex(f.Index[:j]).Type.Kind() == reflect.Pointer {
			return nil, g.errorf(n, "field %s of %s is promoted through an embedded pointer, which the generator does not follow", name, v.typ)
		}
	}
	if len(args) > 0 || final != nil {
		return nil, g.errorf(n, "%s is a field, not a method, and is given arguments", name)
	}
	return &value{expr: v.expr + "." + name, typ: f.Type, addr: v.addr || v.ref, pure: v.pure, mutable: v.mutable}, nil
}

// methodOf finds the exported method name of v's type, or of its
// pointer when v is addressable.
func methodOf(v *value, name string) (reflect.Method, bool) {
	if v.typ.Kind() == reflect.Interface {
		return reflect.Method{}, false
	}
	if m, ok := v.typ.MethodByName(name); ok {
		return m, true
	}
	if v.typ.Kind() != reflect.Pointer && (v.addr || v.ref) {
		return reflect.PointerTo(v.typ).MethodByName(name)
	}
	return reflect.Method{}, false
}

// method calls m on recv. A method of the value called through a nil
// pointer fails, as text/template's call does.
func (g *gen) method(n parse.Node, recv *value, m reflect.Method, args []parse.Node, final *value, s *scope) (*value, error) {
	if recv.typ.Kind() == reflect.Pointer && !recv.ref {
		if _, ofValue := recv.typ.Elem().MethodByName(m.Name); ofValue {
			if err := g.nilCheck(n, recv, s); err != nil {
				return nil, err
			}
		}
	}
	return g.callFunc(n, recv.expr+"."+m.Name, m.Type, 1, args, final, s, m.Name)
}

// deref is the value recv points to, after a check that fails the page
// on a nil pointer as text/template does.
func (g *gen) deref(n parse.Node, v *value, s *scope) (*value, error) {
	if v.typ.Kind() != reflect.Pointer || v.ref {
		return v, nil
	}
	if err := g.nilCheck(n, v, s); err != nil {
		return nil, err
	}
	return &value{expr: v.expr, typ: v.typ.Elem(), ref: true, addr: true, pure: true, mutable: v.mutable}, nil
}

// nilCheck writes the check that v, a pointer, is not nil, unless that
// is known here; after it, it is (unless v may change).
func (g *gen) nilCheck(n parse.Node, v *value, s *scope) error {
	if !v.pure {
		return g.errorf(n, "a pointer a call returns is dereferenced: hold it in a variable first")
	}
	if s.nonNil[v.expr] {
		return nil
	}
	loc, _ := g.tree.ErrorContext(n)
	g.line("if %s == nil {", v.expr)
	g.line("return %s(%s)", g.qualify("errors", "New"), strconv.Quote(loc+": nil pointer evaluating "+n.String()))
	g.line("}")
	if !v.mutable {
		s.nonNil[v.expr] = true
	}
	return nil
}

// val is the Go expression of v's value (not of its pointer).
func val(v *value) string {
	if v.ref {
		return "*" + v.expr
	}
	return v.expr
}

// function calls the template function or builtin n.
func (g *gen) function(n *parse.IdentifierNode, args []parse.Node, final *value, s *scope) (*value, error) {
	if fn, ok := g.cfg.Funcs[n.Ident]; ok { // the template's own functions come before the builtins
		name, err := g.funcName(fn)
		if err != nil {
			return nil, g.errorf(n, "function %s: %v", n.Ident, err)
		}
		return g.callFunc(n, name, reflect.TypeOf(fn), 0, args, final, s, n.Ident)
	}
	return g.builtin(n, args, final, s)
}

// callFunc calls fn, of type ft (whose first skip parameters are the
// receiver's), with args and final converted to its parameters.
func (g *gen) callFunc(n parse.Node, fn string, ft reflect.Type, skip int, args []parse.Node, final *value, s *scope, name string) (*value, error) {
	in, given := ft.NumIn()-skip, len(args)
	if final != nil {
		given++
	}
	fixed := in
	if ft.IsVariadic() {
		fixed--
	}
	if given < fixed || given > in && !ft.IsVariadic() {
		return nil, g.errorf(n, "wrong number of arguments for %s: want %d, got %d", name, in, given)
	}
	exprs := make([]string, given)
	for i := range given {
		a := final
		if i < len(args) {
			var err error
			if a, err = g.arg(args[i], s); err != nil {
				return nil, err
			}
		}
		pt := ft.In(skip + min(i, in-1))
		if i >= fixed {
			pt = ft.In(skip + in - 1).Elem()
		}
		var err error
		if exprs[i], err = g.convert(n, a, pt, s); err != nil {
			return nil, err
		}
	}
	return g.result(n, fmt.Sprintf("%s(%s)", fn, strings.Join(exprs, ", ")), ft, name)
}

// result is the value of a call: a result and an error are held, and the
// error fails the page.
func (g *gen) result(n parse.Node, call string, ft reflect.Type, name string) (*value, error) {
	switch {
	case ft.NumOut() == 1:
		return &value{expr: call, typ: ft.Out(0)}, nil
	case ft.NumOut() == 2 && ft.Out(1) == reflect.TypeFor[error]():
		v := g.fresh("v")
		loc, _ := g.tree.ErrorContext(n)
		g.line("%s, err := %s", v, call)
		g.line("if err != nil {")
		g.line("return %s(%s, err)", g.qualify("fmt", "Errorf"), strconv.Quote(loc+": error calling "+name+": %w"))
		g.line("}")
		return &value{expr: v, typ: ft.Out(0), pure: true}, nil
	}
	return nil, g.errorf(n, "%s must return one value, or a value and an error", name)
}
