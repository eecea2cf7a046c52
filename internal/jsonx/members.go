package jsonx

import "github.com/toolrpc/toolrpc/internal/scan"

// ObjectMember scans the object at frame[i] == '{', depth containers deep
// (one nested deeper than maxDepth stops the scan with scan.TooDeep), and
// finds the value of its member called name (the last one, if repeated).
func ObjectMember(frame []byte, i, depth, maxDepth int, name string) (end int, found []byte, st scan.Status) {
	if depth+1 > maxDepth {
		return i, nil, scan.TooDeep
	}
	mem := scan.ObjectMembers(frame, i)
	for {
		key, at, done, st := mem.Next()
		if st != scan.OK {
			return at, nil, st
		}
		if done {
			return mem.End, found, scan.OK
		}
		if mem.End, st = scan.Value(frame, at, depth+1, maxDepth); st != scan.OK {
			return mem.End, nil, st
		}
		if string(key) == name {
			found = frame[at:mem.End]
		}
	}
}

// Member returns the raw value of the member called name of the JSON object
// obj (the last one, if the name is repeated), or nil when obj has no such
// member or is not a valid JSON object.
func Member(obj []byte, name string) []byte {
	i := scan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	end, v, st := ObjectMember(obj, i, 0, scan.Unlimited, name)
	if st != scan.OK || scan.SkipSpace(obj, end) != len(obj) {
		return nil
	}
	return v
}

// CheckedMembers is [Members] for an object the codec has already checked
// (a message codec.Decoder decoded: its params or _meta): its values are skipped, not
// checked again, so that a long one costs a search for its end. Of a name
// given twice, the last is kept, as Members keeps it.
func CheckedMembers(obj []byte, names []string, values [][]byte) {
	members(obj, names, values, false)
}

// Members is [Member] for several names in one scan: it sets values[i] to
// the raw value of the member called names[i] (nil when absent), and
// reports whether obj is a valid JSON object (when it is not, every value
// is nil). values must be as long as names.
func Members(obj []byte, names []string, values [][]byte) bool {
	return members(obj, names, values, true)
}

// members is Members when check, and CheckedMembers (values skipped, the
// object taken as valid) when not.
func members(obj []byte, names []string, values [][]byte, check bool) bool {
	clear(values)
	i := scan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	mem := scan.ObjectMembers(obj, i)
	for {
		key, at, done, st := mem.Next()
		if st != scan.OK {
			break
		}
		if done {
			if !check || scan.SkipSpace(obj, mem.End) == len(obj) {
				return true
			}
			break
		}
		if !check {
			mem.End = scan.Skip(obj, at)
		} else if mem.End, st = scan.Value(obj, at, 1, scan.Unlimited); st != scan.OK {
			break
		}
		for j, name := range names {
			if string(key) == name {
				values[j] = obj[at:mem.End]
			}
		}
	}
	if check {
		clear(values)
	}
	return false
}

// IsID reports whether tok is a valid JSON-RPC id token: a string, a number
// or null.
func IsID(tok []byte) bool {
	if len(tok) == 0 {
		return false
	}
	switch c := tok[0]; {
	case c == '"', c == 'n', c == '-', scan.IsDigit(c):
		return true
	}
	return false
}
