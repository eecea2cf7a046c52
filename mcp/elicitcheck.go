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
// linear in content's length: a multi-choice item is looked up in a set
// of the field's values.
func (p *ElicitParams) fits(content json.RawMessage) error {
	var values map[string]json.RawMessage
	if content != nil {
		if err := json.Unmarshal(content, &values); err != nil {
			return fmt.Errorf("%w: %v", ErrFormAnswer, err)
		}
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
	return p.foldedMembers(values)
}

// foldedMembers refuses a member whose name is not a field's but equals
// one but for case (Unicode simple folding, as strings.EqualFold): the
// answer's Decode into a struct would take its value for the field's,
// unchecked, as encoding/json matches names so. The cost is one fold of
// each name.
func (p *ElicitParams) foldedMembers(values map[string]json.RawMessage) error {
	exact := make(map[string]bool, len(p.Fields))
	folded := make(map[string]string, len(p.Fields))
	for _, f := range p.Fields {
		exact[f.fieldName()] = true
		folded[foldCase(f.fieldName())] = f.fieldName()
	}
	for name := range values {
		if field, ok := folded[foldCase(name)]; ok && !exact[name] {
			return fmt.Errorf("%w: member %q is not field %q but would be decoded as it", ErrFormAnswer, name, field)
		}
	}
	return nil
}

// foldCase maps s to a string equal to foldCase(t) exactly when
// strings.EqualFold(s, t): each rune becomes the least of its fold orbit.
func foldCase(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = utf8.AppendRune(b, least)
	}
	return string(b)
}

// fieldFits says why the value v does not fit the field f, or "".
func fieldFits(f Field, v json.RawMessage) string {
	var s string
	var ss []string
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
		if v[0] != '[' || json.Unmarshal(v, &ss) != nil {
			return "must be an array of its values"
		}
		if f.MinItems != nil && len(ss) < *f.MinItems || f.MaxItems != nil && len(ss) > *f.MaxItems {
			return fmt.Sprintf("has %d items, out of its bounds", len(ss))
		}
		choices := make(map[string]bool, len(f.Values)) // a look-up per item, however many values
		for _, v := range f.Values {
			choices[v] = true
		}
		for _, s := range ss {
			if !choices[s] {
				return "must be an array of its values"
			}
		}
	}
	return ""
}
