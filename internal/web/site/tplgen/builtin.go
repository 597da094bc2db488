package tplgen

import (
	"reflect"
	"strconv"
	"strings"
	"text/template/parse"
)

// builtin calls a builtin function of text/template.
func (g *gen) builtin(n *parse.IdentifierNode, args []parse.Node, final *value, s *scope) (*value, error) {
	ops := operands(args, final)
	switch n.Ident {
	case "and", "or", "not":
		cond, err := g.logic(n, n.Ident, ops, s, true)
		return &value{expr: cond, typ: reflect.TypeFor[bool]()}, err
	case "eq", "ne", "lt", "le", "gt", "ge":
		return g.compare(n, n.Ident, ops, s)
	case "len":
		return g.length(n, ops, s)
	case "print", "printf", "println":
		return g.sprint(n, "S"+n.Ident, ops, s)
	}
	return nil, g.errorf(n, "the generator does not compile the function %s", n.Ident)
}

// operand is an argument of a builtin: a node, or the value piped in.
type operand struct {
	node parse.Node
	val  *value
}

func operands(args []parse.Node, final *value) []operand {
	ops := make([]operand, 0, len(args)+1)
	for _, a := range args {
		ops = append(ops, operand{node: a})
	}
	if final != nil {
		ops = append(ops, operand{val: final})
	}
	return ops
}

// eval evaluates op.
func (g *gen) eval(op operand, s *scope) (*value, error) {
	if op.val != nil {
		return op.val, nil
	}
	return g.arg(op.node, s)
}

// condition is the Go condition of an if's pipeline, and the pointer it
// tests for nil, if any, which is then known not nil in its list.
func (g *gen) condition(n parse.Node, p *parse.PipeNode, s *scope) (cond, known string, err error) {
	if len(p.Decl) == 0 && len(p.Cmds) == 1 {
		c := p.Cmds[0]
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok && isLogic(id.Ident) && g.cfg.Funcs[id.Ident] == nil {
			cond, err := g.logic(id, id.Ident, operands(c.Args[1:], nil), s, false)
			return cond, "", err
		}
	}
	v, err := g.pipe(p, s)
	if err == nil {
		v, err = g.materialize(n, v)
	}
	if err != nil {
		return "", "", err
	}
	if len(p.Decl) > 0 {
		v = g.bind(v)
		g.declare(p.Decl[0].Ident[0], v, s)
	}
	if v.typ.Kind() == reflect.Pointer && v.pure && !v.ref && !v.mutable {
		known = v.expr
	}
	return g.truth(v), known, nil
}

func isLogic(name string) bool { return name == "and" || name == "or" || name == "not" }

// logic is the Go condition of and, or or not over ops, evaluated as
// text/template does: and and or stop at the first operand that decides.
// As a value (asValue), and and or take booleans only, whose result is
// then the same boolean.
func (g *gen) logic(n parse.Node, op string, ops []operand, s *scope, asValue bool) (string, error) {
	if op == "not" && len(ops) != 1 || len(ops) == 0 {
		return "", g.errorf(n, "wrong number of arguments for %s", op)
	}
	parts, pres, err := g.logicOperands(n, op, ops, s, asValue)
	if err != nil {
		return "", err
	}
	g.buf.WriteString(pres[0])
	if op == "not" {
		return "!" + parts[0], nil
	}
	join := map[string]string{"and": " && ", "or": " || "}[op]
	if strings.Join(pres[1:], "") == "" {
		return strings.Join(parts, join), nil
	}
	// A later operand's statements run only when the ones before did not
	// decide.
	c := g.fresh("c")
	g.line("%s := %s", c, parts[0])
	for i := 1; i < len(parts); i++ {
		if op == "and" {
			g.line("if %s {", c)
		} else {
			g.line("if !%s {", c)
		}
		g.buf.WriteString(pres[i])
		g.line("%s = %s", c, parts[i])
		g.line("}")
	}
	return c, nil
}

