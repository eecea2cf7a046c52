package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/scan"
)

// ErrFormAnswer is wrapped by the error of [Elicit] when the user's
// accepted answer does not fit the form it was asked with: a required
// field missing, or a value of the wrong type, out of its bounds, or not
// one of its choices, or a member named as a field but for case.
var ErrFormAnswer = errors.New("mcp: the answer does not fit the form")

// Check reports whether res, the user's answer to the form p (read with
// [InputResponse], say, when a tool asks several things at once with
// [ElicitRequest]), fits it: nil when it does, when it was declined or
// cancelled, or when res is nil; otherwise an error wrapping
// [ErrFormAnswer] that says why, as [Elicit] checks its answer.
func (p *ElicitParams) Check(res *ElicitResult) error {
	if res == nil || !res.Accepted() {
		return nil
	}
	return p.fits(res.Content)
}

// fits checks an accepted answer's values against the form's fields, as
// the requestedSchema sent for them says (JSON Schema 2020-12): the
// required fields are present, and each value present has its field's
// type and keeps its bounds (minLength and maxLength counted in
// characters, minimum and maximum, an integer's lack of a fraction,
// minItems and maxItems) and choices (enum, oneOf, items); whether a
// number is an integer is read exactly in decimal, as the params binder
// reads it (3.0 and 3e0 are integers; 2.5, 9007199254740993.5 and 1e-400
// are not), and numbers are compared with their bounds as the float64
// they decode to (one beyond its range does not fit; one too small for it
// is 0). A member that names no
// field is allowed, as the schema allows it, but for one whose
// name equals a field's but for case, which Decode would take for the
// field (stricter than the schema); a string's format
// is not checked (in JSON Schema 2020-12 it is an annotation). content
// is an object whose values are strings, numbers, booleans or arrays of
// strings (shaped checked it), or nil (none were sent). Its cost is
// linear in content's length, and it holds nothing of it but the fields'
// values: the members are scanned, not decoded (a multi-choice's items
// too, each looked up in a set of the field's values).
func (p *ElicitParams) fits(content json.RawMessage) error {
	fields := make(map[string]bool, len(p.Fields))
	folded := make(map[string]string, len(p.Fields))
	for _, f := range p.Fields {
		fields[f.fieldName()] = true
		folded[foldCase(f.fieldName())] = f.fieldName()
	}
	// One scan of the members, keeping the fields' values (the last of a
	// member given twice, as Decode takes it) and the first member folded
	// to a field's name: nothing held for the others, however many.
	values := make(map[string]json.RawMessage, len(p.Fields))
	var misnamed error
	var buf [64]byte // a member's name folded, most often without allocating
	if content != nil && string(content) != "null" && !eachMember(content, func(name, v []byte) bool {
		switch field, ok := folded[string(appendFold(buf[:0], name))]; {
		case fields[string(name)]:
			values[string(name)] = v
		case ok && misnamed == nil:
			misnamed = fmt.Errorf("%w: member %q is not field %q but would be decoded as it", ErrFormAnswer, name, field)
		}
		return true
	}) {
		return fmt.Errorf("%w: the content is not a JSON object", ErrFormAnswer)
	}
	for _, name := range p.Required {
		if _, ok := values[name]; !ok {
			return fmt.Errorf("%w: field %q is required", ErrFormAnswer, name)
		}
	}
	for _, f := range p.Fields {
		v, ok := values[f.fieldName()]
		if !ok {
			continue
		}
		if why := fieldFits(f, v); why != "" {
			return fmt.Errorf("%w: field %q %s", ErrFormAnswer, f.fieldName(), why)
		}
	}
	// A member whose name is not a field's but equals one but for case
	// (Unicode simple folding, as strings.EqualFold) is refused: the
	// answer's Decode into a struct would take its value for the
	// field's, unchecked, as encoding/json matches names so.
	return misnamed
}

