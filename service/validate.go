package service

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/fields"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
)

// FieldError is one problem with a call's params. An InvalidParams error
// carries a list of them, [FieldErrors], as its data:
//
//	{"code":-32602,"message":"Invalid params","data":[
//	  {"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]}
//
// What a peer sent is repeated in a FieldError at most codec.MaxEcho (256)
// bytes at a time (a member name, a map key, a value), cut before a
// character ("…" and the original length follow what is kept), and each of
// Field, Param and Message is at most MaxFieldText bytes, shortened the same
// way.
type FieldError struct {
	// Field is the JSON path of the value at fault (items[2].qty), or ""
	// for the params as a whole. Map keys, and member names that are empty
	// or hold '.', '[' or ']', are quoted as JSON strings in brackets:
	// tags["a.b"].
	Field string `json:"field"`
	// Rule is the validation tag that failed (required, ne, max, ...), or
	// what decoding found: type (a value of the wrong JSON type), range (a
	// number that does not fit), unknown (a member that matches no field),
	// duplicate (a member given twice), count (the wrong number of
	// positional params, none at all included, or of array elements),
	// shape (positional params where names are needed, or the reverse),
	// syntax (not JSON). The rule more ends a list cut at MaxFieldErrors:
	// Param says how many problems were left out.
	Rule string `json:"rule"`
	// Param is the rule's parameter (the 0 of ne=0), or the type expected.
	Param string `json:"param,omitempty"`
	// Message says what is wrong, in English.
	Message string `json:"message"`
}

// MaxFieldErrors is the most problems one InvalidParams answer lists. When
// there are more, the list holds the first MaxFieldErrors and then one more
// entry that counts the rest:
//
//	{"field":"","rule":"more","param":"900","message":"900 more problems not listed"}
//
// Every problem is still found (every element of a params array is
// validated, so the count is exact), but only the first MaxFieldErrors are
// described.
//
// Decoding problems are listed too, all of them: each member of named
// params (and of an object within them) that is unknown, given twice, of
// the wrong type or out of range is a problem of its own; an array (a
// params array included) stops at its first. The decoding problems come
// first, in the order of the input; then, for named params of a struct,
// what validation finds in the members that decoded without a problem (a
// member at fault is not validated: its value is not what was sent). So
// {"title":"","tags":[6 items],"colour":1} is answered with colour
// (unknown), title (required) and tags (max) in one list.
const MaxFieldErrors = 100 // bind.MaxErrors too (TestMaxFieldErrors)

// MaxFieldText is the most bytes of a [FieldError]'s Field, Param or Message;
// a longer one (a path many levels deep, the text of a custom decoder's
// error) is cut before a character, and "…" and its length follow.
const MaxFieldText = 1024

// finish bounds every text of e.
func (e *FieldError) finish() {
	e.Field = jsonx.Shorten(e.Field, MaxFieldText)
	e.Param = jsonx.Shorten(e.Param, MaxFieldText)
	e.Message = jsonx.Shorten(e.Message, MaxFieldText)
}

// quoted is a string a peer sent, shortened by jsonx.Echo and quoted as a
// JSON string: how a FieldError names a key or a value.
func quoted[T ~string | ~[]byte](s T) string {
	return string(jsonx.AppendString(nil, jsonx.Echo(s)))
}

// FieldErrors is the data of an InvalidParams error: the problems found, at
// most MaxFieldErrors of them and then, when there were more, an entry
// (rule more) that counts the rest.
type FieldErrors []*FieldError

// AppendJSON appends the list as a JSON array, the value encoding/json
// would give (escapes aside); it makes FieldErrors a codec.Appender, so that
// an answer is encoded once, straight into its line.
func (l FieldErrors) AppendJSON(dst []byte) ([]byte, error) {
	if l == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, e := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		if e == nil {
			dst = append(dst, "null"...)
			continue
		}
		dst = append(dst, `{"field":`...)
		dst = jsonx.AppendString(dst, e.Field)
		dst = append(dst, `,"rule":`...)
		dst = jsonx.AppendString(dst, e.Rule)
		if e.Param != "" {
			dst = append(dst, `,"param":`...)
			dst = jsonx.AppendString(dst, e.Param)
		}
		dst = append(dst, `,"message":`...)
		dst = jsonx.AppendString(dst, e.Message)
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// problems gathers the FieldErrors of one answer: the first MaxFieldErrors,
// finished, and a count of the rest.
type problems struct {
	list FieldErrors
	more int
	// jsonFields holds fields.Of of the structs the paths went through.
	jsonFields map[reflect.Type][]fields.Field
}

// room is how many more problems the list takes.
func (p *problems) room() int { return MaxFieldErrors - len(p.list) }

// add adds e to the list, or counts it once the list is full.
func (p *problems) add(e *FieldError) {
	if p.room() <= 0 {
		p.more++
		return
	}
	e.finish()
	p.list = append(p.list, e)
}

// err is the InvalidParams error that carries the problems, or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := p.list
	if p.more > 0 {
		n, noun := strconv.Itoa(p.more), " more problems not listed"
		if p.more == 1 {
			noun = " more problem not listed"
		}
		list = append(list, &FieldError{Rule: "more", Param: n, Message: n + noun})
	}
	return rpc.NewError(codec.InvalidParams, "").WithData(list)
}

