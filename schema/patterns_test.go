package schema

import (
	"encoding/base64"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIntegerPatterns checks the patterns for integer keys and quoted
// integers against strconv and the binder's rule (a JSON integer token that
// fits): every value of 8 bits and around them, and for all sizes the
// edges and random values.
func TestIntegerPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{8, 16, 32, 64} {
		intKeyRe := regexp.MustCompile(intKey(bits))
		uintKeyRe := regexp.MustCompile(uintKey(bits))
		intTokRe := regexp.MustCompile("^" + intToken(bits) + "$")
		uintTokRe := regexp.MustCompile("^" + uintToken(bits) + "$")
		var texts []string
		if bits == 8 {
			for n := -(1 << bits) - 3; n <= 1<<bits+3; n++ {
				texts = append(texts, strconv.Itoa(n))
			}
		}
		edge := new(big.Int).Lsh(big.NewInt(1), uint(bits))
		for _, d := range []int64{-2, -1, 0, 1, 2} {
			for _, base := range []*big.Int{edge, new(big.Int).Rsh(edge, 1), big.NewInt(0)} {
				n := new(big.Int).Add(base, big.NewInt(d))
				texts = append(texts, n.String(), new(big.Int).Neg(n).String())
			}
		}
		for range 300 {
			texts = append(texts, strconv.FormatUint(r.Uint64()>>r.IntN(64), 10), strconv.FormatInt(r.Int64()>>r.IntN(64), 10))
		}
		var spelled []string
		for _, s := range texts {
			spelled = append(spelled, s, "+"+s, "0"+s, "00"+s, "-0"+s, s+"0", s+"x", " "+s)
		}
		spelled = append(spelled, "", "+", "-", "0", "-0", "+0", "00", "x")
		for _, s := range spelled {
			_, err := strconv.ParseInt(s, 10, bits)
			assert.Equal(t, err == nil, intKeyRe.MatchString(s), "int%d key %q", bits, s)
			_, err = strconv.ParseUint(s, 10, bits)
			assert.Equal(t, err == nil, uintKeyRe.MatchString(s), "uint%d key %q", bits, s)
			assert.Equal(t, isIntToken(s, bits, true), intTokRe.MatchString(s), "int%d token %q", bits, s)
			assert.Equal(t, isIntToken(s, bits, false), uintTokRe.MatchString(s), "uint%d token %q", bits, s)
		}
	}
}

var jsonInteger = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// isIntToken reports whether s is a JSON integer token (no leading zero,
// no plus) whose value fits the type.
func isIntToken(s string, bits int, signed bool) bool {
	if !jsonInteger.MatchString(s) {
		return false
	}
	if signed {
		_, err := strconv.ParseInt(s, 10, bits)
		return err == nil
	}
	_, err := strconv.ParseUint(s, 10, bits)
	return err == nil
}

// TestBase64Pattern checks the pattern of []byte's string form against
// encoding/base64, on every string of up to 5 characters over an alphabet
// that has each kind of character the decoder treats apart.
func TestBase64Pattern(t *testing.T) {
	re := regexp.MustCompile(base64Std)
	alphabet := []string{"A", "/", "=", "\n", "\r", "-", " "}
	var walk func(s string, n int)
	walk = func(s string, n int) {
		_, err := base64.StdEncoding.DecodeString(s)
		assert.Equal(t, err == nil, re.MatchString(s), "%q", s)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			walk(s+c, n-1)
		}
	}
	walk("", 5)
	for _, s := range []string{"AAEC", "AAECAw==", "AAECAwQ=", "QUJD\nREVG\r\n", "AA==AA==", "AAA", "=AAA"} {
		_, err := base64.StdEncoding.DecodeString(s)
		assert.Equal(t, err == nil, re.MatchString(s), "%q", s)
	}
}
