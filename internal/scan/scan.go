// Package scan validates and slices JSON text in a single pass, without
// allocating: the common ground of the wire codec and the params binder.
// Every function takes the text and an index, and returns the index after
// what it scanned.
package scan

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// Unlimited is a depth limit that never stops a scan.
const Unlimited = int(^uint(0) >> 1)

// Status is the outcome of a scan.
type Status uint8

const (
	OK      Status = iota
	Syntax         // not valid JSON (RFC 8259), including invalid UTF-8
	TooDeep        // valid so far, but nested deeper than allowed
)

// IsSpace reports whether c is JSON white space (RFC 8259 section 2).
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// Value validates the JSON value that starts at b[i] (after any white
// space) and returns the index just past it. depth is the number of
// containers already open around the value; a container that would make it
// exceed maxDepth stops the scan with TooDeep.
//
// The scan is iterative, so its stack use does not depend on the input.
func Value(b []byte, i, depth, maxDepth int) (int, Status) {
	// open records the containers opened by this call, '{' or '['.
	var openBuf [64]byte
	open := openBuf[:0]
	for {
		// A value is expected at i.
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, Syntax
		}
		var st Status
		switch c := b[i]; c {
		case '{', '[':
			if depth+len(open)+1 > maxDepth {
				return i, TooDeep
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == closer {
				i++ // empty container: a complete value
				break
			}
			open = append(open, c)
			if c == '{' {
				if i, st = KeyColon(b, i); st != OK {
					return i, st
				}
			}
			continue
		case '"':
			i, _, st = String(b, i)
		case 't':
			i, st = Literal(b, i, "true")
		case 'f':
			i, st = Literal(b, i, "false")
		case 'n':
			i, st = Literal(b, i, "null")
		default:
			i, st = Number(b, i)
		}
		if st != OK {
			return i, st
		}
		// A value ended at i: close containers or move to the next element.
		for {
			if len(open) == 0 {
				return i, OK
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return i, Syntax
			}
			top := open[len(open)-1]
			c := b[i]
			if c == ',' {
				i++
				if top == '{' {
					i = SkipSpace(b, i)
					if i, st = KeyColon(b, i); st != OK {
						return i, st
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				i++
				open = open[:len(open)-1]
				continue
			}
			return i, Syntax
		}
	}
}

// KeyColon scans an object member's name and the colon after it. b[i]
// must start the name.
func KeyColon(b []byte, i int) (int, Status) {
	if i >= len(b) || b[i] != '"' {
		return i, Syntax
	}
	i, _, st := String(b, i)
	if st != OK {
		return i, st
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, Syntax
	}
	return i + 1, OK
}

// SWAR constants: the byte 0x01 and 0x80 repeated in a 64-bit word.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainString8 reports whether none of the 8 bytes in x needs a closer look
// inside a JSON string: none is '"', '\\', a control character (< 0x20) or
// the start of a multi-byte UTF-8 sequence (>= 0x80).
//
// Each term is the classic "has a byte less than n" test, exact as an "any"
// test: a borrow can only mark a higher byte when a lower byte matched.
func plainString8(x uint64) bool {
	ctl := (x - 0x20*lsb) &^ x // a byte < 0x20
	q := x ^ '"'*lsb
	q = (q - lsb) &^ q // a byte == '"'
	bs := x ^ '\\'*lsb
	bs = (bs - lsb) &^ bs // a byte == '\\'
	return (ctl|q|bs|x)&msb == 0
}

// Skip returns the index past the JSON value at b[i] (after any white
// space), which must be valid, as the values of a message the codec has
// decoded are: it checks nothing, and finds the end of a string with
// bytes.IndexByte, so that a long string costs a search for its closing
// quote. Given text that is not valid JSON it returns some index from i
// to len(b).
func Skip(b []byte, i int) int {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
	default: // a number or a literal
		for i < len(b) && !IsSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		return i
	}
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

// skipString returns the index past the string at b[i] == '"', or len(b).
func skipString(b []byte, i int) int {
	start := i
	for i++; ; i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		n := 0 // the backslashes before it: an odd number escapes it
		for i-1-n > start && b[i-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
}

// PlainPrefix returns the index of the first byte of s at or after i that
// may need a closer look inside a JSON string (as plainString8 says), or an
// index a little before it: it skips 8 bytes at a time, and stops short of
// the last 7 bytes of s. Every byte it skips is printable ASCII other than
// '"' and '\\', written as it is in a JSON string.
func PlainPrefix(s string, i int) int {
	for i+8 <= len(s) && plainString8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
		uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
		i += 8
	}
	return i
}

// String scans the JSON string that starts at b[i] == '"' and returns the
// index past its closing quote and whether it contains escapes. The contents
// must be valid UTF-8 with no unescaped control characters.
func String(b []byte, i int) (end int, escaped bool, st Status) {
	i++
	for {
		for i+8 <= len(b) && plainString8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return i, escaped, Syntax
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, OK
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, Syntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, escaped, Syntax
				}
				i += 6
			default:
				return i, escaped, Syntax
			}
		case c < 0x20:
			return i, escaped, Syntax
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, escaped, Syntax
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// Literal scans one of true, false and null.
func Literal(b []byte, i int, lit string) (int, Status) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, Syntax
	}
	return i + len(lit), OK
}

