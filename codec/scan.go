package codec

import (
	"encoding/binary"
	"unicode/utf8"
)

// status is the outcome of scanning a JSON value.
type status uint8

const (
	scanOK     status = iota
	scanSyntax        // not valid JSON (RFC 8259), including invalid UTF-8
	scanDepth         // valid so far, but nested deeper than allowed
)

// isSpace reports whether c is JSON white space (RFC 8259 section 2).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanValue validates the JSON value that starts at b[i] (after any white
// space) and returns the index just past it. depth is the number of
// containers already open around the value; a container that would make it
// exceed maxDepth stops the scan with scanDepth.
//
// The scan is iterative, so its stack use does not depend on the input.
func scanValue(b []byte, i, depth, maxDepth int) (int, status) {
	// open records the containers opened by this call, '{' or '['.
	var openBuf [64]byte
	open := openBuf[:0]
	for {
		// A value is expected at i.
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, scanSyntax
		}
		var st status
		switch c := b[i]; c {
		case '{', '[':
			if depth+len(open)+1 > maxDepth {
				return i, scanDepth
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closer {
				i++ // empty container: a complete value
				break
			}
			open = append(open, c)
			if c == '{' {
				if i, st = scanKeyColon(b, i); st != scanOK {
					return i, st
				}
			}
			continue
		case '"':
			i, _, st = scanString(b, i)
		case 't':
			i, st = scanLiteral(b, i, "true")
		case 'f':
			i, st = scanLiteral(b, i, "false")
		case 'n':
			i, st = scanLiteral(b, i, "null")
		default:
			i, st = scanNumber(b, i)
		}
		if st != scanOK {
			return i, st
		}
		// A value ended at i: close containers or move to the next element.
		for {
			if len(open) == 0 {
				return i, scanOK
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, scanSyntax
			}
			top := open[len(open)-1]
			c := b[i]
			if c == ',' {
				i++
				if top == '{' {
					i = skipSpace(b, i)
					if i, st = scanKeyColon(b, i); st != scanOK {
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
			return i, scanSyntax
		}
	}
}

// scanKeyColon scans an object member's name and the colon after it. b[i]
// must start the name.
func scanKeyColon(b []byte, i int) (int, status) {
	if i >= len(b) || b[i] != '"' {
		return i, scanSyntax
	}
	i, _, st := scanString(b, i)
	if st != scanOK {
		return i, st
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, scanSyntax
	}
	return i + 1, scanOK
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

// scanString scans the JSON string that starts at b[i] == '"' and returns the
// index past its closing quote and whether it contains escapes. The contents
// must be valid UTF-8 with no unescaped control characters.
func scanString(b []byte, i int) (end int, escaped bool, st status) {
	i++
	for {
		for i+8 <= len(b) && plainString8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return i, escaped, scanSyntax
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, scanOK
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, scanSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, escaped, scanSyntax
				}
				i += 6
			default:
				return i, escaped, scanSyntax
			}
		case c < 0x20:
			return i, escaped, scanSyntax
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, escaped, scanSyntax
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanLiteral scans one of true, false and null.
func scanLiteral(b []byte, i int, lit string) (int, status) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, scanSyntax
	}
	return i + len(lit), scanOK
}

// scanNumber scans a number as RFC 8259 section 6 defines it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, status) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, scanSyntax
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, scanSyntax
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, scanSyntax
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, scanOK
}
