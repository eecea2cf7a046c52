package bind

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/toolrpc/toolrpc/internal/fields"
	"github.com/toolrpc/toolrpc/internal/scan"
)

// A decodeFunc decodes the JSON value that starts at b[i] (no white space
// before it) into v, which is addressable and settable, and returns the index
// just past the value.
type decodeFunc func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error)

// decodeState is what a decoding carries through the decoders. It is passed
// by value: a decoder hands its children a copy with skipMeta cleared.
type decodeState struct {
	allowUnknown bool // ignore object members that match no field
	skipMeta     bool // this object is the params: skip its "_meta"
	// most, when positive, is how many elements (or members) of this
	// array (or object) to decode: the rest are skipped (see
	// boundedDecoder). Like skipMeta, it is not passed to the elements.
	most int
}

// binder builds decoders for types, once per type.
type binder struct {
	cache map[reflect.Type]*decodeFunc
	// check, if set, judges a field's default once decoded (the
	// service's validate rules): its error fails the registration.
	check DefaultCheck
}

// A DefaultCheck judges the default of field f of struct type t, decoded
// into v, at registration: an error refuses it.
type DefaultCheck func(t reflect.Type, f fields.Field, v reflect.Value) error

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
)

// implementsDecoding reports whether a *t decodes itself, from JSON or from
// text.
func implementsDecoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

// decoder returns the decoder of t, or an error naming what in t cannot be
// decoded from JSON.
func (bd *binder) decoder(t reflect.Type) (decodeFunc, error) {
	if p, ok := bd.cache[t]; ok {
		// Built, or being built (a recursive type): call through the slot.
		return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
			return (*p)(d, b, i, v)
		}, nil
	}
	slot := new(decodeFunc)
	bd.cache[t] = slot
	fn, err := bd.build(t)
	if err != nil {
		delete(bd.cache, t)
		return nil, err
	}
	*slot = fn
	return fn, nil
}

func (bd *binder) build(t reflect.Type) (decodeFunc, error) {
	switch {
	case t == rawMessageType:
		return decodeRaw, nil
	case t == numberType:
		return decodeNumber, nil
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType):
		return decodeUnmarshaler, nil
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textUnmarshalerType):
		return decodeTextUnmarshaler, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return decodeBool, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint, nil
	case reflect.Float32, reflect.Float64:
		return decodeFloat, nil
	case reflect.String:
		return decodeString, nil
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, fmt.Errorf("interface type %s cannot be decoded from JSON", t)
		}
		return decodeInterface, nil
	case reflect.Pointer, reflect.Slice, reflect.Array:
		elem, err := bd.decoder(t.Elem())
		if err != nil {
			return nil, err
		}
		switch {
		case t.Kind() == reflect.Pointer:
			return pointerDecoder(elem), nil
		case t.Kind() == reflect.Array:
			return arrayDecoder(elem, t.Len()), nil
		case t.Elem().Kind() == reflect.Uint8 && !implementsDecoding(t.Elem()):
			return bytesDecoder(sliceDecoder(elem)), nil
		}
		return sliceDecoder(elem), nil
	case reflect.Map:
		return bd.mapDecoder(t)
	case reflect.Struct:
		fields, err := bd.fields(t)
		if err != nil {
			return nil, err
		}
		return structDecoder(fields), nil
	}
	return nil, fmt.Errorf("type %s cannot be decoded from JSON", t)
}

// field is a struct field as JSON sees it, as fields.Of computes it for the
// binder and the schema generator alike, with its decoder.
type field struct {
	fields.Field
	dec decodeFunc
	def *fieldDefault // the default tag's value, if it has one
}

// fieldDefault is a field's default, decoded once at registration. An
// absent member gets a copy of val when its type holds no reference
// (pointer, slice, map, interface: flat), and otherwise raw decoded anew,
// so that no call can change what the next one gets.
type fieldDefault struct {
	raw  []byte        // the tag's JSON value, compacted
	val  reflect.Value // raw decoded
	flat bool
}

