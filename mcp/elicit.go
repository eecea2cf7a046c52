package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// ElicitParams are the params of elicitation/create in form mode: a
// message for the user, and the form's fields, in the order they are
// shown.
type ElicitParams struct {
	// Message tells the user what is asked, and why.
	Message string
	// Fields are the form's fields: [StringField], [NumberField],
	// [BooleanField], [EnumField], [MultiEnumField]. Their names must be
	// distinct, not empty, and UTF-8 text.
	Fields []Field
	// Required names the fields the user must fill in, each once.
	Required []string
}

// Field is a field of an elicitation form: one of the protocol's
// primitive schemas (a flat form has no nesting).
type Field interface {
	fieldName() string
	appendSchema(dst []byte) ([]byte, error)
	// plain is the field as the value of the package's type whose schema
	// it is sent as (it may be given by pointer, or embedded in another
	// type).
	plain() Field
}

// StringField is a field of text.
type StringField struct {
	Name, Title, Description string
	// MinLength and MaxLength bound its length when not nil; they are
	// not negative.
	MinLength, MaxLength *int
	// Format is "email", "uri", "date" or "date-time", or "" for none.
	Format string
	// Default, when not nil, is the value the form starts with.
	Default *string
}

// NumberField is a field of a number; Integer asks for an integer.
type NumberField struct {
	Name, Title, Description string
	Integer                  bool
	Minimum, Maximum         *float64
	Default                  *float64
}

// BooleanField is a field of a yes or a no.
type BooleanField struct {
	Name, Title, Description string
	Default                  *bool
}

// EnumField is a choice of one of Values (distinct). With Titles (as many as Values)
// each value is shown by its title: a titled enum (oneOf, each a const and
// its title), or, with LegacyTitles, the enumNames of 2025-06-18, which
// later revisions deprecate.
type EnumField struct {
	Name, Title, Description string
	Values                   []string
	Titles                   []string
	LegacyTitles             bool
	Default                  *string
}

// MultiEnumField is a choice of any of Values (distinct; an array of them), each
// shown by its title when Titles are given (as many as Values).
type MultiEnumField struct {
	Name, Title, Description string
	Values                   []string
	Titles                   []string
	MinItems, MaxItems       *int
	Default                  []string
}

func (f StringField) fieldName() string    { return f.Name }
func (f NumberField) fieldName() string    { return f.Name }
func (f BooleanField) fieldName() string   { return f.Name }
func (f EnumField) fieldName() string      { return f.Name }
func (f MultiEnumField) fieldName() string { return f.Name }

func (f StringField) plain() Field    { return f }
func (f NumberField) plain() Field    { return f }
func (f BooleanField) plain() Field   { return f }
func (f EnumField) plain() Field      { return f }
func (f MultiEnumField) plain() Field { return f }

// appendHead appends the start of a field's schema: its type, title and
// description.
func appendHead(b []byte, typ, title, description string) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, '"')
	if title != "" {
		b = append(b, `,"title":`...)
		b = jsonx.AppendString(b, title)
	}
	if description != "" {
		b = append(b, `,"description":`...)
		b = jsonx.AppendString(b, description)
	}
	return b
}

// appendInt appends ,"key":n when n is not nil; n, a bound of the
// field's length or count, must not be negative.
func appendInt(b []byte, field, key string, n *int) ([]byte, error) {
	if n == nil {
		return b, nil
	}
	if *n < 0 {
		return nil, fmt.Errorf("field %s: %s %d is negative", field, key, *n)
	}
	return strconv.AppendInt(append(b, `,"`+key+`":`...), int64(*n), 10), nil
}

// appendNumber appends ,"key":x when x is not nil.
func appendNumber(b []byte, key string, x *float64) ([]byte, error) {
	if x == nil {
		return b, nil
	}
	v, err := json.Marshal(*x)
	if err != nil {
		return nil, err
	}
	return append(append(b, `,"`+key+`":`...), v...), nil
}

// appendStrings appends a JSON array of ss.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, s)
	}
	return append(b, ']')
}

// appendTitled appends the titled options: [{"const":v,"title":t},...].
func appendTitled(b []byte, values, titles []string) []byte {
	b = append(b, '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(append(b, `{"const":`...), v)
		b = jsonx.AppendString(append(b, `,"title":`...), titles[i])
		b = append(b, '}')
	}
	return append(b, ']')
}

