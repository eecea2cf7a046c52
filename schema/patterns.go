package schema

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
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

// stringRule maps a rule on the text of a string, if it is one this
// package knows.
func stringRule(r rule) (s *Schema, exact, ok bool) {
	p := r.param
	pattern := func(re string) *Schema { return &Schema{Pattern: re} }
	notPattern := func(re string) *Schema {
		return not(&Schema{Type: []string{"string"}, Pattern: re})
	}
	switch r.name {
	case "alpha":
		return pattern(`^[a-zA-Z]+$`), true, true
	case "alphanum":
		return pattern(`^[a-zA-Z0-9]+$`), true, true
	case "alphaunicode":
		return pattern(`^[\p{L}]+$`), true, true
	case "alphanumunicode":
		return pattern(`^[\p{L}\p{N}]+$`), true, true
	case "numeric":
		return pattern(`^[-+]?[0-9]+(?:\.[0-9]+)?$`), true, true
	case "number":
		return pattern(`^[0-9]+$`), true, true
	case "hexadecimal":
		return pattern(`^(?:0[xX])?[0-9a-fA-F]+$`), true, true
	case "ascii":
		return pattern(`^[\x00-\x7F]*$`), true, true
	case "printascii":
		return pattern(`^[\x20-\x7E]*$`), true, true
	case "lowercase": // not empty, and unchanged by strings.ToLower: beyond ASCII, not said
		return pattern(`^[^A-Z]+$`), false, true
	case "uppercase":
		return pattern(`^[^a-z]+$`), false, true
	case "startswith":
		return pattern("^" + literal(p)), true, true
	case "endswith":
		return pattern(literal(p) + "$"), true, true
	case "contains":
		return pattern(literal(p)), true, true
	case "excludes":
		return notPattern(literal(p)), true, true
	case "startsnotwith":
		return notPattern("^" + literal(p)), true, true
	case "endsnotwith":
		return notPattern(literal(p) + "$"), true, true
	case "containsany":
		if p == "" {
			return False(), true, true
		}
		return pattern("[" + classEscape(p) + "]"), true, true
	case "excludesall":
		if p == "" {
			return &Schema{}, true, true
		}
		return notPattern("[" + classEscape(p) + "]"), true, true
	case "uuid":
		return &Schema{Format: "uuid", Pattern: `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`}, true, true
	case "uuid4":
		return &Schema{Format: "uuid", Pattern: `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`}, true, true
	case "hostname": // RFC 952, as validator checks it; the format says RFC 1123
		return &Schema{Format: "hostname",
			Pattern: `^[a-zA-Z](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`}, true, true
	case "email":
		return &Schema{Format: "email"}, false, true
	case "url":
		return &Schema{Format: "uri"}, false, true
	case "uri":
		return &Schema{Format: "uri-reference"}, false, true
	case "ipv4":
		return &Schema{Format: "ipv4"}, false, true
	case "ipv6":
		return &Schema{Format: "ipv6"}, false, true
	case "datetime":
		switch p {
		case time.RFC3339:
			return &Schema{Format: "date-time"}, false, true
		case time.DateOnly:
			return &Schema{Format: "date"}, false, true
		}
	}
	return nil, false, false
}
