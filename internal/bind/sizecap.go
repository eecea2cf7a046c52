package bind

import (
	"reflect"
	"strconv"
	"strings"
)

// A slice or map field whose validate tag bounds its length (max=N, lte=N
// or len=N, before any dive) is decoded up to N+1 elements: the rest of
// the array (or object) is scanned, never decoded or held. Validation then
// refuses the field as it would have refused it whole (N+1 is too many
// already), with the same error, so a call of a method that takes at most
// N values costs at most N+1 decoded values however many the peer sends.
// Problems in the elements past N+1 go unreported: the field is refused
// anyway.

// lengthBound is the most elements the validate tag of a field of type t
// lets it hold; ok is false when it bounds none (t is not a slice or a
// map, or a pointer to one, or the tag names no such rule).
func lengthBound(t reflect.Type, tag string) (n int, ok bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k := t.Kind(); k != reflect.Slice && k != reflect.Map {
		return 0, false
	}
	for _, r := range strings.Split(tag, ",") {
		name, param, _ := strings.Cut(r, "=")
		switch name {
		case "dive", "keys":
			return n, ok // what follows is about the elements
		case "max", "lte", "len":
			v, err := strconv.Atoi(param)
			if err != nil || v < 0 {
				continue // not a length: validation says what it is
			}
			if !ok || v < n {
				n, ok = v, true
			}
		}
	}
	return n, ok
}

// boundedDecoder is dec for a field that holds at most n elements: the
// slice or map it decodes takes the first n+1 (see decodeState.most).
func boundedDecoder(dec decodeFunc, n int) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		d.most = n + 1
		return dec(d, b, i, v)
	}
}