// flat reports whether a value of t holds no reference to memory that a
// copy would share (strings are immutable: they count as flat).
func flat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return false
	case reflect.Array:
		return flat(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// fields lists the fields of struct type t that JSON decodes, each with its
// decoder.
func (bd *binder) fields(t reflect.Type) ([]field, error) {
	fs := fields.Of(t)
	out := make([]field, len(fs))
	for i, f := range fs {
		dec, err := bd.decoder(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.GoName, err)
		}
		if f.Quoted {
			dec = quotedDecoder(dec)
		}
		if n, ok := lengthBound(f.Type, f.Tag.Get("validate")); ok {
			dec = boundedDecoder(dec, n)
		}
		out[i] = field{Field: f, dec: dec}
		if tag, ok := f.Tag.Lookup("default"); ok {
			def, err := bd.fieldDefault(t, f, dec, tag)
			if err != nil {
				return nil, fmt.Errorf("field %s of %s: default %s: %w", f.GoName, t, tag, err)
			}
			out[i].def = def
		}
	}
	return out, nil
}

// fieldDefault decodes the default tag of field f of struct type t with
// the field's decoder dec, and has it checked.
func (bd *binder) fieldDefault(t reflect.Type, f fields.Field, dec decodeFunc, tag string) (*fieldDefault, error) {
	if f.Ptrs {
		// Applying it would allocate the embedded pointer, which an
		// absent member does not.
		return nil, errors.New("a field promoted through an embedded pointer cannot have a default")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(tag)); err != nil {
		return nil, fmt.Errorf("not a JSON value: %w", err)
	}
	raw := buf.Bytes()
	v := reflect.New(f.Type).Elem()
	end, fe := dec(decodeState{}, raw, 0, v)
	if fe = complete(raw, end, fe); fe != nil {
		return nil, errors.New(fe.Error())
	}
	if bd.check != nil {
		if err := bd.check(t, f, v); err != nil {
			return nil, err
		}
	}
	return &fieldDefault{raw: raw, val: v, flat: flat(f.Type)}, nil
}

// apply sets fv, the field of an object that lacks its member, to the
// default.
func (def *fieldDefault) apply(dec decodeFunc, fv reflect.Value) *Error {
	if def.flat {
		fv.Set(def.val)
		return nil
	}
	_, fe := dec(decodeState{}, def.raw, 0, fv)
	return fe
}

