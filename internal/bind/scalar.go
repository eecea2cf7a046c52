package bind

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/scan"
)

func decodeBool(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
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
	return typeError(b, i, "boolean")
}

// number scans the number token at b[i].
func number(b []byte, i int) (tok []byte, end int, integer bool, fe *Error) {
	end, st := scan.Number(b, i)
	if st != scan.OK {
		return nil, i, false, syntaxError()
	}
	tok = b[i:end]
	return tok, end, !bytes.ContainsAny(tok, ".eE"), nil
}

// numberToken scans the number at b[i] for a decoder of want ("integer" or
// "number"). tok is nil when fe is not (null included); integer reports
// a token of plain digits (no fraction or exponent).
func numberToken(b []byte, i int, want string) (tok []byte, end int, integer bool, fe *Error) {
	if !isNumberStart(b, i) {
		end, fe = typeError(b, i, want)
		return nil, end, false, fe
	}
	tok, end, integer, fe = number(b, i)
	if fe != nil {
		return nil, i, false, fe
	}
	return tok, end, integer, nil
}

// integerToken scans the number at b[i] for an integer decoder and reads
// it with [scan.Integer]: an integral value in any notation (3, 3.0, 3e0)
// is that integer; one with a fraction (2.5) is not an integer; tok is
// nil after an error (null included).
func integerToken(b []byte, i int) (tok []byte, end int, neg bool, mag uint64, st scan.IntStatus, fe *Error) {
	tok, end, _, fe = numberToken(b, i, "integer")
	if tok == nil {
		return nil, end, false, 0, 0, fe
	}
	neg, mag, st = scan.Integer(tok)
	if st == scan.Fraction {
		return nil, i, false, 0, 0, &Error{Rule: "type", Param: "integer", Message: "expected an integer, got " + jsonx.Echo(tok)}
	}
	return tok, end, neg, mag, st, nil
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

func decodeInt(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	if n, end, ok := smallInt(b, i); ok && !v.OverflowInt(n) {
		v.SetInt(n)
		return end, nil
	}
	tok, end, neg, mag, st, fe := integerToken(b, i)
	if tok == nil {
		return end, fe
	}
	n, ok := int64(0), st == scan.Int
	switch {
	case !ok:
	case neg && mag <= 1<<63:
		n = int64(-mag) // -mag wraps to the two's complement
	case !neg && mag < 1<<63:
		n = int64(mag)
	default:
		ok = false
	}
	if !ok || v.OverflowInt(n) {
		return i, rangeError(tok, v.Type())
	}
	v.SetInt(n)
	return end, nil
}

func decodeUint(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	tok, end, neg, mag, st, fe := integerToken(b, i)
	if tok == nil {
		return end, fe
	}
	if st != scan.Int || neg || v.OverflowUint(mag) {
		return i, rangeError(tok, v.Type())
	}
	v.SetUint(mag)
	return end, nil
}

func decodeFloat(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
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
	n, ok := scan.Int64(tok)
	return float64(n), ok && n > -1<<53 && n < 1<<53
}

// str scans the string token at b[i] and returns its contents.
func str(b []byte, i int) ([]byte, int, *Error) {
	end, escaped, st := scan.String(b, i)
	if st != scan.OK {
		return nil, i, syntaxError()
	}
	return scan.Unquote(b[i:end], escaped), end, nil
}

func decodeString(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	if i >= len(b) || b[i] != '"' {
		return typeError(b, i, "string")
	}
	s, end, fe := str(b, i)
	if fe != nil {
		return i, fe
	}
	v.SetString(string(s))
	return end, nil
}

// rawValue scans any value at b[i].
func rawValue(b []byte, i int) ([]byte, int, *Error) {
	end, st := scan.Value(b, i, 0, scan.Unlimited)
	if st != scan.OK {
		return nil, i, syntaxError()
	}
	return b[i:end], end, nil
}

func decodeRaw(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	raw, end, fe := rawValue(b, i)
	if fe != nil {
		return i, fe
	}
	v.SetBytes(append([]byte(nil), raw...))
	return end, nil
}

func decodeNumber(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
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
			return i, &Error{Rule: "type", Param: "number", Message: "expected a number, got " + quoted(s)}
		}
		v.SetString(string(s))
		return end, nil
	}
	return typeError(b, i, "number")
}

func decodeUnmarshaler(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	raw, end, fe := rawValue(b, i)
	if fe != nil {
		return i, fe
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		return i, &Error{Rule: "type", Param: v.Type().String(), Message: err.Error()}
	}
	return end, nil
}

func decodeTextUnmarshaler(_ decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
	if i >= len(b) || b[i] != '"' {
		return typeError(b, i, "string")
	}
	s, end, fe := str(b, i)
	if fe != nil {
		return i, fe
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(s); err != nil {
		return i, &Error{Rule: "type", Param: v.Type().String(), Message: err.Error()}
	}
	return end, nil
}
