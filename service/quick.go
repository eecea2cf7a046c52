package service

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// quickRules are the validate rules of one struct type, checked by this
// package itself rather than by the validator: the common rules on
// numbers, strings and booleans (required, omitempty, gt, gte, lt, lte,
// min, max, len, eq, ne, oneof), a few comparisons instead of the
// validator's walk, which parses each rule's parameter anew on every call.
//
// They decide only that params pass: when a check fails, the validator
// validates the value again and describes what is wrong, so the answer is
// the validator's, word for word. A struct has quickRules only when every
// rule it holds is one this file checks exactly as the validator does, and
// only with the Service's own validator (a supplied one may redefine a
// tag): a field of another type (a struct, a pointer, a slice, a map,
// time.Duration, whose rules take durations), another rule, a rule that
// lists alternatives ("|"), a parameter the validator would refuse or read
// otherwise: the validator checks that struct whole, as before. TestQuick
// holds the two to the same verdict.
type quickRules struct {
	fields []quickField
}

// quickField is one field's rules, in the order of its tag.
type quickField struct {
	index int
	rules []quickRule
}

// quickOp is what a quickRule checks.
type quickOp uint8

const (
	opRequired  quickOp = iota // not the zero value
	opOmitEmpty                // the zero value: the rules after it pass
	opEq
	opNe
	opGt
	opGe
	opLt
	opLe
	opOneOf
)

// quickRule is one rule and its parameter, parsed as the validator parses
// it for the field's kind.
type quickRule struct {
	op     quickOp
	length bool     // compare a string's length in runes, not the string
	i      int64    // the parameter, for signed integers and lengths
	u      uint64   // for unsigned integers
	f      float64  // for floats
	b      bool     // for booleans
	s      string   // for strings compared with eq and ne
	set    []string // oneof's values
}

var durationType = reflect.TypeFor[time.Duration]()

// compileQuick returns the quickRules of struct type t, or nil when the
// validator must check it.
func compileQuick(t reflect.Type) *quickRules {
	if t.Kind() != reflect.Struct || t.ConvertibleTo(timeType) {
		return nil
	}
	q := &quickRules{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // the validator walks embedded structs
		}
		if !f.IsExported() {
			continue // the validator skips them
		}
		tag := f.Tag.Get("validate")
		if tag == "-" {
			continue
		}
		if !quickKind(f.Type) {
			return nil
		}
		if tag == "" {
			continue
		}
		var rules []quickRule
		for part := range strings.SplitSeq(tag, ",") {
			r, ok := compileRule(part, f.Type.Kind())
			if !ok {
				return nil
			}
			rules = append(rules, r)
		}
		q.fields = append(q.fields, quickField{index: i, rules: rules})
	}
	return q
}

var timeType = reflect.TypeFor[time.Time]()

// quickKind reports whether the validator checks a field of type t by its
// kind alone: a number, a string or a boolean, but not time.Duration.
func quickKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return t != durationType
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String, reflect.Bool:
		return true
	}
	return false
}

// compileRule parses one comma-separated part of a validate tag for a
// field of kind k.
func compileRule(part string, k reflect.Kind) (quickRule, bool) {
	switch part {
	case "required":
		return quickRule{op: opRequired}, true
	case "omitempty":
		return quickRule{op: opOmitEmpty}, true
	}
	name, param, ok := strings.Cut(part, "=")
	// The validator reads "0x2C" and "0x7C" in a parameter as ',' and '|'.
	if !ok || strings.ContainsAny(part, "|") || strings.Contains(param, "0x2C") || strings.Contains(param, "0x7C") {
		return quickRule{}, false
	}
	var r quickRule
	switch name {
	case "eq", "len":
		r.op = opEq
	case "ne":
		r.op = opNe
	case "gt":
		r.op = opGt
	case "gte", "min":
		r.op = opGe
	case "lt":
		r.op = opLt
	case "lte", "max":
		r.op = opLe
	case "oneof":
		return compileOneOf(param, k)
	default:
		return quickRule{}, false
	}
	var err error
	switch k {
	case reflect.String:
		if name == "eq" || name == "ne" {
			r.s = param // the string itself
			break
		}
		r.length = true // every other rule counts runes
		r.i, err = strconv.ParseInt(param, 0, 64)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.i, err = strconv.ParseInt(param, 0, 64)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		r.u, err = strconv.ParseUint(param, 0, 64)
	case reflect.Float32:
		r.f, err = strconv.ParseFloat(param, 32)
	case reflect.Float64:
		r.f, err = strconv.ParseFloat(param, 64)
	case reflect.Bool:
		if name != "eq" && name != "ne" {
			return quickRule{}, false // the validator panics
		}
		r.b, err = strconv.ParseBool(param)
	}
	return r, err == nil
}

// compileOneOf parses oneof's values, which the validator takes to be the
// runs of characters that are not spaces (or quoted runs, not read here),
// for a string or an integer.
func compileOneOf(param string, k reflect.Kind) (quickRule, bool) {
	switch k {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return quickRule{}, false
	}
	for i := range len(param) {
		if c := param[i]; c != ' ' && (c <= ' ' || c >= 0x7f || c == '\'') {
			return quickRule{}, false
		}
	}
	return quickRule{op: opOneOf, set: strings.Fields(param)}, true
}

// pass reports whether v, a struct of the type q was compiled for, passes
// every rule. false may be wrong in one way only: the validator then
// decides.
func (q *quickRules) pass(v reflect.Value) bool {
	for i := range q.fields {
		f := &q.fields[i]
		fv := v.Field(f.index)
		for j := range f.rules {
			r := &f.rules[j]
			if r.op == opOmitEmpty {
				if fv.IsZero() {
					break
				}
				continue
			}
			if !r.holds(fv) {
				return false
			}
		}
	}
	return true
}

// holds reports whether v passes r.
func (r *quickRule) holds(v reflect.Value) bool {
	if r.op == opRequired {
		return !v.IsZero()
	}
	var c int // v compared with the parameter: -1, 0, 1; 2 when unordered (NaN)
	switch v.Kind() {
	case reflect.String:
		switch {
		case r.op == opOneOf:
			return slices.Contains(r.set, v.String())
		case !r.length:
			c = strings.Compare(v.String(), r.s)
			if c != 0 {
				c = 2 // only eq and ne take strings: unequal is all they ask
			}
		default:
			c = cmp.Compare(int64(utf8.RuneCountInString(v.String())), r.i)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if r.op == opOneOf {
			var buf [20]byte
			return slices.Contains(r.set, string(strconv.AppendInt(buf[:0], v.Int(), 10)))
		}
		c = cmp.Compare(v.Int(), r.i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if r.op == opOneOf {
			var buf [20]byte
			return slices.Contains(r.set, string(strconv.AppendUint(buf[:0], v.Uint(), 10)))
		}
		c = cmp.Compare(v.Uint(), r.u)
	case reflect.Float32, reflect.Float64:
		x := v.Float()
		if x != x || r.f != r.f {
			c = 2 // NaN: every comparison is false, != true
		} else {
			c = cmp.Compare(x, r.f)
		}
	case reflect.Bool:
		if v.Bool() != r.b {
			c = 2
		}
	}
	switch r.op {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opGt:
		return c == 1
	case opGe:
		return c == 0 || c == 1
	case opLt:
		return c == -1
	case opLe:
		return c == 0 || c == -1
	}
	return false
}
