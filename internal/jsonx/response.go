package jsonx

import "unicode/utf8"

// StreamChunk is the size of the pieces [StringResponse] makes.
const StreamChunk = 32 << 10

// resultStart is how a response with a result starts, its members in the
// specification's order.
const resultStart = `{"jsonrpc":"2.0","result":`

// AppendID appends the id member that ends a message, and the closing
// brace: a nil id is written as null.
func AppendID(dst, id []byte) []byte {
	dst = append(dst, `,"id":`...)
	if id == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, id...)
	}
	return append(dst, '}')
}

// StringResponse makes the response that answers id with v in pieces of
// about StreamChunk bytes, in buf, handing each to emit: the line is the one
// codec.AppendResponse makes of v, and its text is never copied whole.
func StringResponse(buf, id []byte, v StringIn, emit func([]byte) error) error {
	buf = append(buf, resultStart...)
	buf = append(append(buf, v.before...), '"')
	s := v.text
	for len(s) > 0 {
		n := min(len(s), StreamChunk)
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n-- // never split a character: its escape depends on all of it
		}
		if n == 0 {
			n = min(len(s), StreamChunk) // no character starts nearby: invalid bytes
		}
		buf = AppendStringBody(buf, s[:n])
		if err := emit(buf); err != nil {
			return err
		}
		buf, s = buf[:0], s[n:]
	}
	buf = append(append(buf, '"'), v.after...)
	return emit(AppendID(buf, id))
}

// StringResponseLen is the length of the line StringResponse makes, counted
// without making it: the escaped text is counted by [StringBodyLen].
func StringResponseLen(id []byte, v StringIn) int {
	n := len(resultStart+`""`) + len(v.before) + StringBodyLen(v.text) + len(v.after) + len(`,"id":}`) + len(id)
	if id == nil {
		n += len("null")
	}
	return n
}

// SizeHint is about the length of the line StringResponse makes, counted
// at no cost: the text as it is, before escaping.
func (v StringIn) SizeHint(id []byte) int {
	return len(resultStart+`"","id":}`) + len(v.before) + len(v.text) + len(v.after) + len(id)
}
