package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/scan"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
)

// Options configure a Service. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Names maps a Go method name to its RPC method name. Default:
	// LowerCamel (GetData -> getData). SnakeCase gives get_data.
	Names func(goName string) string
	// Validator validates params after decoding, by their validate tags.
	// Supply one to add custom rules. Default: validator.New with
	// WithRequiredStructEnabled.
	Validator *validator.Validate
	// AllowUnknownFields ignores params members that match no field,
	// instead of answering InvalidParams.
	AllowUnknownFields bool
	// SkipUnservable skips, with a warning logged, an exported method whose
	// shape cannot be served, instead of failing its registration.
	SkipUnservable bool
	// Logger receives the warnings of SkipUnservable. Registration comes
	// before any connection: give it the connection's logger
	// (rpc.Options.Logger), as package toolrpc does, for one logger to get
	// every record. Default: slog.Default().
	Logger *slog.Logger
}

// Service turns the methods of registered Go values into RPC methods. It is
// an [rpc.Handler]: serve it with [rpc.Serve].
//
// Register it all before serving: registration is not safe while Handle
// runs. Handle is safe for concurrent use.
type Service struct {
	names        func(string) string
	validate     validation
	customValid  bool // the validator was supplied: validate every struct
	allowUnknown bool
	skip         bool
	log          *slog.Logger
	binder       binder
	schemas      *schema.Generator
	methods      map[string]*method
	discover     *discovery // rpc.discover, if served (see ServeDiscover)
}

// New returns an empty Service. opts may be nil.
func New(opts *Options) *Service {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Service{
		names:        o.Names,
		allowUnknown: o.AllowUnknownFields,
		skip:         o.SkipUnservable,
		log:          o.Logger,
		binder:       binder{cache: map[reflect.Type]*decodeFunc{}},
		methods:      map[string]*method{},
	}
	if s.names == nil {
		s.names = LowerCamel
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if o.Validator != nil {
		s.validate, s.customValid = validation{o.Validator}, true
	} else {
		s.validate = validation{validator.New(validator.WithRequiredStructEnabled())}
	}
	s.schemas = schema.New(&schema.Options{AllowUnknownFields: s.allowUnknown, Validator: s.validate.v})
	return s
}

// Register adds the exported methods of rcvr as RPC methods, named by the
// name mapper and prefixed with "namespace." unless namespace is empty.
//
// A method has the form
//
//	M([ctx context.Context,] [params...]) ([R,] [error])
//
// Params are bound by what the method takes after the context:
//   - one struct P (or *P): named params fill P by JSON field name;
//     positional params give one value per exported field, in declaration
//     order; absent params leave P at its zero value;
//   - one slice: positional params, the whole array; absent params, a nil
//     slice; named params are refused;
//   - one map: named params, by key; absent params, a nil map; positional
//     params are refused;
//   - one json.RawMessage: the params as they came, named or positional;
//     absent params, nil;
//   - nothing: absent params, [] or {} (an object with only _meta too);
//     any other params are refused;
//   - anything else (a type that implements json.Unmarshaler or
//     encoding.TextUnmarshaler included), or several parameters: positional
//     params, one value per parameter, exactly as many; named params are
//     refused, and so are absent ones (rule count), since no parameter has
//     a value then.
//
// A refusal is an InvalidParams error whose data lists each problem (see
// FieldError). A "_meta" member of named params is the protocol's metadata,
// never bound (rpc.Request.Meta holds it). Params that are structs, or
// slices of structs, are then validated by their validate tags.
//
// Register also computes, once, each method's description: the JSON
// Schemas of its params and result (see MethodInfo, Describe), and the
// documentation of a rcvr that implements Documented (whose MethodDocs is
// not served).
//
// Register fails if rcvr has no servable method, if a name is taken or
// reserved (rpc.), if an exported method cannot be served, its schema
// included (its name and why are in the error; Options.SkipUnservable
// skips it instead), or if MethodDocs documents a method rcvr does not
// serve. Methods promoted from embedded fields are not served. A value (not a pointer)
// with pointer-receiver methods is refused: register a pointer.
func (s *Service) Register(namespace string, rcvr any) error {
	v := reflect.ValueOf(rcvr)
	if !v.IsValid() {
		return errors.New("service: cannot register nil")
	}
	t := v.Type()
	if v.Kind() != reflect.Pointer && reflect.PointerTo(t).NumMethod() > t.NumMethod() {
		return fmt.Errorf("service: %s has pointer-receiver methods: register a *%s", t, t)
	}
	promoted := promotedMethods(t)
	docs, err := methodDocs(rcvr, t, promoted)
	if err != nil {
		return err
	}
	added := map[string]*method{}
	for i := range t.NumMethod() {
		m := t.Method(i)
		if !m.IsExported() || promoted[m.Name] || (m.Name == "MethodDocs" && t.Implements(documentedType)) {
			continue
		}
		name := s.names(m.Name)
		if namespace != "" {
			name = namespace + "." + name
		}
		switch {
		case name == "" || name == namespace+".":
			return fmt.Errorf("service: method %s.%s maps to an empty name", t, m.Name)
		case strings.HasPrefix(name, "rpc."):
			return fmt.Errorf("service: method %s.%s maps to %q: names starting with rpc. are reserved", t, m.Name, name)
		case s.methods[name] != nil || added[name] != nil:
			return fmt.Errorf("service: method %s.%s maps to %q, which is already registered", t, m.Name, name)
		}
		meth, err := s.plan(name, v, m.Func)
		if err == nil {
			meth.info = &MethodInfo{GoName: m.Name}
			meth.info.Title, meth.info.Description = docs[m.Name].Title, docs[m.Name].Description
			err = s.describe(meth)
		}
		if err != nil {
			err = fmt.Errorf("service: method %s.%s cannot be served: %w", t, m.Name, err)
			if s.skip {
				s.log.Warn("service: method skipped", "error", err)
				continue
			}
			return err
		}
		added[name] = meth
	}
	if len(added) == 0 {
		return fmt.Errorf("service: %s has no method that can be served", t)
	}
	for name, m := range added {
		s.methods[name] = m
	}
	return nil
}

// promotedMethods names the methods of t that come from its embedded
// fields.
func promotedMethods(t reflect.Type) map[string]bool {
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	out := map[string]bool{}
	if st.Kind() != reflect.Struct {
		return out
	}
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.Anonymous {
			continue
		}
		for _, ft := range []reflect.Type{f.Type, reflect.PointerTo(f.Type)} {
			for j := range ft.NumMethod() {
				out[ft.Method(j).Name] = true
			}
		}
	}
	return out
}

