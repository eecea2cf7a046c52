package mcp

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// clientEncoding is a header value for s as a client writes it
// (2026-07-28, Value Encoding): as it is when it is visible ASCII with
// inner spaces or tabs, and not the sentinel; Base64 in the sentinel
// otherwise.
func clientEncoding(s string) string {
	plain := s != "" && s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t' &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e || s[i] == '\t'
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// FuzzParamHeader: a header value never panics the decoding or the
// comparison, whatever the argument it is compared with; a value a client
// encodes for a string decodes to it and matches it; a plain value (no
// sentinel) decodes to itself; an integer matches its decimal form.
func FuzzParamHeader(f *testing.F) {
	for _, seed := range []struct{ header, raw string }{
		{"us-west1", `"us-west1"`},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", `"Hello, 世界"`},
		{"=?base64?SGVsbG8?=", `"Hello"`},
		{"=?base64?SGVs!!!bG8=?=", `"Hello"`},
		{"=?base64?SGVsbG8=", `"=?base64?SGVsbG8="`},
		{"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", `"=?base64?literal?="`},
		{"42.0", `42`},
		{"4.2e1", `42`},
		{"9007199254740993", `9007199254740993`},
		{"-0", `0`},
		{"1e400", `1e400`},
		{"true", `true`},
		{"True", `true`},
		{" padded ", `" padded "`},
		{"\x7f", `"\u007f"`},
	} {
		f.Add(seed.header, seed.raw)
	}
	f.Fuzz(func(t *testing.T, header, raw string) {
		dec, ok := decodeHeader(header)
		if ok && !strings.HasPrefix(header, "=?base64?") && dec != header {
			t.Fatalf("decodeHeader(%q) = %q: a plain value is itself", header, dec)
		}
		for _, kind := range []string{"string", "integer", "boolean"} {
			_ = headerMatches(kind, dec, []byte(raw))
		}
		if utf8.ValidString(header) {
			enc := clientEncoding(header)
			dec, ok := decodeHeader(enc)
			if !ok || dec != header {
				t.Fatalf("decodeHeader(%q) = %q, %v: want %q", enc, dec, ok, header)
			}
			body, _ := json.Marshal(header)
			if !headerMatches("string", dec, body) {
				t.Fatalf("%q does not match %s", dec, body)
			}
		}
		if n, ok := safeInteger(raw); ok {
			if !headerMatches("integer", jsonInt(n), []byte(raw)) {
				t.Fatalf("%d does not match %s", n, raw)
			}
		}
	})
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestSafeInteger: an argument is an integer as the params binder reads
// one, exactly, whatever its notation, within ±(2^53-1).
func TestSafeInteger(t *testing.T) {
	for _, tt := range []struct {
		s  string
		n  int64
		ok bool
	}{
		{"42", 42, true},
		{"42.0", 42, true},
		{"4.2e1", 42, true},
		{"-0.0", 0, true},
		{"9007199254740991.0", 9007199254740991, true},
		{"9007199254740990.5", 0, false}, // a float64 reads it 9007199254740990
		{"9007199254740992", 0, false},
		{"2.5", 0, false},
		{"1e400", 0, false},
		{"4.2e1 ", 0, false},
		{"", 0, false},
	} {
		if n, ok := safeInteger(tt.s); n != tt.n || ok != tt.ok {
			t.Errorf("safeInteger(%q) = %d, %v; want %d, %v", tt.s, n, ok, tt.n, tt.ok)
		}
	}
}