// Number scans a number as RFC 8259 section 6 defines it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func Number(b []byte, i int) (int, Status) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i++
		for i < len(b) && IsDigit(b[i]) {
			i++
		}
	default:
		return i, Syntax
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !IsDigit(b[i]) {
			return i, Syntax
		}
		for i < len(b) && IsDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !IsDigit(b[i]) {
			return i, Syntax
		}
		for i < len(b) && IsDigit(b[i]) {
			i++
		}
	}
	return i, OK
}

// Unquote returns the contents of the valid JSON string token tok. Without
// escapes it is a subslice of tok; with escapes it is decoded into new
// memory. A \u escape of a lone surrogate becomes U+FFFD, as in
// encoding/json.
func Unquote(tok []byte, escaped bool) []byte {
	if !escaped {
		return tok[1 : len(tok)-1]
	}
	return AppendUnquoted(make([]byte, 0, len(tok)), tok)
}

// AppendUnquoted appends the contents of the valid JSON string token tok,
// its escapes decoded.
func AppendUnquoted(dst, tok []byte) []byte {
	s := tok[1 : len(tok)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch e := s[i+1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = utf16.DecodeRune(r, hex4(s[i+2:i+6]))
				}
				if r2 != utf8.RuneError {
					i += 6
				}
				r = r2
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
		i += 2
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Members walks the members of the object that starts at b[i] == '{': each
// call of Next gives a member's name (decoded) and where its value starts;
// the caller scans the value and sets End to where it stops.
type Members struct {
	b     []byte
	End   int // past the last value scanned (at first: past the '{')
	first bool
}

// ObjectMembers starts a walk of the object at b[i] == '{'.
func ObjectMembers(b []byte, i int) Members { return Members{b: b, End: i + 1, first: true} }

// Next returns the next member, or done past the object's '}' (End is then
// past it too). On a syntax error, at is where it was found.
func (m *Members) Next() (name []byte, at int, done bool, st Status) {
	b := m.b
	i := SkipSpace(b, m.End)
	switch {
	case i < len(b) && b[i] == '}':
		m.End = i + 1
		return nil, m.End, true, OK
	case m.first:
		m.first = false
	case i < len(b) && b[i] == ',':
		i = SkipSpace(b, i+1)
	default:
		return nil, i, false, Syntax
	}
	if i >= len(b) || b[i] != '"' {
		return nil, i, false, Syntax
	}
	keyEnd, escaped, st := String(b, i)
	if st != OK {
		return nil, keyEnd, false, st
	}
	name = Unquote(b[i:keyEnd], escaped)
	i = SkipSpace(b, keyEnd)
	if i >= len(b) || b[i] != ':' {
		return nil, i, false, Syntax
	}
	return name, SkipSpace(b, i+1), false, OK
}
