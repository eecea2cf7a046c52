package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/toolrpc/toolrpc/codec"
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
	// Supply one to add custom rules (every struct is then validated by
	// it: a supplied validator may redefine a rule). Default: validator.New
	// with WithRequiredStructEnabled, the common rules checked without it
	// (see the package documentation).
	Validator *validator.Validate
	// AllowUnknownFields ignores params members that match no field,
	// instead of answering InvalidParams.
	AllowUnknownFields bool
	// KeepMeta makes a "_meta" member of named params a member like any
	// other (bound to a field or key of that name, or refused as unknown),
	// not the protocol's metadata: for params that are not a request's own
	// but carried in one, as an MCP tool's arguments are.
	KeepMeta bool
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
	keepMeta     bool
	skip         bool
	log          *slog.Logger
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
		keepMeta:     o.KeepMeta,
		skip:         o.SkipUnservable,
		log:          o.Logger,
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
// never bound (rpc.Request.Meta holds it), unless Options.KeepMeta. Params that are structs, or
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
		case strings.HasPrefix(name, rpc.ReservedPrefix):
			return fmt.Errorf("service: method %s.%s maps to %q: names starting with rpc. are reserved", t, m.Name, name)
		case s.methods[name] != nil || added[name] != nil:
			return fmt.Errorf("service: method %s.%s maps to %q, which is already registered", t, m.Name, name)
		}
		meth, err := s.plan(name, v, m.Func)
		if err == nil {
			meth.info = &MethodInfo{GoName: m.Name}
			doc := docs[m.Name]
			meth.info.Title, meth.info.Description, meth.info.Examples = doc.Title, doc.Description, doc.Examples
			if err = s.describe(meth); err == nil {
				err = meth.checkExamples(doc.Examples)
			}
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
		return nil, rpc.NewError(codec.MethodNotFound, "")
	}
	return m.call(ctx, req.Params)
}