// invalidParams is the InvalidParams error that carries e.
func invalidParams(e *FieldError) error {
	var p problems
	p.add(e)
	return p.err()
}

// hasValidateTags reports whether t, or a type it holds, has a field with a
// validate tag. It walks the Go fields, as the validator does, not the ones
// JSON decodes (package internal/fields): a rule on a field tagged "-" is
// checked too, on the value decoding leaves there.
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

// checkDefault judges the default of field f of struct type t, decoded
// into v, at registration: it must pass the field's validate rules, and
// the value's own when it is a struct (or points to one). A default with
// required is a contradiction: the member is never absent.
func (val validation) checkDefault(t reflect.Type, f fields.Field, v reflect.Value) error {
	tag := f.Tag.Get("validate")
	if tag == "-" {
		return nil
	}
	for rule := range strings.SplitSeq(tag, ",") {
		if rule == "dive" || rule == "keys" {
			break // the rules after are the elements'
		}
		if rule == "required" {
			return errors.New("a field with a default cannot be required: its member is never absent")
		}
	}
	if tag != "" {
		if err := val.v.Var(v.Interface(), tag); err != nil {
			return fmt.Errorf("fails validate %q", tag)
		}
	}
	st := f.Type
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		if err := val.v.Struct(v.Interface()); err != nil {
			return fmt.Errorf("fails validation: %w", err)
		}
	}
	return nil
}

// check validates the struct (or pointer to struct) x, whose JSON path is
// prefix, and adds a FieldError per failure to p: only as many as p has
// room for are described, the rest are counted.
func (val validation) check(ctx context.Context, x reflect.Value, prefix string, p *problems) error {
	err := val.v.StructCtx(ctx, x.Interface())
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return err
	}
	t := x.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	described := verrs[:max(0, min(len(verrs), p.room()))]
	for _, fe := range described {
		field := p.jsonPath(prefix, t, fe.StructNamespace())
		p.add(&FieldError{Field: field, Rule: fe.Tag(), Param: fe.Param(), Message: ruleMessage(field, fe)})
	}
	p.more += len(verrs) - len(described)
	return nil
}

// jsonPath appends to prefix the JSON path of the value that a validator
// namespace of Go names ("Params.Items[2].Qty") names in struct type t
// ("items[2].qty"). A field is named as package internal/fields names it
// for the binder; one that JSON does not decode (tagged "-", or its name
// held by another field at its depth) by its Go name.
func (p *problems) jsonPath(prefix string, t reflect.Type, ns string) string {
	// Drop the top-level struct's name; an unnamed struct type (params
	// declared as struct{...}) has none, its namespace starts with a
	// field ("Items[2].Qty").
	if t.Name() != "" {
		_, rest, ok := strings.Cut(ns, ".")
		if !ok {
			return prefix
		}
		ns = rest
	}
	var b strings.Builder
	b.WriteString(prefix)
	cur := t     // the type the next segment is a field of
	obj := t     // the struct whose JSON object holds that field
	var at []int // the Go path from obj to cur, through embedded structs
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
		cur = derefAll(cur)
		var next reflect.Type
		if cur != nil && cur.Kind() == reflect.Struct && obj != nil && obj.Kind() == reflect.Struct {
			if sf, ok := cur.FieldByName(name); ok {
				next = sf.Type
				index := append(slices.Clip(at), sf.Index...)
				f := p.jsonField(obj, index)
				if f == nil && sf.Anonymous && subs == "" {
					cur, at = next, index // promoted: its fields sit at this level
					continue
				}
				if f != nil {
					jsonName = f.Name
				}
			}
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(jsonName)
		// Subscripts: indexes stay, map keys are quoted.
		for subs != "" {
			end := strings.IndexByte(subs, ']')
			if end < 0 {
				break
			}
			key := subs[1:end]
			subs = subs[end+1:]
			next = derefAll(next)
			if next != nil && next.Kind() == reflect.Map {
				b.WriteString("[" + quoted(key) + "]")
			} else {
				b.WriteString("[" + key + "]")
			}
			if next != nil && (next.Kind() == reflect.Map || next.Kind() == reflect.Slice || next.Kind() == reflect.Array) {
				next = next.Elem()
			}
		}
		cur, obj, at = next, derefAll(next), nil
	}
	return b.String()
}

// jsonField returns the field of struct type obj at the Go path index
// among those JSON decodes, or nil.
func (p *problems) jsonField(obj reflect.Type, index []int) *fields.Field {
	fs, ok := p.jsonFields[obj]
	if !ok {
		if p.jsonFields == nil {
			p.jsonFields = map[reflect.Type][]fields.Field{}
		}
		fs = fields.Of(obj)
		p.jsonFields[obj] = fs
	}
	for i := range fs {
		if slices.Equal(fs[i].Index, index) {
			return &fs[i]
		}
	}
	return nil
}

// derefAll is t without its pointers; nil stays nil.
func derefAll(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
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
