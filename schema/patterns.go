package schema

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// The patterns below are written in the subset of regular expressions
// that ECMA-262 (what JSON Schema names) and Go's regexp agree on.

// jsonNumberToken matches a JSON number token (RFC 8259 section 6).
const jsonNumberToken = `-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`

// jsonStringToken matches a JSON string token (RFC 8259 section 7).
const jsonStringToken = `"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`

// base64Std matches what base64.StdEncoding decodes: padded standard
// base64, with carriage returns and line feeds ignored anywhere.
const base64Std = `^[\r\n]*(?:(?:[A-Za-z0-9+/][\r\n]*){4})*` +
	`(?:(?:[A-Za-z0-9+/][\r\n]*){2}=[\r\n]*=[\r\n]*|(?:[A-Za-z0-9+/][\r\n]*){3}=[\r\n]*)?$`

// upTo returns a regular expression (no anchors) that matches the decimal
// numerals from 0 to max, written without leading zeros.
func upTo(max *big.Int) string {
	m := max.String()
	n := len(m)
	alts := []string{"0"}
	if n >= 2 {
		alts = append(alts, "[1-9]"+repeatDigit(0, n-2))
	}
	for i := 0; i < n; i++ {
		lo := byte('0')
		if i == 0 {
			lo = '1'
		}
		hi := m[i] - 1
		if hi < lo {
			continue
		}
		alts = append(alts, m[:i]+digitRange(lo, hi)+repeatDigit(n-i-1, n-i-1))
	}
	if m != "0" {
		alts = append(alts, m)
	}
	return strings.Join(alts, "|")
}

func digitRange(lo, hi byte) string {
	if lo == hi {
		return string(lo)
	}
	return "[" + string(lo) + "-" + string(hi) + "]"
}

// repeatDigit is [0-9] repeated from min to max times.
func repeatDigit(min, max int) string {
	switch {
	case max == 0:
		return ""
	case min == max && max == 1:
		return "[0-9]"
	case min == max:
		return "[0-9]{" + strconv.Itoa(min) + "}"
	}
	return "[0-9]{" + strconv.Itoa(min) + "," + strconv.Itoa(max) + "}"
}

// intBounds returns the magnitudes of the most negative and the most
// positive values of a signed integer of the given bits.
func intBounds(bits int) (neg, pos *big.Int) {
	neg = new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	pos = new(big.Int).Sub(neg, big.NewInt(1))
	return neg, pos
}

func uintMax(bits int) *big.Int {
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	return m.Sub(m, big.NewInt(1))
}

// intToken matches the JSON integer tokens that fit a signed integer of
// the given bits.
func intToken(bits int) string {
	neg, pos := intBounds(bits)
	return "(?:" + upTo(pos) + "|-(?:" + upTo(neg) + "))"
}

// uintToken matches the JSON integer tokens that fit an unsigned integer
// of the given bits.
func uintToken(bits int) string { return "(?:" + upTo(uintMax(bits)) + ")" }

// intKey matches what strconv.ParseInt(s, 10, bits) accepts: an optional
// sign, and leading zeros.
func intKey(bits int) string {
	neg, pos := intBounds(bits)
	return `^(?:\+?0*(?:` + upTo(pos) + `)|-0*(?:` + upTo(neg) + `))$`
}

// uintKey matches what strconv.ParseUint(s, 10, bits) accepts.
func uintKey(bits int) string { return "^0*(?:" + upTo(uintMax(bits)) + ")$" }

// classEscape escapes s for use inside a character class.
func classEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', ']', '[', '^', '-':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// literal escapes s to match itself.
func literal(s string) string { return regexp.QuoteMeta(s) }
