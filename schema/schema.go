package schema

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Dialect is the JSON Schema dialect of every document a [Generator] makes.
const Dialect = "https://json-schema.org/draft/2020-12/schema"

// Schema is a JSON Schema 2020-12, limited to the keywords this package
// uses. The empty Schema is the schema `true` (anything); [False] is the
// schema `false` (nothing). It marshals to JSON with its keywords in a fixed
// order and its properties in declaration order.
//
// Numbers (the bounds, and the values in Enum and Const) are kept as JSON
// text, so that a bound such as the largest uint64 stays exact.
type Schema struct {
	Schema string             // $schema
	Anchor string             // $anchor: a name for this schema, which "#" + Anchor refers to
	Ref    string             // $ref: "#" (the root), "#/$defs/name", or "#" + an Anchor
	Defs   map[string]*Schema // $defs

	Title       string
	Description string
	Default     json.RawMessage // an annotation: the value an absent member gets

	Type  []string // one or more of "null", "boolean", "object", "array", "number", "integer", "string"
	Enum  []json.RawMessage
	Const json.RawMessage

	Minimum          json.Number
	Maximum          json.Number
	ExclusiveMinimum json.Number
	ExclusiveMaximum json.Number

	MinLength       *int
	MaxLength       *int
	Pattern         string // an ECMA-262 regular expression, in the subset Go's regexp shares
	Format          string // an annotation: JSON Schema 2020-12 does not assert it
	ContentEncoding string // an annotation

	Items       *Schema
	PrefixItems []*Schema
	MinItems    *int
	MaxItems    *int
	UniqueItems bool
	Contains    *Schema

	Properties           map[string]*Schema
	PropertyOrder        []string // the order in which Properties marshal; others follow, sorted
	Required             []string
	AdditionalProperties *Schema
	PropertyNames        *Schema
	MinProperties        *int
	MaxProperties        *int
	DependentRequired    map[string][]string

	AllOf []*Schema
	AnyOf []*Schema
	OneOf []*Schema
	Not   *Schema

	// If, Then and Else are a conditional: a value that satisfies If must
	// satisfy Then, one that does not must satisfy Else. Then and Else
	// without If say nothing. The generator never makes them: a
	// [Provider] may supply them.
	If   *Schema
	Then *Schema
	Else *Schema

	// XValidate is the x-validate annotation: what the server checks here
	// that the rest of this schema does not say, or says only in part. It
	// lists validate rules as written in their tag ("eqfield=Other"),
	// decoders that types supply ("time.Time.UnmarshalJSON"), and, on an
	// object, the fields JSON never sets that validator still checks
	// ("Hidden: max=1").
	XValidate string

	// XMCPHeader is the x-mcp-header annotation of an MCP tool's argument
	// (2026-07-28, Streamable HTTP, Custom Headers from Tool Parameters):
	// the argument is mirrored in the HTTP header Mcp-Param-{XMCPHeader}.
	// A field sets it with the tag mcp:"header=Name".
	XMCPHeader string

	def *def // while generating: this node stands for a definition
}

// False returns the schema `false`, which no value satisfies.
func False() *Schema { return &Schema{Not: &Schema{}} }

// IsFalse reports whether s is the schema `false`.
func (s *Schema) IsFalse() bool {
	return s != nil && s.Not != nil && s.Not.isTrue() && s.only("not")
}

// isTrue reports whether s has no keyword: the schema `true`.
func (s *Schema) isTrue() bool { return s.only("") }

// only reports whether s has no keyword but the one named (none: "").
func (s *Schema) only(keyword string) bool {
	n := 0
	s.each(func(k string, _ any) {
		if k != keyword {
			n++
		}
	})
	return n == 0 && s.def == nil
}

// each calls fn with each keyword s has, in the order they marshal.
func (s *Schema) each(fn func(keyword string, value any)) {
	str := func(k, v string) {
		if v != "" {
			fn(k, v)
		}
	}
	num := func(k string, v json.Number) {
		if v != "" {
			fn(k, v)
		}
	}
	count := func(k string, v *int) {
		if v != nil {
			fn(k, *v)
		}
	}
	sub := func(k string, v *Schema) {
		if v != nil {
			fn(k, v)
		}
	}
	list := func(k string, v []*Schema) {
		if v != nil {
			fn(k, v)
		}
	}
	str("$schema", s.Schema)
	str("$anchor", s.Anchor)
	str("$ref", s.Ref)
	str("title", s.Title)
	str("description", s.Description)
	if s.Default != nil {
		fn("default", s.Default)
	}
	switch len(s.Type) {
	case 0:
	case 1:
		fn("type", s.Type[0])
	default:
		fn("type", s.Type)
	}
	if s.Enum != nil {
		fn("enum", s.Enum)
	}
	if s.Const != nil {
		fn("const", s.Const)
	}
	num("minimum", s.Minimum)
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("maximum", s.Maximum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	str("pattern", s.Pattern)
	str("format", s.Format)
	str("contentEncoding", s.ContentEncoding)
	list("prefixItems", s.PrefixItems)
	sub("items", s.Items)
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	if s.UniqueItems {
		fn("uniqueItems", true)
	}
	sub("contains", s.Contains)
	if s.Properties != nil {
		fn("properties", orderedProperties{s.Properties, s.PropertyOrder})
	}
	if s.Required != nil {
		fn("required", s.Required)
	}
	sub("additionalProperties", s.AdditionalProperties)
	sub("propertyNames", s.PropertyNames)
	count("minProperties", s.MinProperties)
	count("maxProperties", s.MaxProperties)
	if s.DependentRequired != nil {
		fn("dependentRequired", s.DependentRequired)
	}
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	list("oneOf", s.OneOf)
	sub("not", s.Not)
	sub("if", s.If)
	sub("then", s.Then)
	sub("else", s.Else)
	str("x-mcp-header", s.XMCPHeader)
	str("x-validate", s.XValidate)
	if s.Defs != nil {
		fn("$defs", s.Defs)
	}
}

// MarshalJSON writes s as JSON: `true` for the empty schema, `false` for
// [False], an object otherwise.
func (s *Schema) MarshalJSON() ([]byte, error) {
	switch {
	case s.IsFalse():
		return []byte("false"), nil
	case s.isTrue():
		return []byte("true"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	var err error
	s.each(func(k string, v any) {
		if err != nil {
			return
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		err = writeMember(&b, k, v)
	})
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeMember(b *bytes.Buffer, k string, v any) error {
	key, _ := json.Marshal(k)
	b.Write(key)
	b.WriteByte(':')
	val, err := json.Marshal(v)
	b.Write(val)
	return err
}

// orderedProperties marshals properties in their declaration order, then
// any not in the order, sorted.
type orderedProperties struct {
	props map[string]*Schema
	order []string
}

func (p orderedProperties) MarshalJSON() ([]byte, error) {
	names := make([]string, 0, len(p.props))
	for _, n := range p.order {
		if _, ok := p.props[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range p.props {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range append(names, rest...) {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeMember(&b, n, p.props[n]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// clone returns a shallow copy of s.
func (s *Schema) clone() *Schema {
	c := *s
	return &c
}

func intp(n int) *int { return &n }
