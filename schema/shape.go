package schema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/go-playground/validator/v10"
)

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	timeType            = reflect.TypeFor[time.Time]()
	durationType        = reflect.TypeFor[time.Duration]()
	providerType        = reflect.TypeFor[Provider]()
)

// value is the schema of a value of type t, checked by the validate tag
// if validated: its non-null values, and null where the binder and the
// rules accept it. quoted: the field has the ",string" option.
func (b *build) value(t reflect.Type, tag string, validated, quoted bool) (*Schema, error) {
	var steps []step
	if validated {
		var err error
		if steps, err = parseTag(tag); err != nil {
			return nil, err
		}
	}
	var s *Schema
	var partial []string
	var err error
	switch {
	case quoted:
		s = quotedShape(t)
		for _, st := range steps {
			if st.kind == stepRules || st.kind == stepDive {
				partial = append(partial, st.raw)
			}
		}
	case len(steps) == 0:
		s, err = b.shape(t, validated)
	default:
		s, partial, err = b.apply(t, steps, false)
	}
	if err != nil {
		return nil, err
	}
	return annotate(nullable(s, b.nullPasses(t, tag, validated)), partial), nil
}

// shape is the schema of the non-null JSON values that the binder decodes
// into t. validated: the validate rules of the structs they hold apply.
func (b *build) shape(t reflect.Type, validated bool) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok, err := provided(t); ok || err != nil {
		return s, err
	}
	if s := opaque(t); s != nil {
		if validated && t.Kind() == reflect.Struct && b.hasRules(t) {
			s = annotate(s, []string{"the validate rules of " + t.String()})
		}
		return s, nil
	}
	if s := scalarShape(t); s != nil {
		return s, nil
	}
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, fmt.Errorf("interface type %s cannot be decoded from JSON", t)
		}
		return &Schema{}, nil
	case reflect.Array, reflect.Slice:
		items, err := b.value(t.Elem(), "", false, false)
		if err != nil {
			return nil, err
		}
		return arrayOf(t, items), nil
	case reflect.Map:
		keys, err := keyShape(t.Key())
		if err != nil {
			return nil, err
		}
		values, err := b.value(t.Elem(), "", false, false)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: []string{"object"}, AdditionalProperties: values, PropertyNames: keys}, nil
	case reflect.Struct:
		return b.ref(t, validated)
	}
	return nil, fmt.Errorf("type %s cannot be decoded from JSON", t)
}

// scalarShape is the schema of the JSON values of a boolean, number or string
// type t, or nil for a type of another kind: integers within the range of
// t, stated for the types narrower than 64 bits.
//
// wideInts: the range of a 64-bit integer type is not stated (a uint64's
// minimum 0 is), as the official MCP Go SDK does not: every number a
// client that counts in doubles (JavaScript, ajv) sends exactly, |n| <=
// 2^53, is within it, and such a client reads the bound
// 9223372036854775807 as 2^63, which the type does not hold, so stating it
// would not make the schema exact for it either. It costs 48 bytes an int
// (28 where a rule sets the other bound). A number beyond the range is
// refused by the binder with rule "range", the one place the schema
// accepts what the server refuses.
func scalarShape(t reflect.Type) *Schema {
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: []string{"boolean"}}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t.Bits() == 64 { // see wideInts
			return &Schema{Type: []string{"integer"}}
		}
		neg, pos := intBounds(t.Bits())
		return &Schema{Type: []string{"integer"}, Minimum: json.Number("-" + neg.String()), Maximum: json.Number(pos.String())}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if t.Bits() == 64 { // see wideInts
			return &Schema{Type: []string{"integer"}, Minimum: "0"}
		}
		return &Schema{Type: []string{"integer"}, Minimum: "0", Maximum: json.Number(uintMax(t.Bits()).String())}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: []string{"number"}}
	case reflect.String:
		return &Schema{Type: []string{"string"}}
	}
	return nil
}

// arrayOf is the shape of slice or array type t with items as the schema
// of its elements.
func arrayOf(t reflect.Type, items *Schema) *Schema {
	s := &Schema{Type: []string{"array"}, Items: items}
	switch {
	case t.Kind() == reflect.Array:
		s.MinItems, s.MaxItems = intp(t.Len()), intp(t.Len())
	case isBytes(t):
		// As encoding/json: a base64 string, or an array of numbers.
		return anyOf(&Schema{Type: []string{"string"}, ContentEncoding: "base64", Pattern: base64Std}, s)
	}
	return s
}

// isBytes reports whether the binder decodes slice type t from base64.
func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !implementsDecoding(t.Elem())
}

func implementsDecoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

