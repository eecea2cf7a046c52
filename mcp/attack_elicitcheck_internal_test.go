package mcp

import (
	"encoding/json"
	"testing"
)

// labelled is a field of the caller's own type, embedding one of the
// package's: it is sent as the schema of the one it embeds.
type labelled struct {
	StringField
	label string
}

// numbered is another, embedding a pointer.
type numbered struct{ *NumberField }

// A field whose type embeds one of the package's (by value or pointer,
// given by value or pointer) is a Field, sent as the schema of the one
// it embeds; its answer is checked as that one's is, not let through.
func TestAttackElicitEmbeddedField(t *testing.T) {
	form := ElicitParams{
		Fields: []Field{
			labelled{StringField: StringField{Name: "s", MaxLength: Ptr(1)}, label: "L"},
			&labelled{StringField: StringField{Name: "p", MinLength: Ptr(2)}},
			numbered{&NumberField{Name: "n", Integer: true}},
		},
		Required: []string{"s"},
	}
	if _, err := form.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ content, want string }{
		{`{"s":"a","p":"ab","n":2}`, ""},
		{`{"s":"abc"}`, `mcp: the answer does not fit the form: field "s" has 3 characters, out of its bounds`},
		{`{"s":1}`, `mcp: the answer does not fit the form: field "s" must be a string`},
		{`{"s":"a","p":"a"}`, `mcp: the answer does not fit the form: field "p" has 1 characters, out of its bounds`},
		{`{"s":"a","n":1.5}`, `mcp: the answer does not fit the form: field "n" must be an integer`},
		{`{"s":"a","n":"1"}`, `mcp: the answer does not fit the form: field "n" must be a number`},
	}
	for _, tt := range tests {
		got := ""
		if err := form.fits(json.RawMessage(tt.content)); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.content, got, tt.want)
		}
	}
}