// eachMember calls f with the name and the value of each member of the
// JSON object obj, in order, as long as f returns true, and reports
// whether obj is a valid JSON object whose every member f took. It holds
// nothing: a name with escapes is unquoted anew, the rest are obj's bytes.
func eachMember(obj []byte, f func(name, v []byte) bool) bool {
	i := scan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	mem := scan.ObjectMembers(obj, i)
	for {
		name, at, done, st := mem.Next()
		switch {
		case st != scan.OK:
			return false
		case done:
			return scan.SkipSpace(obj, mem.End) == len(obj)
		}
		if mem.End, st = scan.Value(obj, at, 1, scan.Unlimited); st != scan.OK || !f(name, obj[at:mem.End]) {
			return false
		}
	}
}

// eachItem is eachMember for the items of the JSON array arr.
func eachItem(arr []byte, f func(v []byte) bool) bool {
	i := scan.SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	if i = scan.SkipSpace(arr, i+1); i < len(arr) && arr[i] == ']' {
		return scan.SkipSpace(arr, i+1) == len(arr)
	}
	for {
		end, st := scan.Value(arr, i, 1, scan.Unlimited)
		if st != scan.OK || !f(arr[i:end]) {
			return false
		}
		switch i = scan.SkipSpace(arr, end); {
		case i < len(arr) && arr[i] == ',':
			i = scan.SkipSpace(arr, i+1)
		case i < len(arr) && arr[i] == ']':
			return scan.SkipSpace(arr, i+1) == len(arr)
		default:
			return false
		}
	}
}

// foldCase maps s to a string equal to foldCase(t) exactly when
// strings.EqualFold(s, t): each rune becomes the least of its fold orbit.
func foldCase(s string) string { return string(appendFold(nil, []byte(s))) }

// appendFold appends s to dst as foldCase maps it. An ASCII byte is
// mapped without the Unicode tables: the least of a letter's orbit is
// its upper case (K before k and the Kelvin sign, S before s and ſ).
func appendFold(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		dst = utf8.AppendRune(dst, least)
		i += n
	}
	return dst
}

// plain reports whether the JSON string token tok is its text quoted:
// ASCII with no escape, which decodes to the bytes between its quotes.
func plain(tok []byte) bool {
	for _, c := range tok[1 : len(tok)-1] {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// fieldFits says why the value v does not fit the field f, or "".
func fieldFits(f Field, v json.RawMessage) string {
	var s string
	var b bool
	switch f := f.plain().(type) { // by value, as given or embedded
	case StringField:
		if json.Unmarshal(v, &s) != nil {
			return "must be a string"
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength || f.MaxLength != nil && n > *f.MaxLength {
			return fmt.Sprintf("has %d characters, out of its bounds", n)
		}
	case NumberField:
		if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
			return "must be a number"
		}
		x, err := strconv.ParseFloat(string(v), 64) // a JSON number: shaped checked it
		if err != nil {
			return "is beyond a float64's range"
		}
		if _, _, st := scan.Integer(v); f.Integer && st == scan.Fraction { // exact, not x's rounding
			return "must be an integer"
		}
		if f.Minimum != nil && x < *f.Minimum || f.Maximum != nil && x > *f.Maximum {
			return "is out of its bounds"
		}
	case BooleanField:
		if json.Unmarshal(v, &b) != nil {
			return "must be a boolean"
		}
	case EnumField:
		if json.Unmarshal(v, &s) != nil || !slices.Contains(f.Values, s) {
			return "must be one of its values"
		}
	case MultiEnumField:
		n := 0 // counted first, in a scan: none decoded, however many
		if !eachItem(v, func(item []byte) bool { n++; return item[0] == '"' }) {
			return "must be an array of its values"
		}
		if f.MinItems != nil && n < *f.MinItems || f.MaxItems != nil && n > *f.MaxItems {
			return fmt.Sprintf("has %d items, out of its bounds", n)
		}
		choices := make(map[string]bool, len(f.Values)) // a look-up per item, however many values
		for _, v := range f.Values {
			choices[v] = true
		}
		if !eachItem(v, func(item []byte) bool {
			if plain(item) {
				return choices[string(item[1:len(item)-1])]
			}
			return json.Unmarshal(item, &s) == nil && choices[s] // escapes, or bytes encoding/json replaces
		}) {
			return "must be an array of its values"
		}
	}
	return ""
}
