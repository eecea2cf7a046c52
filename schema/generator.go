package schema

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// Options configure a Generator. A nil *Options, and every zero field,
// means the documented default.
type Options struct {
	// AllowUnknownFields leaves objects open (no additionalProperties:
	// false), as service.Options.AllowUnknownFields makes the binder ignore
	// members that match no field. Give both the same value.
	AllowUnknownFields bool
	// Validator is the instance the server validates with, used to work
	// out what validate rules make of an absent member and of null. Give
	// the one passed as service.Options.Validator, if any (its tag name
	// must be "validate"). Default: validator.New with
	// WithRequiredStructEnabled, as package service.
	Validator *validator.Validate
}

// A Provider supplies its own schema. A type whose JSON form is not its Go
// shape (it has its own UnmarshalJSON, say) implements it, with a value or
// a pointer receiver; JSONSchema is called on the zero value. The schema
// describes the non-null values: null is added where the binder and the
// validate rules accept it. It must be self-contained, and it is trusted:
// the generator checks nothing in it but its anchors and references. The
// schema of the root type of a document (params a method takes whole) may
// hold $defs, and refer to them ("#/$defs/name"): they are the document's.
//
// The schema may use any keyword [Schema] has, those the generator never
// makes included: oneOf, if/then/else, $anchor, and $ref "#" + an anchor,
// which resolves wherever in the document the anchored schema is, the
// schema of a type other than the root included. [Generator.For] fails on
// an anchor that is not a plain name or that two schemas of the document
// have (a Provider's schema with an anchor, used twice in one document),
// on a $ref to an anchor the document lacks, and on a $ref outside the
// document.
//
// A supplied schema is the type's promise, not the server's check: the
// server decodes params with the binder and checks them with the validate
// rules, and never with a schema. What the type's schema says beyond its Go
// shape (a property required only if another has some value, say) is
// enforced only if the type's own UnmarshalJSON (or, for params, the
// method that takes them) enforces it, which it should: then a client that
// trusts the schema is never refused, nor a value the schema refuses
// taken.
type Provider interface {
	JSONSchema() *Schema
}

// Generator computes the schemas of Go types, once per type. It is safe
// for concurrent use.
type Generator struct {
	allowUnknown bool
	validate     *validator.Validate

	mu      sync.Mutex
	docs    map[reflect.Type]generated // For's
	results map[reflect.Type]generated // ForResult's
}

type generated struct {
	s   *Schema
	err error
}

// New returns a Generator. opts may be nil.
func New(opts *Options) *Generator {
	var o Options
	if opts != nil {
		o = *opts
	}
	g := &Generator{allowUnknown: o.AllowUnknownFields, validate: o.Validator,
		docs: map[reflect.Type]generated{}, results: map[reflect.Type]generated{}}
	if g.validate == nil {
		g.validate = validator.New(validator.WithRequiredStructEnabled())
	}
	return g
}

// For returns the schema of the params a method parameter of type t
// takes: the JSON values package service's binder decodes into t and,
// where the service validates the result (a struct, a pointer to one, or
// a slice or array of them), that its validate rules then accept. The root
// never admits null: params are an object or an array.
//
// The schema is a complete document (with $schema, and $defs for the
// structs used more than once or recursively), computed on the first call
// for t and shared by the later ones: do not modify it. For fails where
// the binder would: on a type JSON cannot decode into (a channel, a
// function, an interface with methods, a map with keys of another kind
// than string, integer or encoding.TextUnmarshaler), and on a malformed
// validate or jsonschema tag.
func (g *Generator) For(t reflect.Type) (*Schema, error) {
	return g.document(g.docs, t, false, (*build).params)
}

// document returns the document whose root is what root makes of t,
// computed once and kept in cache. encoding: the document describes what
// is encoded (ForResult).
func (g *Generator) document(cache map[reflect.Type]generated, t reflect.Type, encoding bool,
	root func(*build, reflect.Type) (*Schema, error)) (*Schema, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := cache[t]; ok {
		return r.s, r.err
	}
	b := &build{g: g, defs: map[defKey]*def{}, tagged: map[reflect.Type]bool{}, untrusted: map[reflect.Type]bool{}, encoding: encoding}
	s, err := root(b, t)
	if err == nil {
		s = b.finish(s)
		s.Schema = Dialect
		err = checkAnchors(s)
	}
	if err != nil {
		s, err = nil, fmt.Errorf("schema: %w", err)
	}
	cache[t] = generated{s, err}
	return s, err
}

// build is the state of one For.
type build struct {
	g         *Generator
	defs      map[defKey]*def
	tagged    map[reflect.Type]bool // hasRules, memoized
	untrusted map[reflect.Type]bool // a field's rules are not trusted, memoized
	encoding  bool                  // ForResult's: validate rules play no part
}

type defKey struct {
	t         reflect.Type
	validated bool // its fields' validate rules apply
}

// def is a struct type's schema, referenced from every place it is used,
// then inlined where it is used once, or kept in $defs.
type def struct {
	key       defKey
	body      *Schema
	building  bool
	recursive bool // referenced while being built
	uses      int
	seen      bool
	root      bool
	name      string
}

// params is the schema of a parameter of type t, validated as package
// service validates parameters.
func (b *build) params(t reflect.Type) (*Schema, error) {
	dt := t
	if dt.Kind() == reflect.Pointer {
		dt = dt.Elem()
	}
	switch {
	case dt.Kind() == reflect.Struct:
		return b.shape(dt, true)
	case (dt.Kind() == reflect.Slice || dt.Kind() == reflect.Array) && elemStruct(dt):
		// Each element is validated as a struct: what dive does.
		s, partial, err := b.apply(dt, []step{{kind: stepDive, raw: "dive"}}, false)
		return annotate(s, partial), err
	}
	return b.shape(dt, false)
}