func (f StringField) appendSchema(b []byte) ([]byte, error) {
	b = appendHead(b, "string", f.Title, f.Description)
	b, err := appendInt(b, f.Name, "minLength", f.MinLength)
	if err == nil {
		b, err = appendInt(b, f.Name, "maxLength", f.MaxLength)
	}
	if err != nil {
		return nil, err
	}
	if f.Format != "" {
		b = jsonx.AppendString(append(b, `,"format":`...), f.Format)
	}
	if f.Default != nil {
		b = jsonx.AppendString(append(b, `,"default":`...), *f.Default)
	}
	return append(b, '}'), nil
}

func (f NumberField) appendSchema(b []byte) ([]byte, error) {
	typ := "number"
	if f.Integer {
		typ = "integer"
	}
	b = appendHead(b, typ, f.Title, f.Description)
	var err error
	for _, n := range []struct {
		key string
		x   *float64
	}{{"minimum", f.Minimum}, {"maximum", f.Maximum}, {"default", f.Default}} {
		if b, err = appendNumber(b, n.key, n.x); err != nil {
			return nil, fmt.Errorf("field %s: %s: %w", f.Name, n.key, err)
		}
	}
	return append(b, '}'), nil
}

func (f BooleanField) appendSchema(b []byte) ([]byte, error) {
	b = appendHead(b, "boolean", f.Title, f.Description)
	if f.Default != nil {
		b = strconv.AppendBool(append(b, `,"default":`...), *f.Default)
	}
	return append(b, '}'), nil
}

// checkOptions checks the values and titles of an enum field: values,
// distinct, of UTF-8 text, and as many titles, if any.
func checkOptions(name string, values, titles []string) error {
	if len(values) == 0 {
		return fmt.Errorf("field %s has no values", name)
	}
	if titles != nil && len(titles) != len(values) {
		return fmt.Errorf("field %s has %d titles for %d values", name, len(titles), len(values))
	}
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		if seen[v] { // a titled enum's oneOf would match it twice: never
			return fmt.Errorf("field %s has value %q twice", name, v)
		}
		if !utf8.ValidString(v) { // sent as U+FFFD: no answer would give it
			return fmt.Errorf("field %s has value %q, not UTF-8 text", name, v)
		}
		seen[v] = true
	}
	return nil
}

func (f EnumField) appendSchema(b []byte) ([]byte, error) {
	if err := checkOptions(f.Name, f.Values, f.Titles); err != nil {
		return nil, err
	}
	b = appendHead(b, "string", f.Title, f.Description)
	switch {
	case f.Titles != nil && !f.LegacyTitles:
		b = appendTitled(append(b, `,"oneOf":`...), f.Values, f.Titles)
	default:
		b = appendStrings(append(b, `,"enum":`...), f.Values)
		if f.Titles != nil {
			b = appendStrings(append(b, `,"enumNames":`...), f.Titles)
		}
	}
	if f.Default != nil {
		b = jsonx.AppendString(append(b, `,"default":`...), *f.Default)
	}
	return append(b, '}'), nil
}

func (f MultiEnumField) appendSchema(b []byte) ([]byte, error) {
	if err := checkOptions(f.Name, f.Values, f.Titles); err != nil {
		return nil, err
	}
	b = appendHead(b, "array", f.Title, f.Description)
	b, err := appendInt(b, f.Name, "minItems", f.MinItems)
	if err == nil {
		b, err = appendInt(b, f.Name, "maxItems", f.MaxItems)
	}
	if err != nil {
		return nil, err
	}
	if f.Titles != nil {
		b = appendTitled(append(b, `,"items":{"anyOf":`...), f.Values, f.Titles)
	} else {
		b = appendStrings(append(b, `,"items":{"type":"string","enum":`...), f.Values)
	}
	b = append(b, '}')
	if f.Default != nil {
		b = appendStrings(append(b, `,"default":`...), f.Default)
	}
	return append(b, '}'), nil
}