// value returns the field of struct value v, allocating embedded pointers
// pointers on the way.
func (f *field) value(v reflect.Value) (reflect.Value, *Error) {
	if !f.Ptrs {
		if len(f.Index) == 1 {
			return v.Field(f.Index[0]), nil
		}
		return v.FieldByIndex(f.Index), nil
	}
	for j, x := range f.Index {
		if j > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, &Error{Rule: "type", Message: fmt.Sprintf("cannot set embedded pointer to unexported struct %s", v.Type().Elem())}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

func (bd *binder) mapDecoder(t reflect.Type) (decodeFunc, error) {
	kt := t.Key()
	var key func(s []byte) (reflect.Value, error)
	switch {
	case kt.Kind() == reflect.String:
		key = func(s []byte) (reflect.Value, error) { return reflect.ValueOf(string(s)).Convert(kt), nil }
	case reflect.PointerTo(kt).Implements(textUnmarshalerType):
		key = func(s []byte) (reflect.Value, error) {
			k := reflect.New(kt)
			err := k.Interface().(encoding.TextUnmarshaler).UnmarshalText(s)
			return k.Elem(), err
		}
	case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
		key = func(s []byte) (reflect.Value, error) {
			n, err := strconv.ParseInt(string(s), 10, kt.Bits())
			return reflect.ValueOf(n).Convert(kt), err
		}
	case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
		key = func(s []byte) (reflect.Value, error) {
			n, err := strconv.ParseUint(string(s), 10, kt.Bits())
			return reflect.ValueOf(n).Convert(kt), err
		}
	default:
		return nil, fmt.Errorf("map key type %s cannot be decoded from JSON", kt)
	}
	elem, err := bd.decoder(t.Elem())
	if err != nil {
		return nil, err
	}
	et := t.Elem()
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		if i >= len(b) || b[i] != '{' {
			return typeError(b, i, "object") // null included, as a map's schema says
		}
		skipMeta, most := d.skipMeta, d.most
		d.skipMeta, d.most = false, 0 // for the values
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		count := 0
		return eachMember(b, i, func(name []byte, at int) (int, *Error) {
			if skipMeta && string(name) == "_meta" {
				return rawEnd(b, at)
			}
			if count++; most > 0 && count > most {
				return rawEnd(b, at)
			}
			k, err := key(name)
			if err != nil {
				fe := &Error{Rule: "type", Param: kt.String(), Message: "key " + quoted(name) + ": " + keyError(err)}
				return at, fe.under(keySegment(name))
			}
			if v.MapIndex(k).IsValid() {
				return at, duplicate(name).under(keySegment(name))
			}
			e := reflect.New(et).Elem()
			end, fe := elem(d, b, at, e)
			if fe != nil {
				return at, fe.under(keySegment(name))
			}
			v.SetMapIndex(k, e)
			return end, nil
		})
	}, nil
}

// structDecoder decodes an object into a struct, member by field name
// (exactly: case matters). Unknown members are an error unless allowed; a
// member given twice is an error.
func structDecoder(fields []field) decodeFunc {
	var index map[string]int
	if len(fields) > 8 {
		index = make(map[string]int, len(fields))
		for i, f := range fields {
			index[f.Name] = i
		}
	}
	var defs []int // the fields with a default
	for i := range fields {
		if fields[i].def != nil {
			defs = append(defs, i)
		}
	}
	lookup := func(name []byte) int {
		if index != nil {
			if i, ok := index[string(name)]; ok {
				return i
			}
			return -1
		}
		for i := range fields {
			if fields[i].Name == string(name) {
				return i
			}
		}
		return -1
	}
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		if i >= len(b) || b[i] != '{' {
			return typeError(b, i, "object")
		}
		skipMeta := d.skipMeta
		d.skipMeta = false // for the fields
		var seenBuf [4]uint64
		seen := seenBuf[:]
		if len(fields) > 64*len(seenBuf) {
			seen = make([]uint64, (len(fields)+63)/64)
		}
		// eachMember's loop, with the body inlined: this is the hot path.
		// A member's problem is gathered, its value skipped, and the
		// members after it decoded still: every problem is reported.
		var probs *Error
		m := scan.ObjectMembers(b, i)
		for {
			name, at, done, st := m.Next()
			if st != scan.OK {
				return at, syntaxError()
			}
			if done {
				// The defaults apply whatever the other members' problems,
				// so that the validation of the value (which reports its
				// problems beside them) sees the absent members as their
				// defaults, not as zero.
				for _, fi := range defs {
					if seen[fi/64]&(1<<(fi%64)) == 0 {
						f := &fields[fi]
						if fe := f.def.apply(f.dec, v.FieldByIndex(f.Index)); fe != nil {
							probs = gather(probs, fe.under(f.Name))
						}
					}
				}
				if probs != nil {
					return i, probs
				}
				return m.End, nil
			}
			var fe *Error
			if fi := lookup(name); fi >= 0 {
				f := &fields[fi]
				if seen[fi/64]&(1<<(fi%64)) != 0 {
					fe = duplicate(name).under(f.Name)
				} else {
					seen[fi/64] |= 1 << (fi % 64)
					fv, vfe := f.value(v)
					if vfe != nil {
						fe = vfe.under(f.Name)
					} else if m.End, fe = f.dec(d, b, at, fv); fe != nil {
						fe = fe.under(f.Name)
					}
				}
				if fe == nil {
					continue
				}
			} else if !(skipMeta && string(name) == "_meta") && !d.allowUnknown {
				fe = (&Error{Rule: "unknown", Message: "unknown field " + quoted(name)}).under(fieldSegment(name))
			}
			if fe != nil && fe.Rule == "syntax" {
				return at, fe
			}
			probs = gather(probs, fe)
			var sfe *Error
			if m.End, sfe = rawEnd(b, at); sfe != nil {
				return at, sfe
			}
		}
	}
}
