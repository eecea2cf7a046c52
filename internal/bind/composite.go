package bind

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"reflect"
	"strconv"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// integerKinds are the kinds that decodeInt and decodeUint decode.
var integerKinds = [...]bool{
	reflect.Int: true, reflect.Int8: true, reflect.Int16: true, reflect.Int32: true, reflect.Int64: true,
	reflect.Uint: true, reflect.Uint8: true, reflect.Uint16: true, reflect.Uint32: true, reflect.Uint64: true, reflect.Uintptr: true,
	reflect.UnsafePointer: false,
}

// quotedDecoder decodes a value given as a JSON string holding it (the
// ",string" option of encoding/json).
func quotedDecoder(dec decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		if i >= len(b) || b[i] != '"' {
			return typeError(b, i, "string")
		}
		s, end, fe := str(b, i)
		if fe != nil {
			return i, fe
		}
		if integerKinds[v.Kind()] && bytes.ContainsAny(s, ".eE") {
			// A quoted integer is plain digits, as encoding/json and the
			// published pattern have it: only a JSON number may be an
			// integer in another notation (3.0, 3e0).
			return i, &Error{Rule: "type", Param: "integer", Message: "expected an integer, got " + jsonx.Echo(s)}
		}
		if v.Kind() >= reflect.Uint && v.Kind() <= reflect.Uintptr && len(s) > 0 && s[0] == '-' {
			return i, rangeError(s, v.Type()) // not even -0, as the published pattern has it
		}
		if v.Kind() == reflect.String {
			// The string holds a JSON string.
			if len(s) == 0 || s[0] != '"' {
				return i, &Error{Rule: "type", Param: "string", Message: "expected a quoted JSON string, got " + quoted(s)}
			}
		}
		n, fe := dec(d, s, 0, v)
		if fe != nil {
			return i, fe
		}
		if n != len(s) {
			return i, &Error{Rule: "type", Param: v.Type().String(), Message: "invalid value " + quoted(s)}
		}
		return end, nil
	}
}

func pointerDecoder(elem decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
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

func decodeInterface(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	if v.NumMethod() != 0 {
		return i, &Error{Rule: "type", Param: v.Type().String(), Message: fmt.Sprintf("cannot decode into %s", v.Type())}
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
func anyValue(d decodeState, b []byte, i int) (any, int, *Error) {
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
		end, fe := eachElement(b, i, func(j, at int) (int, *Error) {
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
		end, fe := eachMember(b, i, func(key []byte, at int) (int, *Error) {
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

func sliceDecoder(elem decodeFunc) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		if end, ok := skipNull(b, i); ok {
			v.SetZero() // a nil slice, as encoding/json makes
			return end, nil
		}
		if i >= len(b) || b[i] != '[' {
			return typeError(b, i, "array")
		}
		most := d.most
		d.most = 0 // for the elements
		s := v
		if s.IsNil() {
			s = reflect.MakeSlice(v.Type(), 0, 4)
		}
		s = s.Slice(0, 0)
		end, fe := eachElement(b, i, func(j, at int) (int, *Error) {
			if most > 0 && j >= most {
				return rawEnd(b, at)
			}
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
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
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
			return i, &Error{Rule: "type", Param: "base64", Message: "expected a base64 string: " + err.Error()}
		}
		v.SetBytes(out[:n])
		return end, nil
	}
}

func arrayDecoder(elem decodeFunc, n int) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		if i >= len(b) || b[i] != '[' {
			return typeError(b, i, "array")
		}
		end, count, fe := eachSlot(b, i, n, func(j, at int) (int, *Error) {
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
			return i, &Error{Rule: "count", Param: strconv.Itoa(n), Message: fmt.Sprintf("expected %d elements, got %d", n, count)}
		}
		return end, nil
	}
}
