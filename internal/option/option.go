// Package option holds the one rule the module's options share: a value
// that is zero or negative means the option's default.
package option

import "time"

// PositiveOr is v, or def when v is zero or negative.
func PositiveOr[T int | int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
