package bind

import "github.com/toolrpc/toolrpc/internal/scan"

// skipNull consumes a null at b[i], reporting whether there was one.
func skipNull(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == 'n' {
		if end, st := scan.Literal(b, i, "null"); st == scan.OK {
			return end, true
		}
	}
	return i, false
}

// eachElement calls fn for each element of the array at b[i], with its
// index and start, and returns the index past the array. An error from fn
// is returned as is: fn knows the element's path.
func eachElement(b []byte, i int, fn func(j, at int) (int, *Error)) (int, *Error) {
	i = scan.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for j := 0; ; j++ {
		end, fe := fn(j, i)
		if fe != nil {
			return i, fe
		}
		i = scan.SkipSpace(b, end)
		if i >= len(b) {
			return i, syntaxError()
		}
		switch b[i] {
		case ',':
			i = scan.SkipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, syntaxError()
		}
	}
}

// eachSlot calls fn for each of the first n elements of the array at b[i],
// as eachElement does, and skips any more; count is how many there were.
func eachSlot(b []byte, i, n int, fn func(j, at int) (int, *Error)) (end, count int, fe *Error) {
	end, fe = eachElement(b, i, func(j, at int) (int, *Error) {
		count++
		if j >= n {
			return rawEnd(b, at)
		}
		return fn(j, at)
	})
	return end, count, fe
}

// eachMember calls fn for each member of the object at b[i], with its name
// (decoded) and the start of its value, and returns the index past the
// object. An error from fn is returned as is: fn knows the member's path.
func eachMember(b []byte, i int, fn func(key []byte, at int) (int, *Error)) (int, *Error) {
	m := scan.ObjectMembers(b, i)
	for {
		key, at, done, st := m.Next()
		if st != scan.OK {
			return at, syntaxError()
		}
		if done {
			return m.End, nil
		}
		var fe *Error
		if m.End, fe = fn(key, at); fe != nil {
			return at, fe
		}
	}
}

func rawEnd(b []byte, i int) (int, *Error) {
	_, end, fe := rawValue(b, i)
	return end, fe
}
