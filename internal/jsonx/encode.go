// Package jsonx holds the JSON text helpers that codec, rpc and mcp share
// below codec's API: values and strings appended as compact JSON (with
// [StringIn], a value around one long string escaped in place), members of
// an object found without decoding it, ids told apart, and what is repeated
// of a string a peer sent ([Echo]).
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/scan"
)

// ErrInvalidJSON is returned when a value to be written is not valid JSON:
// a json.RawMessage that does not parse, or a json.Marshaler whose output is
// not valid UTF-8.
var ErrInvalidJSON = errors.New("codec: invalid JSON value")

// An Appender appends its own encoding as JSON: [AppendValue] calls it
// instead of encoding/json. It is codec.Appender's method set, so that a
// value of either is one of both.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// A StringIn is a JSON value that holds one string, which may be long:
// JSON text before it, the string, then JSON text after it, such as
// {"content":[{"type":"text","text": then the text, then }]}.
// [AppendValue] appends it with the text escaped in place, as
// [AppendString] escapes it, and [StringResponse] makes a response holding it
// in pieces: the text is neither copied whole nor scanned but
// to escape it. What is around the text is checked once, by
// [NewStringIn]; the zero StringIn is the empty string.
type StringIn struct {
	before, text, after string
}

// NewStringIn returns the value made of before, the string text, then
// after. It fails unless before, an empty string and after make one valid
// JSON value with no line break, in which that string is a value of its
// own (as after {"a": or [, not after ["a\). Its cost is that of before
// and after, whatever the text's length.
func NewStringIn(before, text, after string) (StringIn, error) {
	j := before + `""` + after
	end, st := scan.Value([]byte(j), 0, 0, scan.Unlimited)
	if st != scan.OK || end != len(j) || strings.ContainsAny(j, "\r\n") || !outsideString(before) {
		return StringIn{}, ErrInvalidJSON
	}
	return StringIn{before, text, after}, nil
}

// WithText returns v holding text instead of its own string.
func (v StringIn) WithText(text string) StringIn {
	v.text = text
	return v
}

// Text returns the string v holds.
func (v StringIn) Text() string { return v.text }

// outsideString reports whether the JSON text b ends outside a string:
// then the "" that follows it in NewStringIn is a string of its own,
// which any text may replace (not, after ["a\, the end of one).
func outsideString(b string) bool {
	in := false
	for i := 0; i < len(b); i++ {
		switch {
		case !in:
			in = b[i] == '"'
		case b[i] == '\\':
			i++ // the escaped byte
		case b[i] == '"':
			in = false
		}
	}
	return !in
}

// AppendValue appends v encoded as compact JSON. nil is null; a
// [json.RawMessage] is validated and compacted (a nil one is null); an
// [Appender] appends itself; a [StringIn] is appended as it is;
// anything else is encoded by encoding/json without HTML escaping.
func AppendValue(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case json.RawMessage:
		if v == nil {
			return append(dst, "null"...), nil // as encoding/json has it
		}
		return appendCompact(dst, v)
	case string:
		return AppendString(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) { // else encoding/json's error
			return appendFloat64(dst, v), nil
		}
	case Appender:
		return appendJSON(dst, v)
	case StringIn:
		dst = AppendString(append(dst, v.before...), v.text)
		return append(dst, v.after...), nil
	}
	e := encoders.Get().(*encoder)
	e.buf = dst
	start := len(dst)
	err := e.enc.Encode(v)
	dst = e.buf
	e.buf = nil
	encoders.Put(e)
	if err != nil {
		return dst[:start], err
	}
	dst = dst[:len(dst)-1] // Encode ends the value with '\n'
	if !utf8.Valid(dst[start:]) {
		return dst[:start], ErrInvalidJSON
	}
	return dst, nil
}

// appendFloat64 appends the finite f as encoding/json does: as ES6 turns a
// number into a string, like %g but with exponents from 1e21 and below
// 1e-6, written unpadded.
func appendFloat64(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-07 is e-7
		dst = dst[:n-1]
	}
	return dst
}

// appendJSON appends what a calls AppendJSON appends, once checked.
func appendJSON(dst []byte, a Appender) ([]byte, error) {
	start := len(dst)
	out, err := a.AppendJSON(dst)
	if err != nil {
		return dst[:start], err
	}
	end, st := scan.Value(out, start, 0, scan.Unlimited)
	if st != scan.OK || end != len(out) || bytes.IndexByte(out[start:], '\n') >= 0 || bytes.IndexByte(out[start:], '\r') >= 0 {
		return dst[:start], ErrInvalidJSON
	}
	return out, nil
}

// encoder is a json.Encoder that appends to buf.
type encoder struct {
	buf []byte
	enc *json.Encoder
}

func (e *encoder) Write(p []byte) (int, error) {
	e.buf = append(e.buf, p...)
	return len(p), nil
}

var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(e)
	e.enc.SetEscapeHTML(false)
	return e
}}

// appendCompact appends the JSON value raw without insignificant white space,
// after checking that raw is exactly one valid JSON value (UTF-8 included).
func appendCompact(dst, raw []byte) ([]byte, error) {
	i := scan.SkipSpace(raw, 0)
	end, st := scan.Value(raw, i, 0, scan.Unlimited)
	if st != scan.OK || scan.SkipSpace(raw, end) != len(raw) {
		return dst, ErrInvalidJSON
	}
	raw = raw[i:end]
	for len(raw) > 0 {
		// Copy up to the next white space outside a string; raw is valid,
		// so a string is skipped by finding its closing quote.
		j := 0
		for j < len(raw) && !scan.IsSpace(raw[j]) {
			if raw[j] == '"' {
				j = stringEnd(raw, j)
			} else {
				j++
			}
		}
		dst = append(dst, raw[:j]...)
		raw = raw[scan.SkipSpace(raw, j):]
	}
	return dst, nil
}

// stringEnd returns the index past the valid JSON string at b[i] == '"'.
func stringEnd(b []byte, i int) int {
	for i++; ; i++ {
		i += bytes.IndexByte(b[i:], '"')
		n := 0
		for b[i-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Control characters, U+2028 and
// U+2029 are escaped; invalid UTF-8 is replaced by U+FFFD, since what is
// written must be valid UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	return append(AppendStringBody(dst, s), '"')
}

// StringBodyLen is len(AppendStringBody(nil, s)), counted without
// writing: each escape AppendStringBody makes, counted in its place
// (FuzzAppendString holds the two to agree).
func StringBodyLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
			case c == '"', c == '\\', c == '\n', c == '\r', c == '\t':
				n++ // \x
			default:
				n += 5 // \u00XX
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // \ufffd for one byte
		case r == '\u2028' || r == '\u2029':
			n += 3 // \u202X for three bytes
		}
		i += size
	}
	return n
}

// AppendStringBody appends s escaped as in a JSON string, without quotes.
func AppendStringBody(dst []byte, s string) []byte {
	start := 0
	// Runs of plain ASCII are skipped 8 bytes at a time (scan.PlainPrefix),
	// tried at every 8th byte, so that text with many escapes pays little
	// for it.
	for i := scan.PlainPrefix(s, 0); i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				if i++; i&7 == 0 {
					i = scan.PlainPrefix(s, i)
				}
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}
