package jsonx

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShorten(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short enough", "abc", 3, "abc"},
		{"empty", "", 0, ""},
		{"cut", "abcdef", 3, "abc…(6 bytes)"},
		{"nothing kept", "abc", 0, "…(3 bytes)"},
		{"a character is kept whole or left out", "a☃☃", 3, "a…(7 bytes)"},
		{"a character ending at the cut is kept", "a☃☃", 4, "a☃…(7 bytes)"},
		{"a 4-byte character at the cut", "ab😀", 5, "ab…(6 bytes)"},
		{"invalid UTF-8 is cut where it is", "\xff\xff\xff\xff", 2, "\xff\xff…(4 bytes)"},
		{"continuation bytes only", "\x80\x80\x80\x80\x80\x80", 5, "\x80\x80\x80\x80\x80…(6 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Shorten(tt.s, tt.n))
			assert.Equal(t, tt.want, Shorten([]byte(tt.s), tt.n), "the same for bytes")
		})
	}
}

func TestEcho(t *testing.T) {
	assert.Equal(t, strings.Repeat("x", MaxEcho), Echo(strings.Repeat("x", MaxEcho)), "MaxEcho bytes pass whole")
	assert.Equal(t, strings.Repeat("x", MaxEcho)+"…(257 bytes)", Echo(strings.Repeat("x", MaxEcho+1)))
	id := json.RawMessage(`"` + strings.Repeat("\x7f", 1<<20) + `"`)
	assert.Equal(t, `"`+strings.Repeat("\x7f", MaxEcho-1)+"…(1048578 bytes)", Echo(id), "a 1 MiB id")
}

func FuzzShorten(f *testing.F) {
	f.Add("a☃😀\xff\x80", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		got := Shorten(s, n)
		if len(s) <= max(n, 0) {
			require.Equal(t, s, got)
			return
		}
		kept, marker, ok := strings.Cut(got, "…(")
		require.True(t, ok, "%q: says it was cut", got)
		assert.Equal(t, strconv.Itoa(len(s))+" bytes)", marker[len(marker)-len(strconv.Itoa(len(s))+" bytes)"):], "%q: the original length", got)
		assert.True(t, strings.HasPrefix(s, kept), "%q: keeps a prefix of %q", got, s)
		assert.LessOrEqual(t, len(kept), max(n, 0))
		assert.Greater(t, len(kept), max(n, 0)-utf8.UTFMax, "%q: cuts at most a character short", got)
		if utf8.ValidString(s) {
			assert.True(t, utf8.ValidString(got), "%q: valid UTF-8 stays valid", got)
		}
	})
}

// CutUTF8 cuts at n, or before the character n falls inside; where there
// is no UTF-8 to keep whole, at n.
func TestCutUTF8(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abc", 5, "abc"},
		{"abc", 0, ""},
		{"aé", 2, "a"},   // é is 2 bytes: cut inside it
		{"a😀b", 4, "a"},  // inside a 4-byte character
		{"a😀b", 5, "a😀"}, // right after it
		{"\x80\x80\x80\x80\x80", 3, "\x80\x80\x80"}, // no character to keep whole
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CutUTF8(tt.s, tt.n), "%q at %d", tt.s, tt.n)
		assert.Equal(t, []byte(tt.want), CutUTF8([]byte(tt.s), tt.n), "%q at %d, bytes", tt.s, tt.n)
	}
}
