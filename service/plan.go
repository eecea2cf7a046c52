package service

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolrpc/toolrpc/internal/bind"
)

// How a method takes its params.
type bindMode uint8

const (
	bindNone       bindMode = iota // no params
	bindStruct                     // one struct: named or positional
	bindSlice                      // one slice: the whole positional array
	bindMap                        // one map: named
	bindRaw                        // one json.RawMessage: as they came
	bindPositional                 // one each
)

// What a method returns.
type resultMode uint8

const (
	resultNone resultMode = iota
	resultValue
	resultError
	resultValueError
)

// method is a registered method and everything precomputed to call it.
type method struct {
	name     string
	rcvr     reflect.Value // the registered value
	fn       reflect.Value // the method's function, receiver first
	variadic bool
	hasCtx   bool
	mode     bindMode
	params   []param
	decode   paramsDecoder // every mode but bindRaw
	results  resultMode
	result   reflect.Type // R, when there is one
	svc      *Service
	validate bool        // some param needs the validator
	info     *MethodInfo // what Describe says of it
}

// A paramsDecoder decodes a method's params (see bind.Params).
type paramsDecoder = func(params []byte) (reflect.Value, *bind.Error)

// param is one Go parameter after the context.
type param struct {
	typ reflect.Type
	ptr bool // typ is a pointer: decode into *typ.Elem()
	// validate: the value is a struct (or a pointer to one), or a slice or
	// array of structs, to validate: it has validate tags, or a custom
	// Validator was given.
	validate bool
	// quick: the struct's rules (the elements', for a slice or array),
	// when this package checks them itself (see quickRules).
	quick *quickRules
}

var (
	contextType         = reflect.TypeFor[context.Context]()
	errorType           = reflect.TypeFor[error]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// plan checks a method's shape and precomputes how to call it. fn is the
// method's function, which takes the receiver rcvr first.
func (s *Service) plan(name string, rcvr, fn reflect.Value) (*method, error) {
	ft := fn.Type()
	m := &method{name: name, rcvr: rcvr, fn: fn, variadic: ft.IsVariadic(), svc: s}
	in := 1 // the receiver
	if ft.NumIn() > 1 && ft.In(1) == contextType {
		m.hasCtx, in = true, 2
	}
	var types []reflect.Type // what each parameter is decoded into
	for i := in; i < ft.NumIn(); i++ {
		t := ft.In(i)
		p := param{typ: t}
		dt := t
		if t.Kind() == reflect.Pointer {
			p.ptr, dt = true, t.Elem()
		}
		checked := dt // the struct validated: the parameter's, or its elements'
		if dt.Kind() == reflect.Slice || dt.Kind() == reflect.Array {
			if checked = dt.Elem(); checked.Kind() == reflect.Pointer {
				checked = checked.Elem()
			}
		}
		p.validate = checked.Kind() == reflect.Struct && (s.customValid || hasValidateTags(dt))
		if p.validate && !s.customValid {
			p.quick = compileQuick(checked)
		}
		m.validate = m.validate || p.validate
		m.params = append(m.params, p)
		types = append(types, dt)
	}
	m.mode = bindModeOf(m.params)
	dec, err := bind.ParamsChecked(types, m.mode == bindPositional, s.allowUnknown, s.keepMeta, s.validate.checkDefault)
	if te := (*bind.TypeError)(nil); errors.As(err, &te) {
		// The first parameter that cannot be decoded; a context.Context
		// after the first place is one (an interface with methods).
		i := in + te.Index // counted as the method declares them
		if ft.In(i) == contextType {
			return nil, fmt.Errorf("context.Context must be the first parameter")
		}
		return nil, fmt.Errorf("parameter %d: %w", i, te.Err)
	} else if err != nil {
		return nil, err
	}
	m.decode = dec
	if ft.IsVariadic() && len(m.params) != 1 {
		return nil, fmt.Errorf("a variadic method must have exactly one parameter after the context")
	}
	switch ft.NumOut() {
	case 0:
		m.results = resultNone
	case 1:
		if ft.Out(0) == errorType {
			m.results = resultError
		} else {
			m.results = resultValue
		}
	case 2:
		if ft.Out(1) != errorType {
			return nil, fmt.Errorf("results %s, %s: the second result must be error", ft.Out(0), ft.Out(1))
		}
		m.results = resultValueError
	default:
		return nil, fmt.Errorf("%d results: want (R, error), error, R or none", ft.NumOut())
	}
	if m.results == resultValue || m.results == resultValueError {
		if err := encodable(ft.Out(0)); err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		m.result = ft.Out(0)
	}
	return m, nil
}

// bindModeOf is how a method with the parameters ps takes its params.
func bindModeOf(ps []param) bindMode {
	if len(ps) != 1 {
		if len(ps) == 0 {
			return bindNone
		}
		return bindPositional
	}
	p := ps[0]
	dt := derefType(p)
	switch {
	case p.typ == rawMessageType:
		return bindRaw
	case dt.Kind() == reflect.Struct && !implementsDecoding(dt):
		return bindStruct
	case dt.Kind() == reflect.Slice && !implementsDecoding(dt) && !p.ptr:
		return bindSlice
	case dt.Kind() == reflect.Map && !implementsDecoding(dt):
		return bindMap
	}
	return bindPositional
}

// implementsDecoding reports whether a *t decodes itself, from JSON or from
// text.
func implementsDecoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

// encodable reports the kinds encoding/json can never encode.
func encodable(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Errorf("type %s cannot be encoded as JSON", t)
	}
	return nil
}

// derefType is the type a param is decoded into.
func derefType(p param) reflect.Type {
	if p.ptr {
		return p.typ.Elem()
	}
	return p.typ
}
