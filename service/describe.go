package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/toolrpc/toolrpc/internal/bind"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
)

// MethodInfo describes a registered method: its name, its documentation,
// and the JSON Schemas (2020-12, from package schema) of its params and
// its result, all computed once, at registration. It is what an MCP tool
// list or an rpc.discover document is made of.
//
// The schemas are shared with the Service: do not modify them.
type MethodInfo struct {
	// Name is the RPC method name, namespace included.
	Name string
	// GoName is the Go method's name.
	GoName string
	// Title and Description come from the registered value's [Documented]
	// method, if any; empty otherwise.
	Title       string
	Description string
	// ParamStructure says how the params may be given: [ByName],
	// [ByPosition] or [Either] (OpenRPC's words).
	ParamStructure ParamStructure
	// Params is the schema of the params, when they are present; nil when
	// the method takes none (absent params, [] or {}). Beside it:
	//   - a method of one struct parameter takes named params (the object
	//     of this schema) or positional params, one value per property in
	//     the order of the properties, exactly as many (ParamStructure
	//     Either); the schema is the named form;
	//   - a method of several parameters, or of one of another type than a
	//     struct, slice, map or json.RawMessage, takes an array of exactly
	//     one value per parameter, each item the schema of its parameter
	//     (null where the server takes it); an item whose schema holds
	//     references ($ref: a recursive or repeated struct type) is not
	//     inlined but left open, named in x-validate;
	//   - named params may also hold "_meta", the protocol's metadata, never
	//     bound; the schema does not list it;
	//   - absent params are not described: they bind as {} would for a
	//     struct, as nothing for a slice, a map or json.RawMessage, and are
	//     refused where every parameter needs a value (see Register).
	Params *schema.Schema
	// Examples are the method's, from its [MethodDoc], checked against
	// its code at registration.
	Examples []Example
	// Result is the schema of the result, nil when the method returns none
	// (the result is null): what encoding/json makes of the Go result type
	// (see schema.Generator.ForResult), a struct's members included, each
	// required unless omitempty or omitzero may leave it out.
	Result *schema.Schema
}

// ParamStructure is how a method takes its params, in OpenRPC's words.
type ParamStructure string

// The ParamStructure values.
const (
	ByName     ParamStructure = "by-name"     // an object
	ByPosition ParamStructure = "by-position" // an array
	Either     ParamStructure = "either"      // an object or an array
)

// MethodDoc documents one method.
type MethodDoc struct {
	Title       string // a short, human-readable name
	Description string // what the method does, for a person or a model
	// Examples are calls of the method, published with it (MethodInfo,
	// the rpc.discover document). Registration holds each to the code:
	// its params must be accepted, decoded and validated as a call's are,
	// and its result must be a value of the method's result type; an
	// example that drifted from the method fails registration.
	Examples []Example
}

// Example is one call of a method: the params it is given and what it
// answers.
type Example struct {
	// Name names the example, uniquely among the method's; it is required.
	Name        string
	Description string
	// Params are the params as a client sends them: an object or an
	// array; nil for none.
	Params json.RawMessage
	// Result is what the method answers: a value of its result type (nil
	// where it answers null).
	Result any
}

// checkExamples holds the examples of m to its code (see MethodDoc).
func (m *method) checkExamples(examples []Example) error {
	names := map[string]bool{}
	for _, ex := range examples {
		switch {
		case ex.Name == "":
			return errors.New("an example has no name")
		case names[ex.Name]:
			return fmt.Errorf("two examples are named %q", ex.Name)
		}
		names[ex.Name] = true
		if _, err := m.bind(context.Background(), ex.Params, nil); err != nil {
			var e *rpc.Error
			if errors.As(err, &e) && e.Data != nil {
				data, _ := json.Marshal(e.Data)
				return fmt.Errorf("example %q: its params are refused: %s", ex.Name, data)
			}
			return fmt.Errorf("example %q: its params are refused: %w", ex.Name, err)
		}
		if err := m.checkResult(ex.Result); err != nil {
			return fmt.Errorf("example %q: %w", ex.Name, err)
		}
	}
	return nil
}

// checkResult reports whether r can be what m answers.
func (m *method) checkResult(r any) error {
	switch t := m.result; {
	case r == nil && t == nil:
		return nil
	case t == nil:
		return fmt.Errorf("its result has type %T, but the method answers null", r)
	case r == nil:
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			return nil
		}
		return fmt.Errorf("its result is nil, but the method answers type %s", t)
	case !reflect.TypeOf(r).AssignableTo(t):
		return fmt.Errorf("its result has type %T, but the method answers type %s", r, t)
	}
	if _, err := json.Marshal(r); err != nil {
		return fmt.Errorf("its result cannot be encoded: %w", err)
	}
	return nil
}

