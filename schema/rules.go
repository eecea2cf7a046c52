package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// apply is the schema of the non-null JSON values of type t that pass the
// validate steps (with the rules of the structs they hold), and the steps
// it does not express exactly (as written). viaPtr: t was reached through
// a pointer.
func (b *build) apply(t reflect.Type, steps []step, viaPtr bool) (*Schema, []string, error) {
	for t.Kind() == reflect.Pointer {
		t, viaPtr = t.Elem(), true
	}
	if len(steps) == 0 {
		s, err := b.shape(t, true)
		return s, nil, err
	}
	st, rest := steps[0], steps[1:]
	switch st.kind {
	case stepOmitEmpty, stepOmitZero, stepOmitNil:
		skip, exact, err := b.skipSet(t, st.kind, viaPtr)
		if err != nil {
			return nil, nil, err
		}
		s, partial, err := b.apply(t, rest, viaPtr)
		if !exact {
			partial = append([]string{st.raw}, partial...)
		}
		return anyOf(skip, s), partial, err
	case stepStructOnly, stepNoStructLevel:
		// The struct's fields go unchecked, and the steps after it.
		s, err := b.shape(t, false)
		return s, nil, err
	case stepDive:
		return b.dive(t, st, rest)
	}
	kw, exact, err := b.rules(t, viaPtr, st.alts)
	if err != nil {
		return nil, nil, err
	}
	s, partial, err := b.apply(t, rest, viaPtr)
	if !exact {
		partial = append([]string{st.raw}, partial...)
	}
	return allOf(kw, s), partial, err
}

// dive applies the steps after a dive to each element of t, or to each
// value of a map (and the steps between keys and endkeys to each key).
func (b *build) dive(t reflect.Type, st step, rest []step) (*Schema, []string, error) {
	var partial []string
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		items, err := b.value(t.Elem(), joinSteps(rest), true, false)
		if err != nil {
			return nil, nil, err
		}
		if isBytes(t) && len(rest) > 0 {
			partial = append(partial, st.raw) // the base64 form goes unchecked
		}
		return arrayOf(t, items), partial, nil
	case reflect.Map:
		keys, err := keyShape(t.Key())
		if err != nil {
			return nil, nil, err
		}
		if len(st.keys) > 0 {
			if t.Key().Kind() == reflect.String && classOf(t.Key()) == cString {
				var kp []string
				if keys, kp, err = b.apply(t.Key(), st.keys, false); err != nil {
					return nil, nil, err
				}
				partial = append(partial, kp...)
			} else {
				partial = append(partial, st.raw)
			}
		}
		values, err := b.value(t.Elem(), joinSteps(rest), true, false)
		if err != nil {
			return nil, nil, err
		}
		return &Schema{Type: []string{"object"}, AdditionalProperties: values, PropertyNames: keys}, partial, nil
	}
	// validator panics: dive is for slices, arrays and maps.
	s, err := b.shape(t, true)
	return s, []string{st.raw}, err
}

// rules is the schema of the non-null values of t (not a pointer) that
// pass one of the alternatives (a|b). Not exact: a necessary condition.
func (b *build) rules(t reflect.Type, viaPtr bool, alts []rule) (*Schema, bool, error) {
	var ss []*Schema
	exact := true
	for _, r := range alts {
		s, ok, err := b.rule(t, viaPtr, r)
		if err != nil {
			return nil, false, err
		}
		ss = append(ss, s)
		exact = exact && ok
	}
	return anyOf(ss...), exact, nil
}

