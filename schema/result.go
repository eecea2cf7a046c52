package schema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/fields"
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// ForResult returns the schema of the JSON that encoding/json makes of a
// value of type t: what a method returning a t answers with. A struct is
// an object with exactly its members (additionalProperties false), each
// required unless its json tag says omitempty or omitzero or it is
// promoted through an embedded pointer (a nil one leaves it out); a
// pointer, a slice and a map may be null; integers have the range of
// their Go type. It says less where encoding is the type's own: a
// json.Marshaler is anything (unless it is a [Provider]: then its schema),
// an encoding.TextMarshaler a string; a type encoding/json cannot encode
// (a channel, a function, a complex number) is anything, for no value of
// it is ever answered.
//
// As For, the schema is a complete document, computed on the first call
// for t and shared by the later ones: do not modify it. validate tags play
// no part: they check what is decoded, not what is encoded.
func (g *Generator) ForResult(t reflect.Type) (*Schema, error) {
	return g.document(g.results, t, true, (*build).encoded)
}

// encoded is the schema of what encoding/json makes of a value of type t.
func (b *build) encoded(t reflect.Type) (*Schema, error) {
	switch {
	case t == timeType:
		return &Schema{Type: []string{"string"}, Format: "date-time"}, nil
	case t == numberType:
		return &Schema{Type: []string{"number"}}, nil
	case t.Kind() == reflect.Interface:
		return &Schema{}, nil
	case t.Implements(marshalerType), reflect.PointerTo(t).Implements(marshalerType):
		// Its own encoding (a pointer receiver's only where the value is
		// addressable): what it makes is unknown, unless it says.
		s, _, err := provided(t)
		if s == nil {
			s = &Schema{}
		}
		return s, err
	case t.Implements(textMarshalerType):
		return &Schema{Type: []string{"string"}}, nil
	case reflect.PointerTo(t).Implements(textMarshalerType):
		return &Schema{}, nil // a string where the value is addressable, else its Go shape
	}
	if s := scalarShape(t); s != nil {
		return s, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		e, err := b.encoded(t.Elem())
		if err != nil {
			return nil, err
		}
		return nullable(e, true), nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if et := reflect.PointerTo(t.Elem()); !et.Implements(marshalerType) && !et.Implements(textMarshalerType) {
				return &Schema{Type: []string{"string", "null"}, ContentEncoding: "base64", Pattern: base64Std}, nil
			}
		}
		items, err := b.encoded(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: []string{"array", "null"}, Items: items}, nil
	case reflect.Array:
		items, err := b.encoded(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: []string{"array"}, Items: items, MinItems: intp(t.Len()), MaxItems: intp(t.Len())}, nil
	case reflect.Map:
		values, err := b.encoded(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: []string{"object", "null"}, AdditionalProperties: values}, nil
	case reflect.Struct:
		return b.encodedRef(t)
	}
	return &Schema{}, nil // a channel, a function, a complex number: never encoded
}

// encodedRef returns a node standing for the encoded schema of struct type
// t (see ref).
func (b *build) encodedRef(t reflect.Type) (*Schema, error) {
	return b.defined(defKey{t: t}, func() (*Schema, error) { return b.encodedObject(t) })
}

// encodedObject is the schema of the object encoding/json makes of a
// struct of type t.
func (b *build) encodedObject(t reflect.Type) (*Schema, error) {
	s := &Schema{Type: []string{"object"}, Properties: map[string]*Schema{}, AdditionalProperties: False()}
	for _, f := range fields.Of(t) {
		var node *Schema
		if f.Quoted {
			node = &Schema{Type: []string{"string"}} // the JSON of the value, quoted
		} else {
			var err error
			if node, err = b.encoded(f.Type); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.GoName, err)
			}
		}
		node, err := described(node, f)
		if err != nil {
			return nil, err
		}
		s.Properties[f.Name] = node
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		omits := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		if !omits && !f.Ptrs {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s, nil
}
