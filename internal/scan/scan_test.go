package scan

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/internal/wiretest/jsonref"
)

// scanAll reports whether b is one JSON value with optional white space
// around it, by Value.
func scanAll(b []byte, maxDepth int) Status {
	end, st := Value(b, SkipSpace(b, 0), 0, maxDepth)
	if st == OK && SkipSpace(b, end) != len(b) {
		return Syntax
	}
	return st
}

var scanCases = []string{
	`0`, `-0`, `1`, `-1`, `12345678901234567890`, `1.5`, `-1.5e10`, `1E+2`, `1e-2`, `0.0`,
	`01`, `-`, `1.`, `.5`, `+1`, `1e`, `1e+`, `0x10`, `--1`, `1.5.5`, `NaN`, `Infinity`,
	`true`, `false`, `null`, `tru`, `nul`, `True`, `truex`, `nullnull`,
	`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\uD83D\uDE00"`, `"\ud800"`,
	`"\x"`, `"\u12"`, `"\u12G4"`, `"unterminated`, `"a` + "\x00" + `b"`, `"a` + "\t" + `b"`, "\"\x1f\"", "\"\x7f\"",
	`"é"`, "\"\xe9\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xef\xbf\xbd\"",
	`"12345678\"9"`, `"1234567\\"`, `"0123456789abcdef0123456789abcdef"`, `"0123456789abcdef0123456789abcde"` + "\x01" + `"`,
	`[]`, `{}`, `[1,2,3]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `[[[]]]`, `[[[]]`, `{"a":1}`, `{"a":1,}`, `{"a"}`,
	`{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":[{"b":{"c":null}}]}`, `{"a":1}}`, ` { "a" : [ 1 , 2 ] } `,
	"\ufeff{}", "{}\x00", "\x00", "{\"a\":1}\r", "[1,\n2]", `{"":""}`, `{"a":1,"a":2}`,
	`[1] [2]`, `{} x`, `"a" "b"`,
}

func TestScanValueMatchesReference(t *testing.T) {
	for _, c := range scanCases {
		got := scanAll([]byte(c), 1000) == OK
		assert.Equal(t, jsonref.Valid([]byte(c)), got, "%q", c)
	}
}

func TestScanValueDepth(t *testing.T) {
	tests := []struct {
		in    string
		depth int
		want  Status
	}{
		{`1`, 0, OK},
		{`[]`, 0, TooDeep},
		{`[]`, 1, OK},
		{`[[1]]`, 1, TooDeep},
		{`[[1]]`, 2, OK},
		{`{"a":{"b":[1]}}`, 2, TooDeep},
		{`{"a":{"b":[1]}}`, 3, OK},
		{`[1,[2],[[3]]]`, 2, TooDeep},
		{`[1,[2],[[3]]]`, 3, OK},
		{strings.Repeat("[", 100000) + strings.Repeat("]", 100000), 100000, OK},
		{strings.Repeat("[", 100001) + strings.Repeat("]", 100001), 100000, TooDeep},
		{strings.Repeat("[", 100000), 1 << 30, Syntax},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, scanAll([]byte(tt.in), tt.depth), "%.40q depth %d", tt.in, tt.depth)
	}
}

func TestPlainString8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for c := range 256 {
		for pos := range 8 {
			var b [8]byte
			for i := range b {
				b[i] = 'a'
			}
			b[pos] = byte(c)
			want := plain(byte(c))
			assert.Equal(t, want, plainString8(binary.LittleEndian.Uint64(b[:])), "byte %#x at %d", c, pos)
			// A special byte elsewhere must not hide or fake this one.
			b[(pos+3)%8] = 0x1f
			assert.False(t, plainString8(binary.LittleEndian.Uint64(b[:])))
		}
	}
}

func TestPlainPrefix(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for _, c := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xff} {
		for n := range 20 {
			for pos := range n + 1 {
				b := []byte(strings.Repeat("a", n))
				if pos < n {
					b[pos] = c
				}
				for from := range n + 1 {
					got := PlainPrefix(string(b), from)
					// Nothing it skips needs a look, it skips whole words
					// only, and it stops only at a special byte or near the end.
					assert.True(t, from <= got && got <= n && (got-from)%8 == 0, "%q from %d: %d", b, from, got)
					for i := from; i < got; i++ {
						assert.True(t, plain(b[i]), "%q from %d: skipped %#x at %d", b, from, b[i], i)
					}
					if got+8 <= n {
						assert.Less(t, pos, got+8, "%q from %d: stopped at %d before a plain word", b, from, got)
					}
				}
			}
		}
	}
}

func FuzzScanValue(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// encoding/json refuses nesting over 10000; stay below it.
		got := scanAll(b, 5000)
		if got == TooDeep {
			return
		}
		if want := jsonref.Valid(b); want != (got == OK) {
			t.Fatalf("Value(%q) = %v, reference says valid=%v", b, got, want)
		}
		checkSkip(t, b)
	})
}

// checkSkip checks Skip against Value on b: the same end on a valid
// value, and on each member of a valid object; an index in range, and no
// panic, from every place, whatever b holds.
func checkSkip(t *testing.T, b []byte) {
	t.Helper()
	for i := range len(b) + 1 {
		if got := Skip(b, i); got < i || got > len(b) {
			t.Fatalf("Skip(%q, %d) = %d, out of range", b, i, got)
		}
	}
	if scanAll(b, Unlimited) != OK {
		return
	}
	end, _ := Value(b, 0, 0, Unlimited)
	if got := Skip(b, 0); got != end {
		t.Fatalf("Skip(%q, 0) = %d, Value ends at %d", b, got, end)
	}
	if i := SkipSpace(b, 0); b[i] == '{' {
		for mem := ObjectMembers(b, i); ; {
			_, at, done, st := mem.Next()
			if done || st != OK {
				return
			}
			end, _ := Value(b, at, 0, Unlimited)
			if mem.End = Skip(b, at); mem.End != end {
				t.Fatalf("Skip(%q, %d) = %d, Value ends at %d", b, at, mem.End, end)
			}
		}
	}
}

func TestSkip(t *testing.T) {
	for _, c := range scanCases {
		checkSkip(t, []byte(c))
	}
	for _, c := range []string{`"\\\""`, `["\\",{"a":"]}\"}"}]`, `{"a":"x","b":[1,{"c":"\\\\"}],"d":true} `, `[[]`, `"`, `"\`, `\"`} {
		checkSkip(t, []byte(c))
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, tok := range []string{`""`, `"abc"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u00E9"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"é☃"`} {
		var want string
		if err := json.Unmarshal([]byte(tok), &want); err != nil {
			t.Fatal(err)
		}
		end, escaped, st := String([]byte(tok), 0)
		assert.Equal(t, OK, st)
		assert.Equal(t, len(tok), end)
		assert.Equal(t, want, string(Unquote([]byte(tok), escaped)), tok)
	}
}

func FuzzUnquote(f *testing.F) {
	f.Add(`"a\u00e9\ud83d\ude00\n"`)
	f.Fuzz(func(t *testing.T, tok string) {
		end, escaped, st := String([]byte(tok), 0)
		if len(tok) == 0 || tok[0] != '"' || st != OK || end != len(tok) {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(tok), &want); err != nil {
			t.Fatalf("%q: scan says valid, encoding/json: %v", tok, err)
		}
		if got := string(Unquote([]byte(tok), escaped)); got != want {
			t.Fatalf("Unquote(%q) = %q, want %q", tok, got, want)
		}
	})
}
