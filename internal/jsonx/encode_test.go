package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viaEncodingJSON is what encoding/json makes of s on a round trip: each
// invalid UTF-8 byte becomes U+FFFD.
func viaEncodingJSON(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var back string
	require.NoError(t, json.Unmarshal(b, &back))
	return back
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "\x00\x01\x1f\x7f", "\n\r\t\b\f", "é☃😀", "\u2028\u2029", "a\xffb\xc3", "<>&"} {
		got := AppendString(nil, s)
		assert.True(t, utf8.Valid(got))
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q", got)
		assert.Equal(t, viaEncodingJSON(t, s), back)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\x00\u2028\xff")
	f.Add("0123456789abcdef\"0123456789abcdef\x00\u2028\xff0123456789abcdef\\0123456")
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if !validJSON(got) {
			t.Fatalf("AppendString(%q) = %q, not valid JSON", s, got)
		}
		if n := StringBodyLen(s); n != len(got)-2 {
			t.Fatalf("StringBodyLen(%q) = %d, want %d", s, n, len(got)-2)
		}
		var back string
		require.NoError(t, json.Unmarshal(got, &back))
		if want := viaEncodingJSON(t, s); back != want {
			t.Fatalf("AppendString(%q) decodes to %q, want %q", s, back, want)
		}
	})
}

func FuzzAppendCompact(f *testing.F) {
	for _, c := range jsonSeeds {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := appendCompact(nil, raw)
		if (err == nil) != validJSON(raw) {
			t.Fatalf("appendCompact(%q) error %v, reference valid=%v", raw, err, validJSON(raw))
		}
		if err != nil {
			return
		}
		var want bytes.Buffer
		require.NoError(t, json.Compact(&want, raw))
		if string(got) != want.String() {
			t.Fatalf("appendCompact(%q) = %q, json.Compact gives %q", raw, got, want.String())
		}
	})
}

// appender appends its text as it is.
type appender string

func (a appender) AppendJSON(dst []byte) ([]byte, error) { return append(dst, a...), nil }

func TestAppendValueAppender(t *testing.T) {
	tests := []struct {
		a    appender
		want string
		err  error
	}{
		{`[{"a":"b"}]`, `x[{"a":"b"}]`, nil},
		{`[1,`, `x`, ErrInvalidJSON},
		{"[1,\n2]", `x`, ErrInvalidJSON},
		{"\"\xff\"", `x`, ErrInvalidJSON},
		{`1 2`, `x`, ErrInvalidJSON},
	}
	for _, tt := range tests {
		got, err := AppendValue([]byte("x"), tt.a)
		assert.ErrorIs(t, err, tt.err, "%q", tt.a)
		assert.Equal(t, tt.want, string(got), "%q", tt.a)
	}
}

// A StringIn that NewStringIn makes is valid JSON with no line break,
// whatever its text: the text is a string of its own.
func FuzzStringIn(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":`, "a\"b\n\xff", `}]}`)
	f.Add(`["a\`, "x", `"]`)
	f.Add(`{`, "k", `:1}`)
	f.Fuzz(func(t *testing.T, before, text, after string) {
		v, err := NewStringIn(before, text, after)
		if err != nil {
			return
		}
		got, err := AppendValue(nil, v)
		require.NoError(t, err)
		if !validJSON(got) || bytes.ContainsAny(got, "\r\n") {
			t.Fatalf("AppendValue(%q, %q, %q) = %q: not one valid JSON value on one line", before, text, after, got)
		}
		require.Equal(t, before+string(AppendString(nil, text))+after, string(got))
	})
}

// float64 values are written as encoding/json writes them.
func FuzzAppendFloat64(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 42, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789e13,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		got, err := AppendValue([]byte("x"), v)
		want, wantErr := json.Marshal(v)
		if wantErr != nil {
			require.Error(t, err, "%v", v)
			return
		}
		require.NoError(t, err)
		require.Equal(t, "x"+string(want), string(got), "%v", v)
	})
}
