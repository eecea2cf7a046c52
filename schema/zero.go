package schema

import (
	"encoding/json"
	"reflect"

	"github.com/toolrpc/toolrpc/internal/fields"
)

// class is what validate rules make of a type: the kind they see once
// pointers are followed, or opaque for the types that decode themselves.
type class uint8

const (
	cOpaque class = iota
	cBool
	cInt
	cUint
	cFloat
	cString
	cSlice
	cBytes
	cArray
	cMap
	cStruct
	cIface
)

func classOf(t reflect.Type) class {
	if t.Kind() != reflect.Interface && (t.Implements(providerType) || reflect.PointerTo(t).Implements(providerType)) {
		return cOpaque
	}
	if opaque(t) != nil {
		return cOpaque
	}
	switch t.Kind() {
	case reflect.Bool:
		return cBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cUint
	case reflect.Float32, reflect.Float64:
		return cFloat
	case reflect.String:
		return cString
	case reflect.Slice:
		if isBytes(t) {
			return cBytes
		}
		return cSlice
	case reflect.Array:
		return cArray
	case reflect.Map:
		return cMap
	case reflect.Struct:
		return cStruct
	case reflect.Interface:
		return cIface
	}
	return cOpaque
}

// skipSet is the schema of the non-null JSON values of t (not a pointer)
// that the omit step of the given kind finds empty: omitempty (and
// required, its opposite) tests validator's hasValue, omitzero its
// hasNotZeroValue, omitnil a nil. viaPtr: t was reached through a pointer,
// which validator then counts as a value. Not exact: a superset.
func (b *build) skipSet(t reflect.Type, kind stepKind, viaPtr bool) (*Schema, bool, error) {
	c := classOf(t)
	switch kind {
	case stepOmitNil:
		return False(), true, nil
	case stepOmitEmpty:
		// A non-null slice, map or interface is not nil.
		if viaPtr || c == cSlice || c == cBytes || c == cMap || c == cIface {
			return False(), true, nil
		}
	case stepOmitZero:
		switch c {
		case cSlice:
			return &Schema{Type: []string{"array"}, MaxItems: intp(0)}, true, nil
		case cBytes:
			return anyOf(&Schema{Type: []string{"string"}, Pattern: `^[\r\n]*$`},
				&Schema{Type: []string{"array"}, MaxItems: intp(0)}), true, nil
		case cMap:
			return &Schema{Type: []string{"object"}, MaxProperties: intp(0)}, true, nil
		case cIface:
			return &Schema{}, false, nil
		}
	}
	return b.zeroNonNull(t)
}

// zeroNonNull is the schema of the non-null JSON values that the binder
// decodes into the zero value of t (not a pointer).
func (b *build) zeroNonNull(t reflect.Type) (*Schema, bool, error) {
	switch classOf(t) {
	case cBool:
		return &Schema{Const: json.RawMessage("false")}, true, nil
	case cInt, cUint, cFloat:
		return &Schema{Const: json.RawMessage("0")}, true, nil
	case cString:
		return &Schema{Const: json.RawMessage(`""`)}, true, nil
	case cSlice, cBytes, cMap, cIface:
		return False(), true, nil
	case cArray:
		items, exact, err := b.zeroAny(t.Elem(), false)
		n := intp(t.Len())
		return &Schema{Type: []string{"array"}, Items: items, MinItems: n, MaxItems: n}, exact, err
	case cStruct:
		return b.zeroObject(t)
	}
	if t == rawMessageType || t == numberType {
		return False(), true, nil
	}
	s, err := b.shape(t, false) // a type that decodes itself: any of its values
	return s, false, err
}

// zeroAny is the schema of the JSON values, null included where the
// binder takes it, that the binder decodes into the zero value of t.
func (b *build) zeroAny(t reflect.Type, quoted bool) (*Schema, bool, error) {
	switch c := classOf(t); {
	case quoted:
		return quotedShape(t), false, nil
	case t.Kind() == reflect.Pointer || c == cSlice || c == cBytes || c == cIface:
		return &Schema{Type: nullType}, true, nil
	case c == cMap || t == rawMessageType || t == numberType:
		return False(), true, nil // null is refused; {} is not nil, "" not a number
	case c == cOpaque:
		return &Schema{}, false, nil
	}
	return b.zeroNonNull(t) // null is refused
}

// zeroObject is the schema of the objects that the binder decodes into the
// zero value of struct type t: every member absent or zero. A member
// promoted through an embedded pointer must be absent: naming it allocates
// the pointer.
func (b *build) zeroObject(t reflect.Type) (*Schema, bool, error) {
	s := &Schema{Type: []string{"object"}, Properties: map[string]*Schema{}}
	exact := true
	for _, f := range fields.Of(t) {
		z := False()
		if !f.Ptrs {
			var ok bool
			var err error
			if z, ok, err = b.zeroAny(f.Type, f.Quoted); err != nil {
				return nil, false, err
			}
			exact = exact && ok
		}
		s.Properties[f.Name] = z
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
	}
	if !b.g.allowUnknown {
		s.AdditionalProperties = False()
	}
	return s, exact, nil
}

// trusted reports whether what validator makes of tag on a value of type t
// depends on that value alone, as far as this package knows: no rule that
// looks at other fields, at the time, or that it does not know, there or
// in the structs the value holds.
func (b *build) trusted(t reflect.Type, tag string) bool {
	steps, err := parseTag(tag)
	return err == nil && stepsFree(t, steps) && !someField(t, b.untrusted, func(f reflect.StructField) bool {
		tag := f.Tag.Get("validate")
		steps, err := parseTag(tag)
		return tag != "-" && (err != nil || !stepsFree(f.Type, steps))
	})
}

func stepsFree(t reflect.Type, steps []step) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i, s := range steps {
		switch s.kind {
		case stepRules:
			for _, r := range s.alts {
				if !valueOnly[r.name] || (t.Kind() == reflect.Struct && t.ConvertibleTo(timeType) && r.name != "required" && r.name != "isdefault") {
					return false
				}
			}
		case stepDive:
			switch t.Kind() {
			case reflect.Map:
				return stepsFree(t.Key(), s.keys) && stepsFree(t.Elem(), steps[i+1:])
			case reflect.Slice, reflect.Array:
				return stepsFree(t.Elem(), steps[i+1:])
			}
			return false
		}
	}
	return true
}

// valueOnly names the validator built-ins whose verdict depends only on
// the value they check.
var valueOnly = map[string]bool{
	"required": true, "isdefault": true, "len": true, "min": true, "max": true, "eq": true, "ne": true,
	"gt": true, "gte": true, "lt": true, "lte": true, "oneof": true, "unique": true,
	"alpha": true, "alphanum": true, "alphaunicode": true, "alphanumunicode": true, "numeric": true,
	"number": true, "hexadecimal": true, "ascii": true, "printascii": true, "lowercase": true,
	"uppercase": true, "startswith": true, "endswith": true, "contains": true, "excludes": true,
	"startsnotwith": true, "endsnotwith": true, "containsany": true, "excludesall": true,
	"containsrune": true, "excludesrune": true, "uuid": true, "uuid4": true, "hostname": true,
	"email": true, "url": true, "uri": true, "ipv4": true, "ipv6": true, "ip": true, "datetime": true,
}
