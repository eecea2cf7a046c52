package service

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/fields"
	"github.com/toolrpc/toolrpc/internal/scan"
)

// A decodeFunc decodes the JSON value that starts at b[i] (no white space
// before it) into v, which is addressable and settable, and returns the index
// just past the value.
type decodeFunc func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError)

// decodeState is what a decoding carries through the decoders. It is passed
// by value: a decoder hands its children a copy with skipMeta cleared.
type decodeState struct {
	allowUnknown bool // ignore object members that match no field
	skipMeta     bool // this object is the params: skip its "_meta"
}

// binder builds decoders for types, once per type.
type binder struct {
	cache map[reflect.Type]*decodeFunc
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
)

// decoder returns the decoder of t, or an error naming what in t cannot be
// decoded from JSON.
func (bd *binder) decoder(t reflect.Type) (decodeFunc, error) {
	if p, ok := bd.cache[t]; ok {
		// Built, or being built (a recursive type): call through the slot.
		return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
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

// field is a struct field as JSON sees it.
type field struct {
	name   string // JSON name
	goName string
	index  []int // from the struct, through embedded structs
	ptrs   bool  // index goes through an embedded pointer
	quoted bool  // the ",string" option
	typ    reflect.Type
	dec    decodeFunc
}

// structFields lists the fields of struct type t that JSON decodes, as
// fields.Of computes them for the binder and the schema alike.
func structFields(t reflect.Type) []field {
	fs := fields.Of(t)
	out := make([]field, len(fs))
	for i, f := range fs {
		out[i] = field{name: f.Name, goName: f.GoName, index: f.Index, ptrs: f.Ptrs, quoted: f.Quoted, typ: f.Type}
	}
	return out
}

func (bd *binder) fields(t reflect.Type) ([]field, error) {
	fields := structFields(t)
	for i := range fields {
		f := &fields[i]
		dec, err := bd.decoder(f.typ)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
		if f.quoted {
			dec = quotedDecoder(dec)
		}
		f.dec = dec
	}
	return fields, nil
}

// fieldValue returns the field of struct value v, allocating embedded
// pointers on the way.
func (f *field) value(v reflect.Value) (reflect.Value, *FieldError) {
	if !f.ptrs {
		if len(f.index) == 1 {
			return v.Field(f.index[0]), nil
		}
		return v.FieldByIndex(f.index), nil
	}
	for j, x := range f.index {
		if j > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, &FieldError{Rule: "type", Message: fmt.Sprintf("cannot set embedded pointer to unexported struct %s", v.Type().Elem())}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// jsonType names the JSON type of the token that starts at b[i].
func jsonType(b []byte, i int) string {
	if i >= len(b) {
		return "nothing"
	}
	switch b[i] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// nullOr answers for a value that is not of the kind wanted: a null is
// skipped, the value left as it is; anything else is a type error.
func nullOr(b []byte, i int, want string) (int, *FieldError) {
	if end, ok := skipNull(b, i); ok {
		return end, nil
	}
	return i, &FieldError{Rule: "type", Param: want, Message: fmt.Sprintf("expected %s, got %s", article(want), jsonType(b, i))}
}

func article(s string) string {
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}

// syntaxError reports input that is not valid JSON (only possible when the
// params did not come through package codec).
func syntaxError() *FieldError {
	return &FieldError{Rule: "syntax", Message: "params are not valid JSON"}
}

// skipNull consumes a null at b[i], reporting whether there was one.
func skipNull(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == 'n' {
		if end, st := scan.Literal(b, i, "null"); st == scan.OK {
			return end, true
		}
	}
	return i, false
}

func decodeBool(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	if i < len(b) {
		switch b[i] {
		case 't':
			if end, st := scan.Literal(b, i, "true"); st == scan.OK {
				v.SetBool(true)
				return end, nil
			}
			return i, syntaxError()
		case 'f':
			if end, st := scan.Literal(b, i, "false"); st == scan.OK {
				v.SetBool(false)
				return end, nil
			}
			return i, syntaxError()
		}
	}
	return nullOr(b, i, "boolean")
}

// number scans the number token at b[i].
func number(b []byte, i int) (tok []byte, end int, integer bool, fe *FieldError) {
	end, st := scan.Number(b, i)
	if st != scan.OK {
		return nil, i, false, syntaxError()
	}
	tok = b[i:end]
	return tok, end, !bytes.ContainsAny(tok, ".eE"), nil
}

// numberToken scans the number at b[i] for a decoder of want ("integer" or
// "number"). After a null, tok is nil (the value is left as it is); an
// integer must have no fraction or exponent.
func numberToken(b []byte, i int, want string) (tok []byte, end int, integer bool, fe *FieldError) {
	if !isNumberStart(b, i) {
		end, fe = nullOr(b, i, want)
		return nil, end, false, fe
	}
	tok, end, integer, fe = number(b, i)
	if fe == nil && want == "integer" && !integer {
		fe = &FieldError{Rule: "type", Param: "integer", Message: "expected an integer, got " + codec.Echo(tok)}
	}
	if fe != nil {
		return nil, i, false, fe
	}
	return tok, end, integer, nil
}

// rangeError reports the number tok, which does not fit in type t.
func rangeError(tok []byte, t reflect.Type) *FieldError {
	return &FieldError{Rule: "range", Param: t.String(), Message: codec.Echo(tok) + " does not fit in " + t.String()}
}

func isNumberStart(b []byte, i int) bool {
	return i < len(b) && (b[i] == '-' || scan.IsDigit(b[i]))
}

// smallInt parses the integer at b[i] when it is short, plain (no fraction,
// no exponent) and ends where a number must: the common case, in one pass.
func smallInt(b []byte, i int) (n int64, end int, ok bool) {
	j := i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	start := j
	for j < len(b) && j-start < 18 && scan.IsDigit(b[j]) {
		n = n*10 + int64(b[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || (digits > 1 && b[start] == '0') || j-start >= 18 {
		return 0, i, false
	}
	if j < len(b) {
		switch b[j] {
		case '.', 'e', 'E':
			return 0, i, false
		}
	}
	if neg {
		n = -n
	}
	return n, j, true
}

func decodeInt(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	if n, end, ok := smallInt(b, i); ok && !v.OverflowInt(n) {
		v.SetInt(n)
		return end, nil
	}
	tok, end, _, fe := numberToken(b, i, "integer")
	if tok == nil {
		return end, fe
	}
	n, ok := parseInt(tok)
	if !ok || v.OverflowInt(n) {
		return i, rangeError(tok, v.Type())
	}
	v.SetInt(n)
	return end, nil
}

// parseInt parses a valid JSON integer token.
func parseInt(tok []byte) (int64, bool) {
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	u, ok := parseUint(tok)
	switch {
	case !ok:
		return 0, false
	case neg && u <= 1<<63:
		return -int64(u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// parseUint parses the digits of a valid JSON integer token.
func parseUint(tok []byte) (uint64, bool) {
	var n uint64
	for _, c := range tok {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

func decodeUint(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	tok, end, _, fe := numberToken(b, i, "integer")
	if tok == nil {
		return end, fe
	}
	n, ok := uint64(0), tok[0] != '-'
	if ok {
		n, ok = parseUint(tok)
	}
	if !ok || v.OverflowUint(n) {
		return i, rangeError(tok, v.Type())
	}
	v.SetUint(n)
	return end, nil
}

func decodeFloat(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	tok, end, integer, fe := numberToken(b, i, "number")
	if tok == nil {
		return end, fe
	}
	f, ok := exactFloat(tok, integer)
	if !ok {
		var err error
		if f, err = strconv.ParseFloat(string(tok), v.Type().Bits()); err != nil {
			return i, rangeError(tok, v.Type())
		}
	}
	if v.OverflowFloat(f) {
		return i, rangeError(tok, v.Type())
	}
	v.SetFloat(f)
	return end, nil
}

// exactFloat converts an integer token that a float64 holds exactly, the
// common case, without strconv.ParseFloat and its string.
func exactFloat(tok []byte, integer bool) (float64, bool) {
	if !integer {
		return 0, false
	}
	n, ok := parseInt(tok)
	return float64(n), ok && n > -1<<53 && n < 1<<53
}

// str scans the string token at b[i] and returns its contents.
func str(b []byte, i int) ([]byte, int, *FieldError) {
	end, escaped, st := scan.String(b, i)
	if st != scan.OK {
		return nil, i, syntaxError()
	}
	return scan.Unquote(b[i:end], escaped), end, nil
}

func decodeString(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	if i >= len(b) || b[i] != '"' {
		return nullOr(b, i, "string")
	}
	s, end, fe := str(b, i)
	if fe != nil {
		return i, fe
	}
	v.SetString(string(s))
	return end, nil
}

// rawValue scans any value at b[i].
func rawValue(b []byte, i int) ([]byte, int, *FieldError) {
	end, st := scan.Value(b, i, 0, scan.Unlimited)
	if st != scan.OK {
		return nil, i, syntaxError()
	}
	return b[i:end], end, nil
}

func decodeRaw(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	raw, end, fe := rawValue(b, i)
	if fe != nil {
		return i, fe
	}
	v.SetBytes(append([]byte(nil), raw...))
	return end, nil
}

func decodeNumber(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	if isNumberStart(b, i) {
		tok, end, _, fe := number(b, i)
		if fe != nil {
			return i, fe
		}
		v.SetString(string(tok))
		return end, nil
	}
	if i < len(b) && b[i] == '"' { // as encoding/json: a string holding a valid number
		s, end, fe := str(b, i)
		if fe != nil {
			return i, fe
		}
		if n, st := scan.Number(s, 0); st != scan.OK || n != len(s) {
			return i, &FieldError{Rule: "type", Param: "number", Message: "expected a number, got " + quoted(s)}
		}
		v.SetString(string(s))
		return end, nil
	}
	return nullOr(b, i, "number")
}

func decodeUnmarshaler(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	raw, end, fe := rawValue(b, i)
	if fe != nil {
		return i, fe
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		return i, &FieldError{Rule: "type", Param: v.Type().String(), Message: err.Error()}
	}
	return end, nil
}

func decodeTextUnmarshaler(_ decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	if i >= len(b) || b[i] != '"' {
		return nullOr(b, i, "string")
	}
	s, end, fe := str(b, i)
	if fe != nil {
		return i, fe
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(s); err != nil {
		return i, &FieldError{Rule: "type", Param: v.Type().String(), Message: err.Error()}
	}
	return end, nil
}

// quotedDecoder decodes a value given as a JSON string holding it (the
// ",string" option of encoding/json).
func quotedDecoder(dec decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if i >= len(b) || b[i] != '"' {
			return nullOr(b, i, "string")
		}
		s, end, fe := str(b, i)
		if fe != nil {
			return i, fe
		}
		if v.Kind() == reflect.String {
			// The string holds a JSON string.
			if len(s) == 0 || s[0] != '"' {
				return i, &FieldError{Rule: "type", Param: "string", Message: "expected a quoted JSON string, got " + quoted(s)}
			}
		}
		n, fe := dec(d, s, 0, v)
		if fe != nil {
			return i, fe
		}
		if n != len(s) {
			return i, &FieldError{Rule: "type", Param: v.Type().String(), Message: "invalid value " + quoted(s)}
		}
		return end, nil
	}
}

func pointerDecoder(elem decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if end, ok := skipNull(b, i); ok {
			v.SetZero()
			return end, nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return elem(d, b, i, v.Elem())
	}
}

func decodeInterface(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
	if v.NumMethod() != 0 {
		return i, &FieldError{Rule: "type", Param: v.Type().String(), Message: fmt.Sprintf("cannot decode into %s", v.Type())}
	}
	x, end, fe := anyValue(d, b, i)
	if fe != nil {
		return i, fe
	}
	if x == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(x))
	}
	return end, nil
}

// anyValue decodes a value as encoding/json does into an interface{}:
// map[string]any, []any, float64, string, bool or nil.
func anyValue(d decodeState, b []byte, i int) (any, int, *FieldError) {
	if i >= len(b) {
		return nil, i, syntaxError()
	}
	switch c := b[i]; {
	case c == '"':
		s, end, fe := str(b, i)
		return string(s), end, fe
	case c == 't' || c == 'f':
		var x bool
		end, fe := decodeBool(d, b, i, reflect.ValueOf(&x).Elem())
		return x, end, fe
	case c == 'n':
		end, ok := skipNull(b, i)
		if !ok {
			return nil, i, syntaxError()
		}
		return nil, end, nil
	case c == '[':
		var xs []any
		end, fe := eachElement(b, i, func(j, at int) (int, *FieldError) {
			x, end, fe := anyValue(d, b, at)
			if fe != nil {
				return at, fe.under(indexSegment(j))
			}
			xs = append(xs, x)
			return end, nil
		})
		if fe == nil && xs == nil {
			xs = []any{}
		}
		return xs, end, fe
	case c == '{':
		m := map[string]any{}
		end, fe := eachMember(b, i, func(key []byte, at int) (int, *FieldError) {
			if _, dup := m[string(key)]; dup {
				return at, duplicate(key).under(keySegment(key))
			}
			x, end, fe := anyValue(d, b, at)
			if fe != nil {
				return at, fe.under(keySegment(key))
			}
			m[string(key)] = x
			return end, nil
		})
		return m, end, fe
	}
	var f float64
	end, fe := decodeFloat(d, b, i, reflect.ValueOf(&f).Elem())
	return f, end, fe
}

func duplicate(key []byte) *FieldError {
	return &FieldError{Rule: "duplicate", Message: "member " + quoted(key) + " given more than once"}
}

// eachElement calls fn for each element of the array at b[i], with its
// index and start, and returns the index past the array. An error from fn
// is returned as is: fn knows the element's path.
func eachElement(b []byte, i int, fn func(j, at int) (int, *FieldError)) (int, *FieldError) {
	i = scan.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for j := 0; ; j++ {
		end, fe := fn(j, i)
		if fe != nil {
			return i, fe
		}
		i = scan.SkipSpace(b, end)
		if i >= len(b) {
			return i, syntaxError()
		}
		switch b[i] {
		case ',':
			i = scan.SkipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, syntaxError()
		}
	}
}

// eachSlot calls fn for each of the first n elements of the array at b[i],
// as eachElement does, and skips any more; count is how many there were.
func eachSlot(b []byte, i, n int, fn func(j, at int) (int, *FieldError)) (end, count int, fe *FieldError) {
	end, fe = eachElement(b, i, func(j, at int) (int, *FieldError) {
		count++
		if j >= n {
			return rawEnd(b, at)
		}
		return fn(j, at)
	})
	return end, count, fe
}

// eachMember calls fn for each member of the object at b[i], with its name
// (decoded) and the start of its value, and returns the index past the
// object. An error from fn is returned as is: fn knows the member's path.
func eachMember(b []byte, i int, fn func(key []byte, at int) (int, *FieldError)) (int, *FieldError) {
	m := scan.ObjectMembers(b, i)
	for {
		key, at, done, st := m.Next()
		if st != scan.OK {
			return at, syntaxError()
		}
		if done {
			return m.End, nil
		}
		var fe *FieldError
		if m.End, fe = fn(key, at); fe != nil {
			return at, fe
		}
	}
}

func sliceDecoder(elem decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if i >= len(b) || b[i] != '[' {
			end, fe := nullOr(b, i, "array")
			if fe == nil {
				v.SetZero() // as encoding/json does
			}
			return end, fe
		}
		s := v
		if s.IsNil() {
			s = reflect.MakeSlice(v.Type(), 0, 4)
		}
		s = s.Slice(0, 0)
		end, fe := eachElement(b, i, func(j, at int) (int, *FieldError) {
			if j == s.Cap() {
				grown := reflect.MakeSlice(v.Type(), j, 2*j)
				reflect.Copy(grown, s)
				s = grown
			}
			s = s.Slice(0, j+1)
			end, fe := elem(d, b, at, s.Index(j))
			if fe != nil {
				return at, fe.under(indexSegment(j))
			}
			return end, nil
		})
		if fe != nil {
			return i, fe
		}
		v.Set(s)
		return end, nil
	}
}

// bytesDecoder decodes a []byte from a base64 string, as encoding/json
// does, or from an array of numbers.
func bytesDecoder(array decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if i >= len(b) || b[i] != '"' {
			return array(d, b, i, v)
		}
		s, end, fe := str(b, i)
		if fe != nil {
			return i, fe
		}
		out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		n, err := base64.StdEncoding.Decode(out, s)
		if err != nil {
			return i, &FieldError{Rule: "type", Param: "base64", Message: "expected a base64 string: " + err.Error()}
		}
		v.SetBytes(out[:n])
		return end, nil
	}
}

func arrayDecoder(elem decodeFunc, n int) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if i >= len(b) || b[i] != '[' {
			return nullOr(b, i, "array")
		}
		end, count, fe := eachSlot(b, i, n, func(j, at int) (int, *FieldError) {
			end, fe := elem(d, b, at, v.Index(j))
			if fe != nil {
				return at, fe.under(indexSegment(j))
			}
			return end, nil
		})
		if fe != nil {
			return i, fe
		}
		if count != n {
			return i, &FieldError{Rule: "count", Param: strconv.Itoa(n), Message: fmt.Sprintf("expected %d elements, got %d", n, count)}
		}
		return end, nil
	}
}

func rawEnd(b []byte, i int) (int, *FieldError) {
	_, end, fe := rawValue(b, i)
	return end, fe
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
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if i >= len(b) || b[i] != '{' {
			end, fe := nullOr(b, i, "object")
			if fe == nil {
				v.SetZero() // as encoding/json does
			}
			return end, fe
		}
		skipMeta := d.skipMeta
		d.skipMeta = false // for the values
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		return eachMember(b, i, func(name []byte, at int) (int, *FieldError) {
			if skipMeta && string(name) == "_meta" {
				return rawEnd(b, at)
			}
			k, err := key(name)
			if err != nil {
				fe := &FieldError{Rule: "type", Param: kt.String(), Message: "key " + quoted(name) + ": " + keyError(err)}
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
			index[f.name] = i
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
			if fields[i].name == string(name) {
				return i
			}
		}
		return -1
	}
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		if i >= len(b) || b[i] != '{' {
			return nullOr(b, i, "object")
		}
		skipMeta := d.skipMeta
		d.skipMeta = false // for the fields
		var seenBuf [4]uint64
		seen := seenBuf[:]
		if len(fields) > 64*len(seenBuf) {
			seen = make([]uint64, (len(fields)+63)/64)
		}
		// eachMember's loop, with the body inlined: this is the hot path.
		m := scan.ObjectMembers(b, i)
		for {
			name, at, done, st := m.Next()
			if st != scan.OK {
				return at, syntaxError()
			}
			if done {
				return m.End, nil
			}
			if fi := lookup(name); fi >= 0 {
				f := &fields[fi]
				if seen[fi/64]&(1<<(fi%64)) != 0 {
					return at, duplicate(name).under(f.name)
				}
				seen[fi/64] |= 1 << (fi % 64)
				fv, fe := f.value(v)
				if fe != nil {
					return at, fe.under(f.name)
				}
				if m.End, fe = f.dec(d, b, at, fv); fe != nil {
					return at, fe.under(f.name)
				}
				continue
			}
			if !(skipMeta && string(name) == "_meta") && !d.allowUnknown {
				fe := &FieldError{Rule: "unknown", Message: "unknown field " + quoted(name)}
				return at, fe.under(fieldSegment(name))
			}
			var fe *FieldError
			if m.End, fe = rawEnd(b, at); fe != nil {
				return at, fe
			}
		}
	}
}

// positionalStruct decodes an array into a struct's fields in declaration
// order: exactly one element per field.
func positionalStruct(fields []field) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *FieldError) {
		end, count, fe := eachSlot(b, i, len(fields), func(j, at int) (int, *FieldError) {
			f := &fields[j]
			fv, fe := f.value(v)
			if fe == nil {
				var end int
				if end, fe = f.dec(d, b, at, fv); fe == nil {
					return end, nil
				}
			}
			return at, fe.under(f.name)
		})
		if fe != nil {
			return i, fe
		}
		if count != len(fields) {
			return i, countError(len(fields), count)
		}
		return end, nil
	}
}

func countError(want, got int) *FieldError {
	noun := "params"
	if want == 1 {
		noun = "param"
	}
	return &FieldError{Rule: "count", Param: strconv.Itoa(want),
		Message: fmt.Sprintf("expected %d positional %s, got %d", want, noun, got)}
}

// keyError says why a map key could not be parsed: for a number, the reason
// alone (strconv's text repeats the whole key).
func keyError(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err.Error()
	}
	return err.Error()
}

// Path segments of a FieldError, innermost last.
func indexSegment(j int) string { return "[" + strconv.Itoa(j) + "]" }

// keySegment is the segment of a map key or an odd member name: the name
// (shortened by codec.Echo) quoted as a JSON string, in brackets.
func keySegment(name []byte) string { return "[" + quoted(name) + "]" }

// fieldSegment is the segment of an unknown member: its name (shortened by
// codec.Echo), or keySegment when it could not be read back as one segment
// (empty, or holding '.', '[' or ']').
func fieldSegment(name []byte) string {
	if len(name) == 0 || bytes.ContainsAny(name, ".[]") {
		return keySegment(name)
	}
	return codec.Echo(name)
}
