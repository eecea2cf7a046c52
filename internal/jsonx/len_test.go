package jsonx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStringBodyLen(t *testing.T) {
	for _, s := range []string{"", "abc", "a\"b\\c\n\r\t\x00\x1f", "é😀", "\u2028\u2029", "\xff\xc3", "\xe2\x80", strings.Repeat("é\"", 1000)} {
		assert.Equal(t, len(AppendStringBody(nil, s)), StringBodyLen(s), "%q", s)
	}
}
