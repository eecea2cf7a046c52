package schema

import (
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strings"
)

// allOf is the schema of the values that satisfy every one of xs: their
// keywords side by side where they do not overlap, an allOf where they do.
// It never modifies xs.
func allOf(xs ...*Schema) *Schema {
	var out *Schema
	for _, x := range xs {
		switch {
		case x == nil || x.isTrue():
			continue
		case x.IsFalse():
			return False()
		case out == nil:
			out = x
		default:
			out = merge(out, x)
		}
	}
	if out == nil {
		return &Schema{}
	}
	return out
}

// merge returns the keywords of a and b in one schema when none is in both
// (type excepted: the types both allow), else {"allOf": [a, b]}.
func merge(a, b *Schema) *Schema {
	switch {
	case b.isTrue():
		return a
	case a.isTrue():
		return b
	case a.def != nil && b.def != nil,
		// A schema with a name ($anchor) is referred to as it is; a
		// conditional's keywords go together.
		a.Anchor != "" || b.Anchor != "",
		a.conditional() && b.conditional():
		return &Schema{AllOf: []*Schema{a, b}}
	}
	out := a.clone()
	va, vb := reflect.ValueOf(out).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		if !va.Type().Field(i).IsExported() {
			continue
		}
		fa, fb := va.Field(i), vb.Field(i)
		switch {
		case fb.IsZero():
		case fa.IsZero():
			fa.Set(fb)
		case va.Type().Field(i).Name == "Type":
			var both []string
			for _, t := range a.Type {
				switch {
				case slices.Contains(b.Type, t):
				case t == "number" && slices.Contains(b.Type, "integer"),
					t == "integer" && slices.Contains(b.Type, "number"):
					t = "integer" // every integer is a number
				default:
					continue
				}
				if !slices.Contains(both, t) {
					both = append(both, t)
				}
			}
			if len(both) == 0 {
				return False()
			}
			out.Type = both
		default:
			if !tighter(va.Type().Field(i).Name, fa, fb) {
				return &Schema{AllOf: []*Schema{a, b}}
			}
		}
	}
	if b.def != nil {
		out.def = b.def
	}
	// A bound that a tighter exclusive one implies says nothing more.
	if out.Minimum != "" && out.ExclusiveMinimum != "" && !less(out.ExclusiveMinimum, out.Minimum) {
		out.Minimum = ""
	}
	if out.Maximum != "" && out.ExclusiveMaximum != "" && !less(out.Maximum, out.ExclusiveMaximum) {
		out.Maximum = ""
	}
	// A type that the listed values all have says nothing more.
	if out.Type != nil && (out.Enum != nil || out.Const != nil) {
		vals := out.Enum
		if out.Const != nil {
			vals = []json.RawMessage{out.Const}
		}
		if !slices.ContainsFunc(vals, func(v json.RawMessage) bool { return !hasType(v, out.Type) }) {
			out.Type = nil
		}
	}
	return out
}

// conditional reports whether s has one of if, then and else.
func (s *Schema) conditional() bool { return s.If != nil || s.Then != nil || s.Else != nil }

// hasType reports whether the JSON value v has one of the types.
func hasType(v json.RawMessage, types []string) bool {
	t := "number"
	switch v[0] {
	case '"':
		t = "string"
	case 't', 'f':
		t = "boolean"
	case 'n':
		t = "null"
	case '{':
		t = "object"
	case '[':
		t = "array"
	}
	return slices.Contains(types, t) ||
		(t == "number" && slices.Contains(types, "integer") && !strings.ContainsAny(string(v), ".eE"))
}

// anyOf is the schema of the values that satisfy one of xs at least.
func anyOf(xs ...*Schema) *Schema {
	var out []*Schema
	for _, x := range xs {
		switch {
		case x == nil || x.IsFalse():
			continue
		case x.isTrue():
			return &Schema{}
		case len(x.AnyOf) > 0 && x.only("anyOf"):
			out = append(out, x.AnyOf...)
		default:
			out = append(out, x)
		}
	}
	out = joinRanges(out)
	switch len(out) {
	case 0:
		return False()
	case 1:
		return out[0]
	}
	// Values listed one by one: one enum, first.
	var enum []json.RawMessage
	rest := []*Schema{nil}
	for _, x := range out {
		switch {
		case x.Const != nil && x.only("const"):
			enum = append(enum, x.Const)
		case x.Enum != nil && x.only("enum"):
			enum = append(enum, x.Enum...)
		case slices.Equal(x.Type, nullType) && x.only("type"):
			enum = append(enum, json.RawMessage("null"))
		default:
			rest = append(rest, x)
		}
	}
	if len(enum) < 2 {
		return &Schema{AnyOf: out}
	}
	rest[0] = &Schema{Enum: slices.CompactFunc(enum, func(a, b json.RawMessage) bool { return string(a) == string(b) })}
	if len(rest) == 1 {
		return rest[0]
	}
	return &Schema{AnyOf: rest}
}

// not is the schema of the values that fail s.
func not(s *Schema) *Schema {
	switch {
	case s.IsFalse():
		return &Schema{}
	case s.isTrue():
		return False()
	}
	return &Schema{Not: s}
}

var nullType = []string{"null"}