// rule is the schema of the non-null values of t (not a pointer) that
// pass r, and whether it is exact; when not, it is a necessary condition
// (possibly none).
func (b *build) rule(t reflect.Type, viaPtr bool, r rule) (*Schema, bool, error) {
	c := classOf(t)
	switch r.name {
	case "required", "isdefault":
		skip, exact, err := b.skipSet(t, stepOmitEmpty, viaPtr)
		if err != nil || !exact {
			return &Schema{}, false, err
		}
		switch {
		case r.name == "isdefault":
			return skip, true, nil
		case string(skip.Const) == `""` && c == cString:
			return &Schema{MinLength: intp(1)}, true, nil
		case string(skip.Const) == "false" && c == cBool:
			return &Schema{Const: json.RawMessage("true")}, true, nil
		}
		return not(skip), true, nil
	case "len", "min", "max", "gt", "gte", "lt", "lte", "eq", "ne":
		s, ok := compare(t, c, r)
		return s, ok, nil
	case "oneof":
		s, ok := oneOf(c, r)
		return s, ok, nil
	case "unique":
		s, ok := unique(t, c, r)
		return s, ok, nil
	}
	if c == cString {
		if s, exact, ok := stringRule(r); ok {
			return s, exact, nil
		}
	}
	return &Schema{}, false, nil
}

// compare maps the rules that compare a number, or a length, with their
// parameter.
func compare(t reflect.Type, c class, r rule) (*Schema, bool) {
	switch c {
	case cString:
		switch r.name {
		case "eq":
			return &Schema{Const: jsonString(r.param)}, true
		case "ne":
			return not(&Schema{Const: jsonString(r.param)}), true
		}
		return lengths(r, "string")
	case cSlice, cBytes:
		s, ok := lengths(r, "array")
		return s, ok && c == cSlice // a base64 string's length goes unchecked
	case cMap:
		return lengths(r, "object")
	case cArray:
		// The length is the type's: the rule always passes or always fails.
		s, ok := lengths(r, "array")
		switch {
		case !ok:
			return s, false
		case accepts(s, t.Len()):
			return &Schema{}, true
		}
		return False(), true
	case cBool:
		if p, err := strconv.ParseBool(r.param); err == nil && (r.name == "eq" || r.name == "ne") {
			s := &Schema{Const: json.RawMessage(strconv.FormatBool(p))}
			if r.name == "ne" {
				s = not(s)
			}
			return s, true
		}
	case cInt, cUint, cFloat:
		if n, ok := bound(t, c, r.param); ok {
			return numeric(r.name, n), true
		}
	}
	return &Schema{}, false // validator panics, or a time.Time (compared with now)
}

// bound parses a rule's parameter as validator does for a value of t.
func bound(t reflect.Type, c class, p string) (json.Number, bool) {
	switch c {
	case cInt:
		if t == durationType {
			if d, err := time.ParseDuration(p); err == nil {
				return json.Number(strconv.FormatInt(int64(d), 10)), true
			}
		}
		n, err := strconv.ParseInt(p, 0, 64)
		return json.Number(strconv.FormatInt(n, 10)), err == nil
	case cUint:
		n, err := strconv.ParseUint(p, 0, 64)
		return json.Number(strconv.FormatUint(n, 10)), err == nil
	}
	f, err := strconv.ParseFloat(p, t.Bits())
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, t.Bits())), true
}

func numeric(name string, n json.Number) *Schema {
	switch name {
	case "min", "gte":
		return &Schema{Minimum: n}
	case "max", "lte":
		return &Schema{Maximum: n}
	case "gt":
		return &Schema{ExclusiveMinimum: n}
	case "lt":
		return &Schema{ExclusiveMaximum: n}
	case "ne":
		return not(&Schema{Const: json.RawMessage(n)})
	}
	return &Schema{Const: json.RawMessage(n)} // eq, len
}

