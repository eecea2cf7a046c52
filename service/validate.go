package service

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/toolrpc/toolrpc/codec"
)

// FieldError is one problem with a call's params. An InvalidParams error
// carries a list of them as its data:
//
//	{"code":-32602,"message":"Invalid params","data":[
//	  {"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]}
type FieldError struct {
	// Field is the JSON path of the value at fault (items[2].qty), or ""
	// for the params as a whole. Map keys, and member names that are empty
	// or hold '.', '[' or ']', are quoted in brackets: tags["a.b"].
	Field string `json:"field"`
	// Rule is the validation tag that failed (required, ne, max, ...), or
	// what decoding found: type (a value of the wrong JSON type), range (a
	// number that does not fit), unknown (a member that matches no field),
	// duplicate (a member given twice), count (the wrong number of
	// positional params, none at all included, or of array elements),
	// shape (positional params where names are needed, or the reverse),
	// syntax (not JSON).
	Rule string `json:"rule"`
	// Param is the rule's parameter (the 0 of ne=0), or the type expected.
	Param string `json:"param,omitempty"`
	// Message says what is wrong, in English.
	Message string `json:"message"`

	path []string // segments, innermost first, while decoding
}

// under records that the error lies under the path segment seg (a field
// name, or "[2]", or `["key"]`), and returns e.
func (e *FieldError) under(seg string) *FieldError {
	e.path = append(e.path, seg)
	return e
}

// finish sets Field from the segments gathered.
func (e *FieldError) finish() {
	for i := len(e.path) - 1; i >= 0; i-- {
		e.Field = joinPath(e.Field, e.path[i])
	}
	e.path = nil
}

// joinPath appends the path segment or path seg to the path p: items +
// [2] is items[2], items[2] + qty is items[2].qty.
func joinPath(p, seg string) string {
	if p == "" || seg == "" || seg[0] == '[' {
		return p + seg
	}
	return p + "." + seg
}

// invalidParams is the InvalidParams error that carries errs.
func invalidParams(errs ...*FieldError) *codec.Error {
	for _, e := range errs {
		e.finish()
	}
	return codec.NewError(codec.InvalidParams, "").WithData(errs)
}

// hasValidateTags reports whether t, or a type it holds, has a field with a
// validate tag.
func hasValidateTags(t reflect.Type) bool {
	return hasTags(t, map[reflect.Type]bool{})
}

func hasTags(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return false
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("validate"); ok || hasTags(f.Type, seen) {
			return true
		}
	}
	return false
}

// validation runs a validator over decoded params.
type validation struct {
	v *validator.Validate
}

// check validates the struct (or pointer to struct) x, whose JSON path is
// prefix, and returns a FieldError per failure.
func (val validation) check(ctx context.Context, x reflect.Value, prefix string) ([]*FieldError, error) {
	err := val.v.StructCtx(ctx, x.Interface())
	if err == nil {
		return nil, nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return nil, err
	}
	t := x.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := make([]*FieldError, 0, len(verrs))
	for _, fe := range verrs {
		field := joinPath(prefix, jsonPath(t, fe.StructNamespace()))
		e := &FieldError{Rule: fe.Tag(), Param: fe.Param(), Message: ruleMessage(field, fe)}
		if field != "" {
			e.path = []string{field}
		}
		out = append(out, e)
	}
	return out, nil
}

// jsonPath turns a validator namespace of Go names ("Params.Items[2].Qty")
// into the JSON path of the same value ("items[2].qty") for struct type t.
func jsonPath(t reflect.Type, ns string) string {
	// Drop the top-level struct's name.
	if _, rest, ok := strings.Cut(ns, "."); ok {
		ns = rest
	} else {
		return ""
	}
	var b strings.Builder
	cur := t
	for ns != "" {
		seg := ns
		if i := strings.IndexByte(ns, '.'); i >= 0 {
			seg, ns = ns[:i], ns[i+1:]
		} else {
			ns = ""
		}
		name, subs, _ := strings.Cut(seg, "[")
		if subs != "" {
			subs = "[" + subs
		}
		jsonName := name
		for cur != nil && cur.Kind() == reflect.Pointer {
			cur = cur.Elem()
		}
		var next reflect.Type
		if cur != nil && cur.Kind() == reflect.Struct {
			if sf, ok := cur.FieldByName(name); ok {
				next = sf.Type
				tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
				switch {
				case tag != "":
					jsonName = tag
				case sf.Anonymous:
					jsonName = "" // promoted: its fields sit at this level
				}
			}
		}
		if jsonName != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(jsonName)
		}
		// Subscripts: indexes stay, map keys are quoted.
		for subs != "" {
			end := strings.IndexByte(subs, ']')
			if end < 0 {
				break
			}
			key := subs[1:end]
			subs = subs[end+1:]
			for next != nil && next.Kind() == reflect.Pointer {
				next = next.Elem()
			}
			if next != nil && next.Kind() == reflect.Map {
				b.WriteString("[" + strconv.Quote(key) + "]")
			} else {
				b.WriteString("[" + key + "]")
			}
			if next != nil && (next.Kind() == reflect.Map || next.Kind() == reflect.Slice || next.Kind() == reflect.Array) {
				next = next.Elem()
			}
		}
		cur = next
	}
	return b.String()
}

// ruleMessage says in English what a failed validation rule means.
func ruleMessage(field string, fe validator.FieldError) string {
	if field == "" {
		field = "params"
	}
	p := fe.Param()
	switch fe.Tag() {
	case "required", "required_if", "required_unless", "required_with", "required_without":
		return field + " is required"
	case "eq", "eq_ignore_case":
		return fmt.Sprintf("%s must be %s", field, p)
	case "ne", "ne_ignore_case":
		return fmt.Sprintf("%s must not be %s", field, p)
	case "gt":
		return fmt.Sprintf("%s must be greater than %s", field, p)
	case "gte":
		return fmt.Sprintf("%s must be at least %s", field, p)
	case "lt":
		return fmt.Sprintf("%s must be less than %s", field, p)
	case "lte":
		return fmt.Sprintf("%s must be at most %s", field, p)
	case "min":
		return fmt.Sprintf("%s must be at least %s%s", field, p, sizeUnit(fe.Kind()))
	case "max":
		return fmt.Sprintf("%s must be at most %s%s", field, p, sizeUnit(fe.Kind()))
	case "len":
		return fmt.Sprintf("%s must be exactly %s%s", field, p, sizeUnit(fe.Kind()))
	case "oneof":
		return fmt.Sprintf("%s must be one of [%s]", field, p)
	}
	if p != "" {
		return fmt.Sprintf("%s fails the %s=%s rule", field, fe.Tag(), p)
	}
	return fmt.Sprintf("%s fails the %s rule", field, fe.Tag())
}

func sizeUnit(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return " characters long"
	case reflect.Slice, reflect.Array, reflect.Map:
		return " items long"
	}
	return ""
}
