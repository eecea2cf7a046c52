package scan

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
)

func TestInteger(t *testing.T) {
	zeros := strings.Repeat("0", 1<<20)
	for _, c := range []struct {
		tok string
		neg bool
		mag uint64
		st  IntStatus
	}{
		{"0", false, 0, Int},
		{"-0", false, 0, Int},
		{"-0.0", false, 0, Int},
		{"0e5", false, 0, Int},
		{"0.000e-999999999999999999999", false, 0, Int},
		{"3", false, 3, Int},
		{"3.0", false, 3, Int},
		{"3e0", false, 3, Int},
		{"3E+0", false, 3, Int},
		{"0.3e1", false, 3, Int},
		{"30e-1", false, 3, Int},
		{"-3.000", true, 3, Int},
		{"2.5", false, 0, Fraction},
		{"-2.5", true, 0, Fraction},
		{"1e-400", false, 0, Fraction},
		{"0.1", false, 0, Fraction},
		{"10.01e1", false, 0, Fraction},
		{"10.01e2", false, 1001, Int},
		{"14278.0", false, 14278, Int},
		{"14278e0", false, 14278, Int},
		{"1e21", false, 0, Huge},
		{"1e400", false, 0, Huge},
		{"1.5e400", false, 0, Huge},
		{"-1e999999999", true, 0, Huge},
		{"1e99999999999999999999999999999999", false, 0, Huge},
		{"9007199254740993.0", false, 9007199254740993, Int},
		{"1.8446744073709551615e19", false, 18446744073709551615, Int},
		{"18446744073709551615", false, 18446744073709551615, Int},
		{"18446744073709551616", false, 0, Huge},
		{"1.8446744073709551616e19", false, 0, Huge},
		{"9223372036854775808.0", false, 9223372036854775808, Int},
		{"0." + zeros + "1e1000000", false, 0, Fraction},
		{"0." + zeros + "1e1048577", false, 1, Int},
		{"1" + zeros, false, 0, Huge},
		{"1" + zeros + "e-1048576", false, 1, Int},
		{"1" + zeros + "e-1048577", false, 0, Fraction},
	} {
		neg, mag, st := Integer([]byte(c.tok))
		if neg != c.neg || mag != c.mag || st != c.st {
			t.Errorf("Integer(%.40s) = %v, %d, %d; want %v, %d, %d", c.tok, neg, mag, st, c.neg, c.mag, c.st)
		}
	}
}

func TestInt64Uint64(t *testing.T) {
	for _, c := range []struct {
		tok string
		i   int64
		iok bool
		u   uint64
		uok bool
	}{
		{"0", 0, true, 0, true},
		{"-0.0", 0, true, 0, true},
		{"-1", -1, true, 0, false},
		{"-1.0e0", -1, true, 0, false},
		{"9223372036854775807", 1<<63 - 1, true, 1<<63 - 1, true},
		{"9223372036854775808.0", 0, false, 1 << 63, true},
		{"-9223372036854775808", -1 << 63, true, 0, false},
		{"-9.223372036854775808e18", -1 << 63, true, 0, false},
		{"-9223372036854775809", 0, false, 0, false},
		{"1.8446744073709551615e19", 0, false, 1<<64 - 1, true},
		{"2.5", 0, false, 0, false},
	} {
		i, iok := Int64([]byte(c.tok))
		u, uok := Uint64([]byte(c.tok))
		if i != c.i || iok != c.iok || u != c.u || uok != c.uok {
			t.Errorf("%s: Int64 %d %v, Uint64 %d %v; want %d %v, %d %v", c.tok, i, iok, u, uok, c.i, c.iok, c.u, c.uok)
		}
	}
}

// TestIntegerLinear holds the cost of the worst tokens to a few passes
// over them: counted in bytes read is not possible from outside, so the
// token is made large enough that anything worse than linear (a big.Int
// of 10^1000000000, say) would not finish, and the test's own deadline
// (go test -timeout) is the bound; no wall clock is asserted.
func TestIntegerLinear(t *testing.T) {
	toks := [][]byte{
		[]byte("1e" + strings.Repeat("9", 1<<20)),
		[]byte("0." + strings.Repeat("0", 1<<22) + "1e" + strings.Repeat("9", 1<<20)),
		append([]byte("1."), bytes.Repeat([]byte("0"), 1<<22)...),
	}
	want := []IntStatus{Huge, Huge, Int}
	for k, tok := range toks {
		if _, _, st := Integer(tok); st != want[k] {
			t.Errorf("token %d: %d, want %d", k, st, want[k])
		}
	}
}

// FuzzInteger is differential: Integer agrees with math/big's exact
// reading of the token (big.Rat SetString) on every valid JSON number
// whose exponent big.Rat can take.
func FuzzInteger(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "3.0", "3e0", "2.5", "1e21", "9007199254740993.0",
		"1.8446744073709551615e19", "18446744073709551616", "-9.223372036854775808e18", "30e-1", "0.3e1", "1e-3"} {
		f.Add([]byte(s))
	}
	limit := new(big.Int).SetUint64(1<<64 - 1)
	f.Fuzz(func(t *testing.T, tok []byte) {
		if end, st := Number(tok, 0); st != OK || end != len(tok) {
			return
		}
		if e := bytes.IndexAny(tok, "eE"); e >= 0 && len(bytes.TrimLeft(tok[e+1:], "+-0")) > 4 {
			return // an exponent big.Rat would spend too long on
		}
		r, ok := new(big.Rat).SetString(string(tok))
		if !ok {
			t.Fatalf("big.Rat refuses %s", tok)
		}
		neg, mag, st := Integer(tok)
		switch {
		case !r.IsInt():
			if st != Fraction {
				t.Fatalf("%s: %v %d %d, want Fraction", tok, neg, mag, st)
			}
		case r.Num().CmpAbs(limit) > 0:
			if st != Huge {
				t.Fatalf("%s: %v %d %d, want Huge", tok, neg, mag, st)
			}
		default:
			want := new(big.Int).SetUint64(mag)
			if neg {
				want.Neg(want)
			}
			if st != Int || want.Cmp(r.Num()) != 0 || (neg && mag == 0) {
				t.Fatalf("%s: %v %d %d, want %s", tok, neg, mag, st, r.Num())
			}
		}
	})
}