// lengths maps a rule on a length (of a string in characters, of an
// array, of an object's members) to keywords on values of type typ.
func lengths(r rule, typ string) (*Schema, bool) {
	n, err := strconv.ParseInt(r.param, 0, 64)
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return &Schema{}, false
	}
	lo, hi := int64(0), int64(math.MaxInt64) // MaxInt64: no upper bound
	switch r.name {
	case "len", "eq", "ne":
		lo, hi = n, n
	case "min", "gte":
		lo = n
	case "gt":
		lo = n + 1
	case "max", "lte":
		hi = n
	case "lt":
		hi = n - 1
	}
	lo = max(lo, 0)
	if hi < lo { // no length passes
		if r.name == "ne" {
			return &Schema{}, true
		}
		return False(), true
	}
	s := &Schema{}
	minp, maxp := &s.MinLength, &s.MaxLength
	switch typ {
	case "array":
		minp, maxp = &s.MinItems, &s.MaxItems
	case "object":
		minp, maxp = &s.MinProperties, &s.MaxProperties
	}
	if lo > 0 {
		*minp = intp(int(lo))
	}
	if hi != math.MaxInt64 {
		*maxp = intp(int(hi))
	}
	if r.name == "ne" {
		s.Type = []string{typ} // what is not of the type passes
		return not(s), true
	}
	return s, true
}

// accepts reports whether a schema on a length alone accepts length n.
func accepts(s *Schema, n int) bool {
	switch {
	case s.IsFalse():
		return false
	case s.Not != nil:
		return !accepts(s.Not, n)
	}
	return (s.MinItems == nil || n >= *s.MinItems) && (s.MaxItems == nil || n <= *s.MaxItems)
}

// oneOf maps oneof: a string or integer among the parameter's values
// (separated by spaces; quoted in single quotes when holding spaces).
func oneOf(c class, r rule) (*Schema, bool) {
	if c != cString && c != cInt && c != cUint {
		return &Schema{}, false // validator panics
	}
	var enum []json.RawMessage
	for _, v := range oneofValues.FindAllString(r.param, -1) {
		v = strings.ReplaceAll(v, "'", "")
		switch c {
		case cString:
			enum = append(enum, jsonString(v))
		case cInt:
			// validator compares the value's decimal text: "+1" or "01" never match.
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && strconv.FormatInt(n, 10) == v {
				enum = append(enum, json.RawMessage(v))
			}
		case cUint:
			if n, err := strconv.ParseUint(v, 10, 64); err == nil && strconv.FormatUint(n, 10) == v {
				enum = append(enum, json.RawMessage(v))
			}
		}
	}
	if len(enum) == 0 {
		return False(), true
	}
	return &Schema{Enum: enum}, true
}

var oneofValues = regexp.MustCompile(`'[^']*'|\S+`)

// unique maps unique on a slice or array: no two elements equal. Where the
// binder made two different JSON values equal, uniqueItems alone would say
// too little; where it makes equal JSON values different (two pointers to
// structs), it would say too much.
func unique(t reflect.Type, c class, r rule) (*Schema, bool) {
	if r.param != "" || (c != cSlice && c != cArray && c != cBytes) {
		return &Schema{}, false
	}
	e := t.Elem()
	if c == cBytes {
		return &Schema{UniqueItems: true}, false
	}
	if e.Kind() == reflect.Pointer {
		if scalar(e.Elem()) {
			return &Schema{UniqueItems: true}, true
		}
		if sameWhenEqual(e.Elem()) {
			return &Schema{UniqueItems: true}, false
		}
		return &Schema{}, false
	}
	if scalar(e) {
		// Null is refused for a scalar: equal Go values come from equal
		// JSON values only, so uniqueItems says it all.
		return &Schema{UniqueItems: true}, true
	}
	if sameWhenEqual(e) {
		return &Schema{UniqueItems: true}, false
	}
	return &Schema{}, false
}

func scalar(t reflect.Type) bool {
	switch classOf(t) {
	case cBool, cInt, cUint, cFloat, cString:
		return true
	}
	return false
}

// sameWhenEqual reports whether equal JSON values decode into equal Go
// values of t (or into values validator cannot compare, and so refuses).
func sameWhenEqual(t reflect.Type) bool {
	switch classOf(t) {
	case cBool, cInt, cUint, cFloat, cString, cSlice, cBytes, cMap, cIface:
		return true
	case cArray:
		return sameWhenEqual(t.Elem())
	case cStruct:
		for i := range t.NumField() {
			if !sameWhenEqual(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false // pointers, and the types that decode themselves
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
