package schema_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/schema"
)

func schemaOf[T any](t *testing.T, opts *schema.Options) string {
	t.Helper()
	s, err := schema.New(opts).For(reflect.TypeFor[T]())
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

const dialect = `"$schema":"https://json-schema.org/draft/2020-12/schema",`

// TestMappings pins the schema of the cases where validator's meaning is
// subtle; TestAgreement holds all of them to the server.
func TestMappings(t *testing.T) {
	type requiredKinds struct {
		S  string         `json:"s" validate:"required"`
		B  bool           `json:"b" validate:"required"`
		F  float64        `json:"f" validate:"required"`
		L  []int          `json:"l" validate:"required"`
		M  map[string]int `json:"m" validate:"required"`
		P  *int           `json:"p" validate:"required"`
		In inner          `json:"in" validate:"required"`
	}
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"s":{"type":"string","minLength":1},
		"b":{"const":true},
		"f":{"type":"number","not":{"const":0}},
		"l":{"type":"array","items":{"type":"integer"}},
		"m":{"type":"object","additionalProperties":{"type":"integer"}},
		"p":{"type":"integer"},
		"in":{"type":"object","properties":{"x":{"type":"integer"}},
			"additionalProperties":false,
			"not":{"type":"object","properties":{"x":{"const":0}},"additionalProperties":false}}},
		"required":["s","b","f","l","m","p","in"],"additionalProperties":false}`,
		schemaOf[requiredKinds](t, nil))

	type absentIsZero struct {
		Gt    int  `json:"gt" validate:"gt=0"`   // 0 fails: required, no null
		Gte   int  `json:"gte" validate:"gte=0"` // 0 passes: optional; null is refused
		Min   *int `json:"min" validate:"min=3"` // any rule on a nil pointer fails
		OptMn *int `json:"opt" validate:"omitempty,min=3"`
	}
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"gt":{"type":"integer","exclusiveMinimum":0},
		"gte":{"type":"integer","minimum":0},
		"min":{"type":"integer","minimum":3},
		"opt":{"type":["integer","null"],"minimum":3}},
		"required":["gt","min"],"additionalProperties":false}`,
		schemaOf[absentIsZero](t, nil))

	type strings struct {
		Mode  string   `json:"mode" validate:"omitempty,oneof=fast slow"`
		Name  string   `json:"name" validate:"min=2,max=4,alpha"`
		Tags  []string `json:"tags" validate:"omitempty,max=2,dive,required"`
		IDs   []string `json:"ids" validate:"unique"`
		Other string   `json:"other" validate:"omitempty,nefield=Name"`
	}
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"mode":{"enum":["","fast","slow"]},
		"name":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-zA-Z]+$"},
		"tags":{"type":["array","null"],"items":{"type":"string","minLength":1},"maxItems":2},
		"ids":{"type":["array","null"],"items":{"type":"string"},"uniqueItems":true},
		"other":{"anyOf":[{"const":""},{"type":"string"}],"x-validate":"nefield=Name"}},
		"required":["name"],"additionalProperties":false}`,
		schemaOf[strings](t, nil))
}

type inner struct {
	X int `json:"x"`
}

type tree struct {
	Name     string  `json:"name" validate:"required"`
	Children []*tree `json:"children" validate:"dive"`
}

type point struct {
	X, Y int
}

type shapes struct {
	From point   `json:"from"`
	To   point   `json:"to"`
	Path []point `json:"path"`
}

func TestDefinitions(t *testing.T) {
	// Recursive: the root is "#".
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"name":{"type":"string","minLength":1},
		"children":{"type":["array","null"],"items":{"anyOf":[{"type":"null"},{"$ref":"#"}]}}},
		"required":["name"],"additionalProperties":false}`,
		schemaOf[tree](t, nil))
	// Repeated: in $defs, once.
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"from":{"$ref":"#/$defs/point"},
		"to":{"$ref":"#/$defs/point"},
		"path":{"type":["array","null"],"items":{"$ref":"#/$defs/point"}}},
		"additionalProperties":false,
		"$defs":{"point":{"type":"object","properties":{
			"X":{"type":"integer"},
			"Y":{"type":"integer"}},
			"additionalProperties":false}}}`,
		schemaOf[shapes](t, nil))
	// Open objects.
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"X":{"type":"integer"},
		"Y":{"type":"integer"}}}`,
		schemaOf[point](t, &schema.Options{AllowUnknownFields: true}))
}

type described struct {
	A int `json:"a" jsonschema:"the first number, or nothing"`
}

type invopopStyle struct {
	A int `json:"a" jsonschema:"description=the first"`
}

type withCustomRule struct {
	Code string `json:"code" validate:"is_code"`
}

func TestTags(t *testing.T) {
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"a":{"description":"the first number, or nothing","type":"integer"}},
		"additionalProperties":false}`, schemaOf[described](t, nil))

	_, err := schema.New(nil).For(reflect.TypeFor[invopopStyle]())
	assert.ErrorContains(t, err, `schema: field A: jsonschema tag "description=the first"`)

	// A custom rule: named, and what it makes of an absent member is known
	// only with the validator that has it.
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"code":{"type":"string","x-validate":"is_code"}},"additionalProperties":false}`,
		schemaOf[withCustomRule](t, nil))
	v := validator.New(validator.WithRequiredStructEnabled())
	require.NoError(t, v.RegisterValidation("is_code", func(fl validator.FieldLevel) bool { return len(fl.Field().String()) == 3 }))
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"code":{"type":"string","x-validate":"is_code"}},"additionalProperties":false}`,
		schemaOf[withCustomRule](t, &schema.Options{Validator: v}))
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct{ C chan int }](), "schema: field C: type chan int cannot be decoded from JSON"},
		{reflect.TypeFor[struct{ E error }](), "schema: field E: interface type error cannot be decoded from JSON"},
		{reflect.TypeFor[map[[2]int]int](), "schema: map key type [2]int cannot be decoded from JSON"},
		{reflect.TypeFor[struct {
			X []int `validate:"dive,keys,min=1"`
		}](), `schema: field X: validate tag "dive,keys,min=1": keys without endkeys`},
		{reflect.TypeFor[struct {
			X int `validate:"required,,min=1"`
		}](), `schema: field X: validate tag "required,,min=1": an empty rule`},
	} {
		_, err := schema.New(nil).For(tc.typ)
		assert.EqualError(t, err, tc.want, tc.typ.String())
	}
}

func TestMarshalBooleans(t *testing.T) {
	b, err := json.Marshal([]*schema.Schema{{}, schema.False(), {Not: &schema.Schema{Type: []string{"null"}}}})
	require.NoError(t, err)
	assert.Equal(t, `[true,false,{"not":{"type":"null"}}]`, string(b))
}

func TestForIsCached(t *testing.T) {
	g := schema.New(nil)
	a, err := g.For(reflect.TypeFor[tree]())
	require.NoError(t, err)
	b, err := g.For(reflect.TypeFor[tree]())
	require.NoError(t, err)
	assert.Same(t, a, b)
}

// shared is a Provider that returns the same schema every time.
type shared struct{}

var sharedSchema = &schema.Schema{Type: []string{"string"}}

func (shared) JSONSchema() *schema.Schema { return sharedSchema }

func TestProviderAtTheRoot(t *testing.T) {
	s, err := schema.New(nil).For(reflect.TypeFor[shared]())
	require.NoError(t, err)
	assert.Equal(t, schema.Dialect, s.Schema)
	assert.Empty(t, sharedSchema.Schema, "the Provider's own schema is left as it was")
}