// elemStruct reports whether the elements of t are structs or pointers to
// structs: package service validates them.
func elemStruct(t reflect.Type) bool {
	e := t.Elem()
	if e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	return e.Kind() == reflect.Struct
}

// ref returns a node standing for the schema of struct type t.
func (b *build) ref(t reflect.Type, validated bool) (*Schema, error) {
	key := defKey{t, validated && b.hasRules(t)}
	return b.defined(key, func() (*Schema, error) { return b.object(t, key.validated) })
}

// defined returns a node standing for the definition key, whose body is
// made on first use.
func (b *build) defined(key defKey, body func() (*Schema, error)) (*Schema, error) {
	d := b.defs[key]
	switch {
	case d == nil:
		d = &def{key: key, building: true}
		b.defs[key] = d
		s, err := body()
		if err != nil {
			delete(b.defs, key)
			return nil, err
		}
		d.body, d.building = s, false
	case d.building:
		d.recursive = true
	}
	return &Schema{def: d}, nil
}

// finish resolves the definitions of the document whose root is root: a
// struct used once and not recursively is inlined, the others are kept in
// $defs and referenced; the root's own struct is "#".
func (b *build) finish(root *Schema) *Schema {
	if root.def != nil && root.clone().withoutDef().isTrue() {
		d := root.def
		d.root = true
		root = d.body
	}
	root = root.clone() // it gets $schema and $defs; a Provider's stays as it was
	var count func(s *Schema)
	count = func(s *Schema) {
		walk(s, func(n *Schema) {
			if d := n.def; d != nil {
				d.uses++
				if !d.seen {
					d.seen = true
					count(d.body)
				}
			}
		})
	}
	count(root)
	// Names, in the order the definitions are first met.
	var kept []*def
	taken := map[string]bool{}
	name := func(s *Schema) {
		d := s.def
		if d == nil || d.root || d.name != "" || !(d.recursive || d.uses > 1) {
			return
		}
		d.name = defName(d.key, !b.encoding && b.hasRules(d.key.t), taken)
		kept = append(kept, d)
	}
	visited := map[*def]bool{}
	var order func(s *Schema)
	order = func(s *Schema) {
		walk(s, func(n *Schema) {
			name(n)
			if d := n.def; d != nil && !visited[d] {
				visited[d] = true
				order(d.body)
			}
		})
	}
	order(root)

	// Rewrite: references, and bodies inlined where used once.
	var rewrite func(s *Schema)
	rewrite = func(s *Schema) {
		walk(s, func(n *Schema) {
			d := n.def
			if d == nil {
				return
			}
			n.def = nil
			switch {
			case d.root:
				n.Ref = "#"
			case d.name != "":
				n.Ref = "#/$defs/" + d.name
			default:
				*n = *merge(d.body, n.clone())
				rewrite(n)
			}
		})
	}
	rewrite(root)
	if len(kept) > 0 {
		root.Defs = map[string]*Schema{}
		for _, d := range kept {
			rewrite(d.body)
			root.Defs[d.name] = d.body
		}
	}
	return root
}

// withoutDef is s without its definition: its sibling keywords.
func (s *Schema) withoutDef() *Schema {
	s.def = nil
	return s
}

// walk calls fn on s and on every schema within it, parents first;
// definitions are not entered.
func walk(s *Schema, fn func(*Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, c := range children(s) {
		walk(c, fn)
	}
}

func children(s *Schema) []*Schema {
	out := []*Schema{s.Items, s.Contains, s.AdditionalProperties, s.PropertyNames, s.Not, s.If, s.Then, s.Else}
	out = append(out, s.PrefixItems...)
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, n := range s.PropertyOrder {
		out = append(out, s.Properties[n])
	}
	for n, p := range s.Properties {
		if !slices.Contains(s.PropertyOrder, n) {
			out = append(out, p)
		}
	}
	return slices.DeleteFunc(out, func(c *Schema) bool { return c == nil })
}

// defName names a definition: its type's name, made safe for a URI
// fragment, unique in the document.
func defName(k defKey, hasRules bool, taken map[string]bool) string {
	base := k.t.Name()
	if base == "" {
		base = "object"
	}
	base = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, base)
	if hasRules && !k.validated {
		base += ".unvalidated"
	}
	name := base
	for i := 2; taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	taken[name] = true
	return name
}

// hasRules reports whether t, or a type it holds, has a field with a
// validate tag (as package service decides whether to validate).
func (b *build) hasRules(t reflect.Type) bool {
	return someField(t, b.tagged, func(f reflect.StructField) bool {
		_, ok := f.Tag.Lookup("validate")
		return ok
	})
}

// someField reports whether a field of t, or of a struct type t holds
// (through pointers, slices, arrays, maps and fields), satisfies pred;
// memo keeps the answer for each struct type.
func someField(t reflect.Type, memo map[reflect.Type]bool, pred func(reflect.StructField) bool) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	if r, ok := memo[t]; ok {
		return r
	}
	memo[t] = false // while looking: a recursive reference adds nothing
	r := false
	for i := range t.NumField() {
		if f := t.Field(i); pred(f) || someField(f.Type, memo, pred) {
			r = true
			break
		}
	}
	memo[t] = r
	return r
}

// annotate adds the rules in partial to s's x-validate.
func annotate(s *Schema, partial []string) *Schema {
	if len(partial) == 0 {
		return s
	}
	s = s.clone()
	if s.XValidate != "" {
		partial = append([]string{s.XValidate}, partial...)
	}
	s.XValidate = strings.Join(partial, ",")
	return s
}