// opaque is the shape of a type that decodes itself (or nil if t does
// not): what its decoder accepts is unknown, beyond a JSON type.
func opaque(t reflect.Type) *Schema {
	switch {
	case t == rawMessageType:
		return &Schema{}
	case t == numberType:
		// A number, or a string holding one (as encoding/json).
		return &Schema{Type: []string{"number", "string"}, Pattern: "^" + jsonNumberToken + "$"}
	case t == timeType:
		return &Schema{Type: []string{"string"}, Format: "date-time", XValidate: "time.Time.UnmarshalJSON"}
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return &Schema{XValidate: t.String() + ".UnmarshalJSON"}
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return &Schema{Type: []string{"string"}, XValidate: t.String() + ".UnmarshalText"}
	}
	return nil
}

// provided returns the schema t supplies as a Provider, if it is one.
func provided(t reflect.Type) (s *Schema, ok bool, err error) {
	var p Provider
	switch {
	case t.Kind() == reflect.Interface:
		return nil, false, nil
	case t.Implements(providerType):
		p = reflect.Zero(t).Interface().(Provider)
	case reflect.PointerTo(t).Implements(providerType):
		p = reflect.New(t).Interface().(Provider)
	default:
		return nil, false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			s, ok, err = nil, true, fmt.Errorf("%s.JSONSchema panicked: %v", t, r)
		}
	}()
	if s = p.JSONSchema(); s == nil {
		return nil, true, fmt.Errorf("%s.JSONSchema returned nil", t)
	}
	return s, true, nil
}

// keyShape is the schema of the member names the binder takes as keys of
// type kt (nil: any string).
func keyShape(kt reflect.Type) (*Schema, error) {
	switch {
	case kt.Kind() == reflect.String:
		return nil, nil
	case reflect.PointerTo(kt).Implements(textUnmarshalerType):
		return &Schema{XValidate: kt.String() + ".UnmarshalText"}, nil
	case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
		return &Schema{Pattern: intKey(kt.Bits())}, nil
	case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
		return &Schema{Pattern: uintKey(kt.Bits())}, nil
	}
	return nil, fmt.Errorf("map key type %s cannot be decoded from JSON", kt)
}

// quotedShape is the schema of a field with the ",string" option: a string
// holding the JSON of its value (not null: the field is not a pointer).
func quotedShape(t reflect.Type) *Schema {
	if s := opaque(t); s != nil {
		return &Schema{Type: []string{"string"}, XValidate: s.XValidate}
	}
	var inner string
	switch t.Kind() {
	case reflect.Bool:
		inner = "true|false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		inner = intToken(t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		inner = uintToken(t.Bits())
	case reflect.Float32, reflect.Float64:
		inner = jsonNumberToken
	default: // a string
		inner = jsonStringToken
	}
	return &Schema{Type: []string{"string"}, Pattern: "^(?:" + inner + ")$"}
}

// nullValue is what the binder makes of a JSON null for type t, and
// whether it takes null at all: only where Go has a null of its own (a
// pointer, a slice, an interface; a map is refused, as the official MCP Go
// SDK's schemas do) or the type decodes itself; a string, a number, a
// boolean, a struct, an array or a map refuses null as any other wrong
// type.
func nullValue(t reflect.Type) (v reflect.Value, ok bool) {
	switch {
	case t.Kind() == reflect.Pointer:
	case t == rawMessageType:
		return reflect.ValueOf(json.RawMessage("null")), true
	case t != numberType && reflect.PointerTo(t).Implements(unmarshalerType):
		p := reflect.New(t)
		defer func() {
			if recover() != nil {
				v, ok = p.Elem(), false
			}
		}()
		err := p.Interface().(json.Unmarshaler).UnmarshalJSON([]byte("null"))
		return p.Elem(), err == nil
	case t.Kind() == reflect.Slice && !reflect.PointerTo(t).Implements(textUnmarshalerType), t.Kind() == reflect.Interface:
	default:
		return reflect.Value{}, false
	}
	return reflect.Zero(t), true
}

// nullPasses reports whether the binder and the validate tag accept null
// for a value of type t (not knowing counts as yes).
func (b *build) nullPasses(t reflect.Type, tag string, validated bool) bool {
	v, ok := nullValue(t)
	switch {
	case !ok:
		return false
	case !validated || (tag == "" && !b.hasRules(t)):
		return true
	}
	return b.passes(t, tag, v)
}

// passes reports whether validator accepts the value v of type t checked
// by tag, as a struct field would be. When it refuses but the rules could
// depend on more than v (other fields, the time, custom rules), the answer
// is yes: the schema then says less, never something false.
func (b *build) passes(t reflect.Type, tag string, v reflect.Value) bool {
	ok, known := b.check(t, tag, v)
	return ok || !known || !b.trusted(t, tag)
}

// check runs the validator on v as the one field of a struct made for it.
func (b *build) check(t reflect.Type, tag string, v reflect.Value) (ok, known bool) {
	defer func() {
		if recover() != nil {
			ok, known = false, false
		}
	}()
	st := reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: reflect.StructTag("validate:" + strconv.Quote(tag))}})
	x := reflect.New(st)
	x.Elem().Field(0).Set(v)
	err := b.g.validate.Struct(x.Interface())
	if err == nil {
		return true, true
	}
	var verrs validator.ValidationErrors
	return false, errors.As(err, &verrs)
}
