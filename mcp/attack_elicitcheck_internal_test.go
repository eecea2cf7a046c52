package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
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
	tests := []fitsCase{
		{`{"s":"a","p":"ab","n":2}`, ""},
		{`{"s":"abc"}`, `mcp: the answer does not fit the form: field "s" has 3 characters, out of its bounds`},
		{`{"s":1}`, `mcp: the answer does not fit the form: field "s" must be a string`},
		{`{"s":"a","p":"a"}`, `mcp: the answer does not fit the form: field "p" has 1 characters, out of its bounds`},
		{`{"s":"a","n":1.5}`, `mcp: the answer does not fit the form: field "n" must be an integer`},
		{`{"s":"a","n":"1"}`, `mcp: the answer does not fit the form: field "n" must be a number`},
	}
	checkFits(t, &form, tests)
}

// fitsCase is an answer's content, and what fits says of it ("": it fits).
type fitsCase struct{ content, want string }

// checkFits checks what fits says of each content for form.
func checkFits(t *testing.T, form *ElicitParams, tests []fitsCase) {
	t.Helper()
	for _, tt := range tests {
		got := ""
		if err := form.fits(json.RawMessage(tt.content)); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%.40s: got %q, want %q", tt.content, got, tt.want)
		}
	}
}

// A multi-choice answer costs one look-up per item, whatever the number
// of values (a set of them, not a scan: 645,277 items of the last of 1,000
// values, 8 MiB, took 2.1 s, 0.18 s with one value; now 0.19 s), and one
// beyond its count bounds is refused on its count before its items are
// looked at.
func TestAttackElicitManyItems(t *testing.T) {
	values := make([]string, 1000)
	for i := range values {
		values[i] = fmt.Sprintf("v%03d", i)
	}
	form := ElicitParams{Fields: []Field{
		MultiEnumField{Name: "m", Values: []string{"a", "b"}, MaxItems: Ptr(2)},
		MultiEnumField{Name: "w", Values: values, MinItems: Ptr(1)},
	}}
	many := `["` + strings.Repeat(`v999","`, 9999) + `v000"]`
	tests := []fitsCase{
		{`{"m":["a","b","z"]}`, `mcp: the answer does not fit the form: field "m" has 3 items, out of its bounds`},
		{`{"m":["z","a"]}`, `mcp: the answer does not fit the form: field "m" must be an array of its values`},
		{`{"m":["b","b"]}`, ""},
		{`{"w":` + many + `}`, ""},
		{`{"w":["v999","v1000"]}`, `mcp: the answer does not fit the form: field "w" must be an array of its values`},
		{`{"w":[]}`, `mcp: the answer does not fit the form: field "w" has 0 items, out of its bounds`},
	}
	checkFits(t, &form, tests)
}

// Two fields whose names differ only in case are two fields: a member
// naming either exactly is that field's; one naming neither but folding
// to them is refused.
func TestAttackElicitFieldsFoldedAlike(t *testing.T) {
	form := ElicitParams{Fields: []Field{
		StringField{Name: "name", MaxLength: Ptr(1)},
		NumberField{Name: "Name", Integer: true},
	}}
	checkFits(t, &form, []fitsCase{
		{`{"name":"a","Name":2}`, ""},
		{`{"name":"a"}`, ""},
		{`{"Name":2}`, ""},
		{`{"name":"ab"}`, `mcp: the answer does not fit the form: field "name" has 2 characters, out of its bounds`},
		{`{"NAME":"ab"}`, `mcp: the answer does not fit the form: member "NAME" is not field "Name" but would be decoded as it`},
	})
}

// An integer field's answer is an integer in any notation (3.0, 3e0, -0.0),
// read exactly: 2.5 is not one, nor is 9007199254740993.5, which a float64
// rounds to an integer.
func TestElicitIntegerNotations(t *testing.T) {
	form := ElicitParams{Fields: []Field{NumberField{Name: "n", Integer: true, Minimum: Ptr(0.0)}}}
	const misfit = `mcp: the answer does not fit the form: field "n" `
	checkFits(t, &form, []fitsCase{
		{`{"n":3}`, ""},
		{`{"n":3.0}`, ""},
		{`{"n":3e0}`, ""},
		{`{"n":30e-1}`, ""},
		{`{"n":-0.0}`, ""},
		{`{"n":9007199254740993.0}`, ""},
		{`{"n":2.5}`, misfit + "must be an integer"},
		{`{"n":9007199254740993.5}`, misfit + "must be an integer"},
		{`{"n":1e-400}`, misfit + "must be an integer"},
		{`{"n":-1.0}`, misfit + "is out of its bounds"},
	})
}

// foldCase maps every rune of the planes in use to the least of its fold
// orbit, the ASCII ones (mapped without the Unicode tables) included,
// alone or among others, and invalid bytes as encoding/json reads them.
func TestFoldCaseIsTheLeastOfTheOrbit(t *testing.T) {
	for r := rune(0); r < 0x30000; r++ {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		if got, want := foldCase("a"+string(r)+"Z"), "A"+string(least)+"Z"; got != want {
			t.Fatalf("%U: %q, want %q", r, got, want)
		}
	}
	if got := foldCase("k\xffs"); got != "K\uFFFDS" {
		t.Fatalf("invalid UTF-8: %q", got)
	}
}
