package bind

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// Error is one problem with params: the JSON path of the value at fault,
// the rule it breaks and what is wrong, the parts of a service.FieldError.
// What the peer sent (a member name, a map key, a value) is repeated in it
// at most codec.MaxEcho bytes at a time, shortened by jsonx.Echo; the texts
// are not otherwise bounded (package service bounds them).
type Error struct {
	// Field is the JSON path of the value at fault (items[2].qty), or ""
	// for the params as a whole. Map keys, and member names that are empty
	// or hold '.', '[' or ']', are quoted as JSON strings in brackets:
	// tags["a.b"].
	Field string
	// Rule is what decoding found: type (a value of the wrong JSON type),
	// range (a number that does not fit), unknown (a member that matches
	// no field), duplicate (a member given twice), count (the wrong number
	// of params, none at all included, or of array elements), syntax (not
	// JSON).
	Rule string
	// Param is the rule's parameter: the type or the count expected.
	Param string
	// Message says what is wrong, in English.
	Message string

	path []string // segments, innermost first, while decoding

	// also are the further problems found after this one, in the order of
	// the input, at most MaxErrors-1 of them; omitted counts the rest.
	also    []*Error
	omitted int
}

// MaxErrors is the most problems one decoding reports (this one and
// [Error.Others]); those beyond it are only counted ([Error.Omitted]).
// Package service lists as many (its MaxFieldErrors).
const MaxErrors = 100

// Others returns the further problems that decoding found after e, in the
// order of the input: the members of an object are all decoded, and each
// one that is unknown, given twice or cannot be decoded is a problem of
// its own. An array, a map or positional params stop at their first.
func (e *Error) Others() []*Error { return e.also }

// Omitted is how many problems were found beyond the MaxErrors reported.
func (e *Error) Omitted() int { return e.omitted }

// gather adds the problem fe (with its others), if any, to the list first
// began, or begins it with fe: bounded by MaxErrors, counting the rest.
func gather(first, fe *Error) *Error {
	if fe == nil {
		return first
	}
	if first == nil {
		return fe
	}
	first.omitted += fe.omitted
	for _, x := range append([]*Error{fe}, fe.also...) {
		if len(first.also) < MaxErrors-1 {
			x.also, x.omitted = nil, 0
			first.also = append(first.also, x)
		} else {
			first.omitted++
		}
	}
	fe.also = nil
	return first
}

// Error returns the path at fault, if any, and the message.
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// under records that the error lies under the path segment seg (a field
// name, or "[2]", or `["key"]`), and returns e.
func (e *Error) under(seg string) *Error {
	e.path = append(e.path, seg)
	for _, x := range e.also {
		x.path = append(x.path, seg)
	}
	return e
}

// finish sets Field from the segments gathered, in e and its others.
func (e *Error) finish() {
	for _, x := range e.also {
		x.finish()
	}
	if len(e.path) == 0 {
		return
	}
	n := len(e.Field)
	for _, seg := range e.path {
		n += len(seg) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(e.Field)
	for i := len(e.path) - 1; i >= 0; i-- {
		if seg := e.path[i]; b.Len() > 0 && seg != "" && seg[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(e.path[i])
	}
	e.Field, e.path = b.String(), nil
}

// quoted is a string a peer sent, shortened by jsonx.Echo and quoted as a
// JSON string: how an Error names a key or a value.
func quoted[T ~string | ~[]byte](s T) string {
	return string(jsonx.AppendString(nil, jsonx.Echo(s)))
}

// keyError says why a map key could not be parsed: for a number, the reason
// alone (strconv's text repeats the whole key).
func keyError(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err.Error()
	}
	return err.Error()
}

// rangeError reports the number tok, which does not fit in type t.
func rangeError(tok []byte, t reflect.Type) *Error {
	return &Error{Rule: "range", Param: t.String(), Message: jsonx.Echo(tok) + " does not fit in " + t.String()}
}

// jsonType names the JSON type of the token that starts at b[i].
func jsonType(b []byte, i int) string {
	if i >= len(b) {
		return "nothing"
	}
	switch b[i] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// typeError answers for a value that is not of the kind wanted, null
// included: null binds only where Go has a null (a pointer, a slice, an
// interface, json.RawMessage, a type that decodes itself), never into a
// string, a number, a boolean, a struct, an array or a map, as the
// schemas of package schema say.
func typeError(b []byte, i int, want string) (int, *Error) {
	return i, &Error{Rule: "type", Param: want, Message: fmt.Sprintf("expected %s, got %s", article(want), jsonType(b, i))}
}

// article puts "a" or "an" before s.
func article(s string) string {
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}

// syntaxError reports input that is not valid JSON (only possible when the
// params did not come through package codec).
func syntaxError() *Error {
	return &Error{Rule: "syntax", Message: "params are not valid JSON"}
}

// Path segments of an Error, innermost last.
func indexSegment(j int) string { return "[" + strconv.Itoa(j) + "]" }

// keySegment is the segment of a map key or an odd member name: the name
// (shortened by jsonx.Echo) quoted as a JSON string, in brackets.
func keySegment(name []byte) string { return "[" + quoted(name) + "]" }

// fieldSegment is the segment of an unknown member: its name (shortened by
// jsonx.Echo), or keySegment when it could not be read back as one segment
// (empty, or holding '.', '[' or ']').
func fieldSegment(name []byte) string {
	if len(name) == 0 || bytes.ContainsAny(name, ".[]") {
		return keySegment(name)
	}
	return jsonx.Echo(name)
}

// countError reports want positional params where got were given.
func countError(want, got int) *Error {
	noun := "params"
	if want == 1 {
		noun = "param"
	}
	return &Error{Rule: "count", Param: strconv.Itoa(want),
		Message: fmt.Sprintf("expected %d positional %s, got %d", want, noun, got)}
}

// duplicate reports a member given twice, as key.
func duplicate(key []byte) *Error {
	return &Error{Rule: "duplicate", Message: "member " + quoted(key) + " given more than once"}
}