// nullable returns s, made to accept null if ok and to refuse it if not.
func nullable(s *Schema, ok bool) *Schema {
	if ok {
		if acceptsNull(s) {
			return s
		}
		if len(s.Type) > 0 && typeOnly(s) {
			s = s.clone()
			s.Type = append(slices.Clip(s.Type), "null")
			return s
		}
		return anyOf(&Schema{Type: nullType}, s)
	}
	if refusesNull(s) {
		return s
	}
	return allOf(s, &Schema{Not: &Schema{Type: nullType}})
}

// typeOnly reports whether every keyword of s constrains the values of its
// types alone, so that adding a type to s adds all the values of that type.
func typeOnly(s *Schema) bool {
	return s.Enum == nil && s.Const == nil && s.Not == nil && s.AllOf == nil && s.AnyOf == nil &&
		s.OneOf == nil && !s.conditional() && s.Anchor == "" && s.Ref == "" && s.def == nil
}

// acceptsNull reports whether s surely accepts null.
func acceptsNull(s *Schema) bool {
	return s.isTrue() || (slices.Contains(s.Type, "null") && typeOnly(s))
}

// refusesNull reports whether s surely refuses null.
func refusesNull(s *Schema) bool {
	switch {
	case s.def != nil: // a struct: an object
		return true
	case s.IsFalse():
		return true
	case len(s.Type) > 0 && !slices.Contains(s.Type, "null"):
		return true
	case s.Const != nil:
		return string(s.Const) != "null"
	case s.Enum != nil:
		return !slices.ContainsFunc(s.Enum, func(v json.RawMessage) bool { return string(v) == "null" })
	case s.Not != nil && slices.Contains(s.Not.Type, "null") && typeOnly(s.Not):
		return true
	case len(s.AnyOf) > 0:
		return !slices.ContainsFunc(s.AnyOf, func(c *Schema) bool { return !refusesNull(c) })
	case len(s.AllOf) > 0:
		return slices.ContainsFunc(s.AllOf, refusesNull)
	}
	return false
}

// less reports whether the number a is less than b.
func less(a, b json.Number) bool {
	x, okx := new(big.Rat).SetString(string(a))
	y, oky := new(big.Rat).SetString(string(b))
	return okx && oky && x.Cmp(y) < 0
}

// tighter sets fa to the tighter of the bounds fa and fb, if the keyword
// named is a bound; it reports whether it is.
func tighter(name string, fa, fb reflect.Value) bool {
	lower := strings.HasPrefix(name, "Min") || strings.HasPrefix(name, "ExclusiveMin")
	switch name {
	case "Minimum", "Maximum", "ExclusiveMinimum", "ExclusiveMaximum":
		x, okx := new(big.Rat).SetString(fa.String())
		y, oky := new(big.Rat).SetString(fb.String())
		if !okx || !oky {
			return false
		}
		if (y.Cmp(x) > 0) == lower {
			fa.Set(fb)
		}
		return true
	case "MinLength", "MaxLength", "MinItems", "MaxItems", "MinProperties", "MaxProperties":
		if (fb.Elem().Int() > fa.Elem().Int()) == lower {
			fa.Set(fb)
		}
		return true
	case "UniqueItems":
		return true // both true
	}
	return false
}

// joinRanges folds each integer const of xs, alternatives of an anyOf,
// into an integer range beside it that it extends by one ({"const":0} or
// integers 1 to 100: integers 0 to 100), the same values in fewer bytes.
func joinRanges(xs []*Schema) []*Schema {
	for i := 0; i < len(xs); i++ {
		c := xs[i]
		if c.Const == nil || !c.only("const") {
			continue
		}
		n, ok := new(big.Int).SetString(string(c.Const), 10)
		if !ok {
			continue
		}
		for j, r := range xs {
			if j == i || !integerRange(r) {
				continue
			}
			lo, hi := intNumber(r.Minimum), intNumber(r.Maximum)
			var joined *Schema
			switch {
			case lo != nil && new(big.Int).Add(n, big.NewInt(1)).Cmp(lo) == 0:
				joined = r.clone()
				joined.Minimum = json.Number(n.String())
			case hi != nil && new(big.Int).Sub(n, big.NewInt(1)).Cmp(hi) == 0:
				joined = r.clone()
				joined.Maximum = json.Number(n.String())
			default:
				continue
			}
			xs = slices.Clone(xs)
			xs[j] = joined
			xs = slices.Delete(xs, i, i+1)
			i = -1 // start again: the range may take one more
			break
		}
	}
	return xs
}

// integerRange reports whether s is the integers between its minimum and
// maximum and nothing else.
func integerRange(s *Schema) bool {
	if !slices.Equal(s.Type, []string{"integer"}) {
		return false
	}
	ok := true
	s.each(func(k string, _ any) {
		switch k {
		case "type", "minimum", "maximum":
		default:
			ok = false
		}
	})
	return ok && s.def == nil
}

// intNumber is n as an integer, or nil if n is absent or not an integer.
func intNumber(n json.Number) *big.Int {
	if n == "" {
		return nil
	}
	b, ok := new(big.Int).SetString(string(n), 10)
	if !ok {
		return nil
	}
	return b
}
