package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/mcp"
)

// A member whose name differs from a field's only in case (ASCII or
// Unicode simple folding: "NAME", "ſ" for "s", "K" Kelvin for "k") is one
// encoding/json decodes into the field's struct member, so the tool's
// Decode would take its value, which was never checked: such a member is
// refused (ErrFormAnswer), with the field's own member or without it.
func TestAttackElicitFoldedName(t *testing.T) {
	const misfit = "mcp: the answer does not fit the form: "
	long := strings.Repeat("é", 21)
	tests := []formAnswer{
		{`{"action":"accept","content":{"name":"Bo","NAME":"` + long + `"}}`, misfit + `member "NAME" is not field "name" but would be decoded as it`},
		{`{"action":"accept","content":{"name":"Bo","Name":5}}`, misfit + `member "Name" is not field "name" but would be decoded as it`},
		{`{"action":"accept","content":{"name":"Bo","nAmE":"x","age":1}}`, misfit + `member "nAmE" is not field "name" but would be decoded as it`},
		{`{"action":"accept","content":{"name":"Bo","Age":-1}}`, misfit + `member "Age" is not field "age" but would be decoded as it`},
		{`{"action":"accept","content":{"name":"Bo","\u017fizes":["z"]}}`, misfit + `member "ſizes" is not field "sizes" but would be decoded as it`},
		{`{"action":"accept","content":{"name":"Bo","colo\u0280":"x"}}`, "accept Bo"},
		{`{"action":"accept","content":{"name":"Bo","names":"x","nam":"y"}}`, "accept Bo"},
	}
	serveFormAnswers(t, tests)
}

// An array of the answer's content holds strings only: a null in one is
// not the empty string (encoding/json decodes it so into a []string),
// whether the member is a field's or names none; the answer is not the
// result of an elicitation.
func TestAttackElicitNullItem(t *testing.T) {
	const notForm = `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"mcp: the client's answer to elicitation/create is not the result of one"}],"isError":true},"id":2}`
	for _, c := range []struct{ name, answer, want string }{
		{"null in a field's array", `{"action":"accept","content":{"name":"Bo","tags":["x",null]}}`, notForm},
		{"null alone", `{"action":"accept","content":{"name":"Bo","tags":[null]}}`, notForm},
		{"null in another member", `{"action":"accept","content":{"name":"Bo","other":[null]}}`, notForm},
		{"null declined", `{"action":"decline","content":{"other":["a",null]}}`, notForm},
		{"strings", `{"action":"accept","content":{"name":"Bo","other":["", "null"]}}`, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"accept Bo"}]},"id":2}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			serveSteps(t, newAskers(t), `
				--> `+askInit+`
				<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}
				--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"form"}}
				<-- `+fmt.Sprintf(formRequest, 1)+`
				--> {"jsonrpc":"2.0","id":1,"result":`+c.answer+`}
				<-- `+c.want+`
			`)
		})
	}
}

// A form that cannot be sent as the schema it means is refused when it is
// encoded (so Elicit fails before asking), never a panic: a Field that is
// a nil pointer; a choice among values one of which is given twice (the
// titled enum's oneOf would match that value twice: no answer could
// choose it); a name or a value that is not UTF-8 text (it would be sent
// as U+FFFD, and the answer that gives it back would not fit); a bound of
// a length or a count that is negative, or a field required twice (the
// schema would not be one: JSON Schema 2020-12 has them non-negative, and
// required's names unique).
func TestAttackElicitFormRefused(t *testing.T) {
	tests := []struct {
		name   string
		params mcp.ElicitParams
		want   string
	}{
		{"nil StringField", mcp.ElicitParams{Fields: []mcp.Field{(*mcp.StringField)(nil)}}, "mcp: an ElicitParams holds a nil Field"},
		{"nil NumberField", mcp.ElicitParams{Fields: []mcp.Field{mcp.StringField{Name: "a"}, (*mcp.NumberField)(nil)}}, "mcp: an ElicitParams holds a nil Field"},
		{"nil BooleanField", mcp.ElicitParams{Fields: []mcp.Field{(*mcp.BooleanField)(nil)}}, "mcp: an ElicitParams holds a nil Field"},
		{"nil EnumField", mcp.ElicitParams{Fields: []mcp.Field{(*mcp.EnumField)(nil)}}, "mcp: an ElicitParams holds a nil Field"},
		{"nil MultiEnumField", mcp.ElicitParams{Fields: []mcp.Field{(*mcp.MultiEnumField)(nil)}}, "mcp: an ElicitParams holds a nil Field"},
		{"nil interface", mcp.ElicitParams{Fields: []mcp.Field{nil}}, "mcp: an ElicitParams holds a nil Field"},
		{"titled enum value twice", mcp.ElicitParams{Fields: []mcp.Field{mcp.EnumField{Name: "e", Values: []string{"a", "b", "a"}, Titles: []string{"A", "B", "C"}}}}, `mcp: field e has value "a" twice`},
		{"enum value twice", mcp.ElicitParams{Fields: []mcp.Field{&mcp.EnumField{Name: "e", Values: []string{"a", "a"}}}}, `mcp: field e has value "a" twice`},
		{"name not UTF-8", mcp.ElicitParams{Fields: []mcp.Field{mcp.StringField{Name: "a\xff"}}, Required: []string{"a\xff"}}, `mcp: the fields of an ElicitParams need names of UTF-8 text, not "a\xff"`},
		{"enum value not UTF-8", mcp.ElicitParams{Fields: []mcp.Field{mcp.EnumField{Name: "e", Values: []string{"a", "\xc3"}}}}, `mcp: field e has value "\xc3", not UTF-8 text`},
		{"multi-enum value not UTF-8", mcp.ElicitParams{Fields: []mcp.Field{mcp.MultiEnumField{Name: "m", Values: []string{"\xed\xa0\x80"}}}}, `mcp: field m has value "\xed\xa0\x80", not UTF-8 text`},
		{"minLength negative", mcp.ElicitParams{Fields: []mcp.Field{mcp.StringField{Name: "s", MinLength: mcp.Ptr(-1)}}}, `mcp: field s: minLength -1 is negative`},
		{"maxLength negative", mcp.ElicitParams{Fields: []mcp.Field{&mcp.StringField{Name: "s", MaxLength: mcp.Ptr(-2)}}}, `mcp: field s: maxLength -2 is negative`},
		{"minItems negative", mcp.ElicitParams{Fields: []mcp.Field{mcp.MultiEnumField{Name: "m", Values: []string{"a"}, MinItems: mcp.Ptr(-1)}}}, `mcp: field m: minItems -1 is negative`},
		{"maxItems negative", mcp.ElicitParams{Fields: []mcp.Field{mcp.MultiEnumField{Name: "m", Values: []string{"a"}, MaxItems: mcp.Ptr(-1)}}}, `mcp: field m: maxItems -1 is negative`},
		{"required twice", mcp.ElicitParams{Fields: []mcp.Field{mcp.StringField{Name: "s"}}, Required: []string{"s", "s"}}, `mcp: ElicitParams requires "s" twice`},
		{"multi-enum value twice", mcp.ElicitParams{Fields: []mcp.Field{mcp.MultiEnumField{Name: "m", Values: []string{"", ""}, Titles: []string{"A", "B"}}}}, `mcp: field m has value "" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := func() (msg string) {
				defer func() {
					if p := recover(); p != nil {
						msg = fmt.Sprint("panic: ", p)
					}
				}()
				b, err := tt.params.MarshalJSON()
				if err != nil {
					return err.Error()
				}
				return string(b)
			}()
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
