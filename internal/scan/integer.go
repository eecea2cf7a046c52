package scan

// IntStatus is what [Integer] found a number token to be.
type IntStatus uint8

const (
	Int      IntStatus = iota // an integer whose magnitude fits a uint64
	Fraction                  // not an integer: its fractional part is not zero
	Huge                      // an integer whose magnitude exceeds 2^64-1
)

// Integer reads the valid JSON number token tok (as [Number] scans it)
// exactly, in decimal: whatever its notation, 3, 3.0, 3e0, 0.3e1 and
// 30e-1 are the integer 3, as JSON Schema's "integer" (2020-12 and
// draft-07 alike: a number whose fractional part is zero) reads them.
// It returns the integer's sign and magnitude with [Int], [Fraction] when
// the value has a nonzero fractional part (2.5, 1e-400), or [Huge] when
// it is an integer beyond 2^64-1 in magnitude (1e400). Zero in any
// notation (-0, -0.0, 0e5) is 0 with neg false. No float64 is involved
// (9007199254740993.0 is 9007199254740993), and the cost is linear in
// len(tok) whatever its exponent: an exponent's digits beyond what any
// token could offset saturate instead of growing.
func Integer(tok []byte) (neg bool, mag uint64, st IntStatus) {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(tok) && IsDigit(tok[i]) {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(tok) && tok[i] == '.' {
		i++
		fracStart = i
		for i < len(tok) && IsDigit(tok[i]) {
			i++
		}
		fracEnd = i
	}
	exp := int64(0)
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		expNeg := false
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			expNeg = tok[i] == '-'
			i++
		}
		for ; i < len(tok); i++ {
			if exp < expCap {
				exp = exp*10 + int64(tok[i]-'0')
			}
		}
		exp = min(exp, expCap)
		if expNeg {
			exp = -exp
		}
	}
	// The significant digits are tok[intStart:intEnd] followed by
	// tok[fracStart:fracEnd]; digit k of that sequence is at(k).
	nInt, nFrac := intEnd-intStart, fracEnd-fracStart
	at := func(k int) byte {
		if k < nInt {
			return tok[intStart+k]
		}
		return tok[fracStart+k-nInt]
	}
	first, last := 0, nInt+nFrac // the digits [first, last) without zeros at either end
	for first < last && at(first) == '0' {
		first++
	}
	if first == last {
		return false, 0, Int // zero, whatever its sign and exponent
	}
	for at(last-1) == '0' {
		last--
	}
	// The value is digits[first:last] * 10^scale.
	scale := exp + int64(nInt-last)
	if scale < 0 {
		return neg, 0, Fraction // its last digit is not zero and stands after the point
	}
	if int64(last-first)+scale > 20 {
		return neg, 0, Huge // 21 digits or more: at least 10^20
	}
	for k := first; k < last; k++ {
		d := uint64(at(k) - '0')
		if mag > (maxUint64-d)/10 {
			return neg, 0, Huge
		}
		mag = mag*10 + d
	}
	for ; scale > 0; scale-- {
		if mag > maxUint64/10 {
			return neg, 0, Huge
		}
		mag *= 10
	}
	return neg, mag, Int
}

const (
	maxUint64 = 1<<64 - 1
	// expCap is where an exponent saturates: beyond any token's length,
	// so that no count of digits before or after the point offsets it.
	expCap = 1 << 50
)

// Int64 is [Integer] for a signed 64-bit integer: n and true when tok is
// an integer within the int64 range.
func Int64(tok []byte) (n int64, ok bool) {
	neg, mag, st := Integer(tok)
	switch {
	case st != Int:
		return 0, false
	case neg && mag <= 1<<63:
		return int64(-mag), true // -mag wraps to the two's complement
	case !neg && mag < 1<<63:
		return int64(mag), true
	}
	return 0, false
}

// Uint64 is [Integer] for an unsigned 64-bit integer: n and true when tok
// is an integer within the uint64 range. Zero written negative (-0, -0.0)
// is 0: JSON Schema's "integer" and "minimum": 0 both accept it.
func Uint64(tok []byte) (n uint64, ok bool) {
	neg, mag, st := Integer(tok)
	if st != Int || neg {
		return 0, false
	}
	return mag, true
}