// Documented is implemented by a registered value that documents its
// methods. MethodDocs is called once, at registration; its keys are Go
// method names (Divide, not divide, whatever the name mapper makes of
// them), and each must name an exported method of the value, not one
// promoted from an embedded field, or registration fails (a typo would otherwise lose a description silently).
// MethodDocs itself is not served; a panic in it fails registration.
//
// The description lives next to the code it describes, in Go, rather than
// in a second file that can drift from it.
type Documented interface {
	MethodDocs() map[string]MethodDoc
}

var documentedType = reflect.TypeFor[Documented]()

// methodDocs returns the docs of rcvr, checking that every key names an
// exported method of t that is not promoted from an embedded field.
func methodDocs(rcvr any, t reflect.Type, promoted map[string]bool) (docs map[string]MethodDoc, err error) {
	d, ok := rcvr.(Documented)
	if !ok {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			docs, err = nil, fmt.Errorf("service: %s.MethodDocs panicked: %v", t, r)
		}
	}()
	docs = d.MethodDocs()
	for name := range docs {
		if m, ok := t.MethodByName(name); !ok || !m.IsExported() || promoted[name] || name == "MethodDocs" {
			return nil, fmt.Errorf("service: %s.MethodDocs documents %q, which is not a method of %s", t, name, t)
		}
	}
	return docs, nil
}

// Describe returns the description of every registered method, sorted by
// name.
func (s *Service) Describe() []MethodInfo {
	out := make([]MethodInfo, 0, len(s.methods))
	for _, name := range s.Methods() {
		out = append(out, *s.methods[name].info)
	}
	return out
}

// Method returns the description of the method registered as name, and
// whether there is one.
func (s *Service) Method(name string) (MethodInfo, bool) {
	m := s.methods[name]
	if m == nil {
		return MethodInfo{}, false
	}
	return *m.info, true
}

// describe computes m's params and result schemas.
func (s *Service) describe(m *method) error {
	info := m.info
	info.Name = m.name
	var err error
	switch m.mode {
	case bindNone:
		info.ParamStructure = Either
	case bindRaw:
		info.ParamStructure = Either
		info.Params = &schema.Schema{Schema: schema.Dialect, Type: []string{"object", "array"}}
	case bindStruct:
		info.ParamStructure = Either
		info.Params, err = s.schemas.For(m.params[0].typ)
	case bindMap:
		info.ParamStructure = ByName
		info.Params, err = s.schemas.For(m.params[0].typ)
	case bindSlice:
		info.ParamStructure = ByPosition
		info.Params, err = s.schemas.For(m.params[0].typ)
	case bindPositional:
		info.ParamStructure = ByPosition
		info.Params, err = s.positional(m)
	}
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	if m.result != nil {
		if info.Result, err = s.schemas.ForResult(m.result); err != nil {
			return fmt.Errorf("result: %w", err)
		}
	}
	return nil
}

// positional is the schema of the params of m, which takes one value per
// parameter.
func (s *Service) positional(m *method) (*schema.Schema, error) {
	n := len(m.params)
	out := &schema.Schema{Schema: schema.Dialect, Type: []string{"array"},
		PrefixItems: make([]*schema.Schema, n), Items: schema.False(), MinItems: &n, MaxItems: &n}
	for j, p := range m.params {
		doc, err := s.schemas.For(p.typ)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", j+1, err)
		}
		text, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", j+1, err)
		}
		var item *schema.Schema
		if doc.Defs != nil || bytes.Contains(text, []byte(`"$ref"`)) {
			// Its references resolve against its own document, not this one.
			item = &schema.Schema{XValidate: "the schema of " + p.typ.String()}
		} else {
			c := *doc
			c.Schema = ""
			item = &c
		}
		if s.takesNull(p) && !slices.Contains(item.Type, "null") && !accepts(item) {
			item = &schema.Schema{AnyOf: []*schema.Schema{{Type: []string{"null"}}, item}}
		}
		out.PrefixItems[j] = item
	}
	return out, nil
}

// accepts reports whether s is the schema true, which takes anything.
func accepts(s *schema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "true"
}

// takesNull reports whether the server takes null for parameter p, given
// by position: what its decoder makes of null, then validated as on a call.
func (s *Service) takesNull(p param) (ok bool) {
	defer func() {
		if recover() != nil { // a type's own UnmarshalJSON, or a custom rule
			ok = false
		}
	}()
	dec, err := bind.Params([]reflect.Type{derefType(p)}, true, s.allowUnknown, false)
	if err != nil {
		return false
	}
	probe := &method{mode: bindPositional, params: []param{p}, decode: dec, svc: s, validate: p.validate}
	_, err = probe.bind(context.Background(), json.RawMessage("[null]"), nil)
	return err == nil
}
