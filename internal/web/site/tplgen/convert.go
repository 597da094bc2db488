package tplgen

import (
	"reflect"
	"strconv"
	"text/template/parse"
)

// convert is the expression of a passed as a parameter of type pt, as
// text/template converts it: constants typed, pointers followed or taken.
func (g *gen) convert(n parse.Node, a *value, pt reflect.Type, s *scope) (string, error) {
	if a.konst != nil {
		return g.constant(n, a.konst, pt)
	}
	if a.typ == nil {
		return "", g.errorf(n, "no value to pass as %s", pt)
	}
	switch {
	case a.typ.AssignableTo(pt):
		return val(a), nil
	case a.typ.Kind() == reflect.Pointer && !a.ref && a.typ.Elem().AssignableTo(pt):
		d, err := g.deref(n, a, s)
		if err != nil {
			return "", err
		}
		return val(d), nil
	case pt.Kind() == reflect.Pointer && a.typ.AssignableTo(pt.Elem()) && a.ref:
		return a.expr, nil
	case pt.Kind() == reflect.Pointer && a.typ.AssignableTo(pt.Elem()) && a.addr && a.pure:
		return "&" + a.expr, nil
	}
	return "", g.errorf(n, "can't pass %s (type %s) as %s", a.expr, a.typ, pt)
}

// constant is the untyped constant k passed as type pt.
func (g *gen) constant(n parse.Node, k parse.Node, pt reflect.Type) (string, error) {
	anyType := pt.Kind() == reflect.Interface && pt.NumMethod() == 0
	switch k := k.(type) {
	case *parse.NumberNode:
		switch {
		case anyType:
			v, err := g.materialize(n, &value{konst: k})
			if err != nil {
				return "", err
			}
			return v.expr, nil
		case isInt(pt) && k.IsInt:
			return strconv.FormatInt(k.Int64, 10), nil
		case isUint(pt) && k.IsUint:
			return strconv.FormatUint(k.Uint64, 10), nil
		case isFloat(pt) && k.IsFloat:
			return floatLit(k.Float64), nil
		}
	case *parse.StringNode:
		if anyType || pt.Kind() == reflect.String {
			return strconv.Quote(k.Text), nil
		}
	case *parse.BoolNode:
		if anyType || pt.Kind() == reflect.Bool {
			return strconv.FormatBool(k.True), nil
		}
	case *parse.NilNode:
		switch pt.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
			return "nil", nil
		}
	}
	return "", g.errorf(n, "can't pass %s as %s", k, pt)
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

func isUint(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func isFloat(t reflect.Type) bool {
	return t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64
}

// truth is the Go condition of v being true in text/template's sense:
// not the zero value of its kind, not empty, not nil; a struct always.
func (g *gen) truth(v *value) string {
	x := val(v)
	switch k := v.typ.Kind(); {
	case k == reflect.Struct:
		return "true"
	case k == reflect.Bool:
		return x
	case k == reflect.String:
		return x + ` != ""`
	case k == reflect.Array || k == reflect.Slice || k == reflect.Map:
		return "len(" + x + ") > 0"
	case isInt(v.typ) || isUint(v.typ) || isFloat(v.typ) || k == reflect.Complex64 || k == reflect.Complex128:
		return x + " != 0"
	}
	return x + " != nil"
}