// logicOperands are the conditions of ops and the statements each needs
// first.
func (g *gen) logicOperands(n parse.Node, op string, ops []operand, s *scope, asValue bool) (parts, pres []string, err error) {
	parts, pres = make([]string, len(ops)), make([]string, len(ops))
	for i, o := range ops {
		inner := s
		if i > 0 {
			inner = s.child(s.dot) // what a later operand learns is not known after it
		}
		pres[i], err = g.capture(func() error {
			v, err := g.eval(o, inner)
			if err == nil {
				v, err = g.materialize(n, v)
			}
			if err != nil {
				return err
			}
			if asValue && op != "not" && v.typ.Kind() != reflect.Bool {
				return g.errorf(n, "%s used as a value over a %s: the generator takes and and or as values over booleans only (in if, over anything)", op, v.typ)
			}
			parts[i] = "(" + g.truth(v) + ")"
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return parts, pres, nil
}

// compare is eq, ne, lt, le, gt or ge over basic values of one kind, as
// text/template compares them (eq: the first equal to any other).
func (g *gen) compare(n parse.Node, op string, ops []operand, s *scope) (*value, error) {
	if len(ops) < 2 || len(ops) > 2 && op != "eq" {
		return nil, g.errorf(n, "wrong number of arguments for %s", op)
	}
	vals := make([]*value, len(ops))
	for i, o := range ops {
		var err error
		if vals[i], err = g.eval(o, s); err != nil {
			return nil, err
		}
	}
	goOp := map[string]string{"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[op]
	var terms []string
	for _, b := range vals[1:] {
		t, err := g.compareTwo(n, vals[0], b, goOp)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return &value{expr: "(" + strings.Join(terms, " || ") + ")", typ: reflect.TypeFor[bool]()}, nil
}

// compareTwo is a op b, compared as text/template compares them: by
// class (int64, uint64, float64, string, bool, complex128), an int and a
// uint by value.
func (g *gen) compareTwo(n parse.Node, a, b *value, op string) (string, error) {
	ka, kb := basicKind(a), basicKind(b)
	switch {
	case ka == "" || kb == "":
		return "", g.errorf(n, "invalid type for comparison (the generator compares numbers, strings and booleans)")
	case a.konst != nil && b.konst != nil:
		return "", g.errorf(n, "a comparison of two constants")
	case ka == "int" && kb == "uint" || ka == "uint" && kb == "int":
		if negative(a) || negative(b) {
			return "", g.errorf(n, "a negative constant compared with an unsigned value: the generator compares them only as values")
		}
		return mixedCompare(g.operand(g.bind(a), ka), ka, g.operand(g.bind(b), kb), op), nil
	case ka != kb:
		return "", g.errorf(n, "incompatible types for comparison")
	case (ka == "bool" || ka == "complex") && op != "==" && op != "!=":
		return "", g.errorf(n, "invalid kind for ordering: %s", ka)
	}
	if a.typ == b.typ || a.konst != nil && roomy(b.typ) || b.konst != nil && roomy(a.typ) {
		return g.operand(a, "") + " " + op + " " + g.operand(b, ""), nil
	}
	return g.operand(a, ka) + " " + op + " " + g.operand(b, kb), nil
}

// roomy reports whether t holds any constant of its class that a template
// can write, so that a constant compares with it as it is.
func roomy(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[int](), reflect.TypeFor[int64](), reflect.TypeFor[uint](), reflect.TypeFor[uint64](),
		reflect.TypeFor[float64](), reflect.TypeFor[string](), reflect.TypeFor[bool](), reflect.TypeFor[complex128]():
		return true
	}
	return false
}

// negative reports whether v is a negative constant.
func negative(v *value) bool {
	k, ok := v.konst.(*parse.NumberNode)
	return ok && k.IsInt && k.Int64 < 0
}

// wide is the type text/template compares a class in.
var wide = map[string]reflect.Type{
	"int": reflect.TypeFor[int64](), "uint": reflect.TypeFor[uint64](), "float": reflect.TypeFor[float64](),
	"string": reflect.TypeFor[string](), "bool": reflect.TypeFor[bool](), "complex": reflect.TypeFor[complex128](),
}

// operand is v as compared in its class: a constant as it is (Go gives
// it the other side's type), a value in its class's type (as it is
// without a class).
func (g *gen) operand(v *value, class string) string {
	switch k := v.konst.(type) {
	case *parse.NumberNode:
		if floatConst(k) {
			return floatLit(k.Float64)
		}
		return strconv.FormatInt(k.Int64, 10)
	case *parse.StringNode:
		return strconv.Quote(k.Text)
	case *parse.BoolNode:
		return strconv.FormatBool(k.True)
	}
	if w := wide[class]; w != nil && v.typ != w {
		return w.String() + "(" + val(v) + ")"
	}
	return val(v)
}

// mixedCompare is x op y for an int and a uint, as text/template
// compares them: a negative int is less than any uint.
func mixedCompare(x, kx, y string, op string) string {
	i, u := x, y
	if kx == "uint" {
		i, u = y, x
	}
	eq := "(" + i + " >= 0 && uint64(" + i + ") == " + u + ")"
	lt := "(" + x + " < 0 || uint64(" + x + ") < " + y + ")"
	if kx == "uint" {
		lt = "(" + y + " >= 0 && " + x + " < uint64(" + y + "))"
	}
	switch op {
	case "==":
		return eq
	case "!=":
		return "!" + eq
	case "<":
		return lt
	case "<=":
		return "(" + lt + " || " + eq + ")"
	case ">":
		return "!(" + lt + " || " + eq + ")"
	}
	return "!" + lt // >=
}

// basicKind is the class text/template compares v in, or "".
func basicKind(v *value) string {
	if k, ok := v.konst.(*parse.NumberNode); ok {
		if floatConst(k) {
			return "float"
		}
		return "int"
	}
	switch v.konst.(type) {
	case *parse.StringNode:
		return "string"
	case *parse.BoolNode:
		return "bool"
	case nil:
	default:
		return ""
	}
	switch t := v.typ; {
	case t == nil:
		return ""
	case isInt(t):
		return "int"
	case isUint(t):
		return "uint"
	case isFloat(t):
		return "float"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "bool"
	case t.Kind() == reflect.Complex64 || t.Kind() == reflect.Complex128:
		return "complex"
	}
	return ""
}

// length is len of a slice, array, map or string (through pointers).
func (g *gen) length(n parse.Node, ops []operand, s *scope) (*value, error) {
	if len(ops) != 1 {
		return nil, g.errorf(n, "wrong number of arguments for len")
	}
	v, err := g.eval(ops[0], s)
	if err == nil {
		v, err = g.materialize(n, v)
	}
	for err == nil && v.typ.Kind() == reflect.Pointer && !v.ref {
		v, err = g.deref(n, v, s)
	}
	if err != nil {
		return nil, err
	}
	switch v.typ.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return &value{expr: "len(" + val(v) + ")", typ: reflect.TypeFor[int](), pure: v.pure}, nil
	}
	return nil, g.errorf(n, "len of type %s", v.typ)
}

// sprint is print, printf or println: fmt's function of the same name
// over the values as they are.
func (g *gen) sprint(n parse.Node, fn string, ops []operand, s *scope) (*value, error) {
	exprs := make([]string, len(ops))
	for i, o := range ops {
		v, err := g.eval(o, s)
		if err == nil {
			v, err = g.materialize(n, v)
		}
		if err != nil {
			return nil, err
		}
		exprs[i] = val(v)
	}
	return &value{expr: g.qualify("fmt", fn) + "(" + strings.Join(exprs, ", ") + ")", typ: reflect.TypeFor[string]()}, nil
}
