package service

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/bind"
	"github.com/toolrpc/toolrpc/internal/scan"
)

// call binds the params, calls the method and maps its results.
func (m *method) call(ctx context.Context, params json.RawMessage) (any, error) {
	var argBuf [5]reflect.Value
	args := append(argBuf[:0], m.rcvr)
	if m.hasCtx {
		args = append(args, contextValue(ctx))
	}
	args, err := m.bind(ctx, params, args)
	if err != nil {
		return nil, err
	}
	var out []reflect.Value
	if m.variadic {
		out = m.fn.CallSlice(args)
	} else {
		out = m.fn.Call(args)
	}
	switch m.results {
	case resultValue:
		return m.box(out[0]), nil
	case resultError:
		if !out[0].IsNil() {
			return nil, out[0].Interface().(error)
		}
		return nil, nil
	case resultValueError:
		if !out[1].IsNil() {
			return nil, out[1].Interface().(error)
		}
		return m.box(out[0]), nil
	}
	return nil, nil
}

// contextValue is ctx as an argument. Apart, so that only the methods that
// take a context pay for its escape to the heap.
func contextValue(ctx context.Context) reflect.Value { return reflect.ValueOf(&ctx).Elem() }

// box returns a result as an interface. Value.Interface allocates for every
// value not shaped like a pointer; Go's own conversion does not for small
// integers and booleans, so results of those exact types are converted
// natively (a named type keeps reflection: its methods, MarshalJSON among
// them, must survive).
func (m *method) box(v reflect.Value) any {
	switch m.result {
	case intType:
		return int(v.Int())
	case int64Type:
		return v.Int()
	case boolType:
		return v.Bool()
	}
	return v.Interface()
}

var (
	intType   = reflect.TypeFor[int]()
	int64Type = reflect.TypeFor[int64]()
	boolType  = reflect.TypeFor[bool]()
)

// bind decodes params into the method's arguments, appended to args, and
// validates them.
func (m *method) bind(ctx context.Context, params json.RawMessage, args []reflect.Value) ([]reflect.Value, error) {
	i := scan.SkipSpace(params, 0)
	present := i < len(params)
	named := present && params[i] == '{'
	switch {
	case present && !named && params[i] != '[':
		return nil, invalidParams(&FieldError{Rule: "shape", Message: "params must be an object or an array"})
	case m.mode == bindRaw:
		return append(args, reflect.ValueOf(params)), nil
	case named && (m.mode == bindSlice || m.mode == bindPositional):
		return nil, invalidParams(&FieldError{Rule: "shape", Param: "array",
			Message: "the method takes positional params (an array)"})
	case present && !named && m.mode == bindMap:
		return nil, invalidParams(&FieldError{Rule: "shape", Param: "object",
			Message: "the method takes named params (an object)"})
	}
	// v points to the value decoded: the one parameter's, or for
	// bindPositional a struct whose field j holds parameter j.
	v, fe := m.decode(params)
	if fe != nil {
		return nil, m.decodeProblems(ctx, v, fe, named)
	}
	switch m.mode {
	case bindNone:
	case bindPositional:
		s := v.Elem()
		for j, p := range m.params {
			arg := s.Field(j) // addressable
			if p.ptr {
				arg = arg.Addr()
			}
			args = append(args, arg)
		}
	default:
		args = append(args, argValue(m.params[0], v))
	}
	if m.validate {
		if err := m.check(ctx, v); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// decodeProblems is the InvalidParams error for params that decoding
// found problems in, fe and its others. Named params of a struct are
// decoded member by member to the end, so they are validated too, but for
// the members that have a decoding problem (their value is not what was
// sent): one answer lists the unknown member, the one of the wrong type
// and the one too long, the decoding problems first.
func (m *method) decodeProblems(ctx context.Context, v reflect.Value, fe *bind.Error, named bool) error {
	var p problems
	spoilt := map[string]bool{}
	for _, e := range append([]*bind.Error{fe}, fe.Others()...) {
		p.add(&FieldError{Field: e.Field, Rule: e.Rule, Param: e.Param, Message: e.Message})
		spoilt[topSegment(e.Field)] = true
	}
	p.more += fe.Omitted()
	if !named || m.mode != bindStruct || !m.validate || spoilt[""] {
		return p.err()
	}
	var vp problems
	if err := m.svc.validate.check(ctx, v, "", &vp); err != nil {
		return err
	}
	for _, e := range vp.list {
		if !spoilt[topSegment(e.Field)] {
			p.add(e)
		}
	}
	p.more += vp.more // not exact when some of them were spoilt: a bound
	return p.err()
}

// topSegment is the first segment of the JSON path field: the member of
// the params it lies under (items of items[2].qty; ["a.b"] of ["a.b"].c),
// or "" for the params as a whole.
func topSegment(field string) string {
	if field == "" || field[0] != '[' {
		if k := strings.IndexAny(field, ".["); k >= 0 {
			return field[:k]
		}
		return field
	}
	if end, _, st := scan.String([]byte(field), 1); st == scan.OK && end < len(field) && field[end] == ']' {
		return field[:end+1]
	}
	return field // an index: not a member's
}

// argValue is the argument for p, decoded into *v.
func argValue(p param, v reflect.Value) reflect.Value {
	if p.ptr {
		return v
	}
	return v.Elem()
}

// check validates the decoded params that need it, v as bind has it. Every
// element of a params array is validated, so that the count of problems
// not listed is exact; only the first MaxFieldErrors are described.
func (m *method) check(ctx context.Context, v reflect.Value) error {
	var p problems
	for j, param := range m.params {
		if !param.validate {
			continue
		}
		prefix := ""
		// The value is validated through a pointer: the validator takes an
		// interface, and a pointer fits one without a copy.
		pv := v
		if m.mode == bindPositional {
			pv = v.Elem().Field(j).Addr()
			if len(m.params) > 1 {
				prefix = indexSegment(j)
			}
		}
		if k := derefType(param).Kind(); k == reflect.Slice || k == reflect.Array {
			sv := pv.Elem()
			for e := range sv.Len() {
				ev := sv.Index(e)
				if ev.Kind() == reflect.Pointer && ev.IsNil() {
					continue
				}
				if param.quick != nil && param.quick.pass(reflect.Indirect(ev)) {
					continue
				}
				elemPrefix := ""
				if p.room() > 0 {
					elemPrefix = prefix + indexSegment(e) // only a described problem needs it
				}
				if err := m.svc.validate.check(ctx, ev, elemPrefix, &p); err != nil {
					return err
				}
			}
			continue
		}
		if param.quick != nil && param.quick.pass(pv.Elem()) {
			continue
		}
		if err := m.svc.validate.check(ctx, pv, prefix, &p); err != nil {
			return err
		}
	}
	return p.err()
}

// indexSegment is the path segment of element j of an array: [j].
func indexSegment(j int) string { return "[" + strconv.Itoa(j) + "]" }
