package mcp

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fuzzForm is a form with a field of every kind and every bound, and
// two whose names differ only in case.
var fuzzForm = ElicitParams{
	Message: "?",
	Fields: []Field{
		StringField{Name: "s", MinLength: Ptr(1), MaxLength: Ptr(3), Format: "email"},
		NumberField{Name: "n", Minimum: Ptr(-1.5), Maximum: Ptr(0.1)},
		&NumberField{Name: "i", Integer: true, Minimum: Ptr(0.0)},
		BooleanField{Name: "b"},
		EnumField{Name: "e", Values: []string{"a", "é"}},
		EnumField{Name: "t", Values: []string{"x", "y"}, Titles: []string{"X", "Y"}},
		EnumField{Name: "l", Values: []string{"p"}, Titles: []string{"P"}, LegacyTitles: true},
		MultiEnumField{Name: "m", Values: []string{"a", "b"}, MinItems: Ptr(1), MaxItems: Ptr(2)},
		MultiEnumField{Name: "u", Values: []string{"a"}, Titles: []string{"A"}},
		&labelled{StringField: StringField{Name: "S", MaxLength: Ptr(1)}}, // "s" but for case, by embedding
	},
	Required: []string{"s", "i"},
}

// numberToken finds the numbers of a JSON text (outside strings, roughly:
// a string holding one only makes the fuzz skip an input).
var numberToken = regexp.MustCompile(`-?\d+(\.\d+)?([eE][-+]?\d+)?`)

// FuzzElicitFits holds fits to a JSON Schema 2020-12 validator
// (santhosh-tekuri/jsonschema) given the requestedSchema the form is sent
// as: for any accepted content the protocol allows, fits finds no problem
// exactly when the validator finds none. A number that is not the shortest
// decimal of a float64 (as the bounds are written) is left out: fits
// compares float64s, as documented; so is a member named as a field but
// for case, which fits refuses (Decode would take it for the field).
func FuzzElicitFits(f *testing.F) {
	params, err := fuzzForm.MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	var msg struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &msg); err != nil {
		f.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg.RequestedSchema))
	if err != nil {
		f.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///form.json", doc); err != nil {
		f.Fatal(err)
	}
	sch, err := c.Compile("mem:///form.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"s":"ab","i":0}`, `{"s":"","i":0}`, `{"s":"abcd","i":1}`, `{"s":"é","i":2.0,"n":0.1}`,
		`{"s":"a","i":1.5}`, `{"s":"a","i":-1}`, `{"s":"a","i":0,"n":-1.6}`, `{"s":"a","i":0,"b":true,"e":"é","t":"y","l":"p","m":["a","b"],"u":["a"]}`,
		`{"s":"a","i":0,"m":[]}`, `{"s":"a","i":0,"m":["a","a","b"]}`, `{"s":"a","i":0,"e":"b"}`, `{"s":"a","i":0,"x":[]}`,
		`{"s":1,"i":0}`, `{"i":0}`, `{}`, `{"s":"a","i":0,"b":"true"}`, `{"s":"a","i":1e2}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		res := ElicitResult{Action: "accept", Content: json.RawMessage(content)}
		if !json.Valid(res.Content) || len(content) == 0 || !res.shaped() {
			return // refused before fits is asked
		}
		for _, tok := range numberToken.FindAllString(content, -1) {
			if len(tok) > 40 {
				return
			}
			exact, ok := new(big.Rat).SetString(tok)
			x, err := strconv.ParseFloat(tok, 64)
			if !ok || err != nil {
				return
			}
			if shortest, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64)); shortest.Cmp(exact) != 0 {
				return // not the shortest decimal of a float64, as the bounds are written
			}
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(res.Content, &members) != nil {
			return
		}
		for name := range members {
			exact, folds := false, false
			for _, f := range fuzzForm.Fields {
				exact = exact || name == f.fieldName()
				folds = folds || strings.EqualFold(name, f.fieldName())
			}
			if folds && !exact {
				return // a name that is a field's but for case: refused, stricter than the schema
			}
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Content))
		if err != nil {
			t.Fatal(err)
		}
		want := sch.Validate(inst)
		got := fuzzForm.fits(res.Content)
		if (got == nil) != (want == nil) {
			t.Fatalf("%s: fits says %v, the schema %v", content, got, want)
		}
	})
}