// MarshalJSON encodes the params as the protocol has them: the message,
// and the form as requestedSchema, a flat object schema.
func (p ElicitParams) MarshalJSON() ([]byte, error) {
	b := jsonx.AppendString([]byte(`{"message":`), p.Message)
	b = append(b, `,"requestedSchema":{"type":"object","properties":{`...)
	seen := map[string]bool{}
	for i, f := range p.Fields {
		if v := reflect.ValueOf(f); f == nil || v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, errors.New("mcp: an ElicitParams holds a nil Field")
		}
		name := f.fieldName()
		if name == "" || seen[name] {
			return nil, fmt.Errorf("mcp: the fields of an ElicitParams need distinct names, not %q", name)
		}
		if !utf8.ValidString(name) { // sent as U+FFFD: no answer would name it
			return nil, fmt.Errorf("mcp: the fields of an ElicitParams need names of UTF-8 text, not %q", name)
		}
		seen[name] = true
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonx.AppendString(b, name), ':')
		var err error
		if b, err = f.appendSchema(b); err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
	}
	b = append(b, '}')
	if len(p.Required) > 0 {
		required := make(map[string]bool, len(p.Required))
		for _, name := range p.Required {
			if !seen[name] {
				return nil, fmt.Errorf("mcp: ElicitParams requires %q, which is not one of its fields", name)
			}
			if required[name] {
				return nil, fmt.Errorf("mcp: ElicitParams requires %q twice", name)
			}
			required[name] = true
		}
		b = appendStrings(append(b, `,"required":`...), p.Required)
	}
	return append(b, "}}"...), nil
}

// ElicitResult is the user's answer to elicitation/create.
type ElicitResult struct {
	// Action is "accept" (Content holds the form's values), "decline" or
	// "cancel".
	Action string `json:"action"`
	// Content is the form's values, by field name, when accepted.
	Content json.RawMessage `json:"content,omitempty"`
}

// shaped reports whether the result is one the protocol allows: an action
// of its enum, and content, when there is some, a flat object of strings,
// numbers, booleans and arrays of strings (the values a form holds).
func (r *ElicitResult) shaped() bool {
	switch r.Action {
	case "accept", "decline", "cancel":
	default:
		return false
	}
	if r.Content == nil {
		return true
	}
	// A scan, never a map: an answer of a million members costs its
	// length in time, and nothing held (TestAttackElicitAnswerCost).
	return eachMember(r.Content, func(_, v []byte) bool {
		switch v[0] {
		case '"', 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return true
		case '[':
			return eachItem(v, func(item []byte) bool { return item[0] == '"' }) // a null would decode as "" into a string
		}
		return false
	})
}

// Accepted reports whether the user accepted the form.
func (r *ElicitResult) Accepted() bool { return r.Action == "accept" }

// Decode decodes the form's values into v (a pointer to a struct or a
// map), as encoding/json does.
func (r *ElicitResult) Decode(v any) error {
	if r.Content == nil {
		return errors.New("mcp: the elicitation's answer holds no content (action " + strconv.Quote(r.Action) + ")")
	}
	return json.Unmarshal(r.Content, v)
}

// Elicit asks the user, through the client of the tools/call ctx belongs
// to, to fill in a form (elicitation/create, form mode), and returns the
// answer. The client must have declared the elicitation capability (in
// form mode): otherwise nothing is sent, and the error wraps
// [ErrClientCapability]. It is sent and answered as [CreateMessage]'s
// request is: in a legacy session, waiting as long as ctx lets it; in
// 2026-07-28, through the call's retry (the error wraps
// [ErrInputRequired] until then). An answer whose action is not
// "accept", "decline" or "cancel", or whose content is not a flat object
// of strings, numbers, booleans and arrays of strings, is an error; so is
// an accepted answer that does not fit the form (a required field
// missing, a value of the wrong type, out of its bounds or not one of its
// choices, a member named as a field but for case, which Decode would
// take for it: the error wraps [ErrFormAnswer]), as a server should not trust
// what a client says the user entered. Decode the values into a struct of
// their types.
func Elicit(ctx context.Context, params *ElicitParams) (*ElicitResult, error) {
	if params == nil {
		return nil, errors.New("mcp: Elicit needs params")
	}
	var res ElicitResult
	if err := ask(ctx, methodElicit, params, &res); err != nil {
		return nil, err
	}
	if err := params.Check(&res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Ptr returns a pointer to v: for the defaults and bounds of a form's
// fields.
func Ptr[T any](v T) *T { return &v }