// Methods returns the names of the registered methods, sorted.
func (s *Service) Methods() []string {
	names := make([]string, 0, len(s.methods))
	for name := range s.methods {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Handle calls the method the request names. It implements rpc.Handler.
func (s *Service) Handle(ctx context.Context, req *rpc.Request) (any, error) {
	m := s.methods[req.Method]
	if m == nil {
		if req.Method == rpc.Discover && s.discover != nil {
			return s.discoverCall(ctx, req.Params)
		}
		return nil, codec.NewError(codec.MethodNotFound, "")
	}
	return m.call(ctx, req.Params)
}

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
	results  resultMode
	result   reflect.Type // R, when there is one
	fields   decodeFunc   // bindStruct: positional decoder
	svc      *Service
	validate bool        // some param needs the validator
	info     *MethodInfo // what Describe says of it
}

// param is one Go parameter after the context.
type param struct {
	typ reflect.Type
	ptr bool // typ is a pointer: decode into *typ.Elem()
	dec decodeFunc
	// validate: the value is a struct (or a pointer to one), or a slice or
	// array of structs, to validate: it has validate tags, or a custom
	// Validator was given.
	validate bool
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
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
	for i := in; i < ft.NumIn(); i++ {
		t := ft.In(i)
		if t == contextType {
			return nil, fmt.Errorf("context.Context must be the first parameter")
		}
		i := i - 1 // count parameters as the method declares them
		p := param{typ: t}
		dt := t
		if t.Kind() == reflect.Pointer {
			p.ptr, dt = true, t.Elem()
		}
		dec, err := s.binder.decoder(dt)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		p.dec = dec
		p.validate = dt.Kind() == reflect.Struct && (s.customValid || hasValidateTags(dt))
		if dt.Kind() == reflect.Slice || dt.Kind() == reflect.Array {
			p.validate = elemStruct(dt) && (s.customValid || hasValidateTags(dt))
		}
		m.validate = m.validate || p.validate
		m.params = append(m.params, p)
	}
	if ft.IsVariadic() && len(m.params) != 1 {
		return nil, fmt.Errorf("a variadic method must have exactly one parameter after the context")
	}
	switch len(m.params) {
	case 0:
		m.mode = bindNone
	case 1:
		p := m.params[0]
		dt := derefType(p)
		switch {
		case p.typ == rawMessageType:
			m.mode = bindRaw
		case dt.Kind() == reflect.Struct && !implementsDecoding(dt):
			m.mode = bindStruct
			fields, err := s.binder.fields(dt)
			if err != nil {
				return nil, err
			}
			m.fields = positionalStruct(fields)
		case dt.Kind() == reflect.Slice && !implementsDecoding(dt) && !p.ptr:
			m.mode = bindSlice
		case dt.Kind() == reflect.Map && !implementsDecoding(dt):
			m.mode = bindMap
		default:
			m.mode = bindPositional
		}
	default:
		m.mode = bindPositional
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

func implementsDecoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

func elemStruct(t reflect.Type) bool {
	e := t.Elem()
	if e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	return e.Kind() == reflect.Struct
}

// encodable reports the kinds encoding/json can never encode.
func encodable(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Errorf("type %s cannot be encoded as JSON", t)
	}
	return nil
}

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
	d := decodeState{allowUnknown: m.svc.allowUnknown}
	i := scan.SkipSpace(params, 0)
	present := i < len(params)
	named := present && params[i] == '{'
	if present && !named && params[i] != '[' {
		return nil, invalidParams(&FieldError{Rule: "shape", Message: "params must be an object or an array"})
	}
	// ptrs holds each decoded param's pointer, for validation: the validator
	// takes an interface, and a pointer fits one without a copy.
	var ptrBuf [4]reflect.Value
	ptrs := ptrBuf[:0]
	switch m.mode {
	case bindNone:
		if present && !emptyParams(params[i:]) {
			return nil, invalidParams(&FieldError{Rule: "count", Param: "0", Message: "the method takes no params"})
		}
	case bindRaw:
		args = append(args, reflect.ValueOf(params))
	case bindStruct, bindMap, bindSlice:
		p := m.params[0]
		v := reflect.New(derefType(p))
		if present {
			var dec decodeFunc
			switch {
			case m.mode == bindStruct && !named:
				dec = m.fields
			case m.mode == bindSlice && named:
				return nil, invalidParams(&FieldError{Rule: "shape", Param: "array",
					Message: "the method takes positional params (an array)"})
			case m.mode == bindMap && !named:
				return nil, invalidParams(&FieldError{Rule: "shape", Param: "object",
					Message: "the method takes named params (an object)"})
			default:
				dec = p.dec
			}
			d.skipMeta = named
			end, fe := dec(d, params, i, v.Elem())
			if err := complete(params, end, fe); err != nil {
				return nil, err
			}
		}
		args = append(args, argValue(p, v))
		ptrs = append(ptrs, v)
	case bindPositional:
		if present && named {
			return nil, invalidParams(&FieldError{Rule: "shape", Param: "array",
				Message: "the method takes positional params (an array)"})
		}
		count := 0
		if present {
			var end int
			var fe *FieldError
			end, count, fe = eachSlot(params, i, len(m.params), func(j, at int) (int, *FieldError) {
				p := m.params[j]
				v := reflect.New(derefType(p))
				args = append(args, argValue(p, v))
				ptrs = append(ptrs, v)
				end, fe := p.dec(d, params, at, v.Elem())
				if fe != nil {
					return at, fe.under(indexSegment(j))
				}
				return end, nil
			})
			if err := complete(params, end, fe); err != nil {
				return nil, err
			}
		}
		if count != len(m.params) {
			return nil, invalidParams(countError(len(m.params), count))
		}
	}
	if m.validate {
		if err := m.check(ctx, ptrs); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// complete ends the decoding of params b, stopped at end with fe: the
// InvalidParams error for fe, or for anything but white space after end.
func complete(b []byte, end int, fe *FieldError) error {
	if fe == nil && scan.SkipSpace(b, end) != len(b) {
		fe = syntaxError()
	}
	if fe != nil {
		return invalidParams(fe)
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

// argValue is the argument for p, decoded into *v.
func argValue(p param, v reflect.Value) reflect.Value {
	if p.ptr {
		return v
	}
	return v.Elem()
}

// emptyParams reports whether params are [] or {} (or {} with only _meta).
func emptyParams(b []byte) bool {
	if b[0] == '[' {
		i := scan.SkipSpace(b, 1)
		return i < len(b) && b[i] == ']'
	}
	empty := true
	_, fe := eachMember(b, 0, func(key []byte, at int) (int, *FieldError) {
		if string(key) != "_meta" {
			empty = false
		}
		return rawEnd(b, at)
	})
	return empty && fe == nil
}

// check validates the decoded params that need it, given by pointer. Every
// element of a params array is validated, so that the count of problems
// not listed is exact; only the first MaxFieldErrors are described.
func (m *method) check(ctx context.Context, ptrs []reflect.Value) error {
	var p problems
	for j, param := range m.params {
		if !param.validate || j >= len(ptrs) {
			continue
		}
		prefix := ""
		if m.mode == bindPositional && len(m.params) > 1 {
			prefix = indexSegment(j)
		}
		v := ptrs[j]
		if k := derefType(param).Kind(); k == reflect.Slice || k == reflect.Array {
			sv := v.Elem()
			for e := range sv.Len() {
				ev := sv.Index(e)
				if ev.Kind() == reflect.Pointer && ev.IsNil() {
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
		if err := m.svc.validate.check(ctx, v, prefix, &p); err != nil {
			return err
		}
	}
	return p.err()
}
