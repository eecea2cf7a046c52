package jsonx

import (
	"strconv"
	"unicode/utf8"
)

// MaxEcho is the most bytes of a string a peer sent (a member name, a value,
// a method name, an id) that toolrpc repeats in an error answer or a log
// record: [Echo] shortens longer ones. A response's id is the exception: it is
// echoed whole, as the specification requires.
const MaxEcho = 256

// Echo returns s, a string a peer sent, as toolrpc repeats it in an error
// answer or a log record: whole when it is at most MaxEcho bytes long, else
// shortened by [Shorten] to [MaxEcho] bytes. Its cost is bounded by MaxEcho,
// however long s is.
func Echo[T ~string | ~[]byte](s T) string { return Shorten(s, MaxEcho) }

// Shorten returns s whole when it is at most n bytes long; otherwise at most
// its first n bytes, cut before the start of a character (valid UTF-8 stays
// valid), then "…" and the length of s in parentheses:
//
//	Shorten("abcdef", 3) == "abc…(6 bytes)"
func Shorten[T ~string | ~[]byte](s T, n int) string {
	n = max(n, 0)
	if len(s) <= n {
		return string(s)
	}
	kept := CutUTF8(s, n)
	b := make([]byte, 0, len(kept)+len("…( bytes)")+20)
	b = append(b, kept...)
	b = append(b, "…("...)
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return string(append(b, " bytes)"...))
}

// CutUTF8 returns the first n bytes of s (0 <= n <= len(s)), fewer when
// the cut would split a UTF-8 sequence: the character it would split is
// left out whole. Where s is not UTF-8 there is no character to keep whole,
// and the cut is at n.
func CutUTF8[T ~string | ~[]byte](s T, n int) T {
	if n >= len(s) {
		return s
	}
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n]
}
